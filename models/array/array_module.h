#pragma once
// One SystemC module per systolic array (never one per PE). A single clockless
// thread runs the layers in order. Timing mode sleeps from fold to fold with
// computed wake-ups; reference mode steps the register grid one clock at a time.
#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

#include "models/array/array_events.h"
#include "models/array/array_stats.h"
#include "models/array/array_trace.h"
#include "plan/fold_plan.h"
#include "models/array/fold_timing.h"
#include "models/array/rs_trace.h"
#include "models/memory/hierarchy_source.h"
#include "models/memory/memory_observer.h"
#include "models/memory/cluster_set.h"
#include "models/memory/memory_group.h"
#include "models/memory/tile_source.h"
#include "models/vector/vector_unit.h"
#include "models/accelerator/accelerator_spec.h"
#include "core/progress.h"
#include "plan/plan.h"
#include "models/accelerator/process_guard.h"

namespace cstsim {

enum class ArrayMode { Timing, Reference };

namespace ic {
class ChipSet;
}

struct ArrayParams {  // gem5-style: everything the module needs, fixed at elaboration
  AcceleratorSpec spec;
  ArrayMode mode = ArrayMode::Timing;
  uint64_t seed = 1;  // operand values for the reference mode
  // clusters > 1: this array is cluster `cluster` of `cluster_set`, running its
  // share of every layer (the plan's ClusterLayerPlan) with a barrier after each layer.
  int cluster = 0;
  ClusterSet* cluster_set = nullptr;
  // memory: hierarchy: the process that steps the memory systems (MemoryGroup), also for one cluster.
  MemoryDriver* memory_driver = nullptr;
  RunPosition* position = nullptr;  // optional: this array publishes its layer and cycle there
  // chips > 1: this array is (cluster 0 of) chip `chip` of `chips`, which meets the other chips in
  // the plan's collectives and shares the trace's clock with them.
  ic::ChipSet* chips = nullptr;
  int chip = 0;
  std::string trace_name = "array";  // names the array's trace resources
  // Told when each step's memory traffic is final, to announce its R(t) (memory other than ideal).
  MemoryObserver* memory_observer = nullptr;
  // The cluster's vector unit: runs the plan's vector kernels between the layers (nullptr: none).
  VectorUnitModule* vector_unit = nullptr;
  // Reference mode only: flip one PE's sum register at one cycle (checker self-test).
  struct Fault {
    int64_t cycle = -1;
    int row = 0, col = 0;
    int cluster = 0;  // only this cluster's grid is hit
  } fault;
};

struct GemmShape {
  std::string name;
  int64_t M = 0, N = 0, K = 0;
};

// Receives the array's events as simulated time reaches them (the trace sink hooks in here).
class ArrayListener {
 public:
  virtual ~ArrayListener() = default;
  virtual void on_event(int layer, const ArrayEvent& event) = 0;
};

struct LayerVerification {
  bool ran = false;
  bool passed = true;
  std::string detail;  // the first difference, when it failed
  // Floats: the largest error of the grid's result against the fp64 GEMM, relative to each
  // output's sum of |a_k b_k| (models/array/gemm_data.h); the bit-exact check is `passed`.
  double max_relative_error = 0;
  // Zero gating: the lanes of active PEs the registers saw a zero activation in (padding lanes
  // included), summed over passes; -1: not counted (no gating).
  int64_t gated_lanes = -1;
  // chips > 1, a layer cut by columns or rows: each pass's grid result (M x N of this chip's
  // share), which the run combines with the other chips' (models/array/chip_check.h).
  std::vector<std::vector<double>> chip_parts;
};

struct ArrayLayerResult {
  GemmShape shape;
  FoldPlan plan;            // without the fold list, to keep results small
  int64_t start_cycle = 0;  // first cycle of the layer
  int64_t end_cycle = 0;    // last cycle the array was busy with it
  int64_t cycles = 0;       // as reported (see LayerTiming::reported_cycles)
  int64_t event_count = 0;
  // What memory cost: cycles - ideal_cycles (the same plan with ideal memory), split by root
  // cause so the parts add up exactly: "memory_bandwidth" (channel), "hbm" (memory: hbm), or
  // under memory: hierarchy dependency / dma_issue / noc_bandwidth / noc_latency / hbm_refresh /
  // hbm_row_miss / hbm_bandwidth / hbm_latency / spad_ports (models/dma/README.md, "Stalls by root cause").
  int64_t ideal_cycles = 0;
  int64_t stall_cycles = 0;
  std::map<std::string, int64_t> stalls;
  // Per pass (its own cycles, ideal cycles and causes), so that clusters running the same
  // passes side by side can be merged pass by pass (merge_layer_parts).
  struct PassStall {
    int64_t cycles = 0, ideal_cycles = 0;
    std::map<std::string, int64_t> causes;
  };
  std::vector<PassStall> pass_stalls;
  int64_t dram_bytes = 0;   // bytes read from DRAM
  int64_t memory_end = -1;  // memory: hierarchy: last cycle of the layer's write-back
  bool has_hierarchy = false;
  bool idle = false;        // clusters: this cluster had no share of the layer
  int passes = 1;           // memory: hierarchy: runs over the stream (LayerPlan::pass_rows)
  HierarchyLayerStats hierarchy;
  bool has_rs = false;      // dataflow: rs
  RsLayerReport rs;
  ArrayLayerStats stats;
  LayerVerification verify;
};

// One layer's result from its parts: its passes (one after another, each with its
// own memory system) or its clusters (side by side, sharing one: its HBM and NoC
// figures count once, shared_memory). The span runs from the first start to the
// last end; work, DMA and scratchpad bytes add up. Stalls: passes add up; clusters, pass by
// pass, take the span of the slowest cluster against the slowest ideal one.
ArrayLayerResult merge_layer_parts(const AcceleratorSpec& spec, const GemmShape& layer,
                                   const std::vector<const ArrayLayerResult*>& parts, bool shared_memory);

// One cluster's share of a flash-attention kernel (plan/flash_kernel.h): its (batch, head) groups.
struct FlashKernelResult {
  std::string name;
  int64_t start_cycle = 0, end_cycle = 0;  // end: its last cycle (the last output's write-back)
  int64_t macs = 0;             // the array's, tile by tile (causal: only the blocks it computes)
  int64_t tiles = 0;            // (query block, key block) pairs computed
  int64_t array_cycles = 0;     // cycles its tile GEMMs took on the array
  VectorKernelResult vector;    // the online softmax and the normalization on the vector unit
  int64_t waiting_cycles = 0;   // for Q, K and V from HBM
  // cycles - array_cycles - the vector unit's compute cycles (the waits, and the last outputs'
  // write-back) by root cause (models/dma/explain_wait.h).
  std::map<std::string, int64_t> stalls;
  bool has_hierarchy = false;
  SharedStats shared;           // memory: hierarchy: the step's HBM and NoC figures (every cluster's)
  bool idle = false;
  int64_t cycles() const { return end_cycle - start_cycle + 1; }
};
// Several clusters' shares of one flash kernel as one (side by side: the span; the rest adds up).
FlashKernelResult merge_flash_parts(const std::vector<const FlashKernelResult*>& parts);

class ArrayModule : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(ArrayModule);
  // Executes `plan` (which must outlive the module): its cluster's passes of every
  // layer, in order. `sink` (optional) receives the array's occupancy R(t) and action counts.
  ArrayModule(sc_core::sc_module_name name, ArrayParams params, const Plan& plan,
              ArrayListener* listener = nullptr, trace::TraceSink* sink = nullptr);
  // First cycle after the last layer (valid once finished()).
  int64_t end_cycle() const { return end_cycle_; }

