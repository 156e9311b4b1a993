#include "sim/mapper/mapper.h"

#include "sim/mapper/dma_plan.h"

namespace cstsim {

namespace {

LayerPlan plan_layer(const ArchSpec& a, const Layer& l) {
  LayerPlan lp;
  lp.name = l.name;
  lp.dims = {l.M, l.N, l.K};
  lp.pass_rows = layer_passes(a, l.M, l.N, l.K, l.name);
  const Dim stream = roles(a.dataflow).T;  // every cluster streams the whole T, so all make the same passes
  const bool hierarchy = a.memory == "hierarchy";
  for (int k = 0; k < a.clusters; ++k) {
    ClusterLayerPlan c;
    c.share = cluster_share(a, l.M, l.N, l.K, k);
    const FoldPlan whole = make_fold_plan(a.dataflow, a.rows, a.cols, std::max<int64_t>(1, c.share.M),
                                          std::max<int64_t>(1, c.share.N), std::max<int64_t>(1, c.share.K));
    for (int64_t rows : lp.pass_rows) {
      PassPlan p;
      p.dims = {c.share.M, c.share.N, c.share.K};
      p.dims[stream] = c.share.empty() ? 0 : rows;
      if (hierarchy && !p.idle()) {
        const FoldPlan folds = with_stream(whole, rows);
        p.has_dma = true;
        p.dma = choose_dma_buffers(a, folds, l.name, c.share.hbm_base);
        const LayerDmaPlan program = lay_out_dma_program(folds, p.dma);
        lp.hbm_read_bytes += program.read_bytes();
        lp.hbm_write_bytes += program.write_bytes();
      }
      c.passes.push_back(p);
    }
    lp.clusters.push_back(std::move(c));
  }
  return lp;
}

}  // namespace

Plan make_plan(const ArchSpec& a, const Workload& w) {
  Plan plan;
  plan.dataflow = a.dataflow;
  plan.rows = a.rows;
  plan.cols = a.cols;
  for (const Layer& l : w.layers) plan.layers.push_back(plan_layer(a, l));
  return plan;
}

const PassPlan& widest_pass(const LayerPlan& layer) {
  const ClusterLayerPlan* widest = &layer.clusters.front();
  for (const ClusterLayerPlan& c : layer.clusters)
    if (c.share.M * c.share.N > widest->share.M * widest->share.N) widest = &c;
  return widest->passes.front();
}

}  // namespace cstsim
