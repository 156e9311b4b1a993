#pragma once
// The systolic array of one cluster: its trace resources, and what it does for the step engines
// (models/array/layer_engines.cpp, flash_engine.cpp): one pass of a layer on the fold pipeline,
// timed by the closed form or (reference mode) stepped on the register grid, and a fused kernel's
// tile GEMMs. It has no process of its own: it runs in its cluster's sequencer
// (models/accelerator/sequencer.h), which also decides what runs when.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "core/progress.h"
#include "models/accelerator/accelerator_spec.h"
#include "models/array/array_events.h"
#include "models/array/array_trace.h"
#include "models/array/fold_timing.h"
#include "models/array/layer_result.h"
#include "models/array/rs_trace.h"
#include "models/base/step_engine.h"
#include "models/memory/tile_source.h"
#include "plan/fold_plan.h"
#include "plan/plan.h"

namespace cstsim {

enum class ArrayMode { Timing, Reference };

struct ArrayParams {  // gem5-style: everything the module needs, fixed at elaboration
  AcceleratorSpec spec;
  ArrayMode mode = ArrayMode::Timing;
  uint64_t seed = 1;  // operand values for the reference mode
  int cluster = 0;    // which cluster's share of each layer it runs (the plan's ClusterLayerPlan)
  RunPosition* position = nullptr;  // optional: this array publishes its pass and folds there
  int chip = 0;                     // chips > 1: the chip it belongs to
  std::string trace_name = "array";  // names the array's trace resources
  // fidelity: sampled: passes through the hierarchy that can be are sampled (SampledSource);
  // sample_min_folds: only those with at least that many folds (fidelity: auto).
  bool sampled = false;
  int64_t sample_min_folds = 0;
  SamplingParams sampling;
  // Reference mode only: flip one PE's sum register at one cycle (checker self-test).
  struct Fault {
    int64_t cycle = -1;
    int row = 0, col = 0;
    int cluster = 0;  // only this cluster's grid is hit
  } fault;
};

// Receives the array's events as simulated time reaches them (the trace sink hooks in here).
class ArrayListener {
 public:
  virtual ~ArrayListener() = default;
  virtual void on_event(int layer, const ArrayEvent& event) = 0;
};


class ArrayModule : public sc_core::sc_module {
 public:
  // `plan` must outlive the module. `sink` (optional) receives the array's occupancy R(t) and
  // action counts; `listener` (optional) its events.
  ArrayModule(sc_core::sc_module_name name, ArrayParams params, const Plan& plan,
              ArrayListener* listener = nullptr, trace::TraceSink* sink = nullptr);

  // One pass of layer `index` from `start` (`first_pass`: the layer's first; `next`: the
  // cluster's next pass in run order, whose prefetch this pass queues; nullptr: none).
  ArrayLayerResult run_pass(StepContext& context, int index, bool first_pass, const PassPlan& pass,
                            const PassPlan* next, int64_t start);
  // A tile GEMM of a fused kernel, operands on chip, from `start`: its folds timed by the closed form
  // and announced, its MACs and cycles added to `r`; returns the cycle after its last.
  int64_t run_tile_gemm(int64_t M, int64_t N, int64_t K, int64_t start, FlashKernelResult& r);
  // Its events to the listener.
  void publish(int layer, const std::vector<ArrayEvent>& events);

  const ArrayParams& params() const { return params_; }
  const Plan& plan() const { return plan_; }
  trace::TraceSink* sink() const { return sink_; }
  const RsTraceIds& rs_trace_ids() const { return rs_trace_ids_; }  // dataflow: rs
  const ArrayTraceIds& trace_ids() const { return trace_ids_; }
  sc_core::sc_time period() const { return period_; }

 private:
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
  // `next`: the pass after it (a pass that prefetches for it is not sampled); `layer`: its layer
  // (fidelity: sampled, for the repeats of a layer's heads).
  std::unique_ptr<TileSource> make_source(StepContext& context, const FoldPlan& folds, const PassPlan& pass,
                                          int64_t start, bool record, bool reference, const PassPlan* next = nullptr,
                                          int layer = -1);
  void run_reference(StepContext& context, int index, const FoldPlan& folds, const PassPlan& pass,
                     const PassPlan* next, int64_t start, const std::vector<ArrayEvent>& expected,
                     ArrayLayerResult& result);
  const std::string& layer_name(int index) const;
  // Fold g has started: its trace (occupancy, actions) and its events to the listener.
  void announce_fold_as_it_starts(int index, const FoldPlan& plan, int g, const FoldTiming& f);
  std::vector<ArrayEvent> fold_events_;  // scratch for it

  const ArrayParams params_;
  const Plan& plan_;
  ArrayListener* listener_;
  trace::TraceSink* sink_;
  ArrayTraceIds trace_ids_;
  RsTraceIds rs_trace_ids_;  // dataflow: rs, instead of trace_ids_
  sc_core::sc_time period_;
  Handover handed_, reference_handed_;  // overlap: prefetch | pipeline
  // fidelity: sampled: each pass simulated (sampled or whole) that a later one may repeat, by its
  // key (pass_key: the plan's shapes, types, buffers and program, but not where in HBM or when).
  struct PassMemo {
    RepeatCheck check;
    LayerTiming timing;  // its figures, from its start (no folds)
    HierarchyLayerStats stats;
    SampleReport report;
    std::vector<double> means;  // every window mean its passes measured (RepeatCheck::mean)
    int64_t seen = 0;       // its repeats so far
    int agreed = 0;         // its last checks that agreed, in a row
    double check_ci95 = 0;  // the largest interval an agreeing check gave (SampledSource::repeat_ci95)
  };
  std::map<uint64_t, PassMemo> memo_;
  uint64_t source_key_ = 0;  // make_source's last pass's key (0: not a repeat candidate)
  int taken_layer_ = -1;     // the layer of the last pass taken as a repeat
};

}  // namespace cstsim
