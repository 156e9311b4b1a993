#include "models/memory/tile_source.h"

#include "core/registry.h"

namespace cstsim {

FifoTiles fifo_tiles_of(const FoldPlan& plan, const Precision& precision, bool padded) {
  const bool weights = roles(plan.dataflow).tile_is_filter;  // the tiles are B (WS, OS) or A (IS)
  FifoTiles t;
  const bool os = roles(plan.dataflow).stationary_outputs;
  for (const Fold& f : plan.folds) {
    // OS: its block (or K chunk) of B. Padded: a whole array's rows (OS: its K) and columns.
    const int64_t rows = os ? f.t : padded ? plan.R : f.rows_used, cols = padded ? plan.C : f.cols_used;
    const int64_t words = rows * cols;
    // 2:4 tiles: each kept value carries its 2-bit place among its four (FoldPlan::index_bytes).
    t.bytes.push_back(precision.bytes_of_words(weights, words) + plan.index_bytes(words));
    t.hold.push_back(os ? f.t + f.cols_used - 1 : 0);
  }
  return t;
}

namespace {

// memory: ideal: operands are always on chip in time, so there is no source.
class IdealMemory final : public MemoryBackend {
 public:
  std::unique_ptr<TileSource> make_source(const AcceleratorSpec&, const FoldPlan&, int64_t, const LayerDmaPlan*,
                                          bool) const override {
    return nullptr;
  }
};

}  // namespace

CSTSIM_REGISTER(MemoryBackend, IdealMemory, "ideal")

int cstsim_anchor_ChannelMemory();    // weight_channel.cpp
int cstsim_anchor_HbmMemory();        // hbm_tile_source.cpp
int cstsim_anchor_HierarchyMemory();  // hierarchy_source.cpp

namespace {
Registry<MemoryBackend>& backends() {
  static const int linked = cstsim_anchor_ChannelMemory() + cstsim_anchor_HbmMemory() + cstsim_anchor_HierarchyMemory();
  (void)linked;
  return Registry<MemoryBackend>::instance();
}
}  // namespace

std::vector<std::string> memory_backend_names() { return backends().names(); }

std::unique_ptr<TileSource> make_tile_source(const AcceleratorSpec& a, const FoldPlan& plan, int64_t layer_start,
                                             const LayerDmaPlan* program, bool record_timeline) {
  return backends().shared(to_string(a.memory), "memory backend")
      .make_source(a, plan, layer_start, program, record_timeline);
}

}  // namespace cstsim
