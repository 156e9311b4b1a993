#include "plan/plan.h"

#include <algorithm>

#include <stdexcept>

namespace cstsim {

FoldPlan fold_plan(const Plan& plan, const PassPlan& pass) {
  FoldPlan f = make_fold_plan(plan.dataflow, plan.rows, plan.cols, pass.dims.M, pass.dims.N, pass.dims.K, plan.pack);
  f.sparse_2_4 = pass.sparse_2_4;
  f.input_density = pass.input_density;
  return f;
}

LayerDmaPlan dma_program(const FoldPlan& folds, const PassPlan& pass) {
  if (!pass.has_dma) throw std::logic_error("dma_program: the pass has no DMA buffers (memory is not hierarchy)");
  return lay_out_dma_program(folds, pass.dma);
}

std::vector<KernelRef> kernels_before(const Plan& plan, size_t layer) {
  std::vector<std::pair<std::pair<int, int>, KernelRef>> found;  // ((order, collective first), kernel)
  for (size_t k = 0; k < plan.collectives.size(); ++k)
    if (size_t(plan.collectives[k].before_layer) == layer)
      found.push_back({{plan.collectives[k].order, 0}, {false, k, true}});
  for (size_t k = 0; k < plan.vector_kernels.size(); ++k)
    if (size_t(plan.vector_kernels[k].before_layer) == layer) found.push_back({{plan.vector_kernels[k].order, 1}, {false, k}});
  for (size_t k = 0; k < plan.flash_kernels.size(); ++k)
    if (size_t(plan.flash_kernels[k].before_layer) == layer) found.push_back({{plan.flash_kernels[k].order, 1}, {true, k}});
  std::stable_sort(found.begin(), found.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<KernelRef> out;
  for (const auto& [order, ref] : found) out.push_back(ref);
  return out;
}

}  // namespace cstsim
