// controller: rocc: the command-stream timing (models/array/rocc_controller.h) and the tiles the
// mapper picks (sim/mapper/rocc_map.h): a schedule worked by hand, conservation of bytes and
// MACs against the layer's shapes, and each knob moving the cycles the way it must.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "models/array/rocc_controller.h"
#include "sim/mapper/rocc_map.h"

using namespace cstsim;

namespace {

RoccLayerPlan matmul(int64_t I, int64_t J, int64_t K, int64_t latency = 0) {
  RoccLayerPlan p;
  p.loop = RoccLayerPlan::Loop::Matmul;
  p.I = I, p.J = J, p.K = K;
  p.params.latency = latency;
  rocc_matmul_tile(p);
  return p;
}

RoccLayerPlan conv(int64_t batch, int64_t in_hw, int64_t in_chs, int64_t out_chs, int64_t k, int64_t stride,
                   int64_t latency = 0) {
  RoccLayerPlan p;
  p.loop = RoccLayerPlan::Loop::Conv;
  p.batch = batch, p.in_rows = p.in_cols = in_hw, p.in_chs = in_chs, p.out_chs = out_chs;
  p.krows = p.kcols = k, p.stride = stride;
  p.out_rows = p.out_cols = (in_hw - k) / stride + 1;
  p.params.latency = latency;
  p.tile = rocc_conv_tile(p);
  return p;
}

// One 16 x 16 x 16 block with no bias: the weights' mvin (16 one-beat reads from cycle 0, data
// back at L+1..L+16), the input's (its rows after the weights'; with 16 reads in flight, its
// first waits for the weights' first to return: back by max(L+32, 2L+17)), a preload that waits
// for both and takes 16 cycles with nothing to hide behind, one compute of 16 cycles, 36 to the
// accumulator, then 16 one-beat writes, the last acked L cycles after its beat.
TEST(Rocc, OneBlockIsItsLoadsPreloadComputeAndStoreInTurn) {
  for (int64_t L : {0, 10, 15, 16, 100}) {
    RoccLayerPlan p = matmul(16, 16, 16, L);
    p.params.bias = false;
    const RoccTiming t = time_rocc_layer(p);
    const int64_t loaded = std::max(L + 32, 2 * L + 17);
    EXPECT_EQ(t.cycles, loaded + 16 + 16 + 36 + 16 + L) << L;
    EXPECT_EQ(t.mesh_cycles, 32);
    EXPECT_EQ(t.commands.at("mvin"), 2);
    EXPECT_EQ(t.commands.at("preload"), 1);
    EXPECT_EQ(t.commands.at("compute"), 1);
    EXPECT_EQ(t.commands.at("mvout"), 1);
    EXPECT_EQ(t.idle.at("rocc_dma"), loaded);
    EXPECT_EQ(t.idle.at("rocc_drain"), t.cycles - (loaded + 32));
  }
}

// Every operand crosses the DMA at least once, and exactly as the tiles say: A once per column
// tile of the result, B once per row tile, the bias and the result once.
TEST(Rocc, MatmulMovesItsOperandsOncePerTileOfTheOtherSide) {
  for (auto [I, J, K] : {std::tuple<int64_t, int64_t, int64_t>{1024, 1024, 1024}, {100, 300, 70}, {4096, 64, 576}}) {
    const RoccLayerPlan p = matmul(I, J, K);
    const RoccTiming t = time_rocc_layer(p);
    const int64_t dim = p.params.dim;
    const int64_t col_tiles = (J + p.tile_j * dim - 1) / (p.tile_j * dim);
    const int64_t row_tiles = (I + p.tile_i * dim - 1) / (p.tile_i * dim);
    EXPECT_EQ(t.bytes_read, I * K * col_tiles + K * J * row_tiles + I * J * 4) << I << " " << J << " " << K;
    EXPECT_EQ(t.bytes_written, I * J);
    EXPECT_EQ(t.macs, I * J * K);
    EXPECT_EQ(t.commands.at("compute"),
              ((I + dim - 1) / dim) * ((J + dim - 1) / dim) * ((K + dim - 1) / dim));
  }
}

TEST(Rocc, ConvolutionComputesEveryMacOfItsShapeOnce) {
  for (const RoccLayerPlan& p : {conv(4, 58, 64, 64, 3, 1), conv(1, 229, 3, 64, 7, 2), conv(2, 16, 100, 20, 3, 2)}) {
    const RoccTiming t = time_rocc_layer(p);
    EXPECT_EQ(t.macs, p.macs());
    EXPECT_EQ(t.bytes_written, p.batch * p.out_rows * p.out_cols * p.out_chs);
    // Each weight at least once, each input pixel's channels at least once.
    EXPECT_GE(t.bytes_read, p.out_chs * p.krows * p.kcols * p.in_chs + p.batch * p.in_chs * p.out_rows * p.out_cols);
  }
}

// The mapper's tile fits half of each memory, and no dimension of it can grow by one and still fit.
TEST(Rocc, ConvTileFillsHalfTheScratchpadAndAccumulator) {
  const RoccLayerPlan p = conv(4, 58, 64, 64, 3, 1);
  const RoccConvTile& t = p.tile;
  auto fits = [&](RoccConvTile x) {
    const int64_t irows = (x.porows - 1) * p.stride + x.krows, icols = (x.pocols - 1) * p.stride + x.kcols;
    const int64_t sp = (x.kchs + 15) / 16 * x.batches * irows * icols + (x.pochs + 15) / 16 * x.krows * x.kcols * x.kchs;
    const int64_t acc = (x.pochs + 15) / 16 * x.batches * x.porows * x.pocols;
    return sp <= p.params.spad_rows / 2 && acc <= p.params.acc_rows / 2;
  };
  EXPECT_TRUE(fits(t));
  const int64_t whole[7] = {p.batch, p.out_rows, p.out_cols, p.out_chs, p.krows, p.kcols, p.in_chs};
  int64_t RoccConvTile::*field[7] = {&RoccConvTile::batches, &RoccConvTile::porows, &RoccConvTile::pocols,
                                      &RoccConvTile::pochs, &RoccConvTile::krows, &RoccConvTile::kcols,
                                      &RoccConvTile::kchs};
  for (int i = 0; i < 7; ++i) {
    RoccConvTile grown = t;
    if (grown.*field[i] >= whole[i]) continue;
    ++(grown.*field[i]);
    EXPECT_FALSE(fits(grown)) << i;
  }
}

// The least scratchpad and accumulator the arch reader lets through (4 and 2 blocks' rows) still
// tile any matmul: the library's 5 x 5 start shrinks to one block of each.
TEST(Rocc, TheSmallestMemoriesStillTileAMatmul) {
  RoccLayerPlan p;
  p.loop = RoccLayerPlan::Loop::Matmul;
  p.I = p.J = p.K = 200;
  p.params.spad_rows = 4 * 16, p.params.acc_rows = 2 * 16;
  rocc_matmul_tile(p);
  EXPECT_EQ(p.tile_i * p.tile_j * p.tile_k, 1);
  EXPECT_EQ(time_rocc_layer(p).macs, 200 * 200 * 200);
}

// The knobs: memory latency and a narrower bus only slow it; a larger reorder buffer and more
// requests in flight only speed it; computes timed by their own rows are never slower.
TEST(Rocc, EachKnobMovesTheCyclesTheWayItMust) {
  const RoccLayerPlan base = conv(4, 30, 64, 64, 3, 1);
  const int64_t c0 = time_rocc_layer(base).cycles;
  int64_t last = c0;
  for (int64_t L : {20, 80, 200}) {
    RoccLayerPlan p = base;
    p.params.latency = L;
    const int64_t c = time_rocc_layer(p).cycles;
    EXPECT_GT(c, last) << L;
    last = c;
  }
  RoccLayerPlan narrow = base;
  narrow.params.bus_bytes_per_cycle = 4;
  EXPECT_GT(time_rocc_layer(narrow).cycles, c0);
  RoccLayerPlan slow = base;
  slow.params.latency = 200;
  RoccLayerPlan deep = slow;
  deep.params.max_in_flight = 64;
  EXPECT_LT(time_rocc_layer(deep).cycles, time_rocc_layer(slow).cycles);
  RoccLayerPlan big_rob = slow;
  big_rob.params.rob_entries = 64;
  EXPECT_LE(time_rocc_layer(big_rob).cycles, time_rocc_layer(slow).cycles);
  // 28 output columns: blocks of 16 and 12 rows; exact rows save the 4 padding rows of each second block.
  RoccLayerPlan exact = base;
  exact.params.padded_compute = false;
  const RoccTiming te = time_rocc_layer(exact), tp = time_rocc_layer(base);
  EXPECT_LT(te.mesh_cycles, tp.mesh_cycles);
  EXPECT_EQ(te.macs, tp.macs);
}

// With no memory latency and an unbounded bus, a large matmul is bound by the mesh: each compute
// its 16 cycles, the loads of the next tile hidden behind them but for the reorder buffer's turn.
TEST(Rocc, ALargeMatmulWithFreeMemoryRunsNearTheMeshsRate) {
  RoccLayerPlan p = matmul(1024, 1024, 1024);
  p.params.bus_bytes_per_cycle = 1 << 20;
  const RoccTiming t = time_rocc_layer(p);
  // Computes 16 cycles each; a preload costs its 16 only when the mesh sat idle before it.
  const int64_t preloads_alone = (t.mesh_cycles - t.commands.at("compute") * 16) / 16;
  EXPECT_EQ(t.mesh_cycles, t.commands.at("compute") * 16 + preloads_alone * 16);
  EXPECT_GE(preloads_alone, 1);
  EXPECT_LE(preloads_alone, t.loops);
  EXPECT_LT(double(t.cycles), 1.35 * double(t.mesh_cycles));
}

}  // namespace

