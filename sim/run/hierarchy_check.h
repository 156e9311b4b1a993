#pragma once
// Every way a layer's DMA program can fail to fit the arch under memory: hierarchy,
// as InputError (file, key, the numbers): scratchpad geometry, array port use, HBM
// capacity, NoC placement. make_dma_plan() checks the partition sizes, load_arch the
// clocks' common time base; the run checks both for every layer before simulating.
#include "plan/dma_program.h"
#include "plan/plan.h"
#include "sim/config/arch_spec.h"

namespace cstsim {

// The scratchpad the arch describes can be built (its partitions in whole banks); else InputError.
void check_scratchpad(const ArchSpec& arch);
void check_hierarchy(const ArchSpec& arch, const LayerDmaPlan& dma);
// The run's tensors (LayerPlan::tensors) fit the HBM stack.
void check_hbm_capacity(const ArchSpec& arch, const Plan& plan);

}  // namespace cstsim
