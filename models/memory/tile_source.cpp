#include "models/memory/tile_source.h"

#include "models/hbm/hbm_spec.h"
#include "models/memory/hbm_tile_source.h"
#include "models/memory/hierarchy_source.h"
#include "models/memory/weight_channel.h"
#include <stdexcept>

namespace cstsim {

FifoTiles fifo_tiles_of(const FoldPlan& plan, int64_t element_bytes) {
  FifoTiles t;
  const bool os = roles(plan.dataflow).stationary_outputs;
  for (const Fold& f : plan.folds) {
    t.bytes.push_back((os ? plan.T : int64_t(f.rows_used)) * f.cols_used * element_bytes);
    t.hold.push_back(os ? plan.T + f.cols_used - 1 : 0);
  }
  return t;
}

std::unique_ptr<TileSource> make_tile_source(const AcceleratorSpec& a, const FoldPlan& plan, int64_t layer_start,
                                             const LayerDmaPlan* program, bool record_timeline) {
  switch (a.memory) {
    case MemoryMode::Ideal: return nullptr;
    case MemoryMode::Channel:
      return std::make_unique<WeightChannel>(a.channel, a.clock_hz, fifo_tiles_of(plan, a.element_bytes()),
                                             layer_start);
    case MemoryMode::Hbm:
      return std::make_unique<HbmTileSource>(a.hbm, a.hbm_dma, a.clock_hz,
                                             fifo_tiles_of(plan, a.element_bytes()), layer_start);
    case MemoryMode::Hierarchy:
      if (!program) throw std::logic_error("make_tile_source: memory: hierarchy needs the pass's DMA program");
      return std::make_unique<HierarchySource>(a, plan, *program, layer_start, record_timeline);
  }
  return nullptr;
}

}  // namespace cstsim
