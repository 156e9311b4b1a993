#pragma once
// A layer run as a Gemmini-style command stream (arch `controller: rocc`): the loop the host
// hands the accelerator (LoopConv for a convolution, LoopMatmul for a matrix product), cut into
// the tiles the host's library picks, and the controller's resources. The mapper decides the
// numbers (sim/mapper/rocc_map.h); models/array/rocc_controller.h times the commands.
#include <cstdint>

namespace cstsim {

// The controller, its DMA and its queues (Gemmini's defaults at ucb-bar/gemmini 9a92fa0,
// src/main/scala/gemmini/Configs.scala, the configuration of its pull request #69).
struct RoccParams {
  int64_t dim = 16;             // mesh rows = columns: a block is dim x dim
  double bus_bytes_per_cycle = 16;  // DMA bus, each way (dma_buswidth 128 bits)
  int64_t request_bytes = 64;   // largest DMA request (dma_maxbytes)
  int64_t max_in_flight = 16;   // DMA requests outstanding each way (max_in_flight_reqs)
  int64_t latency = 0;          // cycles from a DMA request to its first beat (the memory behind the bus)
  int64_t rob_entries = 16;     // commands issued and not yet complete (rob_entries)
  int64_t mvins_in_flight = 2;  // mvin commands the load controller works on at once
  // true: a compute takes dim cycles whatever its rows (the execute controller's row counter
  // wraps at dim, padding short blocks with zeros); false: max(rows, 4).
  bool padded_compute = true;
  int64_t mesh_latency = 36;    // a compute's last row in to its last result in the accumulator (2 dim + 4)
  int64_t in_bytes = 1, acc_bytes = 4, out_bytes = 1;  // an input, accumulator, output element
  int64_t mvin_max_cols = 64;   // elements one mvin row carries (4 blocks of int8)
  bool bias = true;             // the accumulator is loaded with a bias before a tile's first products
  // Capacity in rows of dim elements (256 KiB of int8: 16,384; 64 KiB of int32: 1,024). A tile
  // takes at most half of each; the other half holds the next tile.
  int64_t spad_rows = 16384, acc_rows = 1024;
  // Rows of `dim` elements of `element_bytes` in `kib` KiB.
  static int64_t rows_of(int64_t kib, int64_t dim, int64_t element_bytes) { return kib * 1024 / (dim * element_bytes); }
  // Bytes an element of `bits` takes in the scratchpad and on the DMA (narrower ones: a byte).
  static int64_t element_bytes(int bits) { return bits < 8 ? 1 : bits / 8; }
};

// A convolution's tile: the sizes LoopConv runs one instance with (tiled_conv_auto).
struct RoccConvTile {
  int64_t batches = 1, porows = 1, pocols = 1, pochs = 1, krows = 1, kcols = 1, kchs = 1;
};

struct RoccLayerPlan {
  enum class Loop { Conv, Matmul };
  Loop loop = Loop::Matmul;
  // Conv: the whole layer (input rows and columns with their zero border).
  int64_t batch = 1, in_rows = 1, in_cols = 1, in_chs = 1, out_chs = 1, krows = 1, kcols = 1, stride = 1;
  int64_t out_rows = 1, out_cols = 1;
  RoccConvTile tile;
  // Matmul: (I x K) (K x J), tiled in blocks of dim: tile_i x tile_k of A, tile_k x tile_j of B.
  int64_t I = 0, J = 0, K = 0;
  int64_t tile_i = 1, tile_j = 1, tile_k = 1;
  int64_t repeats = 1;  // independent products of this shape, one after another (attention's heads)
  RoccParams params;
  int64_t macs() const {
    return loop == Loop::Conv ? batch * out_rows * out_cols * out_chs * krows * kcols * in_chs : repeats * I * J * K;
  }
};

}  // namespace cstsim
