#include "sim/config/arch_spec.h"

#include <filesystem>

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <set>

#include "sim/config/arch_fields.h"
#include "sim/config/arch_schema.h"
#include "core/clock.h"
#include "models/dma/clock_base.h"
#include "plan/rocc_plan.h"
#include "core/input_error.h"
#include "sim/config/link_file.h"
#include "sim/config/scalesim_cfg.h"
#include "core/text.h"
#include "core/yaml_file.h"
#include "models/interconnect/topologies.h"

namespace cstsim {

const std::vector<std::string>& arch_keys() {
  static const std::vector<std::string> keys = arch_schema().names();
  return keys;
}

namespace {

bool is_key(const std::string& key) {
  for (const std::string& k : arch_keys())
    if (k == key) return true;
  return false;
}

// Keys directly under `prefix` ("" for the top level, "array" for array.*), for error hints.
std::string keys_under(const std::string& prefix) {
  std::string out;
  std::set<std::string> seen;
  for (const std::string& k : arch_keys()) {
    std::string rest = k;
    if (!prefix.empty()) {
      if (k.compare(0, prefix.size() + 1, prefix + ".") != 0) continue;
      rest = k.substr(prefix.size() + 1);
    }
    rest = rest.substr(0, rest.find('.'));
    if (seen.insert(rest).second) out += (out.empty() ? "" : ", ") + rest;
  }
  return out;
}

bool is_group(const std::string& key) { return !keys_under(key).empty(); }

// ---- YAML -> fields ----

void read_yaml_map(const YAML::Node& map, const std::string& prefix, ArchFields& out) {
  std::set<std::string> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string name = it->first.Scalar();
    const std::string key = prefix.empty() ? name : prefix + "." + name;
    const int line = line_of(it->first);
    const YAML::Node value = it->second;  // a copy: it-> yields a temporary proxy
    if (!seen.insert(name).second) throw InputError(out.file, line, key, "duplicate key");
    if (!is_key(key) && is_group(key) && name.find('.') == std::string::npos) {
      if (!value.IsMap())
        throw InputError(out.file, line, key,
                         fmt::format("expected a map with keys {}, got {}", keys_under(key),
                                     yaml_kind(value)));
      read_yaml_map(value, key, out);
      continue;
    }
    // Dotted names are for --set only: the YAML spells each key one way, nested.
    if (!is_key(key) || name.find('.') != std::string::npos)
      throw InputError(out.file, line, key,
                       fmt::format("unknown key (expected one of: {})", keys_under(prefix)));
    if (value.IsNull()) throw InputError(out.file, line, key, "has no value");
    if (!value.IsScalar())
      throw InputError(out.file, line, key,
                       fmt::format("expected a single value, got {}", yaml_kind(value)));
    out.values[key] = {std::string(text::trim(value.Scalar())), out.file, line, key, value.Tag() == "!"};
  }
}

ArchFields read_arch_yaml(const std::string& path) {
  YAML::Node root = load_yaml_file(path);
  ArchFields out;
  out.file = path;
  if (!root.IsMap())
    throw InputError(path, line_of(root), "",
                     fmt::format("expected a map of arch keys, got {}", yaml_kind(root)));
  read_yaml_map(root, "", out);
  return out;
}

// ---- fields -> ArchSpec: the one place values are validated ----

[[noreturn]] void fail(const ArchField& f, const std::string& message) {
  throw InputError(f.file, f.line, f.key, message);
}

// The schema's row of `key` (arch_schema.cpp); a key the code asks for is always a row.
const schema::Key& arch_key(const std::string& key) {
  const schema::Key* k = arch_schema().find(key);
  if (!k) throw std::logic_error("arch schema has no key " + key);
  return *k;
}

// A number written as a quoted string ("8") is a type error, as the configs README says.
void refuse_quoted_number(const ArchField& f) {
  if (f.quoted) fail(f, fmt::format("expected a number, got the quoted string {} (write it without quotes)", text::quoted(f.text)));
}

// An integer key, checked against the range the schema gives it.
int64_t int_of(const ArchField& f, const std::string& key) {
  refuse_quoted_number(f);
  const schema::IntResult r = schema::check_integer(arch_key(key), f.text);
  if (!r.problem.empty()) fail(f, r.problem);
  return r.value;
}

// A number key, checked against its row's floor and rule.
double number_of(const ArchField& f, const std::string& key) {
  refuse_quoted_number(f);
  const schema::NumberResult r = schema::check_number(arch_key(key), f.text);
  if (!r.problem.empty()) fail(f, r.problem);
  return r.value;
}

// A choice key: one of the values the schema lists.
const std::string& choice_of(const ArchField& f, const std::string& key) {
  const schema::Key& k = arch_key(key);
  for (const std::string& c : k.choices)
    if (f.text == c) return c;
  fail(f, fmt::format("must be one of {}; got {}", fmt::join(k.choices, ", "), text::quoted(f.text)));
}

Dataflow parse_dataflow(const ArchField& f) { return *dataflow_named(choice_of(f, "dataflow")); }

FoldPipeline parse_fold_pipeline(const ArchField& f) { return *fold_pipeline_named(choice_of(f, "fold_pipeline")); }

// precision.*: the operand and accumulator types, and the PE's table of types (MACs per cycle).
// Older files spell integer types by width (operand_bits, accumulator_bits); one spelling per file.
// Of two spellings of one setting, the one --set gave replaces the file's; two from one place
// are an input error.
void one_spelling(const ArchField*& a, const ArchField*& b, const char* a_key, const char* b_key) {
  if (!a || !b) return;
  const bool a_set = a->file == "--set", b_set = b->file == "--set";
  if (a_set != b_set) {
    (a_set ? b : a) = nullptr;
    return;
  }
  fail(*b, fmt::format("give {} or {}, not both", a_key, b_key));
}

template <class Find>
Precision parse_precision(const Find& find, std::vector<std::pair<NumType, int>>& pe_macs) {
  Precision p;
  pe_macs.clear();
  const ArchField* type = find("precision.operand");
  const ArchField* operand_bits = find("precision.operand_bits");
  one_spelling(type, operand_bits, "precision.operand", "precision.operand_bits");
  if (const ArchField* bits = operand_bits) {
    p.operand = *num_type_named("int" + choice_of(*bits, "precision.operand_bits"));
  } else if (type) {
    p.operand = *num_type_named(choice_of(*type, "precision.operand"));
  }
  const ArchField* first_row = nullptr;
  for (const std::string& name : num_type_names()) {
    const std::string key = "precision.macs_per_pe." + name;
    if (const ArchField* f = find(key.c_str())) {
      const int n = int(int_of(*f, key));
      const NumType t = *num_type_named(name);
      if ((int64_t(n) * bits_of(t)) % 8 != 0)
        fail(*f, fmt::format("{} x {}-bit {} is not whole bytes: a PE word (what links, registers and memory "
                             "hold) must be, so pack {} in twos", n, bits_of(t), name, name));
      pe_macs.emplace_back(t, n);
      if (!first_row) first_row = f;
    }
  }
  // No table: the PE does its operand type once per cycle in a word of at least a byte (int4 two).
  if (pe_macs.empty()) pe_macs.emplace_back(p.operand, std::max(1, 8 / bits_of(p.operand)));
  p.pack = 0;
  for (const auto& [t, n] : pe_macs)
    if (t == p.operand) p.pack = n;
  if (p.pack == 0) {
    std::vector<std::string> listed;
    for (const auto& e : pe_macs) listed.push_back(to_string(e.first));
    const ArchField& where = type ? *type : first_row ? *first_row : *find("precision.operand_bits");
    fail(where, fmt::format("the PE cannot do {} operands (precision.macs_per_pe lists {})", to_string(p.operand),
                            fmt::join(listed, ", ")));
  }
  p.accumulator = is_float(p.operand) ? NumType::Fp32 : NumType::Int32;
  const ArchField* acc = find("precision.accumulator");
  const ArchField* accumulator_bits = find("precision.accumulator_bits");
  one_spelling(acc, accumulator_bits, "precision.accumulator", "precision.accumulator_bits");
  if (const ArchField* bits = accumulator_bits) {
    p.accumulator = *num_type_named("int" + choice_of(*bits, "precision.accumulator_bits"));
    acc = bits;
  } else if (acc) {
    p.accumulator = *num_type_named(choice_of(*acc, "precision.accumulator"));
  }
  if (acc && is_float(p.accumulator) != is_float(p.operand))
    fail(*acc, fmt::format("{} operands need a{} accumulator (int16 | int32 for integers, fp32 for floats); got {}",
                           to_string(p.operand), is_float(p.operand) ? " floating" : "n integer", to_string(p.accumulator)));
  for (auto [key, stored] : {std::pair{"precision.activation", &p.activation}, std::pair{"precision.weight", &p.weight}})
    if (const ArchField* f = find(key)) {
      const NumType t = *num_type_named(choice_of(*f, key));
      if (!holds_exactly(p.operand, t))
        fail(*f, fmt::format("{} values are not all {} values: the PEs multiply {} (precision.operand), so what they "
                             "take must be exact in it", to_string(t), to_string(p.operand), to_string(p.operand)));
      if (t != p.operand) *stored = t;
    }
  return p;
}

ArchSpec build(const ArchFields& fields) {
  auto find = [&](const char* key) -> const ArchField* {
    auto it = fields.values.find(key);
    return it == fields.values.end() ? nullptr : &it->second;
  };
  auto require = [&](const char* key) -> const ArchField& {
    if (const ArchField* f = find(key)) return *f;
    auto label = fields.labels.find(key);
    throw InputError(fields.file, 0, label == fields.labels.end() ? key : label->second,
                     "required key is missing");
  };

  ArchSpec s;
  s.source = fields.file;
  s.name = text::stem(fields.file);
  if (const ArchField* f = find("name")) {
    if (f->text.empty()) fail(*f, "must not be empty");
    s.name = f->text;
  }
  s.rows = int(int_of(require("array.rows"), "array.rows"));
  s.cols = int(int_of(require("array.cols"), "array.cols"));
  s.dataflow = parse_dataflow(require("dataflow"));
  if (const ArchField* f = find("clock_hz")) s.clock_hz = number_of(*f, "clock_hz");
  s.precision = parse_precision(find, s.pe_macs);
  if (const ArchField* f = find("sparsity.skip_2_4")) {
    s.skip_2_4 = choice_of(*f, "sparsity.skip_2_4") == "true";
    if (s.skip_2_4 && s.dataflow != Dataflow::WS)
      fail(*f, fmt::format("2:4 weights in the PEs need dataflow: ws (the weights stationary); got {}", to_string(s.dataflow)));
  }
  if (const ArchField* f = find("sparsity.zero_gating")) s.zero_gating = choice_of(*f, "sparsity.zero_gating") == "true";
  if (const ArchField* f = find("fold_pipeline")) s.fold_pipeline = parse_fold_pipeline(*f);
  if (s.fold_pipeline == FoldPipeline::ScaleSim) {
    // SCALE-Sim's replay walks demand matrices a row per cycle and a column per port: its time
    // grows with the square of the array's sides, not with the work (a 16x64x64 GEMM: 2.6 s on
    // 16384^2, 10 s on 32768^2, 9 s on 65536 x 64).
    for (const char* key : {"array.rows", "array.cols"}) {
      const ArchField& f = require(key);
      const int side = std::string(key) == "array.rows" ? s.rows : s.cols;
      if (side > kMaxScaleSimSide)
        fail(f, fmt::format("{} PEs; SCALE-Sim's replay (fold_pipeline: scalesim) runs arrays of at most {} per side",
                            side, kMaxScaleSimSide));
    }
  }
  if (const ArchField* f = find("scalesim.interface_bandwidth"))
    s.scalesim_user_bandwidth = choice_of(*f, "scalesim.interface_bandwidth") == "user";
  if (const ArchField* f = find("scalesim.bandwidth_words"))
    s.scalesim_bandwidth_words = int_of(*f, "scalesim.bandwidth_words");
  for (const char* key : {"scalesim.interface_bandwidth", "scalesim.bandwidth_words"})
    if (const ArchField* f = find(key); f && s.fold_pipeline != FoldPipeline::ScaleSim)
      fail(*f, "SCALE-Sim's DRAM interface needs fold_pipeline: scalesim");
  if (const ArchField* f = find("sram.ifmap_kib")) s.ifmap_sram_kib = int_of(*f, "sram.ifmap_kib");
  if (const ArchField* f = find("sram.filter_kib")) s.filter_sram_kib = int_of(*f, "sram.filter_kib");
  if (const ArchField* f = find("sram.ofmap_kib")) s.ofmap_sram_kib = int_of(*f, "sram.ofmap_kib");
  if (const ArchField* f = find("memory")) s.memory = *memory_mode_named(choice_of(*f, "memory"));
  // Keys of another memory mode's parts (the schema's only_with rows), in the table's order.
  for (const schema::Key& k : arch_schema().keys())
    if (const ArchField* f = find(k.name.c_str()))
      if (const std::string why = schema::applicability(k, to_string(s.memory)); !why.empty()) fail(*f, why);
  if (s.memory == MemoryMode::Channel) {
    const ArchField& m = *find("memory");
    s.channel.bandwidth_bytes_per_s = number_of(require("channel.bandwidth_gbps"), "channel.bandwidth_gbps") * 1e9;
    if (const ArchField* f = find("channel.latency_ns")) s.channel.latency_s = number_of(*f, "channel.latency_ns") * 1e-9;
    if (const ArchField* f = find("channel.fifo_tiles")) s.channel.fifo_tiles = int(int_of(*f, "channel.fifo_tiles"));
    if (const ArchField* f = find("channel.tile_layout")) {
      s.channel.padded_tiles = choice_of(*f, "channel.tile_layout") == "padded";
      if (s.channel.padded_tiles && s.dataflow == Dataflow::RS)
        fail(*f, "row stationary lays out its own DRAM blocks (models/array/rs_memory.h): no stationary tiles to pad");
    }
    if (s.fold_pipeline != FoldPipeline::Overlapped) fail(m, "channel memory needs fold_pipeline: overlapped");
    if (const ArchField* f = find("controller")) {
      s.rocc.on = choice_of(*f, "controller") == "rocc";
      if (s.rocc.on && s.dataflow != Dataflow::WS) fail(*f, "rocc runs weight stationary only (Gemmini's WS loops)");
      if (s.rocc.on && s.rows != s.cols) fail(*f, "rocc needs a square array (Gemmini's dim x dim mesh)");
    }
    for (const char* key : {"rocc.rob_entries", "rocc.max_in_flight", "rocc.request_bytes", "rocc.compute_rows"})
      if (const ArchField* f = find(key); f && !s.rocc.on) fail(*f, "the rocc.* keys need controller: rocc");
    if (const ArchField* f = find("rocc.rob_entries")) s.rocc.rob_entries = int_of(*f, "rocc.rob_entries");
    if (const ArchField* f = find("rocc.max_in_flight")) s.rocc.max_in_flight = int_of(*f, "rocc.max_in_flight");
    if (const ArchField* f = find("rocc.request_bytes")) s.rocc.request_bytes = int_of(*f, "rocc.request_bytes");
    if (const ArchField* f = find("rocc.compute_rows")) s.rocc.padded_compute = choice_of(*f, "rocc.compute_rows") == "padded";
  }
  auto file_path = [&](const ArchField& p) {
    std::filesystem::path path = p.text;
    if (path.is_relative() && p.file != "--set") path = std::filesystem::path(p.file).parent_path() / path;
    if (!is_file(path)) fail(p, "no such file: " + text::quoted(path.string()));
    return path.string();
  };
  if (const ArchField* f = find("energy")) s.energy = file_path(*f);
  if (has_hbm(s.memory)) {
    const ArchField& m = *find("memory");
    s.hbm.spec = file_path(require("hbm.spec"));
    if (const ArchField* f = find("hbm.fifo_tiles")) s.hbm.fifo_tiles = int(int_of(*f, "hbm.fifo_tiles"));
    if (const ArchField* f = find("hbm.max_outstanding")) s.hbm.max_outstanding = int(int_of(*f, "hbm.max_outstanding"));
    if (const ArchField* f = find("hbm.request_bytes")) s.hbm.request_bytes = int_of(*f, "hbm.request_bytes");
    if (const ArchField* f = find("hbm.requests_per_cycle"))
      s.hbm.requests_per_cycle = int(int_of(*f, "hbm.requests_per_cycle"));
    if (const ArchField* f = find("hbm.controller_queue_flits"))
      s.hbm.controller_queue_flits = int_of(*f, "hbm.controller_queue_flits");
    if (const ArchField* f = find("hbm.layout")) s.hbm.layout = choice_of(*f, "hbm.layout");
    if (s.fold_pipeline != FoldPipeline::Overlapped) fail(m, fmt::format("{} memory needs fold_pipeline: overlapped", to_string(s.memory)));
  }
  if (s.memory == MemoryMode::Hierarchy) {
    if (const ArchField* f = find("overlap")) s.overlap = choice_of(*f, "overlap");
    s.noc.spec = file_path(require("noc.spec"));
    if (const ArchField* f = find("noc.cluster_x")) s.noc.cluster_x = int(int_of(*f, "noc.cluster_x"));
    if (const ArchField* f = find("noc.cluster_y")) s.noc.cluster_y = int(int_of(*f, "noc.cluster_y"));
    for (const char* key : {"sram.ifmap_kib", "sram.filter_kib", "sram.ofmap_kib"}) require(key);
    ArchSpec::Scratchpad& sp = s.scratchpad;
    if (const ArchField* f = find("scratchpad.banks")) sp.banks = int(int_of(*f, "scratchpad.banks"));
    if (const ArchField* f = find("scratchpad.word_bytes")) sp.word_bytes = int(int_of(*f, "scratchpad.word_bytes"));
    if (const ArchField* f = find("scratchpad.word_bytes_per_edge")) {  // the width follows the array's edges
      if (const ArchField* w = find("scratchpad.word_bytes"))
        fail(*w, "give scratchpad.word_bytes or scratchpad.word_bytes_per_edge, not both");
      sp.word_bytes_per_edge = int(int_of(*f, "scratchpad.word_bytes_per_edge"));
      // A PE row or column of operand words (precision.operand x macs_per_pe, the wider of A's and
      // B's) in one bank word, as wide as a power of two (banks hold whole words).
      const int64_t pe_word = (std::max(s.precision.word_bits(false), s.precision.word_bits(true)) + 7) / 8;
      const int64_t edge = int64_t(std::max(s.rows, s.cols)) * pe_word * sp.word_bytes_per_edge;
      int64_t width = 1;
      while (width < edge) width *= 2;
      if (width > 4096)
        fail(*f, fmt::format("the array's longer edge, {} PEs of {}-byte words, x {} needs a {}-byte bank word, more "
                             "than 4096", std::max(s.rows, s.cols), pe_word, sp.word_bytes_per_edge, width));
      sp.word_bytes = int(width);
    }
    if (const ArchField* f = find("scratchpad.ports_per_bank")) sp.ports_per_bank = int(int_of(*f, "scratchpad.ports_per_bank"));
    if (const ArchField* f = find("scratchpad.read_latency")) sp.read_latency = int(int_of(*f, "scratchpad.read_latency"));
    if (const ArchField* f = find("scratchpad.write_latency")) sp.write_latency = int(int_of(*f, "scratchpad.write_latency"));
  }
  ArchSpec::Vector& v = s.vector;
  const bool rs = s.dataflow == Dataflow::RS;
  for (const char* key : {"rs.filter_spad", "rs.ifmap_spad", "rs.psum_spad", "rs.glb_kib", "rs.rlc"})
    if (const ArchField* f = find(key); f && !rs) fail(*f, "applies only with dataflow: rs");
  if (const ArchField* f = find("rs.filter_spad")) s.rs.filter_spad = int_of(*f, "rs.filter_spad");
  if (const ArchField* f = find("rs.ifmap_spad")) s.rs.ifmap_spad = int_of(*f, "rs.ifmap_spad");
  if (const ArchField* f = find("rs.psum_spad")) s.rs.psum_spad = int_of(*f, "rs.psum_spad");
  if (const ArchField* f = find("rs.glb_kib")) {
    s.rs.glb_kib = int_of(*f, "rs.glb_kib");
    s.rs.glb_given = true;
  }
  if (const ArchField* f = find("rs.rlc")) s.rs.rlc = choice_of(*f, "rs.rlc") == "true";
  if (const ArchField* f = find("vector.lanes")) v.lanes = int(int_of(*f, "vector.lanes"));
  if (const ArchField* f = find("vector.add_per_lane")) v.add_per_lane = number_of(*f, "vector.add_per_lane");
  if (const ArchField* f = find("vector.mul_per_lane")) v.mul_per_lane = number_of(*f, "vector.mul_per_lane");
  if (const ArchField* f = find("vector.special_per_lane")) v.special_per_lane = number_of(*f, "vector.special_per_lane");
  if (const ArchField* f = find("vector.port_bytes")) v.port_bytes = int_of(*f, "vector.port_bytes");
  if (const ArchField* f = find("vector.latency")) v.latency = int(int_of(*f, "vector.latency"));
  if (const ArchField* f = find("vector.fusion")) v.fusion = choice_of(*f, "vector.fusion");
  if (!find("vector.lanes"))  // a vector unit's parameters without one would be ignored (lanes: 0 turns one off)
    for (const char* key : {"vector.add_per_lane", "vector.mul_per_lane", "vector.special_per_lane", "vector.port_bytes",
                            "vector.latency", "vector.fusion"})
      if (const ArchField* f = find(key)) fail(*f, "applies only with a vector unit (vector.lanes > 0)");
  if (const ArchField* f = find("clusters")) {
    s.clusters = int(int_of(*f, "clusters"));
    if (s.clusters > 1 && s.memory != MemoryMode::Ideal && s.memory != MemoryMode::Hierarchy)
      fail(*f, "clusters > 1 needs memory: ideal or hierarchy (the channel and hbm paths feed one array)");
  }
  if (const ArchField* f = find("chips")) s.chips = int(int_of(*f, "chips"));
  if (s.chips == 1)
    for (const char* key : {"interconnect.link", "interconnect.topology", "interconnect.torus_x",
                            "interconnect.slice_bytes", "parallel.tensor", "parallel.data", "parallel.pipeline",
                            "parallel.micro_batches"})
      if (const ArchField* f = find(key)) fail(*f, "applies only with chips > 1");
  if (s.chips > 1) {
    const ArchField& c = *find("chips");
    s.interconnect.link = file_path(require("interconnect.link"));
    if (const ArchField* f = find("interconnect.topology")) {
      if (const std::string now = ic::renamed_topology(f->text); !now.empty())
        fail(*f, fmt::format("{} is now spelled {}", text::quoted(f->text), text::quoted(now)));
      s.interconnect.topology = choice_of(*f, "interconnect.topology");
    }
    const ic::TopologyFamily& family = *ic::topology_family(s.interconnect.topology);
    if (const ArchField* f = find("interconnect.slice_bytes"))
      s.interconnect.slice_bytes = int_of(*f, "interconnect.slice_bytes");
    const ArchField* x = find("interconnect.torus_x");
    if (family.per_row) {
      s.interconnect.torus_x = int(int_of(require("interconnect.torus_x"), "interconnect.torus_x"));
      if (const std::string problem = ic::topology_size_problem(family, s.chips, s.interconnect.torus_x); !problem.empty())
        fail(*x, problem);
    } else if (x) {
      fail(*x, "applies only with interconnect.topology: torus2d");
    }
    // One split over every chip: tensor (the default), data or pipeline; two together would run
    // each collective in a group of chips, which the interconnect does not model yet.
    const ArchField* tensor = find("parallel.tensor");
    const ArchField* data = find("parallel.data");
    const ArchField* pipeline = find("parallel.pipeline");
    if (data) s.data_parallel = int(int_of(*data, "parallel.data"));
    if (pipeline) s.pipeline_parallel = int(int_of(*pipeline, "parallel.pipeline"));
    s.tensor_parallel = s.chips / (s.data_parallel * s.pipeline_parallel);
    if (tensor) s.tensor_parallel = int(int_of(*tensor, "parallel.tensor"));
    const ArchField& named = tensor ? *tensor : data ? *data : pipeline ? *pipeline : c;
    if (s.tensor_parallel * s.data_parallel * s.pipeline_parallel != s.chips)
      fail(named, fmt::format("{} chips are not tensor parallelism {} x data parallelism {} x pipeline stages {}", s.chips,
                              s.tensor_parallel, s.data_parallel, s.pipeline_parallel));
    if (int(s.tensor_parallel > 1) + int(s.data_parallel > 1) + int(s.pipeline_parallel > 1) > 1)
      fail(named, fmt::format("tensor parallelism {}, data parallelism {}, pipeline stages {}: one split over every chip "
                              "is modelled (each collective would run in a group of chips)",
                              s.tensor_parallel, s.data_parallel, s.pipeline_parallel));
    if (const ArchField* f = find("parallel.micro_batches")) {
      s.micro_batches = int(int_of(*f, "parallel.micro_batches"));
      if (s.pipeline_parallel == 1) fail(*f, "applies only with pipeline stages (parallel.pipeline > 1)");
    }
    if (s.pipeline_parallel > 1 && s.interconnect.topology == "torus2d")
      fail(*pipeline, "pipeline stages on a torus2d: a stage's sends would share links with other pairs' (use ring, "
                      "switch or fully_connected)");
    if (s.dataflow == Dataflow::RS) fail(c, "row stationary runs on one chip (chips: 1)");
    if (s.memory == MemoryMode::Channel || s.memory == MemoryMode::Hbm)
      fail(c, "chips > 1 needs memory: ideal or hierarchy");
  }
  if (rs) {
    const ArchField& d = require("dataflow");
    if (s.memory == MemoryMode::Hbm)
      fail(d, "row stationary runs with memory: ideal, channel (a DRAM link into its global buffer) or hierarchy (the "
              "scratchpad is its global buffer); memory: hbm feeds a FIFO of stationary tiles, which it has none of");
    if (const ArchField* f = find("rs.glb_kib"); f && s.memory == MemoryMode::Hierarchy)
      fail(*f, "under memory: hierarchy the global buffer is the scratchpad: ifmaps in sram.ifmap_kib, psums in "
               "sram.ofmap_kib, the filter prefetch buffer in sram.filter_kib");
    if (s.clusters != 1) fail(d, "row stationary runs on one array (clusters: 1)");
    if (const ArchField* f = find("rs.rlc"); f && s.rs.rlc && s.memory == MemoryMode::Ideal)
      fail(*f, "run-length coding changes only DRAM traffic: it applies with memory: channel or hierarchy");
  }
  if (s.rocc.on) {
    // The smallest tile the host's library makes (sim/mapper/rocc_map.h): a block of A and one of B
    // in the scratchpad's half, a block of outputs in the accumulator's; the other halves the next tile's.
    const int64_t dim = s.rows, in = RoccParams::element_bytes(s.precision.word_bits(false)),
                  acc = s.precision.accumulator_bytes();
    // The sram key if the file gives it (its line), else the controller's.
    auto too_small = [&](const char* key, const std::string& what) {
      const ArchField* f = find(key);
      fail(f ? *f : *find("controller"), std::string(f ? "controller: " : "") + "rocc needs " + what);
    };
    if (RoccParams::rows_of(s.ifmap_sram_kib + s.filter_sram_kib, dim, in) < 4 * dim)
      too_small("sram.ifmap_kib", fmt::format("a scratchpad (sram.ifmap_kib + sram.filter_kib, now {} KiB) of at least "
                                              "{} B: two tiles of one {} x {} block of inputs and one of weights",
                                              s.ifmap_sram_kib + s.filter_sram_kib, 4 * dim * dim * in, dim, dim));
    if (RoccParams::rows_of(s.ofmap_sram_kib, dim, acc) < 2 * dim)
      too_small("sram.ofmap_kib", fmt::format("an accumulator (sram.ofmap_kib, now {} KiB) of at least {} B: two {} x {} "
                                              "blocks of {}-byte sums",
                                              s.ofmap_sram_kib, 2 * dim * dim * acc, dim, dim, acc));
  }

  return s;
}

}  // namespace

