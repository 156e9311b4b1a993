#include "models/array/fold_timing.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/array/array_dataflow.h"
#include "models/base/stall_causes.h"
#include "models/memory/tile_source.h"

namespace cstsim {

int64_t scalesim_fold_length(const FoldPlan& p) { return array_dataflow(p.dataflow).scalesim_fold_length(p); }

namespace {

// The events that follow from the stream start S, the same in both pipelines.
void fill_stream_events(const FoldPlan& p, const Fold& f, int64_t S, FoldTiming& t) {
  array_dataflow(p.dataflow).stream_events(p, f, S, t);
}

int64_t last_output(const FoldTiming& t) { return t.first_output + t.output_rows - 1; }

[[noreturn]] void ledger_bug(const std::string& what) { throw std::logic_error("stall accounting: " + what); }

// Delay accounting against the ideal-memory schedule (models/dma/README.md, "Stalls by root
// cause"). Fold g's delay is how much later than with ideal memory its load or its stream
// begins, whichever is later: D(g) = max(begin - begin_ideal, S - S_ideal). It is what the
// array's rule carries over from the folds g depends on (inherited: the array's own earliest
// start or stream start, against the ideal one) plus what g's data added on top (local: from
// when the array could have gone until the data was in). The inherited part takes its causes
// from the fold it came through (the more delayed of g-1 and g-2, the folds the dataflows' rules look
// at), scaled down when slack hid some of it; the local part is split along the critical
// request's way (TileSource::explain_stall). The layer's delay, cycles - ideal cycles, is the
// last-ending fold's, plus the write-back drain after it (TileSource::explain_drain).
class StallLedger {
 public:
  // After fold g's events are known (t.end set).
  void fold(int g, const FoldTiming& t, const FoldTiming& ideal, int64_t array_begin, int64_t S_array,
            const TileSource& tiles) {
    const int64_t S = t.first_input;
    const int64_t load_delay = t.start - ideal.start, stream_delay = S - ideal.first_input;
    if (load_delay < 0 || stream_delay < 0 || array_begin < ideal.start || S_array < ideal.first_input)
      ledger_bug("fold " + std::to_string(g) + " ahead of its ideal-memory schedule");
    const bool load_binds = load_delay >= stream_delay;
    const int64_t inherited = load_binds ? array_begin - ideal.start : S_array - ideal.first_input;
    const int64_t local = load_binds ? t.start - array_begin : S - S_array;
    Delay d{inherited + local, shrink(source_of(inherited, g).causes, inherited)};
    if (local > 0) tiles.explain_stall(g, t.data_ready - local, t.data_ready, d.causes);
    if (total(d.causes) != d.delay) ledger_bug("fold " + std::to_string(g) + " causes do not add up");
    prev_[1] = std::move(prev_[0]);
    prev_[0] = d;
    if (d.delay > worst_.delay) worst_ = d;
    if (g == 0 || t.end >= last_end_) {
      last_end_ = t.end;
      last_ending_ = d;
    }
  }

  // The layer's stall, cycles - ideal cycles, by cause.
  StallCauses finish(const LayerTiming& lt, const LayerTiming& ideal, const TileSource& tiles) const {
    if (lt.folds.empty()) return {};
    const int64_t inherited = lt.end - ideal.end;  // <= the last-ending fold's delay: ideal.end >= its ideal end
    if (inherited < 0 || inherited > last_ending_.delay) ledger_bug("layer end outside its folds' delays");
    StallCauses out = shrink(last_ending_.causes, inherited);
    if (lt.memory_end > lt.end) tiles.explain_drain(lt.end + 1, lt.memory_end + 1, out);
    return out;
  }

