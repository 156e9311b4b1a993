#pragma once
// ArrayDataflow: everything in the array's models that depends on the dataflow, in
// one interface with one implementation per dataflow (models/array/dataflows/),
// registered by the name the YAML uses (core/registry.h). What the mapper and the
// memory need (which dimension is stationary, streamed, split) is the roles row in
// plan/dataflow.h; what the array does with it - when folds start and stream, which
// edge moves which operand, the register-level grid - is here. Adding a dataflow is
// one roles row, one implementation file with its grid, one anchor in
// array_dataflow.cpp, and tests.
#include <cstdint>
#include <memory>
#include <vector>

#include "models/array/array_events.h"
#include "models/array/fold_timing.h"
#include "models/array/gemm_data.h"
#include "models/array/register_array.h"
#include "plan/fold_plan.h"

namespace cstsim {

struct ArrayTraceIds;
namespace trace {
class TraceSink;
}

// Per-fold sums the closed-form counts are made of.
struct FoldSums {
  int64_t rows = 0, cols = 0, pes = 0;  // sum of r, of c, of r*c over the folds
  int64_t stream_rows = 0, stream_cols = 0;  // sum of t*r, of t*c (t: the fold's stream steps)
  int64_t drained_pes = 0;                   // sum of r*c over the folds that drain
};

class ArrayDataflow {
 public:
  virtual ~ArrayDataflow() = default;

  // The events that follow from fold g's stream start S (FirstInput .. last output).
  virtual void stream_events(const FoldPlan& plan, const Fold& fold, int64_t S, FoldTiming& t) const = 0;
  // SCALE-Sim's fixed fold length L and where in it the stream starts.
  virtual int64_t scalesim_fold_length(const FoldPlan& plan) const = 0;
  virtual int64_t scalesim_stream_delay(const FoldPlan& plan) const = 0;
  // Overlapped pipeline: the first cycle fold g may start with ideal memory, from
  // the folds before it (all timed), and its stream start when it starts at `start`.
  virtual int64_t earliest_start(const FoldPlan& plan, int g, int64_t layer_start,
                                 const std::vector<FoldTiming>& folds) const = 0;
  virtual int64_t stream_start(const FoldPlan& plan, int g, int64_t start, int64_t prev_stream_start) const = 0;

  // The register-level grid that carries real values.
  virtual std::unique_ptr<RegisterArray> make_grid(const FoldPlan& plan, FoldPipeline pipeline, int64_t start,
                                                   const GemmData& data) const = 0;

  // SRAM words through each edge over the layer (ifmap, filter, ofmap), and SCALE-Sim's
  // reporting conventions: its utilization window per fold and extra ofmap writes.
  virtual EdgeCounts sram_counts(const FoldPlan& plan, const FoldSums& sums) const = 0;
  virtual double scalesim_utilization_window(const FoldPlan& plan) const = 0;
  virtual int64_t scalesim_extra_ofmap_writes(const FoldPlan& plan) const = 0;

  // The edge links' and stationary registers' occupancy of one fold (array_trace.cpp
  // adds the PEs' and the rows' own, which every dataflow shares).
  virtual void announce_fold_edges(trace::TraceSink& sink, const ArrayTraceIds& ids, const FoldPlan& plan,
                                   FoldPipeline pipeline, const Fold& fold, const FoldTiming& t) const = 0;
  // What fold g's PEs do besides their MACs, in the cycles they do it (the counters of
  // ArrayTraceIds that the dataflow counts): the closed form of what its grid reports in
  // CycleActivity, cycle by cycle. The timing and reference modes' traces must be identical.
  virtual void announce_fold_pe_actions(trace::TraceSink& sink, const ArrayTraceIds& ids, const FoldPlan& plan,
                                        FoldPipeline pipeline, const Fold& fold, const FoldTiming& t) const = 0;
};

// The registered implementation of `d`.
const ArrayDataflow& array_dataflow(Dataflow d);

}  // namespace cstsim
