// WS and IS: an r x c tile of one operand is shifted into the PEs' weight banks
// through the column chain (r pushes), then T vectors of the other stream through
// it; partial sums leave at the bottom of each column. WS holds B (rows of A
// stream), IS holds A (columns of B stream). The rules are in models/array/README.md.
#include <algorithm>

#include "models/array/array_dataflow.h"
#include "models/array/array_trace.h"
#include "core/registry.h"

namespace cstsim {

std::unique_ptr<RegisterArray> make_stationary_grid(const FoldPlan&, FoldPipeline, int64_t, const GemmData&);

namespace {

class Stationary : public ArrayDataflow {
 public:
  void stream_events(const FoldPlan& p, const Fold& f, int64_t S, FoldTiming& t) const override {
    // X[t][i] enters row i at S+t+i; its psum leaves the bottom of column j at
    // S+t+(R-1)+j, after crossing all R rows.
    t.first_input = S;
    t.last_input = S + p.T - 1 + (f.rows_used - 1);
    t.first_output = S + (p.R - 1) + (f.cols_used - 1);
    t.output_rows = p.T;
  }
  int64_t scalesim_fold_length(const FoldPlan& p) const override { return 2 * p.R + p.C + p.T - 2; }
  int64_t scalesim_stream_delay(const FoldPlan& p) const override { return p.R; }  // all R weight rows first

  // Double-buffered weight banks: fold g loads bank g%2 through the column shift
  // chain (r_g pushes) once the chain is idle and fold g-2, the bank's previous
  // user, has done its last MAC.
  int64_t earliest_start(const FoldPlan& p, int g, int64_t layer_start,
                         const std::vector<FoldTiming>& folds) const override {
    int64_t load = layer_start;
    if (g >= 1) load = std::max(load, folds[size_t(g - 1)].start + p.folds[size_t(g - 1)].rows_used);
    if (g >= 2) {
      const Fold& old = p.folds[size_t(g - 2)];
      load = std::max(load, folds[size_t(g - 2)].first_input + p.T + old.rows_used + old.cols_used - 2);
    }
    return load;
  }
  // Streaming starts when the weights are in and the edge ports are free.
  int64_t stream_start(const FoldPlan& p, int g, int64_t load, int64_t prev_stream_start) const override {
    int64_t S = load + p.folds[size_t(g)].rows_used;
    if (g >= 1) S = std::max(S, prev_stream_start + p.T);
    return S;
  }

  std::unique_ptr<RegisterArray> make_grid(const FoldPlan& plan, FoldPipeline pipeline, int64_t start,
                                           const GemmData& data) const override {
    return make_stationary_grid(plan, pipeline, start, data);
  }

  // SCALE-Sim v2's compute utilization, fitted to its reports (golden data in
  // tests/golden/scalesim-v2): WS and IS use the window L+C-1. All golden runs
  // have R = C, so C-1 versus R-1 is not pinned down by data.
  double scalesim_utilization_window(const FoldPlan& p) const override {
    return double(scalesim_fold_length(p) + p.C - 1);
  }
  int64_t scalesim_extra_ofmap_writes(const FoldPlan&) const override { return 0; }

  void announce_fold_edges(trace::TraceSink& sink, const ArrayTraceIds& ids, const FoldPlan& p, FoldPipeline pipeline,
                           const Fold& f, const FoldTiming& t) const override {
    const int64_t r = f.rows_used, c = f.cols_used, T = p.T, S = t.first_input;
    // Weight load: the real rows are the last r pushes of the chain (all R in scalesim mode).
    const int64_t load_end = pipeline == FoldPipeline::ScaleSim ? t.start + p.R : t.start + r;
    sink.add(load_end - r, ids.in_cols, c);
    sink.add(load_end, ids.in_cols, -c);
    for (int64_t j = 0; j < c; ++j) {  // psums of column j leave over [S+R-1+j, +T)
      sink.add(S + p.R - 1 + j, ids.out, 1);
      sink.add(S + p.R - 1 + j + T, ids.out, -1);
    }
    // A bank is held from its first push to the fold's last MAC, in PE(r-1, c-1).
    sink.add(t.start, ids.stationary, r * c * ids.stationary_bytes);
    sink.add(S + T + r + c - 2, ids.stationary, -r * c * ids.stationary_bytes);
  }

  // The grid's PE(i,j) holds stream vector k at S+k+i+j: diagonal d = i+j over [S+d, S+d+T).
  void announce_fold_pe_actions(trace::TraceSink& sink, const ArrayTraceIds& ids, const FoldPlan& p,
                                FoldPipeline pipeline, const Fold& f, const FoldTiming& t) const override {
    const int64_t r = f.rows_used, c = f.cols_used, R = p.R, T = p.T, S = t.first_input;
    const int64_t ob = ids.operand_bytes, ab = ids.accumulator_bytes;
    auto on_diagonal = [](int64_t d, int64_t rows, int64_t cols) {  // PEs (i,j), i+j = d, in rows x cols
      return std::min(d, rows - 1) - std::max<int64_t>(0, d - (cols - 1)) + 1;
    };
    // The streamed operand hops into every mapped PE but those of column 0, which take it from
    // the edge. A partial sum is written in every row of its column down to the bottom edge;
    // below row 0 (which starts it from zero) each PE reads it from the one above, one hop.
    for (int64_t d = 0; d <= R + c - 2; ++d) {
      const int64_t hops = d <= r + c - 2 ? on_diagonal(d, r, c) - (d < r) : 0;
      const int64_t written = on_diagonal(d, R, c), moved = written - (d < c);
      sink.count_spans(S + d, S + d + T, {{ids.operand_hops, hops * ob}, {ids.psum_register_writes, written * ab},
                                          {ids.psum_register_reads, moved * ab}, {ids.psum_hops, moved * ab}});
    }
    // The tile's load: push q of its r real rows (the last r pushes of the chain) writes the q+1
    // real words now in each mapped column, q of them moved down from the row above.
    const int64_t first = t.start + (pipeline == FoldPipeline::ScaleSim ? R - r : 0);
    for (int64_t q = 0; q < r; ++q) {
      sink.count(first + q, ids.stationary_writes, (q + 1) * c * ob);
      if (q > 0) sink.count(first + q, ids.stationary_hops, q * c * ob);
    }
  }
};

class WeightStationary final : public Stationary {
 public:
  EdgeCounts sram_counts(const FoldPlan& p, const FoldSums& s) const override {
    return {p.T * s.rows, s.pes, p.T * s.cols};  // A streams, B's tiles load once, psums out
  }
};

class InputStationary final : public Stationary {
 public:
  EdgeCounts sram_counts(const FoldPlan& p, const FoldSums& s) const override {
    return {s.pes, p.T * s.rows, p.T * s.cols};  // A's tiles load once, B streams, psums out
  }
};

}  // namespace

CSTSIM_REGISTER(ArrayDataflow, WeightStationary, "ws")
CSTSIM_REGISTER(ArrayDataflow, InputStationary, "is")

}  // namespace cstsim
