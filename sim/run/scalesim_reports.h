#pragma once
// fold_pipeline: scalesim: SCALE-Sim v2's three report files, same columns and number format
// (scalesim/scale_sim.py), so scripts written against SCALE-Sim's output read cstsim's.
#include <string>

#include "sim/run/report.h"

namespace cstsim {

std::string scalesim_compute_report(const RunReport& r);
// These two need SCALE-Sim's memory replay of every layer (LayerPlan::scalesim); false: a layer
// has none (sim/mapper/scalesim_plan.h says which kinds), and the files are not written.
bool has_scalesim_memory(const RunReport& r);
std::string scalesim_bandwidth_report(const RunReport& r);
std::string scalesim_access_report(const RunReport& r);

}  // namespace cstsim
