#pragma once
// Row stationary's timing mode: the cycle of every event the register-level RS grid
// (rs_grid.h) produces, from a recurrence over the passes' steps, O(steps) per layer. The rules
// are the grid controller's (models/array/README.md, "Row stationary"):
//   - a pass starts the cycle after the previous pass's last MAC (the filter scratchpads are
//     free then), or when its data is in the global buffer (rs_memory.h), and loads its
//     filters over the filter network, 4 words a cycle;
//   - the ifmap network carries one word a cycle, multicast to every PE that needs it, step
//     after step; the words of step j may go out once step j-1 has started (each PE's input
//     FIFO holds one step's new words);
//   - the psum input network (4 words a cycle) brings back the psums a later channel block adds
//     to, once the pass that made them has written them and step j-1 has started;
//   - step j starts when the PEs finished step j-1, its ifmap words and psums are in, the
//     filters are loaded, and the psums of step j-2 have left (two output FIFO places);
//     it takes q S p cycles of one MAC each;
//   - a column's psums add up through its `chain` PEs, one hop a cycle, and leave over the
//     psum output network, 4 words a cycle, one step a cycle at most, steps in order.
#include <cstdint>
#include <vector>

#include "models/array/array_events.h"
#include "plan/rs_plan.h"

namespace cstsim {

// Words a cycle on the filter and psum networks (64 b of 16-b words); the ifmap network carries one.
inline constexpr int64_t kRsWideNetworkWords = 4;

// Words over each network and MACs over a layer (what both modes count).
struct RsCounts {
  int64_t filter_words = 0;   // filter network (global buffer reads of filters)
  int64_t ifmap_words = 0;    // ifmap network (global buffer reads of ifmaps)
  int64_t psum_in_words = 0;  // psum input network (global buffer reads of psums)
  int64_t psum_out_words = 0; // psum output network (global buffer writes)
  int64_t macs = 0;
  bool operator==(const RsCounts& o) const {
    return filter_words == o.filter_words && ifmap_words == o.ifmap_words && psum_in_words == o.psum_in_words &&
           psum_out_words == o.psum_out_words && macs == o.macs;
  }
};

struct RsPassTiming {
  int64_t start = 0;       // FoldStart: the filter load begins
  int64_t compute_end = 0; // last MAC cycle of its last step
  int64_t last_input = 0;  // last ifmap word on the network
  int64_t end = 0;         // FoldEnd: its last psums leave
  int64_t gated = 0;       // zero gating: its MACs on zero ifmap values (rs_gated_macs)
};

// One step's cycles on each network and in the PEs (first and last, inclusive; psum input -1
// when it has none), for the trace.
struct RsStepTiming {
  int64_t pass = 0, step = 0;
  int64_t send_start = 0, send_end = 0;    // ifmap network
  int64_t psum_in_start = -1, psum_in_end = -1;
  int64_t compute_start = 0, compute_end = 0;
  int64_t out_start = 0, out_end = 0;      // psum output network
};

class RsMemory;

struct RsLayerTiming {
  int64_t start = 0, end = 0;  // first and last cycle of the layer (the last transfer's included)
  int64_t array_end = 0;       // the last psum out
  int64_t memory_end = -1;     // the last transfer (memory other than ideal), or -1
  std::vector<RsPassTiming> passes;
  RsCounts counts;
  int64_t gated = 0;  // zero gating: MACs on zero ifmap values, over the passes
  std::vector<ArrayEvent> events;  // FoldStart, FirstInput, LastInput, OutputRow (per step), FoldEnd; fold = pass
};

// What a row-stationary layer reports (report.json "rs").
struct RsLayerReport {
  RsMapping mapping;
  int64_t passes = 0;
  RsCounts glb;                 // words over the networks: the global buffer's reads and writes
  int64_t dram_filter_bytes = 0, dram_ifmap_bytes = 0, dram_ofmap_bytes = 0;  // memory: channel
  int64_t processing_cycles = 0;  // first cycle to the last psum out (the DRAM's last write-back not counted)
};

// `memory` (nullptr: ideal) says when each pass's data is in; `steps` (optional) receives
// every step's cycles.
RsLayerTiming compute_rs_timing(const RsLayerPlan& plan, int64_t start, RsMemory* memory = nullptr,
                                std::vector<RsStepTiming>* steps = nullptr);

}  // namespace cstsim
