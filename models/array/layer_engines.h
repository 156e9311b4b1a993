#pragma once
// The engines of the layer steps: "gemm" (a layer on the fold pipeline, ws/os/is) and "rs" (a
// row-stationary layer in processing passes, rs_engine.cpp). Both run the cluster's passes of the
// layer one after another, each a memory step of its own, and differ only in how a pass runs.
#include <cstdint>
#include <functional>

#include "models/array/array_module.h"
#include "models/base/step_engine.h"

namespace cstsim {

// Runs one non-idle pass `p` of this cluster's share of the layer from `start`.
using PassRunner = std::function<ArrayLayerResult(const PassPlan& pass, size_t p, const PassPlan* next, int64_t start)>;

// This cluster's passes of layer step `step` from `start`: an idle pass (no share) waits for the
// others; the barrier after each pass but the last (the sequencer's); the passes' results merged.
StepOutcome run_layer_passes(ArrayModule& array, const Step& step, int64_t start, StepContext& context,
                             const PassRunner& run);

// A row-stationary layer, all its passes (rs_engine.cpp).
ArrayLayerResult run_rs_layer(ArrayModule& array, StepContext& context, int index, int64_t start);

}  // namespace cstsim
