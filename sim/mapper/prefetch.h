#pragma once
// overlap: prefetch. A cluster's DMA read queue is in order, so once a pass has queued its last
// read, reads of the cluster's next pass may follow it and load while the pass still computes
// and writes back: of the next pass's reads in queue order, up to the first whose buffer slot
// waits for one of its folds (the first hbm.fifo_tiles tiles, the first two slices or all of a
// resident stream are free from the start), every one that
//   - is not the previous layer's output (a layer that reads it waits for its write-back: a
//     chained layer prefetches its weights only),
//   - fits beside the running pass's own buffers and the reads prefetched before it, partition
//     by partition (the running pass's tile FIFO and stream slots stay reserved), and
//   - is needed by the next pass's first fold, or fits the bytes the memory could still move
//     while the running pass computes (spare_bytes: an estimate at the path's peak).
// The next pass still starts after the previous one's write-back, and the previous pass ends
// only when these reads are in the scratchpad too (so every step's traffic is its own, and the
// next pass finds its first tiles there); the last rule keeps that wait short. Sets
// PassPlan::prefetch.
#include <string>

#include "plan/plan.h"
#include "sim/config/arch_spec.h"

namespace cstsim {

void plan_prefetch(const ArchSpec& arch, Plan& plan);

// What a pass's own buffers hold of scratchpad partition `partition` at most: its tile FIFO,
// its stream slots (one resident block, or two alternating slices).
int64_t held_by_pass(const DmaBuffers& d, const std::string& partition);

}  // namespace cstsim
