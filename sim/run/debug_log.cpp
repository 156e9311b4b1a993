#include "sim/run/debug_log.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace cstsim {

void log_plan(const ArchSpec& a, const Plan& plan) {
  if (!spdlog::should_log(spdlog::level::debug)) return;
  for (size_t i = 0; i < plan.layers.size(); ++i) {
    const LayerPlan& l = plan.layers[i];
    std::string shares;
    for (size_t k = 0; k < l.clusters.size() && l.clusters.size() > 1; ++k) {
      const ClusterShare& s = l.clusters[k].share;
      shares += fmt::format(" c{}:{}x{}x{}", k, s.M, s.N, s.K);
    }
    std::string folds = "-";
    if (!l.rs && !l.clusters.front().passes.empty()) {
      const FoldPlan f = fold_plan(plan, l.clusters.front().passes.front());
      folds = fmt::format("{} ({} x {}; Sr {}, Sc {}, T {})", f.fold_count(), f.row_folds, f.col_folds, f.Sr, f.Sc, f.T);
    }
    spdlog::debug("plan: layer {} {}: M {} N {} K {} x{} repeats, {}, folds of the first pass {}, {} passes a "
                  "repeat{}{}{}", i, l.name, l.dims.M, l.dims.N, l.dims.K, l.repeats, to_string(a.dataflow), folds,
                  l.passes_per_repeat(), shares.empty() ? "" : ", clusters" + shares,
                  a.memory == MemoryMode::Hierarchy ? fmt::format(", HBM read {} B, written {} B", l.hbm_read_bytes, l.hbm_write_bytes)
                                          : "",
                  l.input_not_on_chip.empty() ? "" : ", input not kept on chip: " + l.input_not_on_chip);
  }
  for (const Step& s : plan.program.steps)
    spdlog::debug("plan: step {} ({}): {}{}", s.id, s.kind(), s.name, s.layer >= 0 ? fmt::format(", layer {}", s.layer) : "");
  for (const VectorKernelStep* v : plan.program.all<VectorKernelStep>())
    spdlog::debug("plan: vector kernel {}: {} x {}, {} tiles of {} rows", v->kernel.name, v->kernel.rows, v->kernel.cols,
                  v->kernel.tiles(), v->kernel.tile_rows);
  for (const FlashKernelStep* f : plan.program.all<FlashKernelStep>())
    spdlog::debug("plan: flash attention {}: batch {} heads {} Sq {} Skv {} d {}", f->kernel.name, f->kernel.batch,
                  f->kernel.heads, f->kernel.Sq, f->kernel.Skv, f->kernel.d);
  for (const CollectiveStep* c : plan.program.all<CollectiveStep>())
    spdlog::debug("plan: collective {} ({}): {} B, {}", c->collective.name, c->collective.op, c->collective.bytes,
                  c->collective.why);
}

void log_timing(const std::vector<ArrayLayerResult>& layers, const std::vector<VectorKernelResult>& vector) {
  if (!spdlog::should_log(spdlog::level::debug)) return;
  for (size_t i = 0; i < layers.size(); ++i) {
    const ArrayLayerResult& L = layers[i];
    std::string causes;
    for (const auto& [cause, n] : L.stalls)
      if (n > 0) causes += fmt::format(" {} {}", cause, n);
    spdlog::debug("timing: layer {} {}: cycles {}..{}, {} cycles ({} with ideal memory), {} stall cycles{}{}, DRAM {} B",
                  i, L.shape.name, L.start_cycle, L.end_cycle, L.cycles, L.ideal_cycles, L.stall_cycles,
                  causes.empty() ? "" : ":", causes, L.dram_bytes);
  }
  for (const VectorKernelResult& k : vector)
    spdlog::debug("timing: vector kernel {}: cycles {}..{}, compute {}, waiting {}", k.name, k.start_cycle, k.end_cycle,
                  k.compute_cycles, k.waiting_cycles);
}

}  // namespace cstsim
