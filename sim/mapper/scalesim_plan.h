#pragma once
// fold_pipeline: scalesim: SCALE-Sim's memory system replayed over a layer
// (models/scalesim/scalesim_memory.h), for the plan.
#include <optional>

#include "plan/plan.h"
#include "sim/config/arch_spec.h"
#include "sim/workload/workload.h"

namespace cstsim {

// The replay of layer i, or nothing where SCALE-Sim has no such layer (several GEMMs in one
// layer, clusters, 2:4 weights, dilation, dataflow: rs); InputError where the arch asks for
// InterfaceBandwidth: USER, whose stalls the run could then not include.
std::optional<ScaleSimMemory> scalesim_memory_of(const ArchSpec& a, const Workload& w, size_t i);

}  // namespace cstsim