void resolve_sub_files(ArchSpec& s) {
  if (s.chips > 1) {
    const LinkFile link = load_link_file(s.interconnect.link);
    s.link_spec = link.spec;
    s.interconnect.link_name = link.name;
  }
  if (has_hbm(s.memory)) s.hbm_spec = hbm::load_hbm_spec(s.hbm.spec);
  if (s.memory == MemoryMode::Hierarchy) s.noc_config = noc::load_noc_config(s.noc.spec);
}

bool is_config_key(const std::string& key) {
  return is_key(key) || key == kArraySize || (key.size() > 4 && (key.rfind("hbm.", 0) == 0 || key.rfind("noc.", 0) == 0));
}

namespace {

[[noreturn]] void unknown_key(const std::string& key, const std::string& where, const std::vector<std::string>& known) {
  throw InputError("--set", 0, key,
                   fmt::format("unknown key{} (nearest: {})", where, fmt::join(text::nearest(key, known), ", ")));
}

// Every `<prefix><key>` of `set` must be one of the sub-file's `known` keys.
void check_keys(const std::string& prefix, const Overrides& set, std::vector<std::string> known, const std::string& where) {
  for (std::string& k : known) k = prefix + k;
  for (const auto& [key, value] : set)
    if (std::find(known.begin(), known.end(), prefix + key) == known.end()) unknown_key(prefix + key, where, known);
}

// The array, NoC and HBM clocks of a spec must share an exact time base
// (models/dma/clock_base.h); the error points at clock_hz where it was written.
void check_clock_base(const ArchSpec& s, const ArchFields& fields) {
  if (!has_hbm(s.memory)) return;
  try {
    make_clock_base(s.clock_hz, s.memory == MemoryMode::Hierarchy ? s.noc_config.clock_hz : s.clock_hz, s.hbm_spec.tck_ns);
  } catch (const std::invalid_argument& e) {
    const auto it = fields.values.find("clock_hz");
    if (it != fields.values.end()) throw InputError(it->second.file, it->second.line, "clock_hz", e.what());
    throw InputError(fields.file, 0, "clock_hz", e.what());
  }
}

// A bounded controller port must hold a whole packet on every VC of the request vnet at once:
// packets interleave flit by flit into it, so with less each VC can hold part of one and none
// completes (the mesh deadlocks).
void check_controller_queue(const ArchSpec& s, const ArchFields& fields) {
  if (s.memory != MemoryMode::Hierarchy || s.hbm.controller_queue_flits == 0) return;
  const int64_t packet = s.noc_config.flits_for(s.hbm.request_bytes);
  const int64_t need = int64_t(s.noc_config.vcs_per_vnet) * packet;
  if (s.hbm.controller_queue_flits >= need) return;
  const auto it = fields.values.find("hbm.controller_queue_flits");
  const std::string file = it != fields.values.end() ? it->second.file : fields.file;
  const int line = it != fields.values.end() ? it->second.line : 0;
  throw InputError(file, line, "hbm.controller_queue_flits",
                   fmt::format("must be 0 (unbounded) or at least noc.vcs_per_vnet x the flits of one {} B request "
                               "= {} x {} = {}, got {}",
                               s.hbm.request_bytes, s.noc_config.vcs_per_vnet, packet, need,
                               s.hbm.controller_queue_flits));
}

// Loads a sub-file with its overrides; their errors name the key as --set spelled it.
template <class F>
auto with_prefix(const std::string& prefix, F&& load) {
  try {
    return load();
  } catch (const InputError& e) {
    if (e.file() != "--set") throw;
    throw InputError("--set", 0, prefix + e.key(), e.message());
  }
}

}  // namespace

