// The "rs" engine's pass: a row-stationary layer's processing passes (plan/rs_plan.h), timed by
// the closed form (rs_timing.h) or stepped on the register-level grid (rs_grid.h), which must
// agree on every event, every network's words and the convolution's values.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "models/array/layer_engines.h"
#include "models/array/rs_grid.h"
#include "models/array/rs_memory.h"
#include "models/base/stall_causes.h"
#include "models/array/structural/structural_pass.h"
#include "models/memory/cluster_memory.h"
#include "models/memory/rs_hierarchy_source.h"

namespace cstsim {

namespace {

// The layer's DRAM channel (memory: channel), or none.
std::unique_ptr<RsChannel> rs_channel(const AcceleratorSpec& a, const RsLayerPlan& plan, int64_t start) {
  if (a.memory != MemoryMode::Channel) return nullptr;
  const double bytes_per_cycle = a.channel.bandwidth_bytes_per_s / a.clock_hz;
  const int64_t latency = int64_t(std::ceil(a.channel.latency_s * a.clock_hz - 1e-9));
  return std::make_unique<RsChannel>(plan, bytes_per_cycle, latency, start);
}

// Its memory: a DRAM channel, the hierarchy (`reference`: the grid's own memory system), or none.
std::unique_ptr<RsMemory> rs_memory(const AcceleratorSpec& a, ClusterMemory* memory, int cluster, const LayerPlan& L,
                                    int64_t start, bool reference) {
  if (a.memory == MemoryMode::Channel) return rs_channel(a, *L.rs, start);
  if (a.memory != MemoryMode::Hierarchy) return nullptr;
  const RsTensors tensors{L.tensors[size_t(Matrix::A)].addr, L.tensors[size_t(Matrix::B)].addr,
                          L.tensors[size_t(Matrix::C)].addr};
  return std::make_unique<RsHierarchySource>(a, *L.rs, tensors, start, memory->group(reference), cluster);
}

// --verify=structural: the structural grid beside the register grid, each cycle at its own
// simulated time (so the VCD shows the clock).
class StructuralProbe final : public RsGridProbe {
 public:
  StructuralProbe(StepContext& context, RsStructuralPass& pass) : context_(context), pass_(pass) {}
  void stepped(const RsGridView& grid) override {
    context_.wait_until(grid.cycle());
    pass_.cycle(grid);
  }

