#include "models/array/fold_timing.h"

#include <algorithm>
#include <stdexcept>

#include "models/array/array_dataflow.h"
#include "models/memory/tile_source.h"

namespace cstsim {

int64_t scalesim_fold_length(const FoldPlan& p) { return array_dataflow(p.dataflow).scalesim_fold_length(p); }

namespace {

// The events that follow from the stream start S, the same in both pipelines.
void fill_stream_events(const FoldPlan& p, const Fold& f, int64_t S, FoldTiming& t) {
  array_dataflow(p.dataflow).stream_events(p, f, S, t);
}

int64_t last_output(const FoldTiming& t) { return t.first_output + t.output_rows - 1; }

}  // namespace

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
  const ArrayDataflow& df = array_dataflow(p.dataflow);
  LayerTiming lt;
  lt.start = start;
  lt.folds.resize(p.folds.size());

  if (pipeline == FoldPipeline::ScaleSim) {
    // Folds never overlap: fold g owns the array for cycles [start+g*L, start+(g+1)*L).
    const int64_t L = df.scalesim_fold_length(p);
    lt.slot_length = L;
    for (size_t g = 0; g < p.folds.size(); ++g) {
      FoldTiming& t = lt.folds[g];
      t.start = start + int64_t(g) * L;
      fill_stream_events(p, p.folds[g], t.start + df.scalesim_stream_delay(p), t);
      t.end = t.start + L - 1;
    }
    lt.end = start + int64_t(p.folds.size()) * L - 1;
    lt.reported_cycles = int64_t(p.folds.size()) * L - 1;
    return lt;
  }

  // Overlapped pipeline: each fold starts as early as the array lets it (the
  // dataflow's rule) and, with memory, once its data is in.
  int64_t end = start;
  std::vector<int64_t> load_starts;  // what a tile source may know when asked for fold g
  for (size_t g = 0; g < p.folds.size(); ++g) {
    FoldTiming& t = lt.folds[g];
    int64_t begin = df.earliest_start(p, int(g), start, lt.folds);
    const int64_t prev_S = g >= 1 ? lt.folds[g - 1].first_input : 0;
    const int64_t S_array = df.stream_start(p, int(g), begin, prev_S);  // with ideal memory
    if (tiles) {
      t.data_ready = tiles->ready(int(g), load_starts);
      begin = std::max(begin, t.data_ready);
    }
    t.start = begin;
    const int64_t S = df.stream_start(p, int(g), begin, prev_S);
    t.stall = S - S_array;
    lt.stall_cycles += t.stall;
    if (tiles && t.stall > 0) tiles->explain_stall(int(g), t.data_ready - t.stall, t.data_ready, lt.stall_causes);
    load_starts.push_back(t.start);
    fill_stream_events(p, p.folds[g], S, t);
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
