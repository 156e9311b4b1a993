#include "sim/run/chips_verify.h"

#include <spdlog/spdlog.h>

#include "models/array/chip_check.h"
#include "models/array/reference_check.h"

namespace cstsim {

nlohmann::ordered_json verify_across_chips(const Plan& plan, const Precision& types, uint64_t seed,
                                           const std::vector<std::vector<ArrayLayerResult>>& layers, bool& passed) {
  const int chips = int(layers.size());
  passed = true;
  for (int c = 0; c < chips; ++c)  // each chip's own grids first, as on one chip
    for (size_t i = 0; i < layers[size_t(c)].size(); ++i) {
      const ArrayLayerResult& r = layers[size_t(c)][i];
      if (r.verify.passed) continue;
      spdlog::error("verify failed on chip {} in layer {} ({}): {}", c, i, r.shape.name, r.verify.detail);
      passed = false;
      break;
    }
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (size_t i = 0; i < plan.layers.size(); ++i) {
    const LayerPlan& l = plan.layers[i];
    if (!cut_for_check(l.chip_cut, chips)) continue;
    const std::vector<PassPlan>& passes = l.clusters.front().passes;
    const bool n_cut = l.chip_cut.dim == ChipCut::Dim::N;
    nlohmann::ordered_json j = {{"layer", l.name}, {"cut", n_cut ? "columns" : "rows"}, {"passes", passes.size()}};
    ChipsCombined worst;
    for (size_t p = 0; p < passes.size() && worst.passed; ++p) {
      std::vector<const std::vector<double>*> parts;
      for (int c = 0; c < chips; ++c) {
        const auto& mine = layers[size_t(c)][i].verify.chip_parts;
        if (mine.size() != passes.size())
          throw std::logic_error("chip " + std::to_string(c) + " kept no grid result for every pass of " + l.name);
        parts.push_back(&mine[p]);
      }
      const FoldPlan fp = fold_plan(plan, passes[p]);
      const GemmData whole = pass_operands(fp, passes[p], types, seed + uint64_t(i), l.chip_cut, -1, chips);
      ChipsCombined now = check_chips_combined(whole, n_cut, accumulation_chunk(fp), parts);
      if (!now.passed) now.detail = "pass " + std::to_string(p) + ": " + now.detail;
      now.max_relative_error = std::max(now.max_relative_error, worst.max_relative_error);
      worst = now;
    }
    j["passed"] = worst.passed;
    if (!worst.passed) {
      j["detail"] = worst.detail;
      spdlog::error("verify failed across the {} chips in layer {} ({}): {}", chips, i, l.name, worst.detail);
      passed = false;
    }
    if (is_float(types.operand)) j["max_relative_error_vs_fp64"] = worst.max_relative_error;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace cstsim
