#pragma once
// --verify with chips > 1. Each chip's register grids are checked against their own share as on
// one chip; a layer cut by columns or rows is then put together across the chips - the columns
// side by side, the rows' partial sums added as the all-reduce adds them - and checked against
// the one GEMM every chip's operands were cut from (models/array/chip_check.h).
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/precision.h"
#include "models/array/layer_result.h"
#include "plan/plan.h"

namespace cstsim {

// `layers[c]`: chip c's layer results. Returns summary.json's chips.verify (per cut layer: the cut,
// passes, passed, the first difference, floats' error against fp64); `passed` is false when any
// chip's grid or any combination differs (each failure logged with its chip and layer).
nlohmann::ordered_json verify_across_chips(const Plan& plan, const Precision& types, uint64_t seed,
                                           const std::vector<std::vector<ArrayLayerResult>>& layers, bool& passed);

}  // namespace cstsim
