// The mapper's tiling plan: fits the scratchpad, never beats the compulsory
// traffic, reaches it when everything fits, and refuses clearly when nothing fits.
#include <gtest/gtest.h>

#include "core/input_error.h"
#include "sim/mapper/tiling_plan.h"
#include "tests/hierarchy_spec.h"

using namespace cstsim;
using cstsim::testing_util::code_arch;

namespace {

Layer gemm(int64_t M, int64_t N, int64_t K) {
  Layer l = Layer::gemm("g", M, N, K);
  l.source_line = 3;
  return l;
}

int64_t compulsory(const Layer& l) { return l.M * l.K + l.K * l.N + 4 * l.M * l.N; }

TEST(Mapper, PlanFitsItsPartitionsAndNeverBeatsCompulsoryTraffic) {
  for (Dataflow d : {Dataflow::WS, Dataflow::OS, Dataflow::IS}) {
    for (const Layer& l : {gemm(512, 512, 512), gemm(12100, 64, 147), gemm(1, 1000, 512), gemm(49, 512, 4608)}) {
      const TilingPlan p = make_tiling_plan(code_arch(32, 32, 64, d), l, "w.csv");
      SCOPED_TRACE(std::string(to_string(d)) + " " + std::to_string(l.M) + "x" + std::to_string(l.N) + "x" +
                   std::to_string(l.K));
      EXPECT_LE(p.ifmap_need, p.ifmap_sram);
      EXPECT_LE(p.filter_need, p.filter_sram);
      EXPECT_LE(p.ofmap_need, p.ofmap_sram);
      EXPECT_GE(p.hbm_bytes(), compulsory(l));
      EXPECT_EQ(p.sr_blocks, (p.Sr + p.sr_block - 1) / p.sr_block);
      EXPECT_GE(p.t_block, 1);
    }
  }
}

TEST(Mapper, EverythingOnChipMeansCompulsoryTrafficOnly) {
  const Layer l = gemm(512, 512, 512);
  for (Dataflow d : {Dataflow::WS, Dataflow::OS, Dataflow::IS}) {
    const TilingPlan p = make_tiling_plan(code_arch(32, 32, 16 * 1024, d), l, "w.csv");
    EXPECT_EQ(p.hbm_bytes(), compulsory(l)) << to_string(d);
    EXPECT_EQ(p.hbm_read_psum, 0) << to_string(d);
  }
}

TEST(Mapper, MoreScratchpadNeverMeansMoreTraffic) {
  const Layer l = gemm(3000, 700, 900);
  for (Dataflow d : {Dataflow::WS, Dataflow::OS, Dataflow::IS}) {
    int64_t last = std::numeric_limits<int64_t>::max();
    for (int64_t kib : {16, 32, 64, 256, 1024, 8192}) {
      const int64_t bytes = make_tiling_plan(code_arch(32, 32, kib, d), l, "w.csv").hbm_bytes();
      EXPECT_LE(bytes, last) << to_string(d) << " " << kib << " KiB";
      last = bytes;
    }
  }
}

TEST(Mapper, WsWithSplitReductionPicksTheCheaperOrder) {
  // K = 4096 on 32 rows with 64 KiB partitions: the 4096x64 weights cannot stay
  // resident, so keeping stationary blocks would spill partial sums of the 256x64
  // outputs 16 times over. Keeping output rows resident (128 rows x 64 x int32,
  // double-buffered = 64 KiB) instead re-reads the weights once per 128-row chunk.
  const TilingPlan p = make_tiling_plan(code_arch(32, 32, 64, Dataflow::WS), gemm(256, 64, 4096), "w.csv");
  EXPECT_EQ(p.loop_order, "sc > t > sr");
  EXPECT_EQ(p.t_block, 128);
  EXPECT_EQ(p.hbm_read_psum, 0);
  EXPECT_EQ(p.hbm_read_ifmap, 256 * 4096);        // activations once
  EXPECT_EQ(p.hbm_read_filter, 2 * 4096 * 64);    // weights once per stream chunk
  EXPECT_EQ(p.hbm_write_ofmap, 256 * 64 * 4);     // outputs once
}

TEST(Mapper, SmallestTileThatCannotFitIsAnErrorNamingLayerAndSizes) {
  try {
    make_tiling_plan(code_arch(256, 256, 1, Dataflow::WS), gemm(1024, 1024, 1024), "w.csv");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "w.csv");
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.key(), "g");
    const std::string what = e.what();
    EXPECT_NE(what.find("256x256"), std::string::npos) << what;
    EXPECT_NE(what.find("131072 bytes of filter SRAM, which has 1024"), std::string::npos) << what;
  }
  ArchSpec none = code_arch(8, 8, 0, Dataflow::WS);
  try {
    make_tiling_plan(none, gemm(8, 8, 8), "w.csv");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "sram");
  }
}

}  // namespace
