// memory: hierarchy in a run: the DMA, scratchpad port, NoC and HBM events of each step are
// stepped by those modules' own SystemC processes, not by the arrays' threads.
// One sc_start per process: ctest runs each TEST in its own process.
#include <gtest/gtest.h>

#include <algorithm>

#include <systemc>

#include "models/accelerator/accelerator.h"
#include "models/array/fold_timing.h"
#include "models/memory/hierarchy_source.h"
#include "sim/config/accelerator_spec.h"
#include "sim/mapper/mapper.h"
#include "tests/hierarchy_spec.h"
#include "tests/test_util.h"
#include "traces/sink.h"

using namespace cstsim;

namespace {

ArchSpec hierarchy(int clusters) {
  return testing_util::small_hierarchy("memory/hbm3-6400.yaml", testing_util::config_path("noc/npu-mesh-4x4.yaml"),
                                       clusters);
}

Plan plan_of(const ArchSpec& a) {
  Workload w;
  w.layers.push_back(Layer::gemm("l", 100, 80, 70));
  return make_plan(a, w);
}

// Each module of `kinds` ran its own process and stepped events in it.
void expect_stepping_processes(const Accelerator& acc, const std::vector<std::string>& kinds, size_t expected) {
  size_t found = 0;
  for (const ModuleInfo& m : acc.modules()) {
    if (std::find(kinds.begin(), kinds.end(), m.kind) == kinds.end()) continue;
    ++found;
    EXPECT_EQ(m.process, "method") << m.name;
    EXPECT_GT(m.activations, 0) << m.name;
    EXPECT_GT(m.events, 0) << m.name;
  }
  EXPECT_EQ(found, expected);
}

// The processes (the DMA engine, the scratchpad's ports, the mesh, the stack), each stepping its
// part in SystemC time, get the timing the same pass gets when the waiting cluster steps the
// merged queue from its own call (no kernel, no clock): same end, same stalls, same bytes.
TEST(MemorySystem, ItsProcessStepsTheQueueToTheInlineTiming) {
  const ArchSpec a = hierarchy(1);
  const Plan plan = plan_of(a);
  Accelerator acc("accelerator", accelerator_spec(a), plan, {});
  sc_core::sc_start();
  ASSERT_TRUE(acc.finished());
  ASSERT_NE(acc.memory(), nullptr);
  expect_stepping_processes(acc, {"dma", "scratchpad", "noc", "hbm"}, 4);

  const PassPlan& pass = plan.layers[0].clusters[0].passes[0];
  const FoldPlan folds = fold_plan(plan, pass);
  HierarchySource inline_source(accelerator_spec(a), folds, dma_program(folds, pass), 0, false);
  const LayerTiming inline_timing = compute_layer_timing(folds, a.fold_pipeline, 0, &inline_source);
  const std::vector<ArrayLayerResult> results = acc.layer_results();  // a copy: keep it while `run` is used
  const ArrayLayerResult& run = results[0];
  ASSERT_GT(inline_timing.stall_cycles, 0);
  EXPECT_EQ(run.end_cycle, std::max(inline_timing.end, inline_timing.memory_end));
  EXPECT_EQ(run.stalls, inline_timing.stall_causes);
  EXPECT_EQ(run.hierarchy.shared.hbm_bytes_read, inline_source.stats().shared.hbm_bytes_read);
}

// Several clusters: their arrays only wait; the process steps the shared queue.
TEST(MemorySystem, ItsProcessServesSeveralClusters) {
  const ArchSpec a = hierarchy(3);
  const Plan plan = plan_of(a);
  Accelerator acc("accelerator", accelerator_spec(a), plan, {});
  sc_core::sc_start();
  ASSERT_TRUE(acc.finished());
  expect_stepping_processes(acc, {"dma", "scratchpad", "noc", "hbm"}, 2 * 3 + 2);  // each cluster's own two
  int64_t macs = 0, pieces = 0;
  for (const ArrayLayerResult& r : acc.layer_results()) {
    macs += r.stats.macs;
    pieces += r.hierarchy.dma_pieces;
  }
  EXPECT_EQ(macs, 100 * 80 * 70);
  // Every DMA piece crossed each socket once: its request or write data into the mesh from its
  // cluster's DMA, on to the stack and back, and its data or ack out of the mesh to that DMA.
  ASSERT_GT(pieces, 0);
  const NocModule::EdgeStats& e = acc.noc()->edge_stats();
  EXPECT_EQ(e.from_dma, pieces);
  EXPECT_EQ(e.to_hbm, pieces);
  EXPECT_EQ(e.from_hbm, pieces);
  EXPECT_EQ(e.to_dma, pieces);
}

// A traced GEMV 1 x 2048 x 2048 (4 MiB of weights) on `clusters` clusters: the most trace
// changes that waited in the sink at once, and the run's layers.
struct TracedGemv {
  Plan plan;
  size_t peak_pending = 0;
  std::vector<ArrayLayerResult> layers;
};
TracedGemv run_traced_gemv(const ArchSpec& a) {
  Workload w;
  w.layers.push_back(Layer::gemm("gemv", 1, 2048, 2048));
  TracedGemv out;
  out.plan = make_plan(a, w);
  testing_util::TempDir dir;
  trace::TraceSink sink({dir.path / "trace", a.clock_hz, 1024, 1 << 13, {}});
  Accelerator acc("accelerator", accelerator_spec(a), out.plan, {}, &sink);
  sc_core::sc_start();
  EXPECT_TRUE(acc.finished());
  sink.finish(acc.end_cycle());
  out.peak_pending = sink.peak_pending();
  out.layers = acc.layer_results();
  return out;
}

// With one cluster and a trace, the memory's part of the trace is announced fold by fold as
// the memory simulates, so the sink holds what is in flight: a GEMV moving 4 MiB of weights,
// which had 371,224 changes waiting in the sink when the pass was announced whole, has fewer
// than 5,000; and the run's timing is the one the same pass has when computed alone.
TEST(MemorySystem, TheTraceHoldsWhatIsInFlight) {
  const ArchSpec a = hierarchy(1);
  const TracedGemv run = run_traced_gemv(a);
  EXPECT_LT(run.peak_pending, size_t(5000));

  const PassPlan& pass = run.plan.layers[0].clusters[0].passes[0];
  const FoldPlan folds = fold_plan(run.plan, pass);
  HierarchySource inline_source(accelerator_spec(a), folds, dma_program(folds, pass), 0, false);
  const LayerTiming inline_timing = compute_layer_timing(folds, a.fold_pipeline, 0, &inline_source);
  ASSERT_EQ(run.layers.size(), 1u);
  EXPECT_GT(inline_source.stats().dma_pieces, 65000);  // the whole of B, in 64 B channel stripes
  EXPECT_EQ(run.layers[0].end_cycle, std::max(inline_timing.end, inline_timing.memory_end));
  EXPECT_EQ(run.layers[0].stalls, inline_timing.stall_causes);
}

// Several clusters announce as they go too, each its own part and the shared one by whichever
// gets there first; the trace's clock is the slowest cluster's mark. The same GEMV on 3 clusters
// had 525,982 changes waiting when a pass was announced whole; now about 45,000 (22,000 when each
// cluster's share of B lay in a region of its own: side by side in one tensor their streams meet
// in the same banks, the run takes 181,196 cycles instead of 158,780, and the clusters drift
// further apart).
TEST(MemorySystem, SeveralClustersTraceWhatIsInFlight) {
  const TracedGemv run = run_traced_gemv(hierarchy(3));
  EXPECT_LT(run.peak_pending, size_t(60000));
  int64_t macs = 0;
  for (const ArrayLayerResult& r : run.layers) macs += r.stats.macs;
  EXPECT_EQ(macs, int64_t(2048) * 2048);
}

}  // namespace
