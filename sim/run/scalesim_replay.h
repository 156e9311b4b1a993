#pragma once
// fold_pipeline: scalesim: SCALE-Sim's memory system replayed over every layer
// (models/scalesim/scalesim_memory.h) before the run; its results join the plan (LayerPlan::
// scalesim) the array then executes (its stalls) and the reports print.
#include "plan/plan.h"
#include "sim/config/arch_spec.h"
#include "sim/workload/workload.h"

namespace cstsim {

// The replay of each layer, or none where SCALE-Sim has no such layer (several GEMMs in one
// layer, clusters, 2:4 weights, dilation, packed words, unsized SRAMs, dataflow: rs); InputError
// where the arch asks for InterfaceBandwidth: USER, whose stalls the run could then not include.
// Under CALC only the stalls are replayed (scalesim::calc_stalls) unless `reports`: the SRAM and
// DRAM accesses BANDWIDTH_REPORT.csv and DETAILED_ACCESS_REPORT.csv print (75-88 % of a run).
void add_scalesim_memory(const ArchSpec& a, const Workload& w, Plan& plan, bool reports);

}  // namespace cstsim
