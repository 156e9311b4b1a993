// The mapper places a run's tensors in HBM (memory: hierarchy): every layer's A, B and C is one
// region; passes re-read B where it lies and move on through A's and C's rows; clusters read the
// A they all stream at the same addresses and their own shares of B and C side by side; a layer
// whose input is the previous output reads it where it was written. Both layouts.
#include <gtest/gtest.h>

#include <set>

#include "plan/plan.h"
#include "sim/mapper/mapper.h"
#include "tests/hierarchy_spec.h"

namespace cstsim {
namespace {

ArchSpec arch(const std::string& layout, int clusters = 1) {
  ArchSpec a = testing_util::small_hierarchy("memory/hbm2-2000.yaml",
                                             testing_util::config_path("noc/npu-mesh-4x4.yaml"), clusters);
  a.hbm.layout = layout;
  return a;
}

Workload workload(std::vector<Layer> layers) {
  Workload w;
  w.layers = std::move(layers);
  return w;
}

// Every byte a pass's program moves, per operand kind and direction, as [first, last] ranges.
struct Bytes {
  std::set<uint64_t> stream, tiles, writes;  // first byte of every row the transfers move
};
Bytes bytes_of(const Plan& plan, const PassPlan& pass, const LayerPlan& l) {
  const LayerDmaPlan d = dma_program(fold_plan(plan, pass), pass);
  Bytes b;
  auto rows_of = [&](const DmaTransfer& t, std::set<uint64_t>& out, Matrix x) {
    const TensorPlace& tensor = l.tensors[size_t(x)];
    for (int64_t off = 0; off < t.bytes; off += t.left_in_row(off)) {
      const uint64_t at = t.addr_at(off);
      EXPECT_GE(at, tensor.addr);
      EXPECT_LE(at + uint64_t(t.left_in_row(off)), tensor.addr + uint64_t(tensor.bytes));
      out.insert(at);
    }
  };
  for (const DmaTransfer& t : d.reads)
    rows_of(t, t.operand == Operand::Stream ? b.stream : b.tiles, t.operand == Operand::Stream ? Matrix::A : Matrix::B);
  for (const DmaTransfer& t : d.writes) rows_of(t, b.writes, Matrix::C);
  return b;
}

bool disjoint(const std::set<uint64_t>& a, const std::set<uint64_t>& b) {
  for (uint64_t x : a)
    if (b.count(x)) return false;
  return true;
}

// WS, a layer too big for one pass: the weights' tiles are read from the same addresses in every
// pass, A's slices and C's blocks from rows no other pass touches.
TEST(HbmTensors, WeightsKeepTheirAddressAcrossPassesAndRowsMoveOn) {
  for (const std::string layout : {"tiled", "row_major"}) {
    SCOPED_TRACE(layout);
    const ArchSpec a = arch(layout);
    const Plan plan = make_plan(a, workload({Layer::gemm("l", 3000, 40, 64)}));
    const LayerPlan& l = plan.layers[0];
    ASSERT_GE(l.clusters[0].passes.size(), 3u);
    std::vector<Bytes> passes;
    for (const PassPlan& p : l.clusters[0].passes) passes.push_back(bytes_of(plan, p, l));
    for (size_t p = 1; p < passes.size(); ++p) {
      EXPECT_EQ(passes[p].tiles, passes[0].tiles) << p;
      for (size_t q = 0; q < p; ++q) {
        EXPECT_TRUE(disjoint(passes[p].stream, passes[q].stream)) << p << " " << q;
        EXPECT_TRUE(disjoint(passes[p].writes, passes[q].writes)) << p << " " << q;
      }
    }
    // Three tensors, apart.
    EXPECT_LE(l.tensors[0].addr + uint64_t(l.tensors[0].bytes), l.tensors[1].addr);
    EXPECT_LE(l.tensors[1].addr + uint64_t(l.tensors[1].bytes), l.tensors[2].addr);
    EXPECT_EQ(l.input_from, -1);
  }
}

// WS on three clusters: each streams all of A, from the same addresses; their tiles of B and their
// blocks of C are their own: tiled, apart; row-major, their columns of the same rows (16 columns of
// int8 do not fill a 64 B burst, so neighbours share the burst at the edge, as a DMA of bursts does).
TEST(HbmTensors, ClustersShareTheStreamAndOwnTheirShares) {
  for (const std::string layout : {"tiled", "row_major"}) {
    SCOPED_TRACE(layout);
    const ArchSpec a = arch(layout, 3);
    const Plan plan = make_plan(a, workload({Layer::gemm("l", 200, 70, 90)}));
    const LayerPlan& l = plan.layers[0];
    std::vector<Bytes> clusters;
    for (const ClusterLayerPlan& c : l.clusters) clusters.push_back(bytes_of(plan, c.passes[0], l));
    for (size_t k = 1; k < clusters.size(); ++k) {
      EXPECT_EQ(clusters[k].stream, clusters[0].stream) << k;
      if (layout == "row_major") {
        const uint64_t column = uint64_t(l.clusters[k].share.offset) / 64 * 64;  // int8: a column is a byte
        EXPECT_EQ(*clusters[k].tiles.begin(), l.tensors[1].addr + column) << k;   // row 0 of B
        EXPECT_EQ(*clusters[k].writes.begin(), l.tensors[2].addr + column) << k;  // row 0 of C
        continue;
      }
      for (size_t j = 0; j < k; ++j) {
        EXPECT_TRUE(disjoint(clusters[k].tiles, clusters[j].tiles)) << k << " " << j;
        EXPECT_TRUE(disjoint(clusters[k].writes, clusters[j].writes)) << k << " " << j;
      }
    }
  }
}

// fc2 reads fc1's output (1 x 48 elements both): its A is fc1's C, and what fc2 streams lies where
// fc1 wrote; fc3's input (K = 7) is not fc2's output, so it gets a region after everything before.
TEST(HbmTensors, ALayerReadsThePreviousOutputWhereItWasWritten) {
  const ArchSpec a = arch("tiled");
  const Plan plan = make_plan(a, workload({Layer::gemm("fc1", 1, 48, 32),
                                           Layer::gemm("fc2", 1, 20, 48),
                                           Layer::gemm("fc3", 1, 5, 7)}));
  const std::vector<LayerPlan>& L = plan.layers;
  EXPECT_EQ(L[1].input_from, 0);
  EXPECT_EQ(L[1].tensors[0].addr, L[0].tensors[2].addr);
  const Bytes wrote = bytes_of(plan, L[0].clusters[0].passes[0], L[0]);
  const Bytes read = bytes_of(plan, L[1].clusters[0].passes[0], L[1]);
  EXPECT_EQ(*read.stream.begin(), *wrote.writes.begin());
  EXPECT_EQ(L[2].input_from, -1);
  uint64_t end = 0;
  for (int i = 0; i < 2; ++i)
    for (const TensorPlace& t : L[size_t(i)].tensors) end = std::max(end, t.addr + uint64_t(t.bytes));
  EXPECT_GE(L[2].tensors[0].addr, end);
  EXPECT_EQ(L[2].tensors[0].addr % 4096, 0u);
}

}  // namespace
}  // namespace cstsim
