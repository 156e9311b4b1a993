// Closed-form fold timing: SCALE-Sim's totals and hand-worked schedules.
#include <gtest/gtest.h>

#include "models/array/array_stats.h"
#include "models/array/fold_timing.h"

using namespace cstsim;

namespace {

int64_t scalesim_cycles(Dataflow d, int R, int C, int64_t M, int64_t N, int64_t K) {
  return compute_layer_timing(make_fold_plan(d, R, C, M, N, K), FoldPipeline::ScaleSim, 0).reported_cycles;
}

TEST(FoldTiming, ScaleSimTotalsMatchItsReports) {
  // tests/golden/scalesim-v2 COMPUTE_REPORT.csv values.
  EXPECT_EQ(scalesim_cycles(Dataflow::WS, 32, 32, 512, 512, 512), 155135);
  EXPECT_EQ(scalesim_cycles(Dataflow::IS, 32, 32, 512, 512, 512), 155135);
  EXPECT_EQ(scalesim_cycles(Dataflow::OS, 32, 32, 512, 512, 512), 146943);
  EXPECT_EQ(scalesim_cycles(Dataflow::WS, 8, 8, 16, 16, 16), 151);
  EXPECT_EQ(scalesim_cycles(Dataflow::OS, 8, 8, 16, 16, 16), 119);
}

TEST(FoldTiming, ScaleSimIsFoldCountTimesSlotMinusOne) {
  for (int R : {1, 3, 8}) {
    for (int C : {1, 5, 8}) {
      const FoldPlan p = make_fold_plan(Dataflow::OS, R, C, 13, 9, 7);
      const int64_t L = 7 + R + C - 2;
      EXPECT_EQ(compute_layer_timing(p, FoldPipeline::ScaleSim, 0).reported_cycles, p.fold_count() * L - 1);
      const FoldPlan w = make_fold_plan(Dataflow::WS, R, C, 13, 9, 7);
      EXPECT_EQ(compute_layer_timing(w, FoldPipeline::ScaleSim, 0).reported_cycles,
                w.fold_count() * (2 * R + C + 13 - 2) - 1);
    }
  }
}

TEST(FoldTiming, WsOverlappedSingleFoldByHand) {
  // 2x2 array, M=3 streamed rows, K=2, N=2: load 2 rows (cycles 0-1), stream from 2;
  // X[t] enters row i at 2+t+i; psum of row t leaves column j at 2+t+1+j.
  const FoldPlan p = make_fold_plan(Dataflow::WS, 2, 2, 3, 2, 2);
  const LayerTiming t = compute_layer_timing(p, FoldPipeline::Overlapped, 0);
  ASSERT_EQ(t.folds.size(), 1u);
  EXPECT_EQ(t.folds[0].start, 0);
  EXPECT_EQ(t.folds[0].first_input, 2);
  EXPECT_EQ(t.folds[0].last_input, 5);    // X[2] into row 1
  EXPECT_EQ(t.folds[0].first_output, 4);  // row 0 complete when column 1 emits it
  EXPECT_EQ(t.folds[0].end, 6);
  EXPECT_EQ(t.reported_cycles, 7);
}

TEST(FoldTiming, WsOverlappedHidesWeightLoads) {
  // Two row folds, long stream: the second fold's weights load while the first streams,
  // so its stream follows the first back to back (S1 = S0 + T).
  const FoldPlan p = make_fold_plan(Dataflow::WS, 4, 4, 100, 4, 8);
  const LayerTiming t = compute_layer_timing(p, FoldPipeline::Overlapped, 0);
  ASSERT_EQ(t.folds.size(), 2u);
  EXPECT_EQ(t.folds[1].start, 4);  // loader idle after fold 0's 4 pushes, bank 1 never used
  EXPECT_EQ(t.folds[1].first_input, t.folds[0].first_input + 100);
}

TEST(FoldTiming, OsOverlappedShortStreamWaitsForColumnBus) {
  // K=2 < r=8: the next fold may start only once the previous fold's wave entered
  // all 8 rows, so results leave each column in fold order.
  const FoldPlan p = make_fold_plan(Dataflow::OS, 8, 8, 16, 8, 2);
  const LayerTiming t = compute_layer_timing(p, FoldPipeline::Overlapped, 0);
  ASSERT_EQ(t.folds.size(), 2u);
  EXPECT_EQ(t.folds[1].first_input - t.folds[0].first_input, 8);
}

TEST(FoldTiming, OverlappedNeverSlowerThanScaleSim) {
  for (Dataflow d : {Dataflow::WS, Dataflow::OS, Dataflow::IS}) {
    const FoldPlan p = make_fold_plan(d, 16, 16, 200, 100, 300);
    EXPECT_LT(compute_layer_timing(p, FoldPipeline::Overlapped, 0).reported_cycles,
              compute_layer_timing(p, FoldPipeline::ScaleSim, 0).reported_cycles);
  }
}

TEST(ArrayStats, ScaleSimCountsForGemm512On32) {
  // DETAILED_ACCESS_REPORT.csv of the three 512^3 runs.
  const ArrayLayerStats ws = compute_layer_stats(make_fold_plan(Dataflow::WS, 32, 32, 512, 512, 512));
  EXPECT_EQ(ws.sram.ifmap_reads, 4194304);
  EXPECT_EQ(ws.sram.filter_reads, 262144);
  EXPECT_EQ(ws.sram.ofmap_writes, 4194304);
  const ArrayLayerStats os = compute_layer_stats(make_fold_plan(Dataflow::OS, 32, 32, 512, 512, 512));
  EXPECT_EQ(os.sram.ifmap_reads, 4194304);
  EXPECT_EQ(os.sram.filter_reads, 4194304);
  EXPECT_EQ(os.sram.ofmap_writes, 262144);
  EXPECT_EQ(os.scalesim_ofmap_writes, 278528);
  const ArrayLayerStats is = compute_layer_stats(make_fold_plan(Dataflow::IS, 32, 32, 512, 512, 512));
  EXPECT_EQ(is.sram.ifmap_reads, 262144);
  EXPECT_EQ(is.sram.filter_reads, 4194304);
  EXPECT_EQ(is.sram.ofmap_writes, 4194304);
  EXPECT_DOUBLE_EQ(ws.mapping_efficiency, 1.0);
  EXPECT_NEAR(ws.compute_utilization, 0.8037676609105216, 1e-12);
  EXPECT_NEAR(os.compute_utilization, 0.8919860627177687, 1e-12);
}

TEST(FoldPlan, OrderIsRowFoldsInner) {
  const FoldPlan p = make_fold_plan(Dataflow::OS, 4, 4, 10, 6, 3);
  ASSERT_EQ(p.folds.size(), 6u);
  EXPECT_EQ(p.folds[1].row0, 4);
  EXPECT_EQ(p.folds[1].col0, 0);
  EXPECT_EQ(p.folds[2].rows_used, 2);
  EXPECT_EQ(p.folds[3].col0, 4);
  EXPECT_EQ(p.folds[3].cols_used, 2);
  EXPECT_NEAR(p.mapping_efficiency(), 60.0 / 96.0, 1e-12);
}

}  // namespace
