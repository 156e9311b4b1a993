#pragma once
// Per-layer statistics of one array, kept beside the model that produces them.
#include <cstdint>
#include <string>

#include "plan/fold_plan.h"
#include "models/array/register_array.h"

namespace cstsim {

struct ArrayLayerStats {
  int64_t macs = 0;              // useful MACs, M*N*K
  EdgeCounts sram;               // operand words read/written at the array edge
  double mapping_efficiency = 0; // mean fraction of PEs mapped per fold
  double compute_utilization = 0;// SCALE-Sim's "Compute Util": mapped PEs busy inside a fold
  // SCALE-Sim's OFMAP SRAM write count, which adds F*(R+C) for OS (an
  // accounting artefact of its demand matrices); equals sram.ofmap_writes otherwise.
  int64_t scalesim_ofmap_writes = 0;
  // WS, IS: accumulator words read back from the scratchpad to add to (every output a fold
  // after its column fold's first writes; trace action sram.read.psum). OS sums in the PEs: 0.
  int64_t psum_reads = 0;
};

// What the array reads and writes at its edges for a plan, in closed form.
// The register-level grid counts the same words one by one.
ArrayLayerStats compute_layer_stats(const FoldPlan& plan);

}  // namespace cstsim
