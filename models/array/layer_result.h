#pragma once
// What the array's engines report per step: a layer (its passes on one cluster, or merged over
// passes and clusters) and a flash-attention kernel's share. The accelerator keeps them by step
// and merges the clusters' (models/accelerator/accelerator.h); the run reports them.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/accelerator/accelerator_spec.h"
#include "models/array/array_stats.h"
#include "models/array/rocc_controller.h"
#include "models/array/rs_trace.h"
#include "models/memory/hierarchy_source.h"
#include "models/array/sampled_source.h"
#include "models/vector/vector_result.h"
#include "plan/fold_plan.h"

namespace cstsim {

struct GemmShape {
  std::string name;
  int64_t M = 0, N = 0, K = 0;
};

struct LayerVerification {
  bool ran = false;
  bool passed = true;
  std::string detail;  // the first difference, when it failed
  // Floats: the largest error of the grid's result against the fp64 GEMM, relative to each
  // output's sum of |a_k b_k| (models/array/gemm_data.h); the bit-exact check is `passed`.
  double max_relative_error = 0;
  // Zero gating: the lanes of active PEs the registers saw a zero activation in (padding lanes
  // included), summed over passes; -1: not counted (no gating).
  int64_t gated_lanes = -1;
  // chips > 1, a layer cut by columns or rows: each pass's grid result (M x N of this chip's
  // share), which the run combines with the other chips' (models/array/chip_check.h).
  std::vector<std::vector<double>> chip_parts;
};

struct ArrayLayerResult {
  GemmShape shape;
  FoldPlan plan;            // without the fold list, to keep results small
  int64_t start_cycle = 0;  // first cycle of the layer
  int64_t end_cycle = 0;    // last cycle the array was busy with it
  int64_t cycles = 0;       // as reported (see LayerTiming::reported_cycles)
  int64_t event_count = 0;
  // What memory cost: cycles - ideal_cycles (the same plan with ideal memory), split by root
  // cause so the parts add up exactly: "memory_bandwidth" (channel), "hbm" (memory: hbm), or
  // under memory: hierarchy dependency / dma_issue / noc_bandwidth / noc_latency / hbm_refresh /
  // hbm_row_miss / hbm_bandwidth / hbm_latency / spad_ports (models/dma/README.md, "Stalls by root cause").
  int64_t ideal_cycles = 0;
  int64_t stall_cycles = 0;
  std::map<std::string, int64_t> stalls;
  // Per pass (its own cycles, ideal cycles and causes), so that clusters running the same
  // passes side by side can be merged pass by pass (merge_layer_parts).
  struct PassStall {
    int64_t cycles = 0, ideal_cycles = 0;
    std::map<std::string, int64_t> causes;
  };
  std::vector<PassStall> pass_stalls;
  int64_t dram_bytes = 0;   // bytes read from DRAM
  int64_t memory_end = -1;  // memory: hierarchy: last cycle of the layer's write-back
  bool has_hierarchy = false;
  bool idle = false;        // clusters: this cluster had no share of the layer
  int passes = 1;           // memory: hierarchy: runs over the stream (LayerPlan::pass_rows)
  HierarchyLayerStats hierarchy;
  // fidelity: sampled: what was estimated (its passes' reports added; none: simulated exactly).
  std::optional<SampleReport> sampling;
  bool has_rs = false;      // dataflow: rs
  RsLayerReport rs;
  bool has_rocc = false;    // controller: rocc
  RoccTiming rocc;
  ArrayLayerStats stats;
  LayerVerification verify;
};

// One layer's result from its parts: its passes (one after another, each with its
// own memory system) or its clusters (side by side, sharing one: its HBM and NoC
// figures count once, shared_memory). The span runs from the first start to the
// last end; work, DMA and scratchpad bytes add up. Stalls: passes add up; clusters, pass by
// pass, take the span of the slowest cluster against the slowest ideal one.
ArrayLayerResult merge_layer_parts(const AcceleratorSpec& spec, const GemmShape& layer,
                                   const std::vector<const ArrayLayerResult*>& parts, bool shared_memory);

// One cluster's share of a flash-attention kernel (plan/flash_kernel.h): its (batch, head) groups.
struct FlashKernelResult {
  std::string name;
  int64_t start_cycle = 0, end_cycle = 0;  // end: its last cycle (the last output's write-back)
  int64_t macs = 0;             // the array's, tile by tile (causal: only the blocks it computes)
  int64_t tiles = 0;            // (query block, key block) pairs computed
  int64_t array_cycles = 0;     // cycles its tile GEMMs took on the array
  VectorKernelResult vector;    // the online softmax and the normalization on the vector unit
  int64_t waiting_cycles = 0;   // for Q, K and V from HBM
  // cycles - array_cycles - the vector unit's compute cycles (the waits, and the last outputs'
  // write-back) by root cause (models/dma/explain_wait.h).
  std::map<std::string, int64_t> stalls;
  bool has_hierarchy = false;
  SharedStats shared;           // memory: hierarchy: the step's HBM and NoC figures (every cluster's)
  bool idle = false;
  int64_t cycles() const { return end_cycle - start_cycle + 1; }
};
// Several clusters' shares of one flash kernel as one (side by side: the span; the rest adds up).
FlashKernelResult merge_flash_parts(const std::vector<const FlashKernelResult*>& parts);

}  // namespace cstsim
