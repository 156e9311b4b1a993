#include "models/array/fold_timing.h"

#include <algorithm>
#include <stdexcept>

#include "models/memory/tile_source.h"

namespace cstsim {

int64_t scalesim_fold_length(const FoldPlan& p) {
  if (p.dataflow == Dataflow::OS) return p.T + p.R + p.C - 2;
  return 2 * p.R + p.C + p.T - 2;
}

namespace {

// Events that follow from the stream start S, the same in both pipelines.
void fill_stream_events(const FoldPlan& p, const Fold& f, int64_t S, FoldTiming& t) {
  const int64_t r = f.rows_used, c = f.cols_used, T = p.T;
  t.first_input = S;
  if (p.dataflow == Dataflow::OS) {
    // A[i][k] enters row i at S+k+i, B[k][j] enters column j at S+k+j; PE(i,j)
    // does its last MAC at S+T-1+i+j and puts the result on column j's bus then.
    t.last_input = S + T - 1 + std::max(r, c) - 1;
    t.first_output = S + T - 1 + (c - 1);
    t.output_rows = r;
  } else {
    // X[t][i] enters row i at S+t+i; its psum leaves the bottom of column j at
    // S+t+(R-1)+j, after crossing all R rows.
    t.last_input = S + T - 1 + (r - 1);
    t.first_output = S + (p.R - 1) + (c - 1);
    t.output_rows = T;
  }
}

int64_t last_output(const FoldTiming& t) { return t.first_output + t.output_rows - 1; }

}  // namespace

int64_t overlapped_stream_start(const FoldPlan& p, int g, int64_t load_start, int64_t prev_stream_start) {
  int64_t S = load_start + p.folds[size_t(g)].rows_used;
  if (g >= 1) S = std::max(S, prev_stream_start + p.T);
  return S;
}

int64_t fold_last_input(const FoldPlan& p, int g, int64_t S) {
  FoldTiming t;
  fill_stream_events(p, p.folds[size_t(g)], S, t);
  return t.last_input;
}

int64_t fold_last_output(const FoldPlan& p, int g, int64_t S) {
  FoldTiming t;
  fill_stream_events(p, p.folds[size_t(g)], S, t);
  return last_output(t);
}

int64_t fold_output_rows(const FoldPlan& p, int g) {
  FoldTiming t;
  fill_stream_events(p, p.folds[size_t(g)], 0, t);
  return t.output_rows;
}

LayerTiming compute_layer_timing(const FoldPlan& p, FoldPipeline pipeline, int64_t start, TileSource* tiles) {
  if (tiles && pipeline != FoldPipeline::Overlapped)
    throw std::invalid_argument("memory other than ideal needs the overlapped pipeline");
  LayerTiming lt;
  lt.start = start;
  lt.folds.resize(p.folds.size());
  const int64_t T = p.T;
  const bool os = p.dataflow == Dataflow::OS;

  if (pipeline == FoldPipeline::ScaleSim) {
    // Folds never overlap: fold g owns the array for cycles [start+g*L, start+(g+1)*L).
    const int64_t L = scalesim_fold_length(p);
    lt.slot_length = L;
    for (size_t g = 0; g < p.folds.size(); ++g) {
      FoldTiming& t = lt.folds[g];
      t.start = start + int64_t(g) * L;
      // WS/IS shift all R weight rows in before streaming.
      fill_stream_events(p, p.folds[g], os ? t.start : t.start + p.R, t);
      t.end = t.start + L - 1;
    }
    lt.end = start + int64_t(p.folds.size()) * L - 1;
    lt.reported_cycles = int64_t(p.folds.size()) * L - 1;
    return lt;
  }

  // Overlapped pipeline.
  int64_t end = start;
  std::vector<int64_t> load_starts;  // what a tile source may know when asked for fold g
  for (size_t g = 0; g < p.folds.size(); ++g) {
    const Fold& f = p.folds[g];
    FoldTiming& t = lt.folds[g];
    int64_t S;
    if (os) {
      // The next stream follows the previous one on the edge ports (S' >= S+T),
      // and its results must reach each column bus after the previous fold's
      // (S' >= S + r_prev): results leave every column in fold order. With memory,
      // it also waits for its data (there is no load phase: the fold starts streaming).
      int64_t S_array = start;
      if (g >= 1) {
        const FoldTiming& prev = lt.folds[g - 1];
        S_array = prev.first_input + std::max<int64_t>(T, p.folds[g - 1].rows_used);
      }
      S = S_array;
      if (tiles) {
        t.data_ready = tiles->ready(int(g), load_starts);
        S = std::max(S, t.data_ready);
      }
      t.start = S;
      t.stall = S - S_array;
      lt.stall_cycles += t.stall;
      if (tiles && t.stall > 0) tiles->explain_stall(int(g), t.data_ready - t.stall, t.data_ready, lt.stall_causes);
      load_starts.push_back(S);
    } else {
      // Double-buffered weight banks: fold g loads bank g%2 through the column
      // shift chain (r_g pushes) once the chain is idle and fold g-2, the bank's
      // previous user, has done its last MAC. Streaming starts when the weights
      // are in and the edge ports are free.
      int64_t load = start;
      if (g >= 1) load = std::max(load, lt.folds[g - 1].start + p.folds[g - 1].rows_used);
      if (g >= 2) {
        const Fold& old = p.folds[g - 2];
        load = std::max(load, lt.folds[g - 2].first_input + T + old.rows_used + old.cols_used - 2);
      }
      const int64_t prev_S = g >= 1 ? lt.folds[g - 1].first_input : 0;
      // where the stream would start with ideal memory
      const int64_t S_array = overlapped_stream_start(p, int(g), load, prev_S);
      if (tiles) {
        t.data_ready = tiles->ready(int(g), load_starts);
        load = std::max(load, t.data_ready);
      }
      t.start = load;
      S = overlapped_stream_start(p, int(g), load, prev_S);
      t.stall = S - S_array;
      lt.stall_cycles += t.stall;
      if (tiles && t.stall > 0) tiles->explain_stall(int(g), t.data_ready - t.stall, t.data_ready, lt.stall_causes);
      load_starts.push_back(t.start);
    }
    fill_stream_events(p, f, S, t);
    t.end = last_output(t);
    end = std::max(end, t.end);
  }
  if (tiles) lt.memory_end = tiles->drain(load_starts);
  lt.end = end;
  lt.reported_cycles = std::max(end, lt.memory_end) - start + 1;
  return lt;
}

void append_fold_events(const FoldTiming& t, int fold, std::vector<ArrayEvent>& out) {
  out.push_back({t.start, EventKind::FoldStart, fold, 0});
  out.push_back({t.first_input, EventKind::FirstInput, fold, 0});
  out.push_back({t.last_input, EventKind::LastInput, fold, 0});
  for (int64_t k = 0; k < t.output_rows; ++k) out.push_back({t.first_output + k, EventKind::OutputRow, fold, k});
  out.push_back({t.end, EventKind::FoldEnd, fold, 0});
}

void append_events(const LayerTiming& lt, std::vector<ArrayEvent>& out) {
  for (size_t g = 0; g < lt.folds.size(); ++g) append_fold_events(lt.folds[g], int(g), out);
}

}  // namespace cstsim
