#pragma once
// SCALE-Sim v2's double-buffered scratchpad memory (scalesim/memory/ at 22f88b17), replayed
// over its demand stream (scalesim_demand.h) for fold_pipeline: scalesim. It gives what
// SCALE-Sim's DETAILED_ACCESS_REPORT.csv and BANDWIDTH_REPORT.csv hold — when each SRAM and DRAM
// interface is first and last busy and how many words cross each DRAM interface — and, with
// InterfaceBandwidth: USER, the stall cycles its finite DRAM bandwidth costs.
//
// This is SCALE-Sim's model, reproduced with its own rules (and quirks) so that numbers match
// its reports: each SRAM is two halves (active, prefetch) of 1-byte words; a read that misses the
// active half swaps in the next prefetched part of the operand's prefetch order and stalls the
// whole array until it has arrived; CALC mode never stalls a read and instead sizes each
// prefetch to arrive in time; the ofmap SRAM drains half of itself at a time and stalls writes
// when it is full. cstsim's own memory models (channel, hbm, hierarchy) are unrelated.
#include <array>
#include <cstdint>
#include <vector>

#include "models/scalesim/scalesim_demand.h"
#include "plan/plan.h"

namespace cstsim::scalesim {

struct MemoryParams {
  int64_t ifmap_words = 0, filter_words = 0, ofmap_words = 0;  // SRAM sizes, 1-byte words
  bool user_bandwidth = false;  // InterfaceBandwidth: USER; false: CALC
  int64_t bandwidth = 10;       // USER: words a cycle each DRAM interface moves
};

// SRAM accesses carry cycles only (their counts come from the compute side, ArrayLayerStats).
using Access = ScaleSimMemory::Access;

ScaleSimMemory replay_layer(const DemandStream& demand, const MemoryParams& params);

// CALC only: the stalls (and total cycles) of replay_layer without its reports. CALC reads
// never stall, so only the ofmap write buffer is replayed, from the count of writes a row.
ScaleSimMemory calc_stalls(const DemandStream& demand, const MemoryParams& params);

}  // namespace cstsim::scalesim
