#include "sim/cli/cli.h"
#include "sim/cli/plot_cli.h"
#include "core/install_paths.h"
#include "sim/onnx/onnx_import.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <iostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "core/input_error.h"
#include "core/out_file.h"
#include "core/quantity.h"
#include "core/signal_cleanup.h"
#include "core/text.h"
#include "sim/ledger/ledger_cli.h"
#include "sim/config/describe.h"
#include "sim/mapper/rocc_map.h"
#include "sim/mapper/mapper.h"
#include "sim/run/chips.h"
#include "sim/workload/data_parallel.h"
#include "sim/workload/graph.h"
#include "sim/mapper/tiling_plan.h"
#include "sim/workload/sparsity.h"
#include "sim/workload/training.h"
#include "sim/workload/workload.h"
#include "sim/bench/noc_bench_cli.h"
#include "sim/bench/collective_cli.h"
#include "sim/bench/hbm_bench.h"
#include "traces/export/export_cli.h"
#include "traces/post/post.h"
#include "sim/run/invariants.h"
#include "sim/run/report.h"
#include "sim/run/run.h"
#include "sim/sweep/sweep_cli.h"
#include "sim/serve/serve_cli.h"
#include "commit.h"
#include "version.h"

namespace cstsim {
namespace fs = std::filesystem;
namespace po = boost::program_options;
namespace {

constexpr const char* kCliUsage =
    "cstsim — cycle-accurate systolic-array accelerator simulator\n"
    "\n"
    "usage: cstsim <command> [options]\n"
    "\n"
    "commands:\n"
    "  run      simulate a workload on an accelerator and write a run directory\n"
    "  plan     the mapper's tiling plan per layer (blocks, loop order, DRAM bytes)\n"
    "  post     recompute report.json (occupancy over time and its integrals, peaks, cost, energy, roofline) from a run\n"
    "  export   turn a run's trace into perfetto JSON, VCD or CSV\n"
    "  plot     every figure of a run (R(t), power, roofline, stalls, utilization, energy, traffic)\n"
    "  ledger   analytical roofline ledger of LLM operators: FLOPs, bytes moved, the bound (no simulation)\n"
    "  sweep    run a design-space sweep (locally or through Slurm) and collect results.csv\n"
    "  pareto   the non-dominated points of a sweep's results.csv\n"
    "  noc-bench  synthetic-traffic load test of the mesh NoC (latency, accepted throughput)\n"
    "  collective one collective on a chip-to-chip interconnect (time, bytes per chip, per-link traffic)\n"
    "  hbm-bench  closed-loop traffic on one HBM stack (bandwidth, row hits, latency, refresh)\n"
    "  import   an ONNX model as an operator-graph workload (cstsim import onnx MODEL --out FILE)\n"
    "  serve    LLM serving on the chip: requests, continuous batching, a paged KV cache in its HBM\n"
    "\n"
    "cstsim <command> --help shows the command's options. cstsim --version prints the version.\n";

void setup_logging(bool verbose, bool quiet) {
  auto logger = spdlog::stderr_color_mt("cstsim");
  logger->set_pattern("[%l] %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(quiet ? spdlog::level::warn : verbose ? spdlog::level::debug : spdlog::level::info);
}

// What the run simulates for one layer, read off the run's plan: its fold plan, each
// cluster's share, the stream passes and (memory: hierarchy) the DMA program and the
// HBM bytes it moves.
nlohmann::ordered_json simulated_plan(const ArchSpec& a, const Plan& plan, const LayerPlan& l) {
  if (l.rs) {  // row stationary: processing passes, not folds (plan/rs_plan.h)
    const RsShape& s = l.rs->shape;
    nlohmann::ordered_json j{{"name", l.name}, {"M", l.dims.M}, {"N", l.dims.N}, {"K", l.dims.K}, {"dataflow", "rs"}};
    j["rs"] = {{"passes", l.rs->passes.size()},
               {"conv", {{"images", s.N}, {"groups", s.groups}, {"channels", s.C}, {"filters", s.M}, {"H", s.H},
                         {"W", s.W}, {"R", s.R}, {"S", s.S}, {"stride", s.U}}},
               {"mapping", rs_mapping_json(l.rs->mapping)}};
    if (a.memory == MemoryMode::Hierarchy) {
      j["hbm_bytes_read"] = l.hbm_read_bytes;
      j["hbm_bytes_written"] = l.hbm_write_bytes;
    }
    return j;
  }
  const FoldPlan f = make_fold_plan(plan.dataflow, plan.rows, plan.cols, l.dims.M, l.dims.N,
                                    l.sparse_2_4 ? l.dims.K / 2 : l.dims.K, plan.pack);
  nlohmann::ordered_json j{{"name", l.name}, {"M", l.dims.M}, {"N", l.dims.N}, {"K", l.dims.K},
                           {"dataflow", to_string(plan.dataflow)},
                           {"folds", {{"count", f.fold_count()}, {"row_folds", f.row_folds}, {"col_folds", f.col_folds},
                                      {"Sr", f.Sr}, {"Sc", f.Sc}, {"T", f.T}, {"pack", f.pack},
                                      {"mapping_efficiency", f.mapping_efficiency()}}}};
  if (a.clusters > 1) {
    nlohmann::ordered_json shares = nlohmann::ordered_json::array();
    for (size_t k = 0; k < l.clusters.size(); ++k) {
      const ClusterShare& c = l.clusters[k].share;
      shares.push_back({{"cluster", k}, {"M", c.M}, {"N", c.N}, {"K", c.K}, {"split", c.split == Dim::M ? "M" : "N"},
                        {"offset", c.offset}});
    }
    j["clusters"] = shares;
  }
  if (l.repeats > 1) j["repeats"] = l.repeats;
  if (l.repeats_across_clusters) j["repeats_across_clusters"] = true;  // each cluster runs whole repeats (heads)
  j["stream_passes"] = std::vector<int64_t>(l.pass_rows.begin(), l.pass_rows.begin() + int64_t(l.passes_per_repeat()));
  if (a.memory == MemoryMode::Hierarchy) {
    j["hbm_bytes_read"] = l.hbm_read_bytes;
    j["hbm_bytes_written"] = l.hbm_write_bytes;
    if (l.raw_ifmap_bytes > 0) {
      j["raw_ifmap_bytes"] = l.raw_ifmap_bytes;
      j["ifmap_reread"] = double(l.ifmap_read_bytes) / double(l.raw_ifmap_bytes);
    }
    nlohmann::ordered_json tensors;
    for (int x = 0; x < kMatrices; ++x) {
      const TensorPlace& t = l.tensors[size_t(x)];
      tensors[std::string(1, "ABC"[x])] = {{"hbm_addr", t.addr}, {"bytes", t.bytes}};
      if (!l.tensor_names[size_t(x)].empty()) tensors[std::string(1, "ABC"[x])]["tensor"] = l.tensor_names[size_t(x)];
    }
    if (l.input_from >= 0) tensors["A"]["output_of"] = plan.layers[size_t(l.input_from)].name;
    if (l.weight_from >= 0) tensors["B"]["output_of"] = plan.layers[size_t(l.weight_from)].name;
    j["hbm_tensors"] = tensors;
    const PassPlan& widest = widest_pass(l);
    LayerDmaPlan program = dma_program(fold_plan(plan, widest), widest);
    if (widest.dma.k_chunks > 1) {  // OS: the widest share's tiles stream K in chunks
      j["folds"]["k_chunks"] = widest.dma.k_chunks;
      j["folds"]["count"] = f.fold_count() * widest.dma.k_chunks;
    }
    if (a.overlap != "none") {  // the widest share's first pass: what its previous pass loads for it
      int stream = 0;
      for (int k : widest.prefetch) stream += program.reads[size_t(k)].operand == Operand::Stream;
      j["prefetch"] = {{"reads", widest.prefetch.size()}, {"stream_reads", stream}};
    }
    if (a.overlap == "pipeline") {  // which tensors stay on chip between layers
      const PassPlan& last = l.clusters.front().passes.back();
      j["on_chip"] = {{"input", !l.clusters.front().passes.front().on_chip_reads.empty()},
                      {"output", !last.outputs_on_chip_to.empty()}};
      if (!last.outputs_on_chip_to.empty()) j["on_chip"]["output_partition"] = last.outputs_on_chip_to;
      if (!l.input_not_on_chip.empty()) j["on_chip"]["input_not_on_chip"] = l.input_not_on_chip;
    }
    program.passes = int(l.pass_rows.size());
    j["dma_program"] = to_json(program);
  }
  return j;
}

// A vector kernel of the plan: what it runs, its tiles, the tensors it reads and writes (where in HBM)
// and the bytes they take.
nlohmann::ordered_json vector_kernel_json(const ArchSpec& a, const VectorKernelPlan& k) {
  nlohmann::ordered_json j;
  j["kind"] = "vector";
  j["name"] = k.name;
  j["ops"] = k.ops;
  j["steps"] = k.what;
  j["rows"] = k.rows;
  j["cols"] = k.cols;
  j["tile_rows"] = k.tile_rows;
  j["tiles"] = k.tiles();
  j["operations_per_row"] = by_class_json(k.ops_per_row);
  int64_t read = 0, written = 0;
  for (const auto* list : {&k.reads, &k.writes}) {
    nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
    for (const VectorOperandPlan& o : *list) {
      nlohmann::ordered_json t = {{"tensor", o.tensor}, {"bytes", k.rows * o.row_bytes + o.once_bytes}};
      if (o.once_bytes > 0) t["once"] = true;
      if (a.memory == MemoryMode::Hierarchy) t["hbm_addr"] = o.addr;
      tensors.push_back(std::move(t));
      (list == &k.reads ? read : written) += k.rows * o.row_bytes + o.once_bytes;
    }
    j[list == &k.reads ? "reads" : "writes"] = std::move(tensors);
  }
  j["bytes_read"] = read;
  j["bytes_written"] = written;
  return j;
}

// A flash-attention kernel of the plan: its blocks and the bytes its tensors take in HBM, each Q block,
// the K and V blocks it reads (once per KV head when they stay on chip) and the output.
nlohmann::ordered_json flash_kernel_json(const ArchSpec& a, const FlashKernelPlan& k) {
  nlohmann::ordered_json j;
  j["kind"] = "flash";
  j["name"] = k.name;
  j["groups"] = k.groups();
  j["Sq"] = k.Sq;
  j["Skv"] = k.Skv;
  j["head_dim"] = k.d;
  j["q_block"] = k.q_block;
  j["kv_block"] = k.kv_block;
  j["kv_resident"] = k.kv_resident;
  j["causal"] = k.causal;
  int64_t kv_loads = 0;
  for (int64_t i = 0; i < k.q_blocks(); ++i)
    for (int64_t j2 = 0; j2 < k.kv_blocks(); ++j2) kv_loads += k.sees(i, j2) ? k.kv_rows(j2) : 0;
  const int64_t row = k.d * k.element_bytes;
  const int64_t kv_bytes = k.kv_resident ? k.batch * k.kv_heads * 2 * k.Skv * row : k.groups() * 2 * kv_loads * row;
  j["bytes_read"] = k.groups() * k.Sq * row + kv_bytes;
  j["bytes_written"] = k.groups() * k.Sq * row;
  if (a.memory == MemoryMode::Hierarchy) j["hbm_addr"] = {{"q", k.q_addr}, {"k", k.k_addr}, {"v", k.v_addr}, {"o", k.o_addr}};
  return j;
}

// A collective the split of a multi-chip run inserts: the tensor, its bytes, and what each chip sends
// by the ring algorithms (an all-reduce 2 (N-1)/N of them, an all-gather (N-1)/N).
nlohmann::ordered_json collective_json(const ArchSpec& a, const CollectiveKernelPlan& c) {
  const int n = a.chips;
  if (c.op == "send")
    return {{"kind", "collective"}, {"name", c.name}, {"op", c.op},   {"tensor", c.tensor},
            {"bytes", c.bytes},     {"from", c.from}, {"to", c.to},   {"why", c.why}};
  const int64_t per_chip = c.op == "all_reduce" ? 2 * (n - 1) * c.bytes / n : (n - 1) * c.bytes / n;
  return {{"kind", "collective"}, {"name", c.name},   {"op", c.op},
          {"tensor", c.tensor},   {"bytes", c.bytes}, {"element_bits", c.value_bits(a.precision.value_bits())},
          {"chips", n}, {"sent_bytes_per_chip", per_chip}, {"why", c.why}};
}

std::string simulated_plan_table(const std::vector<nlohmann::ordered_json>& layers) {
  // The name column is as wide as the longest name (names are often alike until their end).
  size_t w = 14;
  for (const auto& j : layers) w = std::max(w, j["name"].get<std::string>().size());
  std::string out = fmt::format("{:<{}} {:>7} {:>7} {:>7} {:>4} {:>8} {:>9} {:>6} {:>13} {:>13} {:>8}\n", "layer", w, "M", "N",
                                "K", "df", "folds", "rows x cols", "passes", "HBM read", "HBM write", "ifmap x");
  for (const auto& j : layers) {
    if (j.value("kind", "") == "flash") {  // flash attention: its blocks and bytes
      out += fmt::format("{:<{}} {:>7} {:>7} {:>7} {:>4} {:>8} {:>9} {:>6} {:>13} {:>13} {:>8}\n",
                         j["name"].get<std::string>(), w, j["Sq"].get<int64_t>(), j["Skv"].get<int64_t>(),
                         j["head_dim"].get<int64_t>(), "fla",
                         fmt::format("{}x{}", j["q_block"].get<int64_t>(), j["kv_block"].get<int64_t>()), "",
                         j["groups"].get<int64_t>(), j["bytes_read"].dump(), j["bytes_written"].dump(), "");
      continue;
    }
    if (j.value("kind", "") == "collective") {  // between chips: the tensor's bytes, what each chip sends
      std::string op = j["op"].get<std::string>();
      op.erase(std::remove(op.begin(), op.end(), '_'), op.end());  // allreduce, allgather, alltoall, send
      out += fmt::format("{:<{}} {:>7} {:>7} {:>7} {:>4} {:>8} {:>9} {:>6} {:>13} {:>13} {:>8}\n",
                         j["name"].get<std::string>(), w, "", "", "", "col", op,
                         j["op"] == "send" ? fmt::format("{}>{}", j["from"].get<int>(), j["to"].get<int>()) : "", "",
                         fmt::format("{} sent", j.value("sent_bytes_per_chip", j["bytes"].get<int64_t>())),
                         fmt::format("{} B", j["bytes"].get<int64_t>()), "");
      continue;
    }
    if (j.value("kind", "") == "vector") {  // a kernel of the vector unit: its rows, tiles and bytes
      out += fmt::format("{:<{}} {:>7} {:>7} {:>7} {:>4} {:>8} {:>9} {:>6} {:>13} {:>13} {:>8}\n",
                         j["name"].get<std::string>(), w, j["rows"].get<int64_t>(), j["cols"].get<int64_t>(),
                         "", "vec", fmt::format("{} tiles", j["tiles"].get<int64_t>()), "", "",
                         j["bytes_read"].dump(), j["bytes_written"].dump(), "");
      continue;
    }
    if (j.contains("rocc")) {  // controller: rocc: the loops (tiles) the host hands the accelerator
      out += fmt::format("{:<{}} {:>7} {:>7} {:>7} {:>4} {:>8} {:>9} {:>6} {:>13} {:>13} {:>8}\n",
                         j["name"].get<std::string>(), w, j["M"].get<int64_t>(), j["N"].get<int64_t>(),
                         j["K"].get<int64_t>(), "rocc", fmt::format("{} {}", j["rocc"]["tiles"].get<int64_t>(),
                                                                    j["rocc"]["loop"].get<std::string>()),
                         "tiles", 1, "-", "-", "-");
      continue;
    }
    if (j.contains("rs")) {  // row stationary: its passes, and the strip width x strips of its sets
      const auto& m = j["rs"]["mapping"];
      out += fmt::format("{:<{}} {:>7} {:>7} {:>7} {:>4} {:>8} {:>9} {:>6} {:>13} {:>13} {:>8}\n",
                         j["name"].get<std::string>(), w, j["M"].get<int64_t>(), j["N"].get<int64_t>(),
                         j["K"].get<int64_t>(), "rs", j["rs"]["passes"].get<int64_t>(),
                         fmt::format("e{}x{}", m["e"].get<int64_t>(), m["strips"].get<int64_t>()), 1,
                         j.contains("hbm_bytes_read") ? j["hbm_bytes_read"].dump() : "-",
                         j.contains("hbm_bytes_written") ? j["hbm_bytes_written"].dump() : "-", "-");
      continue;
    }
    const auto& f = j["folds"];
    out += fmt::format("{:<{}} {:>7} {:>7} {:>7} {:>4} {:>8} {:>9} {:>6} {:>13} {:>13} {:>8}\n",
                       j["name"].get<std::string>(), w, j["M"].get<int64_t>(), j["N"].get<int64_t>(),
                       j["K"].get<int64_t>(), j["dataflow"].get<std::string>(), f["count"].get<int64_t>(),
                       fmt::format("{}x{}{}", f["row_folds"].get<int64_t>(), f["col_folds"].get<int64_t>(),
                                   f.contains("k_chunks") ? fmt::format("x{}k", f["k_chunks"].get<int64_t>()) : ""),
                       j.contains("repeats") ? fmt::format("{}x{}", j["stream_passes"].size(), j["repeats"].get<int64_t>())
                                             : std::to_string(j["stream_passes"].size()),
                       j.contains("hbm_bytes_read") ? j["hbm_bytes_read"].dump() : "-",
                       j.contains("hbm_bytes_written") ? j["hbm_bytes_written"].dump() : "-",
                       j.contains("ifmap_reread") ? fmt::format("{:.3f}", j["ifmap_reread"].get<double>()) : "-");
  }
  // overlap: pipeline: which layers find their input on chip (the JSON says why the others do not).
  std::vector<std::string> kept;
  for (const auto& j : layers)
    if (j.contains("on_chip") && j["on_chip"]["input"].get<bool>()) kept.push_back(j["name"].get<std::string>());
  if (std::any_of(layers.begin(), layers.end(), [](const auto& j) { return j.value("kind", "") == "vector"; }))
    out += "vec: a vector-unit kernel (rows x cols of its view; the bytes its tensors take, read and written)\n";
  if (std::any_of(layers.begin(), layers.end(), [](const auto& j) { return j.value("kind", "") == "flash"; }))
    out += "fla: flash attention (Sq, Skv, head dim; query x key blocks; passes: (batch, head) groups)\n";
  if (std::any_of(layers.begin(), layers.end(), [](const auto& j) { return j.contains("rs"); }))
    out += "rs: row stationary (folds: its processing passes; rows x cols: strip width e x strips; --json: n p q r t m)\n";
  if (!kept.empty())
    out += fmt::format("input on chip (overlap: pipeline; --json says why not elsewhere): {}\n", fmt::join(kept, ", "));
  return out;
}

int plan_command(const std::vector<std::string>& args) {
  std::string arch_path, workload_path, train, sparsity;
  std::vector<std::string> sets;
  po::options_description desc(
      "usage: cstsim plan --arch <yaml|cfg> --workload <yaml|csv> [--set key=value ...] [--json] [--explore]\n\n"
      "Prints what a run simulates, per layer: the fold plan, each cluster's share, the stream passes\n"
      "and, under memory: hierarchy, the DMA program and the HBM bytes it moves (the run's\n"
      "memory.hbm_bytes_read / hbm_bytes_written). --explore adds the traffic-optimal tiling plan\n"
      "(on-chip blocks, loop order, DRAM bytes), an estimate that is not simulated.\n\noptions");
  desc.add_options()("help,h", "show this help")("arch", po::value(&arch_path)->value_name("FILE"), "accelerator")(
      "workload", po::value(&workload_path)->value_name("FILE"), "layers")(
      "set", po::value(&sets)->value_name("KEY=VALUE")->composing(), "override a config key (repeatable)")(
      "json", "print JSON instead of a table")("explore", "also the traffic-optimal tiling plan (not simulated)")(
      "train", po::value(&train)->value_name("RECOMPUTE"), "the workload's training step (as run --train)")(
      "sparsity", po::value(&sparsity)->value_name("PATTERN"), "the weights' structured sparsity (as run --sparsity)");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(desc).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError::usage("plan", "", e.what());
  }
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  for (const char* required : {"arch", "workload"})
    if (!vm.count(required)) throw InputError::usage("plan", "", fmt::format("--{} is required (see cstsim plan --help)", required));
  const ArchSpec arch = load_arch(arch_path, parse_overrides(sets));
  // chips > 1: one chip's share, and the collectives the split inserts (sim/workload/data_parallel.h);
  // pipeline stages: every stage's, one after another.
  const std::vector<Workload> shares = run_workloads(arch, load_workload(workload_path), sparsity, train);
  const bool stages = arch.pipeline_parallel > 1;
  const bool explore = vm.count("explore") > 0;
  std::vector<nlohmann::ordered_json> layers;  // and the vector kernels between them, in run order
  std::vector<TilingPlan> tilings;
  std::vector<std::pair<size_t, int>> stage_starts;  // (first entry, stage)
  for (size_t c = 0; c < (stages ? shares.size() : 1); ++c) {
    const Workload& w = shares[c];
    const Plan plan = make_plan(arch, w);
    stage_starts.push_back({layers.size(), int(c)});
    for (const Step& step : plan.program.steps) {  // in run order
      nlohmann::ordered_json entry;
      if (step.layer >= 0) {
        const size_t i = size_t(step.layer);
        entry = simulated_plan(arch, plan, plan.layers[i]);
        if (const auto& r = plan.layers[i].rocc) {  // controller: rocc: the tile the host's library picks
          entry["rocc"] = rocc_tile_json(*r);
          entry["rocc"]["tiles"] = rocc_tiles(*r);
        }
        if (arch.chips > 1) entry["split"] = w.layer_splits[i];
        if (explore) tilings.push_back(make_tiling_plan(arch, w.layers[i], w.source));
      } else if (const CollectiveStep* c = step.as<CollectiveStep>()) {
        entry = collective_json(arch, c->collective);
      } else if (const FlashKernelStep* f = step.as<FlashKernelStep>()) {
        entry = flash_kernel_json(arch, f->kernel);
      } else if (const VectorKernelStep* v = step.as<VectorKernelStep>()) {
        entry = vector_kernel_json(arch, v->kernel);
      } else {
        throw std::logic_error("plan: a step of kind '" + step.kind() + "' has no printer");
      }
      entry["step"] = step.id;  // its place in the program (plan/program.h)
      entry["deps"] = step.deps;  // the steps whose results it reads
      layers.push_back(std::move(entry));
    }
    if (stages)
      for (size_t e = stage_starts.back().first; e < layers.size(); ++e) layers[e]["chip"] = c;
  }
  const Workload& w = shares.front();
  if (vm.count("json")) {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    size_t layer = 0;
    for (const nlohmann::ordered_json& entry : layers) {
      j.push_back(entry);
      if (explore && !entry.contains("kind")) j.back()["tiling_explore"] = to_json(tilings[layer++]);
    }
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << "Simulated plan (" << arch.name << ", " << to_string(arch.dataflow) << ", "
            << arch.precision.label() << ", memory "
            << to_string(arch.memory) << (arch.clusters > 1 ? fmt::format(", {} clusters", arch.clusters) : std::string())
            << (arch.chips > 1 && !stages ? fmt::format(", {} chips, {} parallel: one chip's share", arch.chips,
                                                      arch.data_parallel > 1 ? "data" : "tensor")
                                        : std::string())
            << (stages ? fmt::format(", {} pipeline stages, {} micro-batches", arch.chips, arch.micro_batches)
                       : std::string())
            << (w.training ? ", training step, recompute " + w.training->recompute : std::string()) << "):\n";
  if (!stages) std::cout << simulated_plan_table(layers);
  for (size_t k = 0; stages && k < stage_starts.size(); ++k) {
    const size_t to = k + 1 < stage_starts.size() ? stage_starts[k + 1].first : layers.size();
    std::cout << fmt::format("{}stage {} (chip {}):\n", k ? "\n" : "", k, k)
              << simulated_plan_table(std::vector<nlohmann::ordered_json>(layers.begin() + long(stage_starts[k].first), layers.begin() + long(to)));
  }
  if (explore) std::cout << "\nTraffic-optimal tiling plan (an estimate, not simulated):\n" << plan_table(tilings);
  return 0;
}

int import_command(const std::vector<std::string>& args) {
  std::string format, model, out, time_limit, memory_limit;
  std::vector<std::string> dims;
  OnnxImportOptions options;
  po::options_description desc(
      "usage: cstsim import onnx MODEL --out FILE [--dim NAME=VALUE ...] [--dtype D]\n\n"
      "Writes an ONNX model as an operator-graph workload (configs/README.md, \"Operator graphs\"): its\n"
      "shapes inferred by ONNX, the exporter's shape arithmetic folded, decomposed LayerNorm, RMSNorm and\n"
      "GELU fused, its initializers as weights, image tensors NHWC. An op with no counterpart is named\n"
      "(exit 2) and nothing is written.\n\noptions");
  desc.add_options()("help,h", "show this help")("out", po::value(&out)->value_name("FILE"), "the workload YAML to write")(
      "dim", po::value(&dims)->value_name("NAME=VALUE")->composing(),
      "a value for a symbolic dimension of the model (repeatable), e.g. --dim batch=1")(
      "dtype", po::value(&options.dtype)->value_name("D"),
      "write the model's floating-point tensors as D (int8, fp8, int16, fp16, bf16, fp32, ...)")(
      "weight-dtype", po::value(&options.weight_dtype)->value_name("D"), "the same for its weights only (over --dtype)")(
      "activation-dtype", po::value(&options.activation_dtype)->value_name("D"),
      "the same for its inputs and activations only (over --dtype)")(
      "time-limit", po::value(&time_limit)->value_name("SECONDS"),
      "CPU seconds ONNX's shape inference may use on the model (default 120; CPU time, so a busy machine does not use it up)")(
      "memory-limit", po::value(&memory_limit)->value_name("BYTES"),
      "address space ONNX's shape inference may use (default 8GiB; 0: no limit)")(
      "force", "replace FILE even if it is not a workload cstsim import wrote (never the model itself)");
  po::options_description hidden;
  hidden.add_options()("format", po::value(&format))("model", po::value(&model));
  po::options_description all;
  all.add(desc).add(hidden);
  po::positional_options_description positional;
  positional.add("format", 1).add("model", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError::usage("import", "", e.what());
  }
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  if (format != "onnx") throw InputError::usage("import", "", "the format must be onnx (cstsim import onnx MODEL --out FILE)");
  if (model.empty()) throw InputError::usage("import", "", "give the ONNX model (cstsim import onnx MODEL --out FILE)");
  if (out.empty()) throw InputError::usage("import", "", "--out is required");
  for (const auto& [option, value] : {std::pair<const char*, const std::string&>{"--dtype", options.dtype},
                                      {"--weight-dtype", options.weight_dtype},
                                      {"--activation-dtype", options.activation_dtype}})
    if (vm.count(option + 2) && dtype_bits(value) == 0)
      throw InputError(option, 0, "", fmt::format("{} is not a dtype (int4, int8, fp8, fp8_e5m2, int16, fp16, bf16, int32, fp32)",
                                                  text::quoted(value)));
  if (!time_limit.empty()) {
    const std::optional<double> t = text::parse_double(time_limit);
    if (!t || !(*t >= 1) || *t > 86400) throw InputError("--time-limit", 0, "", "must be 1 to 86400 CPU seconds, got " + text::quoted(time_limit));
    options.cpu_seconds = *t;
  }
  if (!memory_limit.empty()) {
    const QuantityResult q = parse_quantity(memory_limit, "bytes");
    if (!q.problem.empty() || !(q.value == 0 || q.value >= double(64 << 20)) || q.value > 9e18 || q.value != std::floor(q.value))
      throw InputError("--memory-limit", 0, "",
                       "must be 0 (no limit) or at least 64MiB (a number of bytes, or with a unit: 4GiB), got " +
                           text::quoted(memory_limit));
    options.memory_bytes = int64_t(q.value);
  }
  for (const std::string& d : dims) {
    const size_t eq = d.find('=');
    const auto value = eq == std::string::npos ? std::nullopt : text::parse_int(d.substr(eq + 1));
    if (!value || *value < 1 || eq == 0) throw InputError("--dim", 0, d, "expected NAME=VALUE with a positive integer");
    options.dims[d.substr(0, eq)] = *value;
  }
  // Before anything is read or written: never the model, nor a file import did not write (without --force).
  const fs::path out_path = out;
  std::error_code ec;
  if (fs::exists(out_path, ec) && fs::exists(model, ec) && fs::equivalent(out_path, model, ec))
    throw InputError(out, 0, "--out", "is the input model " + model + "; choose another path");
  if (fs::is_directory(out_path, ec)) throw InputError(out, 0, "--out", "is a directory; name the workload file");
  io::check_replaceable(out_path, "--out", vm.count("force") > 0,
                        [](std::string_view head) { return head.rfind("# imported by cstsim import onnx ", 0) == 0; },
                        "a workload written by cstsim import onnx");
  const OnnxImport imported = import_onnx(model, options);
  try {  // what cstsim plan would refuse in it is refused now, naming the ONNX node, and nothing is written
    read_workload_text(out, imported.yaml);
  } catch (const InputError& e) {
    const std::string node = imported.origin_of(e.line());
    throw InputError(model, 0, node.empty() ? "graph" : node,
                     "its operator graph is refused: " + (e.key().empty() ? "" : e.key() + ": ") + e.message());
  }
  io::write_file(out, imported.yaml);
  fmt::print("wrote {}: {} ops on {} tensors from {} ONNX nodes\n", out, imported.ops, imported.tensors, imported.nodes);
  return 0;
}

int post_command(const std::vector<std::string>& args) {
  post::PostOptions o;
  std::string run_dir;
  po::options_description desc(
      "usage: cstsim post <run-dir> [--normalization FILE] [--window CYCLES]\n\n"
      "Integrates <run-dir>/trace exactly and rewrites report.json, report.txt and\n"
      "energy_windows.csv (schema in traces/FORMAT.md).\n\noptions");
  desc.add_options()("help,h", "show this help")(
      "normalization", po::value(&o.normalization)->value_name("FILE"),
      "references C_ref..S_ref, weights w_C..w_S and boundary: adds the scalar V_CST*")(
      "window", po::value(&o.window)->value_name("CYCLES"),
      "window for B_peak and energy over time; a multiple of the trace's window (default: the trace's)")(
      "force", "rewrite the three files even where they are not earlier cstsim reports");
  po::options_description hidden;
  hidden.add_options()("run-dir", po::value(&run_dir));
  po::options_description all;
  all.add(desc).add(hidden);
  po::positional_options_description pos;
  pos.add("run-dir", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError::usage("post", "", e.what());
  }
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  if (run_dir.empty()) throw InputError::usage("post", "", "a run directory is required (see cstsim post --help)");
  if (vm.count("window") && o.window <= 0) throw InputError("--window", 0, "", "must be a positive number of cycles");
  o.run_dir = run_dir;
  // post rewrites only what a run (or an earlier post) wrote, recognised by how it begins.
  const bool force = vm.count("force") > 0;
  const std::pair<const char*, std::function<bool(std::string_view)>> outputs[] = {
      {"report.json", [](std::string_view h) { return h.rfind("{\n  \"version\": ", 0) == 0 && h.find("\"boundary\"") != h.npos; }},
      {"report.txt", [](std::string_view h) { return h.rfind("boundary ", 0) == 0 && h.find(" | grade ") != h.npos; }},
      {"energy_windows.csv", [](std::string_view h) { return h.rfind("layer,window_start,window_end,time_start_s,", 0) == 0; }}};
  for (const auto& [name, ours] : outputs)
    io::check_replaceable(fs::path(run_dir) / name, "post", force, ours, std::string("a ") + name + " written by cstsim",
                          "; --force rewrites it");
  const post::PostOutputs out = post::post_process(o);
  post::write_post_outputs(o.run_dir, out);
  std::cout << out.text;
  return 0;
}

int run_command(const std::vector<std::string>& args) {
  RunOptions o;
  std::vector<std::string> sets;
  std::string fault, describe, seed, max_trace, scalesim_reports = "compute", fidelity = "exact";
  std::string verify;
  bool verbose = false, quiet = false;
  po::options_description desc(
      "usage: cstsim run --arch <yaml|cfg> --workload <yaml|csv> --out <dir> [options]\n"
      "       cstsim run --describe [SECTION] [--arch <yaml> [--set key=value ...]]\n\n"
      "Simulates every layer of the workload on the accelerator and writes <dir>/summary.json\n"
      "and <dir>/layers.csv (plus SCALE-Sim's COMPUTE_REPORT.csv, BANDWIDTH_REPORT.csv and\n"
      "DETAILED_ACCESS_REPORT.csv under fold_pipeline: scalesim). The directory appears only when\n"
      "the run completed.\n\noptions");
  desc.add_options()
      ("help,h", "show this help")
      ("arch", po::value(&o.arch_path)->value_name("FILE"),
       "accelerator: cstsim YAML (configs/arch/) or SCALE-Sim .cfg")
      ("workload", po::value(&o.workload_path)->value_name("FILE"),
       "layers: YAML list of GEMMs or SCALE-Sim topology CSV")
      ("out", po::value(&o.out_dir)->value_name("DIR"),
       "run directory to write; an existing DIR is replaced only if it is a cstsim run directory")
      ("force", po::bool_switch(&o.force),
       "replace an existing --out even if it is not a run directory (never the current directory, "
       "an input or a directory holding one)")
      ("set", po::value(&sets)->value_name("KEY=VALUE")->composing(),
       "override a config key, e.g. --set array.rows=64 --set dataflow=os (repeatable)")
      ("verify", po::value(&verify)->implicit_value("")->value_name("structural"),
       "register-level reference mode: move real values of the arch's operand type through the PE registers, "
       "check every output bit for bit against a reference GEMM in the grid's order and every event cycle "
       "against the timing mode; exit 1 on mismatch. --verify=structural: also every PE as an sc_module wired "
       "by sc_signals, checked against the register grid every cycle (arrays up to 16x16; exit 3 on mismatch; "
       "docs/structural-mode.md)")
      ("vcd-pes", "with --verify=structural: trace every PE's signals to <out>/pes.vcd")
      ("train", po::value(&o.train)->value_name("RECOMPUTE"),
       "simulate the workload's training step: forward, dX and dW of every layer, AdamW on the vector unit; "
       "RECOMPUTE none | selective | full says which activations are recomputed instead of kept "
       "(sim/workload/training.h)")
      ("sparsity", po::value(&o.sparsity)->value_name("2:4"),
       "the weights are 2:4 structured-sparse along K (layers whose K is a multiple of 4 and whose B is a "
       "weight); PEs with sparsity.skip_2_4: true hold the kept half and skip the rest (sim/workload/sparsity.h)")
      ("energy", po::value(&o.energy_table)->value_name("FILE"),
       "energy table (default: the arch's energy key, else configs/energy/horowitz-45nm.yaml)")
      ("normalization", po::value(&o.normalization)->value_name("FILE"),
       "declare C_ref..S_ref, weights and boundary to get the scalar V_CST* in report.json")
      ("no-trace", "skip the R(t) trace and report.json (summary.json and layers.csv only)")
      ("fidelity", po::value(&fidelity)->value_name("MODE"),
       "exact (default): every fold through the memory; sampled: each stream pass through the full hierarchy "
       "simulated in part (its fill, its drain, windows of its body) and the rest estimated, with a 95 % interval "
       "in summary.json (needs --no-trace; docs/sampling.md); auto: sampled for passes of at least 512 folds when "
       "the run has no trace, else exact")
      ("scalesim-reports", po::value(&scalesim_reports)->value_name("WHICH"),
       "under fold_pipeline: scalesim (a SCALE-Sim .cfg): compute (default) writes COMPUTE_REPORT.csv; all also "
       "BANDWIDTH_REPORT.csv and DETAILED_ACCESS_REPORT.csv, whose replay of SCALE-Sim's memory takes most of the "
       "run (InterfaceBandwidth: USER replays it anyway and writes all three)")
      ("no-hbm-check", "do not run the HBM protocol checker on every command (memory: hbm | hierarchy; "
       "5-10 % faster on hierarchy runs)")
      ("window", po::value(&o.window)->value_name("CYCLES"),
       "window of the trace's action counters, in cycles (default 1024)")
      ("max-trace-bytes", po::value(&max_trace)->value_name("BYTES"),
       "largest trace to write (default 4GiB; 0: no limit; units: 512MiB, 2GiB): a run whose trace is "
       "estimated past it is refused before it starts, and one that grows past it is stopped")
      ("seed", po::value(&seed)->value_name("N"), "seed of the --verify operand values (default 1)")
      ("inject-fault", po::value(&fault)->value_name("CYCLE,ROW,COL[,CLUSTER]"),
       "with --verify: flip one bit of PE(ROW,COL)'s sum register in cluster CLUSTER (default 0) after the clock "
       "edge of CYCLE, to see the checker catch it")
      ("inject-plan-fault", po::value(&o.plan_fault_layer)->value_name("LAYER"),
       "halve K in every pass the plan makes of LAYER (a planning error the register grid and its reference "
       "share), to see the run's check against the workload as written stop it (exit 3)")
      ("describe", po::value(&describe)->implicit_value("")->value_name("SECTION"),
       "print every arch key (type, unit, default, meaning), or those of one SECTION (array, hbm, noc, "
       "scratchpad, ...); with --arch also the keys and values of its HBM and NoC files; then exit")
      ("progress-every", po::value(&o.progress_every)->value_name("SECONDS"),
       "progress on stderr (layer, cycle, share of the MACs done, ETA): a bar on a terminal, else a line "
       "every SECONDS (default 10; 0: none)")
      ("verbose,v", po::bool_switch(&verbose), "debug logging and the module tree")
      ("quiet,q", po::bool_switch(&quiet), "warnings and errors only; no table, no progress");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(desc).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError::usage("run", "", e.what());
  }
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  if (vm.count("describe")) {
    std::cout << describe_config(describe, o.arch_path, parse_overrides(sets));
    return 0;
  }
  for (const char* required : {"arch", "workload", "out"})
    if (!vm.count(required)) throw InputError::usage("run", "", fmt::format("--{} is required (see cstsim run --help)", required));
  setup_logging(verbose, quiet);
  o.overrides = parse_overrides(sets);
  o.print_table = !quiet;
  if (!(o.progress_every >= 0)) throw InputError("--progress-every", 0, "", "must be a number of seconds >= 0");
  if (quiet) o.progress_every = 0;
  if (!verify.empty() && verify != "structural")
    throw InputError("--verify", 0, "", "takes no value or =structural, got " + text::quoted(verify));
  o.verify = vm.count("verify") != 0;
  o.structural = verify == "structural";
  o.vcd_pes = vm.count("vcd-pes") != 0;
  o.trace = vm.count("no-trace") == 0;
  o.check_hbm = vm.count("no-hbm-check") == 0;
  if (scalesim_reports != "compute" && scalesim_reports != "all")
    throw InputError("--scalesim-reports", 0, "", "is compute or all, got " + text::quoted(scalesim_reports));
  o.scalesim_memory_reports = scalesim_reports == "all";
  if (fidelity == "exact") o.fidelity = Fidelity::Exact;
  else if (fidelity == "sampled") o.fidelity = Fidelity::Sampled;
  else if (fidelity == "auto") o.fidelity = Fidelity::Auto;
  else throw InputError("--fidelity", 0, "", "is exact, sampled or auto, got " + text::quoted(fidelity));
  if (o.fidelity == Fidelity::Sampled && o.verify)
    throw InputError("--fidelity", 0, "", "sampled estimates what --verify checks cycle by cycle: use one of them");
  if (o.fidelity == Fidelity::Sampled && o.trace)
    throw InputError("--fidelity", 0, "",
                     "sampled has no trace yet (its skipped spans have no R(t)): add --no-trace, or use auto");
  if (o.window <= 0) throw InputError("--window", 0, "", "must be a positive number of cycles");
  for (const char* path_option : {"arch", "workload", "energy", "normalization"})
    if (vm.count(path_option) && vm[path_option].as<std::string>().empty())
      throw InputError(std::string("--") + path_option, 0, "", "an empty path (leave the option out instead)");
  if (!max_trace.empty()) {
    const QuantityResult q = parse_quantity(max_trace, "bytes");
    if (!q.problem.empty() || !(q.value >= 0) || q.value > 1.8e19 || q.value != std::floor(q.value))
      throw InputError("--max-trace-bytes", 0, "",
                       "must be a whole number of bytes (or with a unit: 512MiB, 2GiB), got " + text::quoted(max_trace));
    o.max_trace_bytes = uint64_t(q.value);
  }
  if (!seed.empty()) {  // read here: program_options would take -1 as 2^64 - 1
    const std::optional<int64_t> s = text::parse_int(seed);
    if (!s || *s < 0) throw InputError("--seed", 0, "", "must be a non-negative integer, got " + text::quoted(seed));
    o.seed = uint64_t(*s);
  }
  if (!fault.empty()) {
    char tail = 0;
    long long cycle = 0;
    const int n = std::sscanf(fault.c_str(), "%lld,%d,%d,%d%c", &cycle, &o.fault_row, &o.fault_col, &o.fault_cluster, &tail);
    if ((n != 3 && n != 4) || cycle < 0)
      throw InputError("--inject-fault", 0, "", "expected CYCLE,ROW,COL[,CLUSTER] with non-negative integers");
    if (!o.verify) throw InputError("--inject-fault", 0, "", "needs --verify");
    o.fault_cycle = cycle;
  }
  return run_simulation(o);
}

}  // namespace

// What an internal error asks of the user.
constexpr const char* kReportBug =
    " (a cstsim bug, not your input: nothing was written; please report it with the command line and input files)";

namespace {

int dispatch(std::vector<std::string> args) {
  try {
    if (args.empty())
      throw InputError::usage("", "", "no command given (run, plan, post, export, plot, ledger, sweep, pareto, noc-bench, hbm-bench, "
                       "collective, import, serve; cstsim --help for the usage)");
    if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
      std::cout << kCliUsage;
      return 0;
    }
    if (args[0] == "--version") {
      std::cout << "cstsim " << CSTSIM_VERSION << " (commit " << CSTSIM_COMMIT << ")\n"
                << "configs: " << config_dir() << "\nplot scripts: " << plot_dir() << "\n";
      return 0;
    }
    const std::string command = args[0];
    args.erase(args.begin());
    if (command == "run") return run_command(args);
    if (command == "post") return post_command(args);
    if (command == "plan") return plan_command(args);
    if (command == "export") return export_command(args);
    if (command == "ledger") return ledger_command(args);
    if (command == "sweep") return sweep_command(args);
    if (command == "pareto") return pareto_command(args);
    if (command == "noc-bench") return noc_bench_command(args);
    if (command == "collective") return collective_command(args);
    if (command == "plot") return plot_command(args);
    if (command == "hbm-bench") return hbm_bench_command(args);
    if (command == "import") return import_command(args);
    if (command == "serve") return serve_command(args);
    throw InputError::usage("", "", fmt::format("unknown command '{}' (commands: run, plan, post, export, plot, ledger, sweep, pareto, noc-bench, hbm-bench, collective, import, serve)", command));
  } catch (const InputError& e) {  // a bad file, value or command line
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const io::OutputError& e) {  // disk full, read-only target: the input was fine, the output was not
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    std::cerr << "error: " << InputError::one_line(e.what()) << "\n";
    return 2;
  } catch (const InvariantError& e) {  // a model bug, not the input: nothing was written
    std::cerr << "internal error: " << InputError::one_line(e.what()) << kReportBug << "\n";
    return 3;
  } catch (const std::logic_error& e) {  // a law of the code broken: never the user's mistake
    std::cerr << "internal error: " << InputError::one_line(e.what()) << kReportBug << "\n";
    return 3;
  } catch (const std::bad_alloc&) {  // sizes are checked before anything is made; this is the backstop
    std::cerr << "error: out of memory: the run needs more memory than this machine gives it (reduce the "
                 "workload's sizes or the trace, or see --no-trace)\n";
    return 2;
  } catch (const std::exception& e) {  // never past SystemC's kernel: one line, whatever the reader or model met
    std::cerr << "error: " << InputError::one_line(e.what()) << "\n";
    return 2;
  }
}

}  // namespace

int cli_main(int argc, char** argv) {
  cleanup::install();  // a signal removes the staging directory; a file-size limit is an error line
  const int status = dispatch(std::vector<std::string>(argv + 1, argv + argc));
  // A run that failed after its simulation started (a full disk or a file-size limit met by the
  // trace, a process's error) leaves SystemC's other threads suspended, their frames never unwound:
  // the process ends here, its output flushed, without tearing down what they hold.
  if (status >= 2 && simulation_started()) {
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    std::_Exit(status);
  }
  return status;
}

}  // namespace cstsim