  const std::vector<ArrayLayerResult>& results() const { return results_; }
  // Per vector kernel of the plan, in order: this cluster's share of it.
  const std::vector<VectorKernelResult>& vector_results() const { return vector_results_; }
  // Per flash-attention kernel of the plan, in order: this cluster's share of it.
  const std::vector<FlashKernelResult>& flash_results() const { return flash_results_; }
  bool finished() const { return finished_; }
  sc_core::sc_time period() const { return period_; }

 private:
  void run();
  void guarded_run() { guard_process([this] { run(); }); }  // what SC_*(run) registers
  // Step `step`: this cluster's share of vector kernel k on its vector unit, from `start`.
  VectorKernelResult run_vector_kernel(const VectorKernelPlan& k, int step, int64_t start);
  // Step `step`: this cluster's share of flash kernel k (models/array/flash_attention.cpp).
  FlashKernelResult run_flash_kernel(const FlashKernelPlan& k, int step, int64_t start);
  // A tile GEMM of a fused kernel, operands on chip, from `start`: its folds timed by the closed form
  // and announced; returns the cycle after its last.
  int64_t run_tile_gemm(int64_t M, int64_t N, int64_t K, int64_t start, FlashKernelResult& r);
  // A kernel's step is over for this cluster at `end`: the barrier, the step's memory figures
  // (returned; none without `group`), the shared R(t) announced (`active`: it had a share), the clock.
  SharedStats end_kernel_step(int step, MemoryGroup* group, bool active, int64_t end);
  void wait_until(int64_t cycle);
  // The same, telling the trace it has announced everything before `mark` (<= cycle).
  void wait_until(int64_t cycle, int64_t mark);
  // `next`: the cluster's next pass (its prefetch, overlap: prefetch), nullptr at the end.
  ArrayLayerResult run_pass(int index, int step, bool first_pass, const PassPlan& pass, const PassPlan* next,
                            int64_t start);
  // What a pass hands the next one (DMA ids): overlap: prefetch, the next pass's first reads it
  // loaded; overlap: pipeline, its write-backs kept on chip as the next layer's input.
  struct Handover {
    std::vector<int> prefetched, outputs;
  };
  // `source` takes over what the previous pass handed it, queues the first reads of `next`
  // (prefetch) and keeps its outputs on chip when the plan says so; `handed` is then for the
  // next pass to fill.
  void link_passes(TileSource* source, const PassPlan& pass, const PassPlan* next, Handover& handed);
  static Handover handover_of(const TileSource* source);
  // The pass's memory: nullptr (ideal), or a source executing its DMA program on the
  // step's shared memory system (`reference`: the register grids' own one).
  std::unique_ptr<TileSource> make_source(const FoldPlan& folds, const PassPlan& pass, int64_t start, bool record,
                                          bool reference);
  // memory: hierarchy: the run's memory system (the cluster set's, or this array's own with
  // one cluster); `reference`: the register grids' own one.
  std::shared_ptr<MemoryGroup> memory_group(bool reference);
  // A row-stationary layer (its plan's rs), all its passes (models/array/rs_module.cpp).
  ArrayLayerResult run_rs_layer(int index, int64_t start);
  // Its memory: a DRAM channel, the hierarchy (`reference`: the grid's own memory system), or none.
  std::unique_ptr<RsMemory> rs_memory(const LayerPlan& layer, int64_t start, bool reference);
  void run_reference(int index, const FoldPlan& folds, const PassPlan& pass, const PassPlan* next, int64_t start,
                     const std::vector<ArrayEvent>& expected, ArrayLayerResult& result);
  const std::string& layer_name(int index) const;
  void publish(int layer, const std::vector<ArrayEvent>& events);
  // Fold g has started: its trace (occupancy, actions) and its events to the listener.
  void announce_fold_as_it_starts(int index, const FoldPlan& plan, int g, const FoldTiming& f);
  std::vector<ArrayEvent> fold_events_;  // scratch for it

  const ArrayParams params_;
  const Plan& plan_;
  ArrayListener* listener_;
  trace::TraceSink* sink_;
  ArrayTraceIds trace_ids_;
  RsTraceIds rs_trace_ids_;  // dataflow: rs, instead of trace_ids_
  int64_t end_cycle_ = 0;
  sc_core::sc_time period_;
  std::vector<ArrayLayerResult> results_;
  std::vector<VectorKernelResult> vector_results_;
  std::vector<FlashKernelResult> flash_results_;
  bool finished_ = false;
  std::shared_ptr<MemoryGroup> own_group_, own_reference_group_;  // one cluster, no cluster set
  Handover handed_, reference_handed_;  // overlap: prefetch | pipeline
};

}  // namespace cstsim
