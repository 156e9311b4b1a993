#pragma once
// The vector unit's part of the plan: the workload's vector steps (sim/workload/vector_steps.h)
// fused into kernels as vector.fusion says, each tiled by rows through the scratchpad and (memory:
// hierarchy) its tensors placed in HBM: where a layer reads or writes the same graph tensor, at
// that layer's place; otherwise after everything placed so far.
//
// Fusing steps into a kernel: it reads each tensor its steps read that no earlier step of the
// kernel wrote (once), and writes each tensor its steps write that something outside the kernel
// reads (another kernel or a layer) or that nothing reads at all (a result of the graph). The
// rest are intermediates that stay in the vector unit's registers and the scratchpad.
//   none:  every step its own kernel (seed 002's unfused decompositions);
//   op:    the steps of one graph op;
//   chain: consecutive ops between the same two layers, over the same rows, each reading
//          something the chain before it wrote.
#include <cstdint>
#include <string>

#include "plan/plan.h"
#include "sim/mapper/program_order.h"
#include "sim/config/arch_spec.h"
#include "sim/workload/workload.h"

namespace cstsim {

// The vector unit's kernels, in graph order (none without a vector unit). `next`: the first free
// HBM byte after the layers' tensors (advanced past the kernels' own). Throws InputError naming
// the op when not even one row of a kernel fits its scratchpad partitions.
std::vector<Placed<VectorKernelPlan>> plan_vector_kernels(const ArchSpec& a, const Workload& w,
                                                          const std::vector<LayerPlan>& layers, uint64_t& next);

}  // namespace cstsim
