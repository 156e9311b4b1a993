#include "plan/plan.h"

#include <stdexcept>

namespace cstsim {

FoldPlan fold_plan(const Plan& plan, const PassPlan& pass) {
  FoldPlan f = make_fold_plan(plan.dataflow, plan.rows, plan.cols, pass.dims.M, pass.dims.N, pass.dims.K, plan.pack);
  f.sparse_2_4 = pass.sparse_2_4;
  f.input_density = pass.input_density;
  return pass.has_dma ? with_k_chunks(f, pass.dma.k_chunks) : f;
}

LayerDmaPlan dma_program(const FoldPlan& folds, const PassPlan& pass) {
  if (!pass.has_dma) throw std::logic_error("dma_program: the pass has no DMA buffers (memory is not hierarchy)");
  return lay_out_dma_program(folds, pass.dma);
}

}  // namespace cstsim