 private:
  StepContext& context_;
  RsStructuralPass& pass_;
};

}  // namespace

ArrayLayerResult run_rs_layer(ArrayModule& array, StepContext& context, int index, int64_t start) {
  const ArrayParams& params = array.params();
  const AcceleratorSpec& a = params.spec;
  const LayerPlan& L = context.plan().layers[size_t(index)];
  const RsLayerPlan& plan = *L.rs;
  ClusterMemory* cluster_memory = context.part<ClusterMemory>();
  MemoryObserver* observer = cluster_memory ? cluster_memory->observer() : nullptr;
  trace::TraceSink* sink = array.sink();
  const RsTraceIds& ids = array.rs_trace_ids();
  std::unique_ptr<RsMemory> memory = rs_memory(a, cluster_memory, params.cluster, L, start, false);
  auto* hierarchy = dynamic_cast<RsHierarchySource*>(memory.get());
  std::vector<RsStepTiming> steps;
  const RsLayerTiming timing = compute_rs_timing(plan, start, memory.get(), sink ? &steps : nullptr);
  const RsLayerTiming ideal = memory ? compute_rs_timing(plan, start) : timing;
  if (hierarchy) hierarchy->group().done(params.cluster);  // its traffic is all in (drained)

  ArrayLayerResult r;
  r.shape = {L.name, L.dims.M, L.dims.N, L.dims.K};
  r.start_cycle = start;
  r.end_cycle = timing.end;
  r.cycles = timing.end - start + 1;
  r.ideal_cycles = ideal.end - start + 1;
  r.stall_cycles = r.cycles - r.ideal_cycles;
  if (r.stall_cycles > 0 && hierarchy) {
    // By root cause along the DMA's way; the waits can exceed the stall (a later one hidden in an
    // earlier), never fall short of it (the schedule is a max-plus system: a wait of w cycles
    // moves the end by at most w), so they shrink to it exactly.
    const StallCauses causes = hierarchy->explain(timing);
    if (total(causes) < r.stall_cycles)
      throw std::logic_error(fmt::format("RS layer {}: {} stall cycles, {} explained", L.name, r.stall_cycles,
                                         total(causes)));
    r.stalls = shrink(causes, r.stall_cycles);
  } else if (r.stall_cycles > 0) {
    r.stalls["memory_bandwidth"] = r.stall_cycles;  // one link: its bandwidth (and latency) is the cause
  }
  r.pass_stalls = {{r.cycles, r.ideal_cycles, r.stalls}};
  r.memory_end = timing.memory_end;
  r.event_count = int64_t(timing.events.size());
  r.has_rs = true;
  RsLayerReport& rep = r.rs;
  rep.mapping = plan.mapping;
  rep.passes = int64_t(plan.passes.size());
  rep.glb = timing.counts;
  rep.processing_cycles = timing.array_end - start + 1;
  if (memory)
    for (const RsTransfer& t : memory->transfers()) {
      (t.kind == RsTransfer::Filters ? rep.dram_filter_bytes
       : t.kind == RsTransfer::Ifmap ? rep.dram_ifmap_bytes
                                     : rep.dram_ofmap_bytes) += t.bytes;
      if (t.kind != RsTransfer::Ofmap) r.dram_bytes += t.bytes;
    }
  if (hierarchy) {  // the memory system's own figures, which the run's conservation laws check
    r.has_hierarchy = true;
    r.hierarchy = hierarchy->stats();
    r.dram_bytes = r.hierarchy.shared.hbm_bytes_read;
  }
  // The array's figures: MACs and words counted by the timing mode; PEs mapped and busy over the
  // passes' compute cycles.
  r.stats.macs = timing.counts.macs;
  r.stats.sram = {timing.counts.ifmap_words, timing.counts.filter_words, timing.counts.psum_out_words};
  r.stats.scalesim_ofmap_writes = timing.counts.psum_out_words;
  r.stats.psum_reads = timing.counts.psum_in_words;
  double mapped = 0, offered = 0;
  for (const RsPass& p : plan.passes) {
    const RsPassShape sh = rs_pass_shape(plan, p);
    const double cycles = double(sh.steps) * double(sh.step_cycles);
    mapped += cycles * double(sh.active_pes);
    offered += cycles * double(a.array.rows) * a.array.cols;
  }
  r.stats.mapping_efficiency = offered > 0 ? mapped / offered : 0;
  r.stats.compute_utilization = mapped > 0 ? double(r.stats.macs) / mapped : 0;
  // Folds count passes, so the tables that list folds list them.
  r.plan.dataflow = Dataflow::RS;
  r.plan.R = a.array.rows;
  r.plan.C = a.array.cols;
  r.plan.M = L.dims.M;
  r.plan.N = L.dims.N;
  r.plan.K = r.plan.k_values = L.dims.K;
  r.plan.row_folds = rep.passes;
  r.plan.col_folds = 1;

  if (sink) {
    sink->begin_layer(index, L.name, start);
    sink->add(start, ids.busy, 1);
    // Pass by pass as simulated time reaches them; the memory's transfers (by their start)
    // before the time passes their start.
    std::vector<RsTransfer> transfers = memory ? memory->transfers() : std::vector<RsTransfer>{};
    std::stable_sort(transfers.begin(), transfers.end(),
                     [](const RsTransfer& x, const RsTransfer& y) { return x.start < y.start; });
    size_t first = 0, sent = 0;
    auto transfers_until = [&](int64_t cycle) {
      size_t upto = sent;
      while (upto < transfers.size() && transfers[upto].start <= cycle) ++upto;
      announce_rs_transfers(*sink, ids, transfers.data() + sent, upto - sent);
      sent = upto;
    };
    // The HBM's and the NoC's part, simulated ahead with the layer: final where observed.
    if (hierarchy && observer)
      observer->layer_simulated(index, start, hierarchy->group(), hierarchy->group().dma().hbm_observed_before());
    for (size_t pi = 0; pi < plan.passes.size(); ++pi) {
      size_t last = first;
      while (last < steps.size() && steps[last].pass == int64_t(pi)) ++last;
      transfers_until(timing.passes[pi].start);
      if (params.mode == ArrayMode::Timing) context.wait_until(timing.passes[pi].start);
      announce_rs_pass(*sink, ids, plan, pi, timing.passes[pi], steps.data() + first, last - first);
      first = last;
    }
    transfers_until(timing.end);
    sink->add(timing.end + 1, ids.busy, -1);
  }
  // The rest of the HBM's and the NoC's part of R(t), final up to the layer's end.
  if (hierarchy && observer)
    observer->layer_simulated(index, -1, hierarchy->group(), hierarchy->group().settle(timing.end));
  if (params.mode == ArrayMode::Reference) {
    // The grid with values of the layer's types, its own memory, from the same start.
    const Precision& p = a.array.precision;
    const RsData data = make_random_rs_data(plan.shape, params.seed + uint64_t(index),
                                            {p.operand, p.activation_type(), p.weight_type(), p.accumulator},
                                            plan.gating_density);
    std::unique_ptr<RsMemory> own = rs_memory(a, cluster_memory, params.cluster, L, start, true);
    RsStructuralPass structural(params.chip, params.cluster, plan, data);  // --verify=structural, else inert
    StructuralProbe probe(context, structural);
    const RsRegisterRun run = run_rs_register_level(plan, start, data, own.get(), structural.active() ? &probe : nullptr);
    structural.finish();
    if (auto* h = dynamic_cast<RsHierarchySource*>(own.get())) h->group().done(params.cluster);
    r.verify.ran = true;
    std::string problem = first_difference(timing.events, run.events);
    if (problem.empty() && run.end_cycle != timing.end)
      problem = fmt::format("the grid ended at {}, the timing mode at {}", run.end_cycle, timing.end);
    if (problem.empty() && !(run.counts == timing.counts)) problem = "the networks' word counts differ";
    if (problem.empty() && run.gated != timing.gated)
      problem = fmt::format("the grid gated {} MACs on zero ifmap values, the timing mode {}", run.gated, timing.gated);
    if (plan.gating_density < 1) r.verify.gated_lanes = run.gated;
    if (problem.empty() && run.result != reference_rs(plan, data))
      problem = "the result differs from the convolution summed in the grid's order";
    r.verify.passed = problem.empty();
    r.verify.max_relative_error = rs_max_relative_error(run.result, data);
    r.verify.detail = problem;
    spdlog::info("verify: layer {}/{} {} {} ({} cycles, {} passes)", index + 1, context.plan().layers.size(), L.name,
                 r.verify.passed ? "ok" : "FAILED", r.cycles, rep.passes);
  }
  array.publish(index, timing.events);
  context.wait_until(timing.end);
  return r;
}

}  // namespace cstsim
