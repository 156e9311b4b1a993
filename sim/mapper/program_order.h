#pragma once
// The mapper's last word: the program's steps in run order (plan/program.h). The layers run in the
// workload's order; before each (and after the last) run the kernels the graph puts there, in
// graph order, a collective before a vector or flash kernel of the same order. Each step's deps are
// the steps that write what it reads, found by the workload's tensors (and, for a list of layers,
// by the layer whose output a layer reads), not by the steps' places.
#include <vector>

#include "plan/plan.h"
#include "sim/workload/workload.h"

namespace cstsim {

// A kernel and its place in the graph: after layers [0, before_layer), `order` among the kernels
// there (the workload's VectorStep, FlashAttention and WorkloadCollective say where).
template <typename T>
struct Placed {
  T kernel;
  int before_layer = 0;
  int order = 0;
};

// One step per layer, a GEMM on the fold pipeline or (LayerPlan::rs) a row-stationary layer.
std::vector<Step> layer_steps(const std::vector<LayerPlan>& layers);

// Numbers the steps (id) and links each to the steps whose tensors it reads (Step::deps): `layers`
// are one step per layer of `w`, `flash` one kernel per w.flash, in that order. Throws
// std::logic_error if a step would depend on one that runs after it (Program::check_order).
Program order_program(const Workload& w, std::vector<Step> layers, std::vector<Placed<VectorKernelPlan>> vector,
                      std::vector<Placed<FlashKernelPlan>> flash, const std::vector<WorkloadCollective>& collectives);

}  // namespace cstsim
