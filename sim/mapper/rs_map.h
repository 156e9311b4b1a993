#pragma once
// dataflow: rs: a workload layer as a row-stationary convolution (plan/rs_plan.h). A
// convolution maps as itself (its groups and images from its repeats); any other GEMM as a
// 1 x 1 convolution: C[M x N] = A[M x K] B[K x N] is one image of 1 x M pixels with K channels
// and N filters (a GEMM's repeats are groups: each its own filters).
#include <memory>

#include "plan/plan.h"
#include "plan/rs_plan.h"
#include "sim/config/arch_spec.h"
#include "sim/workload/workload.h"

namespace cstsim {

// Layer i's passes under the arch's scratchpads and global buffer. Throws InputError at the
// layer's line when it has no mapping (a filter row wider than the ifmap scratchpad, dilation,
// a global buffer too small for one pass), saying why.
std::shared_ptr<const RsLayerPlan> map_rs_layer(const ArchSpec& a, const Workload& w, size_t i);

// memory: hierarchy: where layer `lp`'s ifmap, filters and ofmap lie in HBM (LayerPlan::tensors A,
// B, C) from `next` (advanced past them, `align`-aligned): the ifmap where the layer it reads
// wrote its ofmap (lp.input_from), the rest of their own; and the HBM bytes its passes move.
// Throws InputError when a pass's filters do not fit the filter partition (the prefetch buffer).
void place_rs_tensors(const ArchSpec& a, const Workload& w, size_t i, const std::vector<LayerPlan>& earlier,
                      LayerPlan& lp, uint64_t& next, uint64_t align);

}  // namespace cstsim
