#pragma once
// The mapper: the run's one Plan (plan/plan.h), made once from the resolved spec and
// the workload. Throws InputError, naming the layer, when a layer cannot be mapped
// (a DMA buffer that does not fit its partition even for one stream row).
#include "plan/plan.h"
#include "sim/config/arch_spec.h"
#include "sim/workload/workload.h"

namespace cstsim {

Plan make_plan(const ArchSpec& arch, const Workload& workload);

// The pass `cstsim plan` shows a layer's DMA program for: the widest cluster
// share's first (longest) pass.
const PassPlan& widest_pass(const LayerPlan& layer);

}  // namespace cstsim
