#pragma once
// arch `controller: rocc`: a layer as the host's library hands it to a Gemmini-style
// accelerator (plan/rocc_plan.h). The tile sizes follow the library's own choice
// (ucb-bar/gemmini-rocc-tests, include/gemmini.h: tiled_conv_auto, tiled_matmul_auto): the
// largest tile whose inputs and weights fill half the scratchpad and whose outputs fill half the
// accumulator, the other halves holding the next tile.
#include <cstdint>

#include <nlohmann/json.hpp>

#include "plan/rocc_plan.h"

namespace cstsim {

struct ArchSpec;
struct Layer;

// The tile of a convolution (plan's loop Conv, its layer fields and params set).
RoccConvTile rocc_conv_tile(const RoccLayerPlan& plan);
// The tile of a matrix product, in blocks of dim (tile_i, tile_j, tile_k of the result).
void rocc_matmul_tile(RoccLayerPlan& plan);
// Layer `layer` under controller: rocc: a convolution with 1 x 1 filters and stride 1, or a layer
// with no convolution, runs as a matmul (the library's tiled_matmul_auto), the rest as
// convolutions.
RoccLayerPlan map_rocc_layer(const ArchSpec& arch, const Layer& layer);
// The tile, as summary.json and `cstsim plan --json` print it.
nlohmann::ordered_json rocc_tile_json(const RoccLayerPlan& plan);
// The loops (tiles) the layer runs in: the product of each dimension's tiles.
int64_t rocc_tiles(const RoccLayerPlan& plan);

}  // namespace cstsim
