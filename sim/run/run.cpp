#include "sim/run/run.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <mutex>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/details/log_msg_buffer.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>
#include <systemc>

#include "models/accelerator/accelerator.h"
#include "models/accelerator/process_guard.h"
#include "models/noc/topology.h"
#include "core/text.h"
#include "core/input_error.h"
#include "core/input_file.h"
#include "core/out_file.h"
#include "core/staged_dir.h"
#include "sim/config/config_hash.h"
#include "sim/run/progress.h"
#include "sim/run/trace_budget.h"
#include "sim/run/report.h"
#include "sim/run/scalesim_replay.h"
#include "sim/run/scalesim_reports.h"
#include "sim/workload/workload.h"
#include "sim/workload/sparsity.h"
#include "sim/workload/training.h"
#include "traces/post/energy_table.h"
#include "traces/post/normalization.h"
#include "traces/post/post.h"
#include "sim/run/hierarchy_check.h"
#include "sim/run/invariants.h"
#include "sim/config/accelerator_spec.h"
#include "sim/mapper/mapper.h"
#include "core/install_paths.h"
#include "sim/run/chips.h"
#include "sim/run/chips_verify.h"
#include "sim/run/debug_log.h"
#include "sim/workload/data_parallel.h"
#include "models/interconnect/chip_set.h"
#include "traces/sink.h"

namespace cstsim {
namespace {

std::string default_energy_table() { return config_dir() + "/energy/horowitz-45nm.yaml"; }

// What the energy table's size-dependent rows scale with: the SRAM partitions (every
// cluster has its own) split into scratchpad.banks banks, the PEs, and the mesh's router
// input buffers (memory: hierarchy only).
post::Geometry energy_geometry(const ArchSpec& a) {
  post::Geometry g;
  const double cluster_bytes = double(a.ifmap_sram_kib + a.filter_sram_kib + a.ofmap_sram_kib) * 1024.0;
  g.sram_bytes = cluster_bytes * a.clusters;
  g.sram_bank_bytes = cluster_bytes / a.scratchpad.banks;
  g.pes = double(a.rows) * double(a.cols) * a.clusters;
  if (a.memory == MemoryMode::Hierarchy) g.noc_buffer_bytes = double(noc::input_buffer_bytes(a.noc_config));
  g.sram_bytes *= a.chips, g.pes *= a.chips, g.noc_buffer_bytes *= a.chips;  // every chip's
  return g;
}

// The table the run prices its trace with (written to its directory): size-dependent rows resolved
// for the arch; with chips, every static row once per chip (the rows that scale with size already
// count every chip's) and the interconnect's wire bytes at its link preset's energy per bit.
post::EnergyTable run_energy_table(const ArchSpec& a, const std::string& path) {
  const post::EnergyTable raw = post::load_energy_table(path);
  post::EnergyTable table = post::resolved(raw, energy_geometry(a));
  if (a.chips == 1) return table;
  for (size_t i = 0; i < table.static_power.size(); ++i)
    if (raw.static_power[i].watts_per_byte < 0 && raw.static_power[i].watts_per_pe < 0 &&
        raw.static_power[i].watts_per_buffer_byte < 0) {
      table.static_power[i].watts *= a.chips;
      table.static_power[i].source += fmt::format(" (x {} chips)", a.chips);
    }
  post::ActionEnergy link;
  link.action = "link.interconnect";
  link.pj = 8 * a.link_spec.pj_per_bit;
  link.per = "byte on a chip-to-chip link (payload and headers)";
  link.source = fmt::format("{} x 8 bits: {} ({})", a.link_spec.pj_per_bit, a.interconnect.link_name, a.interconnect.link);
  table.actions.push_back(link);
  return table;
}

// The register-level mode tags tokens with fold*T + t in 32 bits and holds the
// operands in memory; refuse, by name, a layer it cannot take.
void check_reference_limits(const ArchSpec& a, const Workload& w) {
  for (const Layer& l : w.layers) {
    const FoldPlan p = make_fold_plan(a.dataflow, a.rows, a.cols, l.M, l.N, l.K, a.precision.pack);
    if (double(p.fold_count()) * double(p.T) >= double(std::numeric_limits<int32_t>::max()) ||
        double(l.M) * double(l.K) + double(l.K) * double(l.N) > 2e9)  // operands held as 4-byte floats: 8 GB
      throw InputError(w.source, l.source_line, l.name, "layer too large for --verify (register-level mode)");
  }
}

// Warnings said while the inputs are still being checked wait until every check has passed: a run
// refused as bad input prints its one error line and nothing else. Other lines pass at once; the
// held ones are dropped if the run never gets to release() (it failed, and says why).
class HeldWarnings {
 public:
  HeldWarnings() : logger_(spdlog::default_logger()) {
    if (!logger_) return;
    hold_ = std::make_shared<Hold>(logger_->sinks());
    logger_->sinks() = {hold_};
  }
  ~HeldWarnings() { restore(); }
  HeldWarnings(const HeldWarnings&) = delete;
  HeldWarnings& operator=(const HeldWarnings&) = delete;
  void release() {
    if (!hold_) return;
    std::shared_ptr<Hold> hold = hold_;
    restore();
    for (const spdlog::details::log_msg_buffer& m : hold->held)
      for (const spdlog::sink_ptr& s : logger_->sinks())
        if (s->should_log(m.level)) s->log(m);
    logger_->flush();
  }

