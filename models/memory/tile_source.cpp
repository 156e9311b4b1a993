#include "models/memory/tile_source.h"

#include "models/hbm/hbm_spec.h"
#include "models/memory/hbm_tile_source.h"
#include "models/memory/hierarchy_source.h"
#include "models/memory/weight_channel.h"
// Still calls the mapper at run time (issue 10: the Plan is to be made once, in the front).
#include "sim/mapper/dma_plan.h"

namespace cstsim {

std::unique_ptr<TileSource> make_tile_source(const ArchSpec& a, const FoldPlan& plan, int64_t layer_start,
                                             const std::string& layer, bool record_timeline) {
  const int64_t element_bytes = (a.operand_bits + 7) / 8;
  if (a.memory == "channel")
    return std::make_unique<WeightChannel>(a.channel, a.clock_hz, stationary_tile_bytes(plan, element_bytes),
                                           layer_start);
  if (a.memory == "hbm")
    return std::make_unique<HbmTileSource>(a.hbm_spec, a.hbm, a.clock_hz,
                                           stationary_tile_bytes(plan, element_bytes), layer_start);
  if (a.memory == "hierarchy")
    return std::make_unique<HierarchySource>(a, plan, make_dma_plan(a, plan, layer), layer_start, record_timeline);
  return nullptr;
}

}  // namespace cstsim
