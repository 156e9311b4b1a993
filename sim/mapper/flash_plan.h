#pragma once
// Flash attention's blocks and places (plan/flash_kernel.h). On chip, per the scratchpad's
// partitions: a KV head's K and V in the ifmap partition, whole when two copies fit (the next
// head's load while this one computes; kv_block = Skv), else double-buffered key blocks of the
// most rows that fit; the scores of a query block against a key block as fp32 in the ofmap
// partition, two tiles' worth; the query block (two) and its fp32 output accumulators in the filter
// partition. Query blocks take the most rows that fit, at most Sq. A partition of 0 bytes bounds
// nothing. Under memory: hierarchy q, k and v are read where the layers or kernels that make them
// put them; the output goes after everything placed so far.
#include "sim/mapper/program_order.h"
#include <cstdint>

#include "plan/plan.h"
#include "sim/config/arch_spec.h"
#include "sim/workload/workload.h"

namespace cstsim {

// The flash-attention kernels, in graph order. Throws InputError naming the op when the arch has no
// vector unit (the online softmax runs there) or not even one row of a block fits. `vector`: the
// vector kernels, whose tensors keep their places.
std::vector<Placed<FlashKernelPlan>> plan_flash_kernels(const ArchSpec& a, const Workload& w,
                                                        const std::vector<LayerPlan>& layers,
                                                        const std::vector<Placed<VectorKernelPlan>>& vector, uint64_t& next);

}  // namespace cstsim
