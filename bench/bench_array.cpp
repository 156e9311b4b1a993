// Simulator speed of the array model, without process start-up.
// `make bench` runs it; figures go into bench/README.md.
#include <benchmark/benchmark.h>

#include "models/array/array_stats.h"
#include "models/array/fold_timing.h"
#include "models/array/register_array.h"
#include "sim/workload/workload.h"
#include "sim/config/arch_spec.h"

using namespace cstsim;

namespace {

// Timing mode: fold plan, every event, per-layer stats. Reports simulated cycles/s.
int64_t timing_run(const ArchSpec& a, const std::vector<Layer>& layers, int64_t& events) {
  int64_t start = 0;
  events = 0;
  for (const Layer& l : layers) {
    const FoldPlan plan = make_fold_plan(a.dataflow, a.rows, a.cols, l.M, l.N, l.K);
    const LayerTiming t = compute_layer_timing(plan, a.fold_pipeline, start);
    std::vector<ArrayEvent> ev;
    append_events(t, ev);
    benchmark::DoNotOptimize(compute_layer_stats(plan));
    events += int64_t(ev.size());
    start = t.end + 1;
  }
  return start;
}

ArchSpec arch(int rows, int cols, Dataflow d, FoldPipeline p) {
  ArchSpec a;
  a.rows = rows;
  a.cols = cols;
  a.dataflow = d;
  a.fold_pipeline = p;
  return a;
}

void BM_TimingGemm1024_128x128_WS(benchmark::State& state) {
  const ArchSpec a = arch(128, 128, Dataflow::WS, FoldPipeline(state.range(0)));
  const std::vector<Layer> layers{Layer::gemm("gemm", 1024, 1024, 1024)};
  int64_t cycles = 0, events = 0;
  for (auto _ : state) cycles = timing_run(a, layers, events);
  state.counters["sim_cycles"] = double(cycles);
  state.counters["events"] = double(events);
  state.counters["cycles_per_s"] = benchmark::Counter(double(cycles), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_TimingGemm1024_128x128_WS)->Arg(0)->Arg(1)->ArgName("overlapped")->Unit(benchmark::kMicrosecond);

void BM_TimingResNet18_32x32_OS(benchmark::State& state) {
  const ArchSpec a = arch(32, 32, Dataflow::OS, FoldPipeline(state.range(0)));
  const Workload w = load_workload(CSTSIM_SOURCE_DIR "/configs/workloads/resnet18.csv");
  int64_t cycles = 0, events = 0;
  for (auto _ : state) cycles = timing_run(a, w.layers, events);
  state.counters["sim_cycles"] = double(cycles);
  state.counters["events"] = double(events);
  state.counters["cycles_per_s"] = benchmark::Counter(double(cycles), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_TimingResNet18_32x32_OS)->Arg(0)->Arg(1)->ArgName("overlapped")->Unit(benchmark::kMicrosecond);

// Reference mode: real values through the registers. Reports PE-updates/s.
// `type`, `pack`: the operands and how many a PE word holds (core/precision.h).
void reference(benchmark::State& state, Dataflow d, int R, int64_t M, int64_t N, int64_t K,
               NumType type = NumType::Int8, int pack = 1) {
  const FoldPlan plan = make_fold_plan(d, R, R, M, N, K, pack);
  Precision p;
  p.operand = type;
  p.accumulator = is_float(type) ? NumType::Fp32 : NumType::Int32;
  p.pack = pack;
  const GemmData data = make_random_gemm(M, N, K, 7, p);
  int64_t updates = 0;
  for (auto _ : state) {
    const RegisterRun run = run_register_level(plan, FoldPipeline::Overlapped, 0, data);
    updates = run.pe_updates;
    benchmark::DoNotOptimize(run.result.data());
  }
  state.counters["pe_updates"] = double(updates);
  state.counters["pe_updates_per_s"] =
      benchmark::Counter(double(updates), benchmark::Counter::kIsIterationInvariantRate);
}
void BM_Reference_WS_128x128_Gemm512(benchmark::State& s) { reference(s, Dataflow::WS, 128, 512, 512, 512); }
void BM_Reference_OS_128x128_Gemm512(benchmark::State& s) { reference(s, Dataflow::OS, 128, 512, 512, 512); }
void BM_Reference_IS_32x32_Gemm256(benchmark::State& s) { reference(s, Dataflow::IS, 32, 256, 256, 256); }
// Typed grids: floats take an fp32 add per lane (fp32 operands a fused multiply-add), packed
// words several lanes per PE (half the PE-updates of int8 for int4 x2, the same MACs).
void BM_Reference_WS_128x128_Gemm512_bf16(benchmark::State& s) {
  reference(s, Dataflow::WS, 128, 512, 512, 512, NumType::Bf16);
}
void BM_Reference_WS_128x128_Gemm512_fp32(benchmark::State& s) {
  reference(s, Dataflow::WS, 128, 512, 512, 512, NumType::Fp32);
}
void BM_Reference_WS_128x128_Gemm512_int4x2(benchmark::State& s) {
  reference(s, Dataflow::WS, 128, 512, 512, 512, NumType::Int4, 2);
}
BENCHMARK(BM_Reference_WS_128x128_Gemm512)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Reference_WS_128x128_Gemm512_bf16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Reference_WS_128x128_Gemm512_fp32)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Reference_WS_128x128_Gemm512_int4x2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Reference_OS_128x128_Gemm512)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Reference_IS_32x32_Gemm256)->Unit(benchmark::kMillisecond);

}  // namespace

// libsystemc asks for sc_main; nothing calls it here: the benchmarks run without the kernel's main.
extern "C" int sc_main(int, char**) { return 0; }

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
