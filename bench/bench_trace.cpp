// Cost of the R(t) trace: the timing model of GEMM 1024^3 on 128x128 WS with the
// trace sink and the post-processor, against the same model without them
// (BM_TimingGemm1024_128x128_WS in bench_array.cpp).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "models/array/array_trace.h"
#include "sim/config/arch_spec.h"
#include "models/array/fold_timing.h"
#include "traces/post/post.h"
#include "traces/sink.h"

using namespace cstsim;
namespace fs = std::filesystem;

namespace {

void BM_TracedGemm_128x128_WS(benchmark::State& state) {
  ArchSpec a;
  a.rows = a.cols = 128;
  a.dataflow = Dataflow::WS;
  a.fold_pipeline = FoldPipeline::Overlapped;
  const int64_t M = state.range(0);
  const fs::path run = fs::temp_directory_path() / ("cstsim-bench-trace-" + std::to_string(::getpid()));
  fs::create_directories(run);
  std::ofstream(run / "summary.json")
      << R"({"version":"bench","config_hash":"0","mode":"timing","arch":{"rows":128,"cols":128,"clock_hz":1e9,)"
      << R"("operand_bits":8,"accumulator_bits":32,"dataflow":"ws"}})";
  fs::copy_file(CSTSIM_SOURCE_DIR "/configs/energy/horowitz-45nm.yaml", run / "energy.yaml",
                fs::copy_options::overwrite_existing);
  size_t peak_pending = 0;
  for (auto _ : state) {
    const FoldPlan plan = make_fold_plan(a.dataflow, a.rows, a.cols, M, 1024, 1024);
    const LayerTiming t = compute_layer_timing(plan, a.fold_pipeline, 0);
    {
      trace::TraceSink sink({run / "trace", 1e9, 1024, size_t(1) << 13, {}});
      const ArrayTraceIds ids = declare_array_trace(sink, {a.rows, a.cols, a.dataflow, a.precision}, "array");
      sink.begin_layer(0, "gemm", 0);
      sink.add(0, ids.busy, 1);
      sink.add(t.end + 1, ids.busy, -1);
      for (size_t g = 0; g < t.folds.size(); ++g) {
        sink.advance(t.folds[g].start);
        announce_fold(sink, ids, plan, a.fold_pipeline, plan.folds[g], t.folds[g]);
      }
      sink.finish(t.end + 1);
      peak_pending = sink.peak_pending();
    }
    const post::PostOutputs out = post::post_process({run, "", 0});
    benchmark::DoNotOptimize(out.report.size());
  }
  fs::remove_all(run);
  state.counters["peak_pending_changes"] = double(peak_pending);
}
// The same work without trace and post: what `cstsim run --no-trace` does per layer.
void BM_UntracedGemm_128x128_WS(benchmark::State& state) {
  for (auto _ : state) {
    const FoldPlan plan = make_fold_plan(Dataflow::WS, 128, 128, state.range(0), 1024, 1024);
    benchmark::DoNotOptimize(compute_layer_timing(plan, FoldPipeline::Overlapped, 0).end);
  }
}
BENCHMARK(BM_UntracedGemm_128x128_WS)->Arg(1024)->Arg(4096)->Arg(16384)->ArgName("M")->Unit(benchmark::kMillisecond);

BENCHMARK(BM_TracedGemm_128x128_WS)->Arg(1024)->Arg(4096)->Arg(16384)->ArgName("M")->Unit(benchmark::kMillisecond);

}  // namespace
