#pragma once
// Closed-form fold timing: the fast "timing mode". For every fold it gives the
// cycle of each event the register-level grid produces, in O(folds) work.
// The rules (and why they are what the registers do) are in models/array/README.md.
#include <cstdint>
#include <vector>

#include "models/array/array_events.h"
#include "models/array/fold_plan.h"

namespace cstsim {

struct FoldTiming {
  int64_t start = 0;        // FoldStart
  int64_t first_input = 0;  // FirstInput (= stream start S)
  int64_t last_input = 0;   // LastInput
  int64_t first_output = 0; // OutputRow 0; row k leaves at first_output + k
  int64_t output_rows = 0;  // T for WS/IS, r for OS
  int64_t end = 0;          // FoldEnd
  int64_t data_ready = -1;  // channel memory: first cycle the stationary tile is on chip
  int64_t stall = 0;        // cycles the stream started late because the tile was late
};

struct LayerTiming {
  int64_t start = 0;  // first cycle of the layer
  int64_t end = 0;    // last cycle any fold occupies the array
  // Cycles as reported: end - start + 1, except in scalesim mode where SCALE-Sim
  // reports the index of the last cycle, F*L - 1.
  int64_t reported_cycles = 0;
  int64_t slot_length = 0;  // L per fold in scalesim mode, 0 otherwise
  int64_t stall_cycles = 0; // sum of the folds' stalls
  std::vector<FoldTiming> folds;
};

class TileSource;

// SCALE-Sim's fixed fold length: T+R+C-2 (OS), 2R+C+T-2 (WS, IS).
int64_t scalesim_fold_length(const FoldPlan& plan);

// With a tile source (memory: channel or hbm; WS/IS, overlapped), fold g's weight
// load also waits for its tile, asked for in fold order.
LayerTiming compute_layer_timing(const FoldPlan& plan, FoldPipeline pipeline, int64_t start,
                                 TileSource* tiles = nullptr);

void append_events(const LayerTiming& timing, std::vector<ArrayEvent>& out);
void append_fold_events(const FoldTiming& timing, int fold, std::vector<ArrayEvent>& out);

}  // namespace cstsim
