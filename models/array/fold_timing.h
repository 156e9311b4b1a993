#pragma once
// Closed-form fold timing: the fast "timing mode". For every fold it gives the
// cycle of each event the register-level grid produces, in O(folds) work.
// The rules (and why they are what the registers do) are in models/array/README.md.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/progress.h"
#include "models/array/array_events.h"
#include "plan/fold_plan.h"

namespace cstsim {

struct FoldTiming {
  int64_t start = 0;        // FoldStart
  int64_t first_input = 0;  // FirstInput (= stream start S)
  int64_t last_input = 0;   // LastInput
  int64_t first_output = 0; // OutputRow 0; row k leaves at first_output + k
  int64_t output_rows = 0;  // T for WS/IS, r for OS
  int64_t end = 0;          // FoldEnd
  int64_t data_ready = -1;  // channel memory: first cycle the stationary tile is on chip
  int64_t stall = 0;        // cycles its stream started after the array's own rule allowed (data late)
};

struct LayerTiming {
  int64_t start = 0;  // first cycle of the layer
  int64_t end = 0;    // last cycle any fold occupies the array
  // Cycles as reported: max(end, memory_end) - start + 1, except in scalesim mode where SCALE-Sim
  // reports the index of the last cycle, F*L - 1.
  int64_t reported_cycles = 0;
  int64_t slot_length = 0;  // L per fold in scalesim mode, 0 otherwise
  int64_t ideal_cycles = 0; // reported cycles of the same plan with ideal memory
  int64_t stall_cycles = 0; // reported_cycles - ideal_cycles (0 with ideal memory)
  std::map<std::string, int64_t> stall_causes;  // the same cycles split by root cause (StallLedger, exact)
  int64_t memory_end = -1;  // last cycle of memory traffic after the last fold (TileSource::drain), or -1
  std::vector<FoldTiming> folds;
};

class TileSource;

// A memory model that knows only the folds' starts uses these (and the dataflow's
// stream_start, array_dataflow.h) to know when each fold's inputs are consumed and
// its outputs complete; compute_layer_timing uses the same rules.
// Last input and last output cycle of fold g streaming from S (any dataflow).
int64_t fold_last_input(const FoldPlan& plan, int g, int64_t S);
int64_t fold_last_output(const FoldPlan& plan, int g, int64_t S);
// Output rows fold g puts out, one per cycle up to its last output: T (WS, IS), r (OS).
int64_t fold_output_rows(const FoldPlan& plan, int g);

// SCALE-Sim's fixed fold length: T+R+C-2 (OS), 2R+C+T-2 (WS, IS).
int64_t scalesim_fold_length(const FoldPlan& plan);

// With a tile source (memory other than ideal; overlapped pipeline), fold g's start
// (WS/IS: its weight load; OS: its stream) also waits for its data, asked for in fold
// order with the starts of the folds before it.
// `position` (optional) hears of each fold whose data is in, for a progress display.
LayerTiming compute_layer_timing(const FoldPlan& plan, FoldPipeline pipeline, int64_t start,
                                 TileSource* tiles = nullptr, RunPosition* position = nullptr);

// compute_layer_timing for the overlapped pipeline, a fold at a time, so a caller can let
// time pass between folds (the array's process sleeps to each fold's start while the memory
// catches up with it). next() times the next fold; finish(), after the last, drains the
// memory and splits the stalls. The same rules and the same answers as compute_layer_timing.
class LayerTimer {
 public:
  LayerTimer(const FoldPlan& plan, int64_t start, TileSource* tiles = nullptr, RunPosition* position = nullptr);
  ~LayerTimer();
  bool done() const;
  const FoldTiming& next();
  const std::vector<int64_t>& load_starts() const;  // of the folds timed so far
  LayerTiming finish();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

void append_events(const LayerTiming& timing, std::vector<ArrayEvent>& out);
void append_fold_events(const FoldTiming& timing, int fold, std::vector<ArrayEvent>& out);

}  // namespace cstsim
