#include "sim/ledger/ledger_cli.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "core/install_paths.h"
#include "sim/config/arch_spec.h"
#include "core/input_error.h"
#include "sim/ledger/graph_rows.h"
#include "sim/ledger/report.h"
#include "sim/workload/workload.h"

namespace cstsim {
namespace ledger {
namespace {
namespace po = boost::program_options;

// A bad flag or value: printed as "error: ledger: <flag>: <message>".
InputError flag_error(const std::string& flag, const std::string& message) {
  return InputError::usage("ledger", flag, message);
}

constexpr double kMaxCount = 1e15;  // keeps every product well inside a double's range
// The machine without --machine or --machine-arch: the shipped default accelerator on HBM3
// (configs/arch/), so the ledger prices what cstsim simulates unless told otherwise.
constexpr const char* kDefaultArch = "arch/npu-128-hbm3.yaml";

constexpr const char* kLedgerUsage =
    "usage: cstsim ledger [options]\n"
    "\n"
    "The analytical roofline ledger of LLM inference and training operators: FLOPs, minimum bytes moved, arithmetic\n"
    "intensity and the time lower bound max(bytes / bandwidth, FLOPs / peak) of common operators.\n"
    "No simulation: every number is a formula (sim/ledger/README.md lists them and their sources).\n"
    "\n"
    "Suite 003: machine model + one row per operator, priced against --machine.\n"
    "Suite 002: unfused (one op per kernel) vs fused bytes moved, the ratio, and the AI range.\n"
    "\n"
    "Counts accept 4096, 7e9 or 2^24; shapes are RxC or TxHxD; bandwidths are GB/s (1e9 B/s).\n"
    "\n"
    "examples:\n"
    "  cstsim ledger                                    both suites on the default preset (npu-128-hbm3)\n"
    "  cstsim ledger --machine h200-measured            the seeds' own tables (H200, calibrated)\n"
    "  cstsim ledger --machine h100-spec --suite 003\n"
    "  cstsim ledger --seq-len 8192 --heads 32 --head-dim 128 --op attention\n"
    "  cstsim ledger --params 7e9 --world 64 --op adamw,allreduce\n"
    "  cstsim ledger --machine-arch configs/arch/tpu-v1.yaml --bandwidth 34 --suite 003\n"
    "  cstsim ledger --json > ledger.json\n";

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// 4096, 7e9, 1.5e3 (whole numbers only) or 2^24; at least `min`.
int64_t parse_count(const std::string& flag, const std::string& text, int64_t min = 1) {
  const std::string t = trim(text);
  double v = NAN;
  const auto caret = t.find('^');
  char* end = nullptr;
  if (caret != std::string::npos) {
    const std::string base = t.substr(0, caret), exp = t.substr(caret + 1);
    const bool digits = !base.empty() && !exp.empty() && base.find_first_not_of("0123456789") == std::string::npos &&
                        exp.find_first_not_of("0123456789") == std::string::npos && exp.size() < 4;
    if (digits) v = std::pow(std::stod(base), std::stod(exp));
  } else if (!t.empty() && t.find_first_of("0123456789") == 0) {
    v = std::strtod(t.c_str(), &end);
    if (*end != '\0') v = NAN;
  }
  if (!std::isfinite(v) || v != std::floor(v))
    throw flag_error(flag, fmt::format("expected a whole number (e.g. 4096, 7e9 or 2^24), got '{}'", text));
  if (v > kMaxCount) throw flag_error(flag, fmt::format("{} is too large (at most 1e15)", text));
  if (v < static_cast<double>(min)) throw flag_error(flag, fmt::format("must be at least {}, got {}", min, text));
  return static_cast<int64_t>(v);
}

std::vector<int64_t> parse_dims(const std::string& flag, const std::string& text, size_t n, const char* form,
                                const char* example) {
  std::vector<int64_t> dims;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, 'x')) dims.push_back(parse_count(flag, part));
  if (dims.size() != n || text.empty() || text.back() == 'x')
    throw flag_error(flag, fmt::format("expected {} (e.g. {}), got '{}'", form, example, text));
  return dims;
}

double parse_gbps(const std::string& flag, const std::string& text) {
  const std::string t = trim(text);
  char* end = nullptr;
  const double v = t.empty() ? NAN : std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0' || !std::isfinite(v) || v <= 0)
    throw flag_error(flag, fmt::format("expected a positive bandwidth in GB/s (e.g. 4800), got '{}'", text));
  return v * 1e9;
}

DType parse_type(const std::string& flag, const std::string& text) {
  if (auto t = parse_dtype(trim(text))) return *t;
  throw flag_error(flag, fmt::format("unknown dtype '{}' (known: {})", text, dtype_names()));
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

struct Flags {
  std::map<std::string, std::string> values;  // flag name (without --) -> text
  bool json = false;
  bool help = false;
  std::vector<std::string> positional;
  bool has(const std::string& k) const { return values.count(k) != 0; }
  const std::string& get(const std::string& k) const { return values.at(k); }
};

// Value flags, each with its value name and help text.
struct FlagSpec {
  const char* name;
  const char* value;
  const char* help;
};

const std::vector<FlagSpec>& general_flags() {
  static const std::vector<FlagSpec> f = {
      {"suite", "002|003|all", "which seed table(s) to print (default all)"},
      {"machine", "NAME", "machine profile: h200-measured (the seeds' tables), h200-spec, h100-spec"},
      {"machine-arch", "FILE", "a cstsim arch (.yaml or SCALE-Sim .cfg) as the machine (default: the shipped "
                               "configs/arch/npu-128-hbm3.yaml): peak = 2 x rows x cols x clock_hz ops/s, bandwidth "
                               "its channel's or its HBM's peak (an ideal memory needs --bandwidth)"},
      {"bandwidth", "GBPS", "memory bandwidth in GB/s: overrides the arch's or the profile's"},
      {"link-bandwidth", "GBPS", "bandwidth pricing the all-reduce row (default: the memory bandwidth)"},
      {"op", "LIST", "comma-separated operators or groups to keep (see below)"},
      {"graph", "FILE", "an operator-graph workload instead of the seeds' tables: a row per layer and per vector "
                        "kernel, the kernels the simulator runs (--op keeps names, ops or kinds)"},
      {"fusion", "none|op|chain", "with --graph: how vector steps become kernels, as the arch's vector.fusion "
                                  "(default op)"},
  };
  return f;
}

const std::vector<FlagSpec>& shape003_flags() {
  static const std::vector<FlagSpec> f = {
      {"elements", "N", "elementwise rows: element count (default 2^24)"},
      {"dtype", "T", "activation dtype of elementwise, LayerNorm, GEMM, attention (default fp16)"},
      {"ln-shape", "RxC", "LayerNorm rows x hidden (default 8192x4096)"},
      {"gemm", "MxNxK", "GEMM shape (default 4096x4096x4096)"},
      {"batch", "N", "attention batch (default 1)"},
      {"seq-len", "N", "attention prefill sequence length S (default 4096)"},
      {"heads", "N", "attention heads (default 32)"},
      {"head-dim", "N", "attention head dimension (default 128)"},
      {"kv-len", "N", "attention decode KV-cache length (default 32768)"},
      {"params", "N", "AdamW / all-reduce parameter count (default 7e9)"},
      {"state-dtype", "T", "AdamW weights, m and v (default fp32)"},
      {"grad-dtype", "T", "gradient, read by AdamW and all-reduced (default bf16)"},
      {"world", "N", "all-reduce ranks, at least 2 (default 8)"},
  };
  return f;
}

const std::vector<FlagSpec>& shape002_flags() {
  static const std::vector<FlagSpec> f = {
      {"ew-elements", "N", "scale+add elements (default 2^20)"},
      {"ew-dtype", "T", "scale+add dtype (default fp32)"},
      {"norm-shape", "RxC", "RMSNorm / LayerNorm rows x hidden (default 4096x4096)"},
      {"norm-dtype", "T", "RMSNorm / LayerNorm activation dtype (default fp16)"},
      {"rope-shape", "TxHxD", "RoPE tokens x heads x rope_dim (default 4096x32x128)"},
      {"rope-dtype", "T", "RoPE dtype (default fp16)"},
      {"fused-shape", "RxC", "RMSNorm+RoPE+quant rows x hidden (default 4096x4096)"},
      {"fused-rope-dim", "N", "RMSNorm+RoPE+quant: rotated columns per row, even (default 128)"},
      {"fused-dtype", "T", "RMSNorm+RoPE+quant input dtype; output is int8 + one fp32 scale per row (default bf16)"},
  };
  return f;
}

po::options_description describe(Flags& flags, std::map<std::string, std::string>& raw) {
  po::options_description all;
  po::options_description general("options");
  general.add_options()("help,h", po::bool_switch(&flags.help), "show this help");
  for (const FlagSpec& f : general_flags())
    general.add_options()(f.name, po::value(&raw[f.name])->value_name(f.value), f.help);
  general.add_options()("json", po::bool_switch(&flags.json),
                        "print one JSON document instead of the tables (rows with flops, bytes, ai, time_bound_s, "
                        "bound, kernels; the machine; the inputs)");
  po::options_description s3("suite 003 shapes (dtypes: " + dtype_names() + ")");
  for (const FlagSpec& f : shape003_flags()) s3.add_options()(f.name, po::value(&raw[f.name])->value_name(f.value), f.help);
  po::options_description s2("suite 002 shapes");
  for (const FlagSpec& f : shape002_flags()) s2.add_options()(f.name, po::value(&raw[f.name])->value_name(f.value), f.help);
  all.add(general).add(s3).add(s2);
  return all;
}

std::string help_text() {
  Flags flags;
  std::map<std::string, std::string> raw;
  std::ostringstream out;
  out << kLedgerUsage << "\n" << describe(flags, raw) << "\n";
  out << "--op names, suite 003: " << join(op_names003()) << "\n";
  out << "--op names, suite 002: " << join(op_names002()) << "\n";
  out << "\nmachines:\n";
  for (const Machine& m : machine_profiles())
    out << fmt::format("  {:<14} {} TFLOPS, {} GB/s: {}\n", m.id, fmt::format("{:.1f}", m.peak_flops / 1e12),
                       fmt::format("{:.0f}", m.bandwidth / 1e9), m.description);
  out << "\nExit status: 0 ok; 2 bad usage (one line \"error: ledger: --flag: message\" on stderr).\n";
  return out.str();
}

Flags parse_flags(const std::vector<std::string>& args) {
  Flags flags;
  std::map<std::string, std::string> raw;
  po::options_description desc = describe(flags, raw);
  desc.add_options()("positional", po::value(&flags.positional)->multitoken(), "");
  po::positional_options_description pos;
  pos.add("positional", -1);
  po::variables_map vm;
  const int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
  try {
    po::store(po::command_line_parser(args).options(desc).positional(pos).style(style).run(), vm);
    po::notify(vm);
  } catch (const po::unknown_option& e) {
    throw flag_error(e.get_option_name(), "unknown option (see cstsim ledger --help)");
  } catch (const po::multiple_occurrences& e) {
    throw flag_error(e.get_option_name(), "given more than once");
  } catch (const po::invalid_command_line_syntax& e) {
    if (e.kind() == po::invalid_command_line_syntax::missing_parameter)
      throw flag_error(e.get_option_name(), "missing value");
    throw flag_error(e.get_option_name(), e.what());
  } catch (const po::error_with_option_name& e) {
    throw flag_error(e.get_option_name(), e.what());
  } catch (const po::error& e) {
    throw flag_error("", e.what());
  }
  if (!flags.positional.empty())
    throw flag_error("", fmt::format("unexpected argument '{}' (ledger takes only --flags)", flags.positional.front()));
  for (const auto& [name, text] : raw)
    if (vm.count(name)) flags.values[name] = text;
  return flags;
}

Shapes003 shapes003(const Flags& f) {
  Shapes003 s;
  auto count = [&](const char* name, int64_t& out, int64_t min = 1) {
    if (f.has(name)) out = parse_count(std::string("--") + name, f.get(name), min);
  };
  auto type = [&](const char* name, DType& out) {
    if (f.has(name)) out = parse_type(std::string("--") + name, f.get(name));
  };
  count("elements", s.elements);
  type("dtype", s.dtype);
  if (f.has("ln-shape")) {
    const auto d = parse_dims("--ln-shape", f.get("ln-shape"), 2, "RxC", "4096x4096");
    s.ln_rows = d[0], s.ln_cols = d[1];
  }
  if (f.has("gemm")) {
    const auto d = parse_dims("--gemm", f.get("gemm"), 3, "MxNxK", "4096x4096x4096");
    s.gemm_m = d[0], s.gemm_n = d[1], s.gemm_k = d[2];
  }
  count("batch", s.batch);
  count("seq-len", s.seq_len);
  count("heads", s.heads);
  count("head-dim", s.head_dim);
  count("kv-len", s.kv_len);
  count("params", s.params);
  type("state-dtype", s.state_dtype);
  type("grad-dtype", s.grad_dtype);
  count("world", s.world, 2);
  return s;
}

Shapes002 shapes002(const Flags& f) {
  Shapes002 s;
  if (f.has("ew-elements")) s.ew_elements = parse_count("--ew-elements", f.get("ew-elements"));
  if (f.has("ew-dtype")) s.ew_dtype = parse_type("--ew-dtype", f.get("ew-dtype"));
  if (f.has("norm-shape")) {
    const auto d = parse_dims("--norm-shape", f.get("norm-shape"), 2, "RxC", "4096x4096");
    s.norm_rows = d[0], s.norm_cols = d[1];
  }
  if (f.has("norm-dtype")) s.norm_dtype = parse_type("--norm-dtype", f.get("norm-dtype"));
  if (f.has("rope-shape")) {
    const auto d = parse_dims("--rope-shape", f.get("rope-shape"), 3, "TxHxD", "4096x32x128");
    s.rope_tokens = d[0], s.rope_heads = d[1], s.rope_dim = d[2];
    if (s.rope_dim % 2) throw flag_error("--rope-shape", fmt::format("rope_dim must be even, got {}", s.rope_dim));
  }
  if (f.has("rope-dtype")) s.rope_dtype = parse_type("--rope-dtype", f.get("rope-dtype"));
  if (f.has("fused-shape")) {
    const auto d = parse_dims("--fused-shape", f.get("fused-shape"), 2, "RxC", "4096x4096");
    s.fused_rows = d[0], s.fused_cols = d[1];
  }
  if (f.has("fused-rope-dim")) s.fused_rope_dim = parse_count("--fused-rope-dim", f.get("fused-rope-dim"));
  if (s.fused_rope_dim % 2)
    throw flag_error("--fused-rope-dim", fmt::format("must be even, got {}", s.fused_rope_dim));
  if (s.fused_rope_dim > s.fused_cols)
    throw flag_error("--fused-rope-dim",
                    fmt::format("{} is wider than the {} columns of --fused-shape", s.fused_rope_dim, s.fused_cols));
  if (f.has("fused-dtype")) s.fused_dtype = parse_type("--fused-dtype", f.get("fused-dtype"));
  return s;
}

Machine pick_machine(const Flags& f) {
  // The accelerator: --machine-arch, or with neither flag the shipped default preset.
  if (f.has("machine-arch") || !f.has("machine")) {
    if (f.has("machine-arch") && f.has("machine")) throw flag_error("--machine-arch", "cannot be combined with --machine");
    const std::string flag = f.has("machine-arch") ? "--machine-arch" : "(default)";
    const std::string path = f.has("machine-arch") ? f.get("machine-arch") : config_dir() + "/" + kDefaultArch;
    const double bw = f.has("bandwidth") ? parse_gbps("--bandwidth", f.get("bandwidth")) : 0.0;
    try {
      return machine_from_arch(load_arch(path), bw);
    } catch (const InputError& e) {
      throw flag_error(flag, e.what());
    } catch (const std::invalid_argument& e) {
      throw flag_error("--bandwidth", "required with " + flag + " " + path + ": " + e.what());
    }
  }
  const std::string id = trim(f.get("machine"));
  const Machine* profile = find_profile(id);
  if (!profile) throw flag_error("--machine", fmt::format("unknown profile '{}' (known: {})", id, profile_names()));
  Machine m = *profile;
  if (f.has("bandwidth")) {
    m.bandwidth = parse_gbps("--bandwidth", f.get("bandwidth"));
    m.bandwidth_overridden = true;
    m.bandwidth_factor = m.bandwidth / m.spec_bandwidth;
    m.description += "; bandwidth replaced by --bandwidth";
    m.source += fmt::format("; bandwidth {:g} GB/s from --bandwidth", m.bandwidth / 1e9);
  }
  return m;
}

std::vector<std::string> parse_ops(const Flags& f) {
  std::vector<std::string> ops;
  if (!f.has("op")) return ops;
  std::istringstream in(f.get("op"));
  std::string part;
  while (std::getline(in, part, ',')) {
    part = trim(part);
    if (part.empty()) throw flag_error("--op", fmt::format("empty name in '{}'", f.get("op")));
    ops.push_back(part);
  }
  if (ops.empty()) throw flag_error("--op", "expected a comma-separated list of operators");
  return ops;
}

template <typename T>
std::vector<T> keep(const std::vector<T>& items, const std::vector<std::string>& ops) {
  if (ops.empty()) return items;
  std::vector<T> out;
  for (const T& item : items)
    for (const std::string& op : ops)
      if (item.matches(op)) {
        out.push_back(item);
        break;
      }
  return out;
}

Report build_report(const Flags& f) {
  Report r;
  const std::string suite = f.has("suite") ? trim(f.get("suite")) : "all";
  if (suite != "all" && suite != "002" && suite != "003")
    throw flag_error("--suite", fmt::format("expected 002, 003 or all, got '{}'", f.get("suite")));
  r.show003 = suite != "002";
  r.show002 = suite != "003";
  r.machine = pick_machine(f);
  r.link_bandwidth = f.has("link-bandwidth") ? parse_gbps("--link-bandwidth", f.get("link-bandwidth"))
                                             : r.machine.bandwidth;
  r.shapes003 = shapes003(f);
  r.shapes002 = shapes002(f);
  r.op_filter = parse_ops(f);
  if (f.has("fusion") && !f.has("graph")) throw flag_error("--fusion", "applies only with --graph");
  if (f.has("graph")) {  // the workload's own rows, priced like suite 003's
    const std::string fusion = f.has("fusion") ? trim(f.get("fusion")) : "op";
    if (fusion != "none" && fusion != "op" && fusion != "chain")
      throw flag_error("--fusion", fmt::format("expected none, op or chain, got '{}'", f.get("fusion")));
    if (f.has("suite")) throw flag_error("--suite", "does not apply with --graph");
    r.rows003 = keep(graph_rows(load_workload(f.get("graph")), fusion), r.op_filter);
    r.show002 = false;
    if (r.rows003.empty()) throw flag_error("--op", "no layer or kernel of the graph matches");
    return r;
  }
  r.rows003 = keep(suite003(r.shapes003), r.op_filter);
  r.pairs002 = keep(suite002(r.shapes002), r.op_filter);
  std::vector<std::string> known;
  if (r.show003) known = op_names003();
  if (r.show002)
    for (const std::string& n : op_names002())
      if (std::find(known.begin(), known.end(), n) == known.end()) known.push_back(n);
  for (const std::string& op : r.op_filter)
    if (std::find(known.begin(), known.end(), op) == known.end())
      throw flag_error("--op", fmt::format("unknown operator '{}' for suite {} (known: {})", op, suite, join(known)));
  if (!r.op_filter.empty()) {
    r.show003 = r.show003 && !r.rows003.empty();
    r.show002 = r.show002 && !r.pairs002.empty();
  }
  return r;
}

// One line, whatever the message carries.
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

}  // namespace

int run_ledger(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  try {
    const Flags flags = parse_flags(args);
    if (flags.help) {
      out << help_text();
      return 0;
    }
    const Report report = build_report(flags);
    if (flags.json)
      out << render_json(report).dump(2) << "\n";
    else
      out << render_text(report);
    return 0;
  } catch (const InputError& e) {
    err << "error: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace ledger

int ledger_command(const std::vector<std::string>& args) { return ledger::run_ledger(args, std::cout, std::cerr); }

}  // namespace cstsim