Overrides parse_overrides(const std::vector<std::string>& items) {
  Overrides out;
  for (const std::string& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) throw InputError("--set", 0, item, "expected key=value");
    out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  return out;
}

ArchSpec load_arch(const std::string& path, const Overrides& overrides) {
  ArchFields fields = text::ends_with(text::lower(path), ".cfg") ? read_scalesim_cfg(path)
                                                                 : read_arch_yaml(path);
  Overrides hbm_set, noc_set;  // keys of the sub-files, without their prefix
  for (const auto& [key, value] : overrides) {
    if (key == kArraySize) {  // a square array: both sides, as if each were set (errors name array.size)
      for (const char* side : {"array.rows", "array.cols"}) fields.values[side] = {std::string(text::trim(value)), "--set", 0, key};
      continue;
    }
    if (is_key(key)) {
      fields.values[key] = {std::string(text::trim(value)), "--set", 0, key};
    } else if (is_config_key(key)) {
      (key[0] == 'h' ? hbm_set : noc_set).emplace_back(key.substr(4), value);
    } else {
      std::vector<std::string> known = arch_keys();
      known.insert(known.end(), {"hbm.timing.<name>", "hbm.organization.<key>", "hbm.controller.<key>", "noc.<key>"});
      unknown_key(key, "", known);
    }
  }
  // `--set memory=` (a run's or a sweep's) chooses another memory system than the file's: the
  // file's keys of the parts it no longer has are left out, and summary.json lists them
  // (arch.dropped_keys). A key of those parts given with --set is still an error.
  std::vector<std::string> dropped;
  if (const auto m = fields.values.find("memory"); m != fields.values.end() && m->second.file == "--set")
    for (const schema::Key& k : arch_schema().keys()) {
      const auto f = fields.values.find(k.name);
      if (f == fields.values.end() || f->second.file == "--set" || k.applies_with.empty()) continue;
      if (!schema::applicability(k, m->second.text).empty()) {
        dropped.push_back(k.name);
        fields.values.erase(f);
      }
    }
  ArchSpec s = build(fields);
  s.dropped_keys = std::move(dropped);
  resolve_sub_files(s);
  if (has_hbm(s.memory)) {
    check_keys("hbm.", hbm_set, hbm::override_keys(s.hbm_spec), " of the HBM file " + s.hbm.spec);
    if (!hbm_set.empty()) s.hbm_spec = with_prefix("hbm.", [&] { return hbm::load_hbm_spec(s.hbm.spec, hbm_set); });
  } else if (!hbm_set.empty()) {
    throw InputError("--set", 0, "hbm." + hbm_set.front().first, "applies only with memory: hbm or hierarchy");
  }
  if (s.memory == MemoryMode::Hierarchy) {
    check_keys("noc.", noc_set, noc::override_keys(), " of the NoC file " + s.noc.spec);
    with_prefix("noc.", [&] {
      noc::apply_overrides(s.noc_config, noc_set);
      return 0;
    });
  } else if (!noc_set.empty()) {
    throw InputError("--set", 0, "noc." + noc_set.front().first, "applies only with memory: hierarchy");
  }
  check_clock_base(s, fields);
  check_controller_queue(s, fields);
  return s;
}

