#include "models/array/layer_engines.h"

#include <stdexcept>

#include "core/registry.h"
#include "models/memory/cluster_memory.h"

namespace cstsim {

namespace {

// The cluster's pass after pass p of layer `index`: its next one, or the next layer's first.
const PassPlan* pass_after(const Plan& plan, int cluster, size_t index, size_t p) {
  const std::vector<PassPlan>& passes = plan.layers[index].clusters[size_t(cluster)].passes;
  if (p + 1 < passes.size()) return &passes[p + 1];
  if (index + 1 < plan.layers.size()) return &plan.layers[index + 1].clusters[size_t(cluster)].passes.front();
  return nullptr;
}

ArrayModule& array_of(const StepContext& context) {
  ArrayModule* array = context.part<ArrayModule>();
  if (!array) throw std::logic_error("a layer step on a cluster without an array");
  return *array;
}

}  // namespace

StepOutcome run_layer_passes(ArrayModule& array, const Step& step, int64_t start, StepContext& context,
                             const PassRunner& run) {
  const Plan& plan = context.plan();
  const size_t i = size_t(step.layer);
  const LayerPlan& L = plan.layers.at(i);
  const ClusterLayerPlan& mine = L.clusters[size_t(context.cluster())];
  RunPosition* position = array.params().position;
  std::vector<ArrayLayerResult> parts;
  for (size_t p = 0; p < mine.passes.size(); ++p) {
    const PassPlan& pass = mine.passes[p];
    if (pass.idle()) {  // nothing for this cluster: it waits for the others
      ArrayLayerResult idle;
      idle.shape = {L.name, pass.dims.M, pass.dims.N, pass.dims.K};
      idle.idle = true;
      idle.pass_stalls = {{}};
      idle.start_cycle = start;
      idle.end_cycle = start - 1;
      if (array.sink() && p == 0) array.sink()->begin_layer(int(i), L.name, start);
      if (ClusterMemory* memory = context.part<ClusterMemory>()) memory->idle();
      context.memory_computed();
      parts.push_back(idle);
    } else {
      if (position) position->in_pass(int(p), int(mine.passes.size()), 0);
      parts.push_back(run(pass, p, pass_after(plan, context.cluster(), i, p), start));
    }
    if (p + 1 < mine.passes.size()) start = context.end_memory_step(parts.back().end_cycle) + 1;
  }
  StepOutcome out;
  out.end_cycle = parts.back().end_cycle;
  if (parts.size() == 1) {
    out.result = std::move(parts.front());
  } else {
    std::vector<const ArrayLayerResult*> ptrs;
    for (const ArrayLayerResult& r : parts) ptrs.push_back(&r);
    const ClusterShare& share = mine.share;
    ArrayLayerResult merged = merge_layer_parts(array.params().spec, {L.name, share.M, share.N, share.K}, ptrs, false);
    merged.passes = int(mine.passes.size());
    merged.idle = parts.front().idle;
    out.result = std::move(merged);
  }
  return out;
}

// A GEMM layer on the fold pipeline: each pass's folds, timed or stepped on the register grid.
class GemmLayerEngine : public IStepEngine {
 public:
  StepOutcome run(const Step& step, int64_t start, StepContext& context) override {
    ArrayModule& array = array_of(context);
    return run_layer_passes(array, step, start, context,
                            [&](const PassPlan& pass, size_t p, const PassPlan* next, int64_t from) {
                              return array.run_pass(context, step.layer, p == 0, pass, next, from);
                            });
  }
};
CSTSIM_REGISTER(IStepEngine, GemmLayerEngine, "gemm")

// A row-stationary layer: its processing passes (rs_engine.cpp); the cluster makes one pass plan
// for the whole layer.
class RsLayerEngine : public IStepEngine {
 public:
  StepOutcome run(const Step& step, int64_t start, StepContext& context) override {
    ArrayModule& array = array_of(context);
    return run_layer_passes(array, step, start, context, [&](const PassPlan&, size_t, const PassPlan*, int64_t from) {
      return run_rs_layer(array, context, step.layer, from);
    });
  }
};
CSTSIM_REGISTER(IStepEngine, RsLayerEngine, "rs")

}  // namespace cstsim
