// OS: PE(i,j) accumulates C[m0+i][n0+j] while A streams in along the rows and B
// down the columns, K deep; nothing is loaded first. Its sum leaves on column j's
// result bus when the last operand pair meets. The rules are in models/array/README.md.
#include <algorithm>

#include "models/array/array_dataflow.h"
#include "models/array/array_trace.h"
#include "core/registry.h"

namespace cstsim {

std::unique_ptr<RegisterArray> make_output_stationary_grid(const FoldPlan&, FoldPipeline, int64_t,
                                                           const GemmData&);

namespace {

class OutputStationary final : public ArrayDataflow {
 public:
  void stream_events(const FoldPlan&, const Fold& f, int64_t S, FoldTiming& t) const override {
    // A[i][k] enters row i at S+k+i, B[k][j] enters column j at S+k+j; PE(i,j)
    // does its last MAC at S+t-1+i+j and, when the fold drains, puts the result on column j's bus
    // then. A K chunk that does not drain (FoldPlan::with_k_chunks) ends with that last MAC in
    // PE(r-1, c-1): no output rows, its "first output" one past it.
    t.first_input = S;
    t.last_input = S + f.t - 1 + std::max(f.rows_used, f.cols_used) - 1;
    t.first_output = S + f.t - 1 + (f.cols_used - 1) + (f.drains ? 0 : f.rows_used);
    t.output_rows = f.drains ? f.rows_used : 0;
  }
  int64_t scalesim_fold_length(const FoldPlan& p) const override { return p.T + p.R + p.C - 2; }
  int64_t scalesim_stream_delay(const FoldPlan&) const override { return 0; }

  // The next stream follows the previous one on the edge ports (S' >= S+t), and its
  // results must reach each column bus after the previous fold's (S' >= S + r_prev):
  // results leave every column in fold order. K chunks keep the same rule: the grid's
  // control looks only at the fold before.
  int64_t earliest_start(const FoldPlan& p, int g, int64_t layer_start,
                         const std::vector<FoldTiming>& folds) const override {
    if (g == 0) return layer_start;
    const Fold& prev = p.folds[size_t(g - 1)];
    return folds[size_t(g - 1)].first_input + std::max<int64_t>(prev.t, prev.rows_used);
  }
  // No load phase: a fold streams from the cycle it starts.
  int64_t stream_start(const FoldPlan&, int, int64_t start, int64_t) const override { return start; }

  std::unique_ptr<RegisterArray> make_grid(const FoldPlan& plan, FoldPipeline pipeline, int64_t start,
                                           const GemmData& data) const override {
    return make_output_stationary_grid(plan, pipeline, start, data);
  }

  EdgeCounts sram_counts(const FoldPlan&, const FoldSums& s) const override {
    return {s.stream_rows, s.stream_cols, s.drained_pes};  // A and B stream, each result leaves once
  }
  // SCALE-Sim v2's conventions, fitted to its reports: OS's utilization window is the
  // fold length L, and it counts R + C extra ofmap writes per fold.
  double scalesim_utilization_window(const FoldPlan& p) const override { return double(scalesim_fold_length(p)); }
  int64_t scalesim_extra_ofmap_writes(const FoldPlan& p) const override { return p.row_folds * p.col_folds * (p.R + p.C); }

  void announce_fold_edges(trace::TraceSink& sink, const ArrayTraceIds& ids, const FoldPlan&, FoldPipeline,
                           const Fold& f, const FoldTiming& t) const override {
    const int64_t r = f.rows_used, c = f.cols_used, T = f.t, S = t.first_input;
    for (int64_t j = 0; j < c; ++j) {
      sink.add(S + j, ids.in_cols, 1);      // B column j over [S+j, S+j+t)
      sink.add(S + j + T, ids.in_cols, -1);
      if (!f.drains) continue;
      sink.add(S + T - 1 + j, ids.out, 1);  // column j's bus carries rows 0..r-1
      sink.add(S + T - 1 + j + r, ids.out, -1);
    }
  }

  // PE(i,j) meets its pair k at S+k+i+j (diagonal d = i+j over [S+d, S+d+t)); A hops into it
  // from the left unless j = 0, B from above unless i = 0 (the edges feed those).
  void announce_fold_pe_actions(trace::TraceSink& sink, const ArrayTraceIds& ids, const FoldPlan&, FoldPipeline,
                                const Fold& f, const FoldTiming& t) const override {
    const int64_t r = f.rows_used, c = f.cols_used, T = f.t, S = t.first_input;
    for (int64_t d = 1; d <= r + c - 2; ++d) {
      const int64_t n = std::min(d, r - 1) - std::max<int64_t>(0, d - (c - 1)) + 1;
      if (const int64_t hops = 2 * n - (d < r) - (d < c); hops > 0)
        sink.count_span(S + d, S + d + T, ids.operand_hops, hops * ids.operand_bytes);
    }
  }
};

}  // namespace

CSTSIM_REGISTER(ArrayDataflow, OutputStationary, "os")

}  // namespace cstsim