namespace {
// What the two width lines above do not say (types, the PE's table); empty for the integer
// arrays every file could describe before, so their hashes stay what they were.
std::string typed_precision_text(const ArchSpec& s) {
  const Precision& p = s.precision;
  const bool widths_say_all = !is_float(p.operand) && p.pack == 1 && s.pe_macs.size() == 1 && !s.skip_2_4 && !s.zero_gating &&
                              !p.activation && !p.weight;
  if (widths_say_all) return "";
  std::string text = fmt::format("precision.operand={}\nprecision.accumulator={}\n", to_string(p.operand),
                                 to_string(p.accumulator));
  if (s.skip_2_4) text += "sparsity.skip_2_4=true\n";
  if (s.zero_gating) text += "sparsity.zero_gating=true\n";
  if (p.activation) text += fmt::format("precision.activation={}\n", to_string(*p.activation));
  if (p.weight) text += fmt::format("precision.weight={}\n", to_string(*p.weight));
  for (const auto& [t, n] : s.pe_macs) text += fmt::format("precision.macs_per_pe.{}={}\n", to_string(t), n);
  return text;
}
}  // namespace

std::string canonical_text(const ArchSpec& s) {
  return fmt::format(
      "name={}\narray.rows={}\narray.cols={}\ndataflow={}\nclock_hz={}\n"
      "precision.operand_bits={}\nprecision.accumulator_bits={}\n{}fold_pipeline={}\n"
      "sram.ifmap_kib={}\nsram.filter_kib={}\nsram.ofmap_kib={}\nmemory={}\n{}{}{}",
      s.name, s.rows, s.cols, to_string(s.dataflow), s.clock_hz, s.precision.operand_bits(),
      s.precision.accumulator_bits(), typed_precision_text(s), to_string(s.fold_pipeline), s.ifmap_sram_kib, s.filter_sram_kib,
      s.ofmap_sram_kib, to_string(s.memory), s.clusters != 1 ? fmt::format("clusters={}\n", s.clusters) : std::string(),
      (s.energy.empty() ? std::string() : fmt::format("energy={}\n", s.energy)) +
          (s.scalesim_user_bandwidth
               ? fmt::format("scalesim.interface_bandwidth=user\nscalesim.bandwidth_words={}\n", s.scalesim_bandwidth_words)
               : std::string()) +
          (s.dataflow == Dataflow::RS
               ? fmt::format("rs.filter_spad={}\nrs.ifmap_spad={}\nrs.psum_spad={}\nrs.glb_kib={}\nrs.rlc={}\n",
                             s.rs.filter_spad, s.rs.ifmap_spad, s.rs.psum_spad, s.rs.glb_kib, s.rs.rlc)
               : std::string()),
      s.memory == MemoryMode::Channel ? fmt::format("channel.bandwidth_gbps={}\nchannel.latency_ns={}\nchannel.fifo_tiles={}\n{}",
                                          s.channel.bandwidth_bytes_per_s / 1e9, s.channel.latency_s * 1e9,
                                          s.channel.fifo_tiles, std::string(s.channel.padded_tiles ? "channel.tile_layout=padded\n" : "") +
                                              (s.rocc.on ? fmt::format("controller=rocc\nrocc.rob_entries={}\nrocc.max_in_flight={}\n"
                                                                       "rocc.request_bytes={}\nrocc.compute_rows={}\n",
                                                                       s.rocc.rob_entries, s.rocc.max_in_flight, s.rocc.request_bytes,
                                                                       s.rocc.padded_compute ? "padded" : "exact")
                                                         : std::string()))
                            : std::string()) +
         (has_hbm(s.memory)
              ? fmt::format("hbm.spec={}\nhbm.fifo_tiles={}\nhbm.max_outstanding={}\nhbm.request_bytes={}\n{}",
                            s.hbm.spec, s.hbm.fifo_tiles, s.hbm.max_outstanding, s.hbm.request_bytes,
                            (s.hbm.requests_per_cycle != 1
                                 ? fmt::format("hbm.requests_per_cycle={}\n", s.hbm.requests_per_cycle)
                                 : std::string()) +
                                (s.hbm.controller_queue_flits != 0
                                     ? fmt::format("hbm.controller_queue_flits={}\n", s.hbm.controller_queue_flits)
                                     : std::string()) +
                                (s.hbm.layout != "tiled" ? "hbm.layout=" + s.hbm.layout + "\n" : std::string()))
              : std::string()) +
         (s.memory == MemoryMode::Hierarchy
              ? fmt::format("noc.spec={}\nnoc.cluster_x={}\nnoc.cluster_y={}\nscratchpad.banks={}\n"
                            "scratchpad.word_bytes={}\nscratchpad.ports_per_bank={}\nscratchpad.read_latency={}\n"
                            "scratchpad.write_latency={}\n",
                            s.noc.spec, s.noc.cluster_x, s.noc.cluster_y, s.scratchpad.banks,
                            s.scratchpad.word_bytes, s.scratchpad.ports_per_bank, s.scratchpad.read_latency,
                            s.scratchpad.write_latency) +
                    (s.overlap != "none" ? "overlap=" + s.overlap + "\n" : std::string())
              : std::string()) +
         (s.chips > 1 ? fmt::format("chips={}\ninterconnect.link={}\ninterconnect.topology={}\ninterconnect.torus_x={}\n"
                                    "interconnect.slice_bytes={}\nparallel.tensor={}\n",
                                    s.chips, s.interconnect.link, s.interconnect.topology, s.interconnect.torus_x,
                                    s.interconnect.slice_bytes, s.tensor_parallel) +
                        (s.data_parallel > 1 ? fmt::format("parallel.data={}\n", s.data_parallel) : std::string()) +
                        (s.pipeline_parallel > 1 ? fmt::format("parallel.pipeline={}\nparallel.micro_batches={}\n",
                                                               s.pipeline_parallel, s.micro_batches)
                                                 : std::string())
                      : std::string()) +
         (s.vector.lanes > 0
              ? fmt::format("vector.lanes={}\nvector.add_per_lane={}\nvector.mul_per_lane={}\nvector.special_per_lane={}\n"
                            "vector.port_bytes={}\nvector.latency={}\nvector.fusion={}\n",
                            s.vector.lanes, s.vector.add_per_lane, s.vector.mul_per_lane, s.vector.special_per_lane,
                            s.vector.port_bytes, s.vector.latency, s.vector.fusion)
              : std::string());
}

}  // namespace cstsim