namespace {

// Random layers, small and odd: every MAC computed once, every output written once, the busy and
// idle cycles adding up (checked inside), and the run never stuck.
TEST(Rocc, RandomLayersConserveMacsAndOutputs) {
  uint64_t seed = 0x9e3779b97f4a7c15ULL;
  auto next = [&](int64_t lo, int64_t hi) {
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    return lo + int64_t(seed % uint64_t(hi - lo + 1));
  };
  for (int n = 0; n < 60; ++n) {
    RoccLayerPlan p;
    if (n % 2) {
      p = matmul(next(1, 300), next(1, 300), next(1, 300), next(0, 50));
      p.repeats = next(1, 3);
    } else {
      const int64_t k = next(1, 5), stride = next(1, 3);
      p = conv(next(1, 3), next(k, 20), next(1, 40), next(1, 40), k, stride, next(0, 50));
    }
    p.params.rob_entries = next(1, 32);
    p.params.max_in_flight = next(1, 20);
    p.params.padded_compute = next(0, 1) == 1;
    SCOPED_TRACE(n);
    const RoccTiming t = time_rocc_layer(p);
    EXPECT_EQ(t.macs, p.macs());
    const int64_t outputs = p.loop == RoccLayerPlan::Loop::Conv ? p.batch * p.out_rows * p.out_cols * p.out_chs
                                                                : p.repeats * p.I * p.J;
    EXPECT_EQ(t.bytes_written, outputs);
    EXPECT_GE(t.cycles, t.mesh_cycles);
  }
}

}  // namespace