 private:
  struct Hold : spdlog::sinks::base_sink<std::mutex> {
    explicit Hold(std::vector<spdlog::sink_ptr> out) : out(std::move(out)) {}
    std::vector<spdlog::sink_ptr> out;
    std::vector<spdlog::details::log_msg_buffer> held;
    void sink_it_(const spdlog::details::log_msg& m) override {
      if (m.level >= spdlog::level::warn) held.emplace_back(m);
      else
        for (const spdlog::sink_ptr& s : out)
          if (s->should_log(m.level)) s->log(m);
    }
    void flush_() override {
      for (const spdlog::sink_ptr& s : out) s->flush();
    }
  };
  void restore() {
    if (!hold_) return;
    logger_->sinks() = hold_->out;
    hold_.reset();
  }
  std::shared_ptr<spdlog::logger> logger_;
  std::shared_ptr<Hold> hold_;
};

// Without a vector unit an operator graph's vector ops do not run: say so before the run, not only
// in summary.json.
void warn_unsimulated(const ArchSpec& a, const Workload& w) {
  if (w.vector_steps.empty() || a.vector.lanes > 0) return;
  std::map<std::string, int> kinds;
  std::string last_op;
  int64_t bytes = 0, ops = 0;
  for (const VectorStep& v : w.vector_steps) {
    if (v.op != last_op) ++kinds[v.kind], ++ops;
    last_op = v.op;
    bytes += v.read_bytes() + v.written_bytes();
  }
  std::vector<std::string> parts;
  for (const auto& [kind, n] : kinds) parts.push_back(fmt::format("{} {}", n, kind));
  spdlog::warn("{} ops of the graph are not simulated: the arch has no vector unit (vector.lanes); {}; unfused they "
               "would move {} bytes. Listed in summary.json under workload.not_simulated",
               ops, fmt::format("{}", fmt::join(parts, ", ")), bytes);
}

// A graph's tensors move at their dtypes' widths, but the array computes in the arch's operand type
// (precision.operand): say so when a tensor is wider than it.
void warn_dtype(const ArchSpec& a, const Workload& w) {
  // Narrower tensors are what precision.activation / .weight model; wider ones cannot be exact.
  for (const Layer& l : w.layers)
    if (std::max(l.dtype_bits, l.b_dtype_bits) > a.precision.operand_bits()) {
      spdlog::warn("layer {} reads {}-bit tensors: they move through HBM and the scratchpad at that width, but the "
                   "array computes in the arch's {} (precision.operand), in which they are not exact",
                   l.name, std::max(l.dtype_bits, l.b_dtype_bits), to_string(a.precision.operand));
      return;
    }
}

}  // namespace

bool simulation_started() { return sc_core::sc_get_status() != sc_core::SC_ELABORATION; }

int run_simulation(const RunOptions& o) {
  HeldWarnings held;  // until the inputs are all checked
  const ArchSpec arch = load_arch(o.arch_path, o.overrides);
  // --energy, else the table the arch names, else the default.
  const std::string energy_path =
      !o.energy_table.empty() ? o.energy_table : !arch.energy.empty() ? arch.energy : default_energy_table();
  std::vector<std::string> dense;  // layers --sparsity leaves dense
  // chips > 1: every chip runs the same share of the workload (sim/workload/data_parallel.h), or,
  // in pipeline stages, each chip its stage's.
  const std::vector<Workload> shares = run_workloads(arch, load_workload(o.workload_path), o.sparsity, o.train, &dense);
  const size_t distinct = arch.pipeline_parallel > 1 ? shares.size() : 1;  // the shares that differ
  const Workload& workload = shares.front();
  if (!dense.empty())
    spdlog::warn("--sparsity {}: {} layer(s) stay dense (K not a multiple of 4, or B not a weight of their own), "
                 "e.g. {}", o.sparsity, dense.size(), dense.front());
  if (!o.sparsity.empty() && arch.skip_2_4 && arch.memory == MemoryMode::Hierarchy && arch.hbm.layout != "tiled")
    throw InputError(o.arch_path, 0, "hbm.layout",
                     "2:4 weights under memory: hierarchy need hbm.layout: tiled (row-major blocks of kept values "
                     "and their places are not modelled)");

  const Layer* gated = nullptr;  // a layer whose zero activations the PEs gate
  if (arch.zero_gating)
    for (const Layer& l : workload.layers) {
      if (l.input_density >= 1) continue;
      if (!gated) gated = &l;
      if (arch.skip_2_4 && l.weights_2_4)
        throw InputError(workload.source, l.source_line, l.name,
                         "zero gating of a layer whose 2:4 weights the PEs skip is not modelled (which zero activations "
                         "meet kept weights depends on the weights' places)");
    }
  warn_unsimulated(arch, workload);
  warn_dtype(arch, workload);
  // Before anything is written. The inputs: those named, and every file a loader has opened so far
  // (an HBM file's preset chain, NoC presets, link files, includes), however it was reached.
  std::vector<std::filesystem::path> named{o.arch_path,    o.workload_path, energy_path,
                                           o.normalization, arch.hbm.spec,  arch.noc.spec,
                                           arch.interconnect.link};
  const auto check_out = [&] {
    std::vector<std::filesystem::path> inputs = named;
    for (std::filesystem::path& p : inputs_read()) inputs.push_back(std::move(p));
    check_out_target(o.out_dir, inputs, o.force);
  };
  check_out();
  if (arch.chips > 1 && o.verify && arch.clusters > 1)
    throw InputError(o.arch_path, 0, "clusters", "--verify across chips checks one array per chip (clusters: 1)");
  if (arch.chips > 1 && o.verify)
    for (const Layer& l : workload.layers)
      if (l.input_density < 1)  // zeros are placed by each chip's own share, not cut from one whole
        throw InputError(workload.source, l.source_line, l.name,
                         "--verify across chips takes dense inputs (input_density 1): zero gating's zeros are placed "
                         "in each chip's share");
  if (arch.chips > 1 && o.fault_cycle >= 0) throw InputError("--inject-fault", 0, "", "applies to one chip (chips: 1)");
  if (arch.chips > 1 && arch.vector.lanes == 0)
    for (const CollectiveKernelPlan& c : workload.collectives)
      if (c.op == "all_reduce")
        throw InputError(o.arch_path, 0, "vector.lanes",
                         fmt::format("{} chips add the partial sums of {} on their vector units: the arch has none "
                                     "(vector.lanes)", arch.chips, c.tensor));
  if (o.verify)
    for (size_t d = 0; d < distinct; ++d) check_reference_limits(arch, shares[d]);
  if (o.fault_cycle >= 0 && arch.dataflow == Dataflow::RS)
    throw InputError("--inject-fault", 0, "", "the row-stationary grid takes no injected fault yet (its checker is "
                                              "tested by corrupting a weight, tests/unit/test_rs_equivalence.cpp)");
  for (size_t d = 0; d < distinct && o.verify; ++d)
    if (!shares[d].flash.empty())
      throw InputError(workload.source, shares[d].flash.front().line, shares[d].flash.front().name,
                       "--verify checks layers on the register-level array; flash attention's tiles are timed by the "
                       "closed form only (use tiling: materialized to verify)");
  // The one plan the models execute (pipeline stages: one per chip); every layer must map, and its
  // DMA programs fit, before anything runs (each share's first pass is its longest).
  std::vector<Plan> plans;
  for (size_t d = 0; d < distinct; ++d) {
    plans.push_back(make_plan(arch, shares[d]));
    add_scalesim_memory(arch, shares[d], plans.back());
  }
  if (!o.plan_fault_layer.empty()) {
    auto layer = std::find_if(plans.front().layers.begin(), plans.front().layers.end(),
                              [&](const LayerPlan& l) { return l.name == o.plan_fault_layer; });
    if (layer == plans.front().layers.end() || layer->rs)
      throw InputError("--inject-plan-fault", 0, "", "no GEMM layer named " + text::quoted(o.plan_fault_layer));
    for (ClusterLayerPlan& c : layer->clusters)
      for (PassPlan& p : c.passes) {
        if (p.idle()) continue;  // a cluster with no share of the layer
        if (p.dims.K < 2) throw InputError("--inject-plan-fault", 0, "", "a pass of K < 2 has no half to lose");
        p.dims.K /= 2;
      }
  }
  const Plan& plan = plans.front();
  log_plan(arch, plan);
  if (arch.memory == MemoryMode::Hierarchy) check_scratchpad(arch);  // also when no layer's program checks it
  for (const Plan& each : plans) {
    if (arch.memory != MemoryMode::Hierarchy) break;
    check_hbm_capacity(arch, each);
    for (const LayerPlan& l : each.layers)
      for (const ClusterLayerPlan& c : l.clusters)
        if (!c.passes.front().idle() && !l.rs) {  // row stationary moves no DMA program of folds
          const PassPlan& first = c.passes.front();
          check_hierarchy(arch, dma_program(fold_plan(each, first), first));
        }
  }
  AcceleratorSpec spec = accelerator_spec(arch);
  spec.check_hbm_protocol = o.check_hbm;
  // Read the energy table (and normalization) now, so bad input fails before any output exists.
  const std::string type = to_string(arch.precision.operand), mac_row = "mac." + type + ".executed";
  const post::EnergyTable run_table = run_energy_table(arch, energy_path);  // as energy.yaml will hold it
  if (!run_table.find(mac_row))
    throw InputError(energy_path, 0, "actions",
                     fmt::format("no row prices {} MACs ({}), the array's operand type (precision.operand)", type, mac_row));
  if (gated && !run_table.find("mac." + type + ".gated"))
    throw InputError(energy_path, 0, "actions",
                     fmt::format("no row mac.{}.gated prices the {} MACs the PEs gate (sparsity.zero_gating; layer {} "
                                 "has input density {})", type, type, gated->name, gated->input_density));
  if (!o.normalization.empty()) post::load_normalization(o.normalization);
  check_out();  // again, now with the energy table's base chain and the normalization read
  StagedDir out(o.out_dir, o.force);  // an output path that cannot be made fails here, before any progress line
  held.release();  // every input has passed: the warnings about them may now be said
  const std::string mode = o.verify ? "reference" : "timing";

  AcceleratorOptions options;
  options.mode = o.verify ? ArrayMode::Reference : ArrayMode::Timing;
  options.seed = o.seed;
  options.fault = {o.fault_cycle, o.fault_row, o.fault_col, o.fault_cluster};
  if (o.fault_cycle >= 0 && (o.fault_row >= arch.rows || o.fault_col >= arch.cols || o.fault_row < 0 || o.fault_col < 0))
    throw InputError("--inject-fault", 0, "", "PE outside the array");
  if (o.fault_cycle >= 0 && (o.fault_cluster < 0 || o.fault_cluster >= arch.clusters))
    throw InputError("--inject-fault", 0, "", fmt::format("cluster {} outside 0..{}", o.fault_cluster, arch.clusters - 1));
  try {
    std::unique_ptr<trace::TraceSink> sink;
    if (o.trace)  // a trace that cannot be written (disk full) ends the simulation at once
      sink = std::make_unique<trace::TraceSink>(trace::TraceSink::Options{
          out.path() / "trace", arch.clock_hz, o.window, size_t(1) << 15, [] { sc_core::sc_stop(); },
          o.max_trace_bytes});
    std::vector<RunProgress::Layer> layers;
    for (const LayerPlan& l : plan.layers) layers.push_back({l.name, l.macs()});
    auto progress = std::make_unique<RunProgress>(std::move(layers), o.progress_every, isatty(STDERR_FILENO) != 0);
    options.position = &progress->position();
    // chips > 1: the interconnect first (its links lead the trace), then every chip, each under its
    // own names on the trace ("chip<k>.").
    std::unique_ptr<ic::ChipSet> chip_set;
    // Pipeline stages run different layers at once: the trace is one band over them all.
    if (sink && distinct > 1)
      sink->one_layer(fmt::format("{} pipeline stages x {} micro-batches", arch.chips, arch.micro_batches));
    if (arch.chips > 1) chip_set = std::make_unique<ic::ChipSet>(chip_set_params(arch), run_collectives(shares), sink.get());
    std::vector<std::unique_ptr<Accelerator>> chips;
    for (int k = 0; k < arch.chips; ++k) {
      AcceleratorOptions mine = options;
      mine.chips = chip_set.get();
      mine.chip = k;
      if (k > 0) mine.position = nullptr;  // the progress display follows chip 0
      if (sink && chip_set) sink->set_scope(fmt::format("chip{}.", k));
      const std::string name = chip_set ? fmt::format("chip{}", k) : "accelerator";
      chips.push_back(std::make_unique<Accelerator>(name.c_str(), spec, plans[distinct > 1 ? size_t(k) : 0], mine,
                                                    sink.get()));
    }
    if (sink) sink->set_scope("");
    if (sink) {  // the trace's size, and a price for every action it can count: found now, not after the run
      const std::vector<std::string> actions = sink->action_names();
      check_trace_budget(plan, arch, o.window, actions.size(), o.max_trace_bytes);
      for (const std::string& action : actions)
        if (!run_table.find(post::unscoped_action(action)) && !post::EnergyTable::is_nominal(post::unscoped_action(action)))
          throw InputError(energy_path, 0, "actions",
                           fmt::format("no row prices {}, an action this run counts (add a row for it)", action));
    }
    Accelerator& accelerator = *chips.front();
    std::vector<ModuleInfo> modules;
    for (const auto& chip : chips)
      for (ModuleInfo& m : chip->modules()) modules.push_back(std::move(m));
    spdlog::debug("modules:\n{}", module_tree(modules));

    spdlog::info("arch {} ({}x{} {}, {} pipeline), workload {} ({} layers), {} mode", arch.name, arch.rows,
                 arch.cols, to_string(arch.dataflow), to_string(arch.fold_pipeline), workload.name,
                 workload.layers.size(), mode);
    const auto t0 = std::chrono::steady_clock::now();
    sc_core::sc_start();
    ProcessErrors::rethrow_if_any();  // an input or output error met inside a process, as thrown
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    progress.reset();  // the bar goes before anything else is printed
    if (const MemorySystemModule* m = accelerator.memory())
      spdlog::debug("memory process: {} wake-ups, {} queue events", m->stats().wakeups, m->stats().steps);
    if (sink) sink->rethrow_write_error();
    std::vector<int64_t> end_cycles, chip_macs;
    for (size_t k = 0; k < chips.size(); ++k) {
      const Accelerator* chip = chips[k].get();
      if (!chip->finished()) throw std::logic_error("simulation stopped before every array finished");
      end_cycles.push_back(chip->end_cycle());
      int64_t macs = 0;
      for (const ArrayLayerResult& r : chip->layer_results()) macs += r.stats.macs;
      for (const FlashKernelResult& r : chip->flash_results()) macs += r.macs;
      chip_macs.push_back(macs);
      check_invariants(arch, chip->layer_results());
      check_work_as_written(arch, shares[distinct > 1 ? k : 0], chip->layer_results(), chip->flash_results());
    }
    if (sink) sink->finish(*std::max_element(end_cycles.begin(), end_cycles.end()));
    const std::vector<ArrayLayerResult>& results = accelerator.layer_results();
    const std::vector<VectorKernelResult> vector = accelerator.vector_results();
    const std::vector<FlashKernelResult> flash = accelerator.flash_results();
    check_invariants(arch, results);  // before anything is written
    log_timing(results, vector);

    RunReport run_report{&arch,    &workload, &results, mode, run_config_hash(arch, shares, mode, o.seed), &modules,
                         &plan.vector_kernels, &vector, &plan.flash_kernels, &flash, &plan};
    io::JsonArraySpool summary_layers(out.path());
    nlohmann::ordered_json summary = summary_json(run_report, &summary_layers);
    if (sink)  // ties this report to its trace (cstsim post and export check it)
      summary["trace"] = {{"records", sink->manifest().records},
                          {"end_cycle", sink->manifest().end_cycle},
                          {"manifest_crc32", sink->manifest_crc32()}};
    if (chip_set) {  // the totals above are chip 0's share; the machine's are under `chips`
      summary["arch"]["chips"] = arch.chips;
      std::vector<int64_t> whole_cycles;
      for (size_t k = 0; k < chips.size(); ++k)
        whole_cycles.push_back(whole_work_cycles(shares[k], plans[distinct > 1 ? k : 0], chips[k]->layer_results(),
                                                 chips[k]->vector_results(), chips[k]->flash_results(), end_cycles[k]));
      summary["chips"] = chips_json(arch, shares, *chip_set, end_cycles, chip_macs, whole_cycles);
      const int64_t waiting = summary["chips"]["per_chip"][0]["collective_cycles"].get<int64_t>();
      summary["total"]["collective_cycles"] = waiting;  // of cycles
      summary["total"]["cycles"] = summary["total"]["cycles"].get<int64_t>() + waiting;
      summary["total"]["scope"] = distinct > 1 ? "chip 0's pipeline stage (the stages differ); the machine: chips"
                                               : "chip 0's share (every chip runs the same share); the machine: chips";
    }
    bool chips_verified = true;
    if (o.verify && chip_set) {  // every chip's grids, then the cut layers put together across the chips
      std::vector<std::vector<ArrayLayerResult>> per_chip;
      for (const auto& chip : chips) per_chip.push_back(chip->layer_results());
      summary["chips"]["verify"] = verify_across_chips(plan, arch.precision, o.seed, per_chip, chips_verified);
      summary["verify"]["passed"] = chips_verified;
      summary["verify"]["scope"] = "every chip's grids, and the layers cut across the chips put together (chips.verify)";
    }
    spdlog::info("simulated {} cycles in {:.3f} s", summary["total"]["cycles"].get<int64_t>(), wall);

    summary_layers.write_document(out.path() / "summary.json", summary);
    io::write_file(out.path() / "energy.yaml", post::to_yaml(run_table));
    post::PostOutputs report;
    if (o.trace) {
      report = post::post_process({out.path(), o.normalization, 0, check_report_scope});  // before report.json is written
      post::write_post_outputs(out.path(), report);
    }
    io::write_file(out.path() / "layers.csv", layers_csv(run_report, o.trace ? &report.layer_energy : nullptr));
    if (arch.fold_pipeline == FoldPipeline::ScaleSim) {
      io::write_file(out.path() / "COMPUTE_REPORT.csv", scalesim_compute_report(run_report));
      if (has_scalesim_memory(run_report)) {
        io::write_file(out.path() / "BANDWIDTH_REPORT.csv", scalesim_bandwidth_report(run_report));
        io::write_file(out.path() / "DETAILED_ACCESS_REPORT.csv", scalesim_access_report(run_report));
      } else {
        spdlog::info("no BANDWIDTH_REPORT.csv or DETAILED_ACCESS_REPORT.csv: SCALE-Sim's memory has no such layers "
                     "(run with -v to see which)");
      }
    }
    out.commit();

    if (o.print_table) fmt::print("{}{}{}", human_table(run_report), chip_set ? chips_line(summary["chips"]) : "", report.text);
    if (o.verify && chip_set) {
      if (!chips_verified) return 1;
      const size_t cut = summary["chips"]["verify"].size();
      spdlog::info("verify: every chip's events, values, SRAM words and MACs match{}",
                   cut ? fmt::format(", and the {} layers cut across the chips put together give the whole GEMMs", cut)
                       : " (no layer is cut across the chips)");
    } else if (o.verify) {  // every cluster's grid is checked; the first mismatch of each is named
      bool passed = true;
      for (int k = 0; k < accelerator.clusters(); ++k)
        for (size_t i = 0; i < accelerator.array(k).results().size(); ++i) {
          const ArrayLayerResult& res = accelerator.array(k).results()[i];
          if (res.verify.passed) continue;
          std::string where;
          if (accelerator.clusters() > 1) {  // the grid checks its own share: say where that lies in the layer
            const ClusterShare& share = plan.layers[i].clusters[k].share;
            const char* dim = share.split == Dim::M ? "M" : "N";
            where = fmt::format("cluster {} (its share: {} {}..{} of the layer; indices below are within it), ", k,
                                dim, share.offset, share.offset + GemmDims{share.M, share.N, share.K}[share.split] - 1);
          }
          spdlog::error("verify failed in {}layer {} ({}): {}", where, i, res.shape.name, res.verify.detail);
          passed = false;
          break;
        }
      if (!passed) return 1;
      spdlog::info("verify: every layer's events, values, SRAM words and MACs match");
    }
    return 0;
  } catch (const io::OutputError& e) {
    out.rethrow_for_target(e);
  }
}

}  // namespace cstsim