 private:
  struct Delay {
    int64_t delay = 0;
    StallCauses causes;
  };
  // The fold an inherited delay came through: the more delayed of g-1 and g-2 (the folds every
  // dataflow's rule looks at), else the most delayed fold so far.
  const Delay& source_of(int64_t inherited, int g) const {
    const Delay* from = prev_[0].delay >= prev_[1].delay ? &prev_[0] : &prev_[1];
    if (from->delay < inherited) from = &worst_;
    if (from->delay < inherited) ledger_bug("fold " + std::to_string(g) + " inherits more delay than any fold before it");
    return *from;
  }
  Delay prev_[2], worst_, last_ending_;
  int64_t last_end_ = 0;
};

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

LayerTiming compute_layer_timing(const FoldPlan& p, FoldPipeline pipeline, int64_t start, TileSource* tiles,
                                 RunPosition* position) {
  if (tiles && pipeline != FoldPipeline::Overlapped)
    throw std::invalid_argument("memory other than ideal needs the overlapped pipeline");
  const ArrayDataflow& df = array_dataflow(p.dataflow);
  LayerTiming lt;
  lt.start = start;
  lt.folds.resize(p.folds.size());

  if (pipeline == FoldPipeline::ScaleSim) {
    // Folds never overlap: fold g owns the array for cycles [start+g*L, start+(g+1)*L).
    // SCALE-Sim's memory (InterfaceBandwidth: USER) holds the whole array while a read waits for
    // DRAM; its stalls move every later fold, booked at the slot they delay.
    const int64_t L = df.scalesim_fold_length(p);
    const std::vector<int64_t>& stalls = p.scalesim_stalls;
    lt.slot_length = L;
    for (size_t g = 0; g < p.folds.size(); ++g) {
      FoldTiming& t = lt.folds[g];
      t.start = start + int64_t(g) * L + (stalls.empty() ? 0 : stalls[g]);
      fill_stream_events(p, p.folds[g], t.start + df.scalesim_stream_delay(p), t);
      t.end = t.start + L - 1;
    }
    lt.ideal_cycles = int64_t(p.folds.size()) * L - 1;
    lt.stall_cycles = stalls.empty() ? 0 : stalls.back();
    lt.reported_cycles = lt.ideal_cycles + lt.stall_cycles;
    lt.end = start + lt.reported_cycles;
    if (lt.stall_cycles > 0) lt.stall_causes["memory_bandwidth"] = lt.stall_cycles;
    return lt;
  }

  LayerTimer timer(p, start, tiles, position);
  while (!timer.done()) timer.next();
  return timer.finish();
}

// Overlapped pipeline: each fold starts as early as the array lets it (the dataflow's rule)
// and, with memory, once its data is in.
struct LayerTimer::State {
  const FoldPlan& p;
  const ArrayDataflow& df;
  TileSource* tiles;
  RunPosition* position;
  LayerTiming lt;
  LayerTiming ideal;  // the same plan with ideal memory: what the stalls are measured against
  StallLedger ledger;
  int64_t end;
  std::vector<int64_t> load_starts;  // what a tile source may know when asked for fold g
  size_t next = 0;
  State(const FoldPlan& plan, int64_t start, TileSource* t, RunPosition* pos)
      : p(plan), df(array_dataflow(plan.dataflow)), tiles(t), position(pos), end(start) {
    lt.start = start;
    lt.folds.resize(p.folds.size());
    if (tiles) ideal = compute_layer_timing(p, FoldPipeline::Overlapped, start, nullptr);
  }
};

LayerTimer::LayerTimer(const FoldPlan& plan, int64_t start, TileSource* tiles, RunPosition* position)
    : s_(std::make_unique<State>(plan, start, tiles, position)) {}

LayerTimer::~LayerTimer() = default;

bool LayerTimer::done() const { return s_->next == s_->p.folds.size(); }

const std::vector<int64_t>& LayerTimer::load_starts() const { return s_->load_starts; }

const FoldTiming& LayerTimer::next() {
  State& st = *s_;
  const FoldPlan& p = st.p;
  const size_t g = st.next++;
  FoldTiming& t = st.lt.folds[g];
  const int64_t array_begin = st.df.earliest_start(p, int(g), st.lt.start, st.lt.folds);
  int64_t begin = array_begin;
  const int64_t prev_S = g >= 1 ? st.lt.folds[g - 1].first_input : 0;
  const int64_t S_array = st.df.stream_start(p, int(g), begin, prev_S);  // with ideal memory
  if (st.tiles) {
    t.data_ready = st.tiles->ready(int(g), st.load_starts);
    begin = std::max(begin, t.data_ready);
    if (st.position) st.position->reached(int(g) + 1, begin);
  }
  t.start = begin;
  const int64_t S = st.df.stream_start(p, int(g), begin, prev_S);
  t.stall = S - S_array;
  st.load_starts.push_back(t.start);
  fill_stream_events(p, p.folds[g], S, t);
  t.end = last_output(t);
  st.end = std::max(st.end, t.end);
  if (st.tiles) st.ledger.fold(int(g), t, st.ideal.folds[g], array_begin, S_array, *st.tiles);
  return t;
}

LayerTiming LayerTimer::finish() {
  State& st = *s_;
  if (!done()) throw std::logic_error("layer timer: finished before its last fold");
  LayerTiming& lt = st.lt;
  if (st.tiles) lt.memory_end = st.tiles->drain(st.load_starts);
  lt.end = st.end;
  lt.reported_cycles = std::max(st.end, lt.memory_end) - lt.start + 1;
  lt.ideal_cycles = st.tiles ? st.ideal.reported_cycles : lt.reported_cycles;
  if (st.tiles) {
    lt.stall_causes = st.ledger.finish(lt, st.ideal, *st.tiles);
    lt.stall_cycles = lt.reported_cycles - lt.ideal_cycles;
  }
  return std::move(lt);
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
