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
#include "models/base/process_guard.h"
#include "models/noc/topology.h"
#include "core/text.h"
#include "core/input_error.h"
#include "core/input_file.h"
#include "core/out_file.h"
#include "core/staged_dir.h"
#include "sim/config/config_hash.h"
#include "sim/run/preflight.h"
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
#include "sim/run/structural_run.h"
#include "sim/workload/data_parallel.h"
#include "models/interconnect/chip_set.h"
#include "traces/sink.h"

namespace cstsim {
namespace {

std::string default_energy_table() { return config_dir() + "/energy/horowitz-45nm.yaml"; }

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

namespace {

// The run's inputs, read: the arch, its energy table's path, and the workload as each chip runs it.
struct RunInputs {
  ArchSpec arch;
  std::string energy_path;  // --energy, else the table the arch names, else the default
  // chips > 1: every chip runs the same share of the workload (sim/workload/data_parallel.h), or,
  // in pipeline stages, each chip its stage's: `distinct` of them differ.
  std::vector<Workload> shares;
  size_t distinct = 1;
  const Workload& workload() const { return shares.front(); }
};

RunInputs load_inputs(const RunOptions& o) {
  RunInputs in;
  in.arch = load_arch(o.arch_path, o.overrides);
  const ArchSpec& arch = in.arch;
  in.energy_path = !o.energy_table.empty() ? o.energy_table : !arch.energy.empty() ? arch.energy : default_energy_table();
  std::vector<std::string> dense;  // layers --sparsity leaves dense
  in.shares = run_workloads(arch, load_workload(o.workload_path), o.sparsity, o.train, &dense);
  in.distinct = arch.pipeline_parallel > 1 ? in.shares.size() : 1;
  if (!dense.empty())
    spdlog::warn("--sparsity {}: {} layer(s) stay dense (K not a multiple of 4, or B not a weight of their own), "
                 "e.g. {}", o.sparsity, dense.size(), dense.front());
  return in;
}

// The plans the models execute (pipeline stages: one per chip); with --inject-plan-fault, one of them wrong.
std::vector<Plan> plan_run(const RunOptions& o, const RunInputs& in) {
  std::vector<Plan> plans;
  for (size_t d = 0; d < in.distinct; ++d) {
    plans.push_back(make_plan(in.arch, in.shares[d]));
    add_scalesim_memory(in.arch, in.shares[d], plans.back(), o.scalesim_memory_reports);
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
  log_plan(in.arch, plans.front());
  return plans;
}

// The simulated machine: the trace, the chips (each an Accelerator) and the links between them.
struct Machine {
  std::unique_ptr<trace::TraceSink> sink;
  std::unique_ptr<RunProgress> progress;
  std::unique_ptr<ic::ChipSet> chip_set;
  std::vector<std::unique_ptr<Accelerator>> chips;
  std::vector<ModuleInfo> modules;
  Accelerator& first() const { return *chips.front(); }
};

// Whether the run samples: asked for, and there is a hierarchy to sample (the trace and --verify
// are refused with sampled by the CLI; auto stays exact with them).
bool sampling(const RunOptions& o, const ArchSpec& arch) {
  return o.fidelity != Fidelity::Exact && arch.memory == MemoryMode::Hierarchy && !o.trace && !o.verify;
}

Machine build_machine(const RunOptions& o, const RunInputs& in, const std::vector<Plan>& plans,
                      const std::filesystem::path& out, const post::EnergyTable& table) {
  const ArchSpec& arch = in.arch;
  Machine m;
  if (o.trace)  // a trace that cannot be written (disk full) ends the simulation at once
    m.sink = std::make_unique<trace::TraceSink>(trace::TraceSink::Options{
        out / "trace", arch.clock_hz, o.window, size_t(1) << 15, [] { sc_core::sc_stop(); }, o.max_trace_bytes});
  std::vector<RunProgress::Layer> layers;
  for (const LayerPlan& l : plans.front().layers) layers.push_back({l.name, l.macs()});
  m.progress = std::make_unique<RunProgress>(std::move(layers), o.progress_every, isatty(STDERR_FILENO) != 0);
  AcceleratorOptions options;
  options.mode = o.verify ? ArrayMode::Reference : ArrayMode::Timing;
  options.seed = o.seed;
  options.fault = {o.fault_cycle, o.fault_row, o.fault_col, o.fault_cluster};
  options.position = &m.progress->position();
  options.sampled = sampling(o, arch);
  options.sample_min_folds = o.fidelity == Fidelity::Auto ? kAutoSampleFolds : 0;
  // chips > 1: the interconnect first (its links lead the trace), then every chip, each under its
  // own names on the trace ("chip<k>.").
  trace::TraceSink* sink = m.sink.get();
  // Pipeline stages run different layers at once: the trace is one band over them all.
  if (sink && in.distinct > 1)
    sink->one_layer(fmt::format("{} pipeline stages x {} micro-batches", arch.chips, arch.micro_batches));
  if (arch.chips > 1) m.chip_set = std::make_unique<ic::ChipSet>(chip_set_params(arch), run_collectives(in.shares), sink);
  AcceleratorSpec spec = accelerator_spec(arch);
  spec.check_hbm_protocol = o.check_hbm;
  for (int k = 0; k < arch.chips; ++k) {
    AcceleratorOptions mine = options;
    mine.chips = m.chip_set.get();
    mine.chip = k;
    if (k > 0) mine.position = nullptr;  // the progress display follows chip 0
    if (sink && m.chip_set) sink->set_scope(fmt::format("chip{}.", k));
    const std::string name = m.chip_set ? fmt::format("chip{}", k) : "accelerator";
    m.chips.push_back(std::make_unique<Accelerator>(name.c_str(), spec, plans[in.distinct > 1 ? size_t(k) : 0], mine, sink));
  }
  if (sink) {  // the trace's size, and a price for every action it can count: found now, not after the run
    sink->set_scope("");
    const std::vector<std::string> actions = sink->action_names();
    check_trace_budget(plans.front(), arch, o.window, actions.size(), o.max_trace_bytes);
    preflight_actions(table, in.energy_path, actions);
  }
  for (const auto& chip : m.chips)
    for (ModuleInfo& info : chip->modules()) m.modules.push_back(std::move(info));
  spdlog::debug("modules:\n{}", module_tree(m.modules));
  return m;
}

// What each chip did, checked against the laws and the workload as written.
struct ChipTotals {
  std::vector<int64_t> end_cycles, macs;
  double wall_seconds = 0;
};

ChipTotals simulate(const RunInputs& in, Machine& m, const std::string& mode) {
  const ArchSpec& arch = in.arch;
  spdlog::info("arch {} ({}x{} {}, {}), workload {} ({} layers), {} mode", arch.name, arch.rows, arch.cols,
               to_string(arch.dataflow),
               arch.rocc.on ? std::string("rocc command stream") : std::string(to_string(arch.fold_pipeline)) + " pipeline",
               in.workload().name, in.workload().layers.size(), mode);
  const auto t0 = std::chrono::steady_clock::now();
  sc_core::sc_start();
  ProcessErrors::rethrow_if_any();  // an input or output error met inside a process, as thrown
  // What the memory side's processes did (the list itself is the elaborated one: the kernel
  // deletes a thread's process object once it ends).
  std::map<std::string, const ModuleInfo*> after;
  std::vector<ModuleInfo> now;
  for (const auto& chip : m.chips)
    for (ModuleInfo& info : chip->modules()) now.push_back(std::move(info));
  for (const ModuleInfo& info : now) after[info.name] = &info;
  for (ModuleInfo& info : m.modules)
    if (const auto it = after.find(info.name); it != after.end()) {
      info.activations = it->second->activations;
      info.events = it->second->events;
    }
  ChipTotals t;
  t.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  m.progress.reset();  // the bar goes before anything else is printed
  for (const ModuleInfo& info : m.modules)
    if (info.activations >= 0)
      spdlog::debug("{}: {} activations, {} events", info.name, info.activations, info.events);
  if (m.sink) m.sink->rethrow_write_error();
  for (size_t k = 0; k < m.chips.size(); ++k) {
    const Accelerator* chip = m.chips[k].get();
    if (!chip->finished()) throw std::logic_error("simulation stopped before every array finished");
    t.end_cycles.push_back(chip->end_cycle());
    int64_t macs = 0;
    for (const ArrayLayerResult& r : chip->layer_results()) macs += r.stats.macs;
    for (const FlashKernelResult& r : chip->flash_results()) macs += r.macs;
    t.macs.push_back(macs);
    check_invariants(arch, chip->layer_results());
    check_work_as_written(arch, in.shares[in.distinct > 1 ? k : 0], chip->layer_results(), chip->flash_results());
  }
  if (m.sink) m.sink->finish(*std::max_element(t.end_cycles.begin(), t.end_cycles.end()));
  return t;
}

// chips > 1: the machine's figures under `chips` (the totals are chip 0's share), and with --verify
// the layers cut across the chips put together. Returns whether that check passed.
bool add_chips(const RunOptions& o, const RunInputs& in, const std::vector<Plan>& plans, const Machine& m,
               const ChipTotals& t, nlohmann::ordered_json& summary) {
  const ArchSpec& arch = in.arch;
  summary["arch"]["chips"] = arch.chips;
  std::vector<int64_t> whole_cycles;
  for (size_t k = 0; k < m.chips.size(); ++k)
    whole_cycles.push_back(whole_work_cycles(in.shares[k], plans[in.distinct > 1 ? k : 0], m.chips[k]->layer_results(),
                                             m.chips[k]->vector_results(), m.chips[k]->flash_results(),
                                             t.end_cycles[k]));
  summary["chips"] = chips_json(arch, in.shares, *m.chip_set, t.end_cycles, t.macs, whole_cycles);
  const int64_t waiting = summary["chips"]["per_chip"][0]["collective_cycles"].get<int64_t>();
  summary["total"]["collective_cycles"] = waiting;  // of cycles
  summary["total"]["cycles"] = summary["total"]["cycles"].get<int64_t>() + waiting;
  summary["total"]["scope"] = in.distinct > 1 ? "chip 0's pipeline stage (the stages differ); the machine: chips"
                                              : "chip 0's share (every chip runs the same share); the machine: chips";
  if (!o.verify) return true;
  bool passed = true;  // every chip's grids, then the cut layers put together across the chips
  std::vector<std::vector<ArrayLayerResult>> per_chip;
  for (const auto& chip : m.chips) per_chip.push_back(chip->layer_results());
  summary["chips"]["verify"] = verify_across_chips(plans.front(), arch.precision, o.seed, per_chip, passed);
  summary["verify"]["passed"] = passed;
  summary["verify"]["scope"] = "every chip's grids, and the layers cut across the chips put together (chips.verify)";
  return passed;
}

void write_outputs(const RunOptions& o, const RunInputs& in, const RunReport& run_report, const post::EnergyTable& table,
                   const std::filesystem::path& out, post::PostOutputs& report) {
  io::write_file(out / "energy.yaml", post::to_yaml(table));
  if (o.trace) {
    const post::EnergyTable written = post::as_written(table, (out / "energy.yaml").string());
    report = post::post_process({out, o.normalization, 0, check_report_scope, &written});  // before report.json is written
    post::write_post_outputs(out, report);
  }
  io::write_file(out / "layers.csv", layers_csv(run_report, o.trace ? &report.layer_energy : nullptr));
  if (in.arch.fold_pipeline != FoldPipeline::ScaleSim) return;
  io::write_file(out / "COMPUTE_REPORT.csv", scalesim_compute_report(run_report));
  if (has_scalesim_memory(run_report)) {
    io::write_file(out / "BANDWIDTH_REPORT.csv", scalesim_bandwidth_report(run_report));
    io::write_file(out / "DETAILED_ACCESS_REPORT.csv", scalesim_access_report(run_report));
  } else if (!o.scalesim_memory_reports && !in.arch.scalesim_user_bandwidth) {
    spdlog::info("SCALE-Sim's BANDWIDTH_REPORT.csv and DETAILED_ACCESS_REPORT.csv: with --scalesim-reports all");
  } else {
    spdlog::info("no BANDWIDTH_REPORT.csv or DETAILED_ACCESS_REPORT.csv: SCALE-Sim's memory has no such layers "
                 "(run with -v to see which)");
  }
}

// --verify on one chip: every cluster's grid is checked; the first mismatch of each is named.
bool verified(const Accelerator& accelerator, const Plan& plan) {
  bool passed = true;
  for (int k = 0; k < accelerator.clusters(); ++k)
    for (size_t i = 0; i < accelerator.cluster_layer_results(k).size(); ++i) {
      const ArrayLayerResult& res = *accelerator.cluster_layer_results(k)[i];
      if (res.verify.passed) continue;
      std::string where;
      if (accelerator.clusters() > 1) {  // the grid checks its own share: say where that lies in the layer
        const ClusterShare& share = plan.layers[i].clusters[size_t(k)].share;
        const char* dim = share.split == Dim::M ? "M" : "N";
        where = fmt::format("cluster {} (its share: {} {}..{} of the layer; indices below are within it), ", k, dim,
                            share.offset, share.offset + GemmDims{share.M, share.N, share.K}[share.split] - 1);
      }
      spdlog::error("verify failed in {}layer {} ({}): {}", where, i, res.shape.name, res.verify.detail);
      passed = false;
      break;
    }
  return passed;
}

}  // namespace

int run_simulation(const RunOptions& o) {
  HeldWarnings held;  // until the inputs are all checked
  const RunInputs in = load_inputs(o);  // load
  const ArchSpec& arch = in.arch;
  preflight_inputs(o, arch, in.shares, in.distinct);
  warn_unsimulated(arch, in.workload());
  warn_dtype(arch, in.workload());
  // Before anything is written. The inputs: those named, and every file a loader has opened so far
  // (an HBM file's preset chain, NoC presets, link files, includes), however it was reached.
  const std::vector<std::filesystem::path> named{o.arch_path,      o.workload_path, in.energy_path, o.normalization,
                                                 arch.hbm.spec,    arch.noc.spec,   arch.interconnect.link};
  const auto check_out = [&] {
    std::vector<std::filesystem::path> inputs = named;
    for (std::filesystem::path& p : inputs_read()) inputs.push_back(std::move(p));
    check_out_target(o.out_dir, inputs, o.force);
  };
  check_out();
  const std::vector<Plan> plans = plan_run(o, in);  // plan: every layer must map before anything runs
  const Plan& plan = plans.front();
  preflight_plans(arch, in.workload(), plans);
  // The energy table (and normalization) now, so bad input fails before any output exists.
  const post::EnergyTable table = run_energy_table(arch, in.energy_path);  // as energy.yaml will hold it
  preflight_energy(arch, in.workload(), table, in.energy_path, o.normalization);
  check_out();  // again, now with the energy table's base chain and the normalization read
  StagedDir out(o.out_dir, o.force);  // an output path that cannot be made fails here, before any progress line
  held.release();  // every input has passed: the warnings about them may now be said
  const std::string mode = o.verify ? "reference" : "timing";
  try {
    Machine machine = build_machine(o, in, plans, out.path(), table);  // build
    const std::unique_ptr<StructuralArrays> structural = make_structural(arch, o, out.path());  // --verify=structural
    const ChipTotals totals = simulate(in, machine, mode);             // simulate
    Accelerator& accelerator = machine.first();                        // report: chip 0's share
    const std::vector<ArrayLayerResult>& results = accelerator.layer_results();
    const std::vector<VectorKernelResult> vector = accelerator.vector_results();
    const std::vector<FlashKernelResult> flash = accelerator.flash_results();
    check_invariants(arch, results);  // before anything is written
    log_timing(results, vector);
    RunReport run_report{&arch, &in.workload(), &results, mode, run_config_hash(arch, in.shares, mode, o.seed),
                         &machine.modules, &plan, &vector, &flash, to_string(o.fidelity)};
    io::JsonArraySpool summary_layers(out.path());
    nlohmann::ordered_json summary = summary_json(run_report, &summary_layers);
    if (machine.sink)  // ties this report to its trace (cstsim post and export check it)
      summary["trace"] = {{"records", machine.sink->manifest().records},
                          {"end_cycle", machine.sink->manifest().end_cycle},
                          {"manifest_crc32", machine.sink->manifest_crc32()},
                          {"peak_pending_changes", machine.sink->peak_pending()}};
    const bool chips_verified = !machine.chip_set || add_chips(o, in, plans, machine, totals, summary);
    if (structural) summary["verify"]["structural"] = structural_summary(*structural, o);
    spdlog::info("simulated {} cycles in {:.3f} s", summary["total"]["cycles"].get<int64_t>(), totals.wall_seconds);
    summary_layers.write_document(out.path() / "summary.json", summary);
    post::PostOutputs report;
    write_outputs(o, in, run_report, table, out.path(), report);
    out.commit();

    if (o.print_table)
      fmt::print("{}{}{}", human_table(run_report), machine.chip_set ? chips_line(summary["chips"]) : "", report.text);
    if (!o.verify) return 0;
    if (machine.chip_set) {
      if (!chips_verified) return 1;
      const size_t cut = summary["chips"]["verify"].size();
      spdlog::info("verify: every chip's events, values, SRAM words and MACs match{}",
                   cut ? fmt::format(", and the {} layers cut across the chips put together give the whole GEMMs", cut)
                       : " (no layer is cut across the chips)");
      return 0;
    }
    if (!verified(accelerator, plan)) return 1;
    spdlog::info("verify: every layer's events, values, SRAM words and MACs match");
    return 0;
  } catch (const io::OutputError& e) {
    out.rethrow_for_target(e);
  }
}

}  // namespace cstsim
