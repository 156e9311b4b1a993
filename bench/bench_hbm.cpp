// Simulator speed of the HBM model (kernel-free HbmDevice + closed-loop traffic): simulated
// requests and HBM cycles per second of host time. `make bench` runs it; figures go into
// models/hbm/README.md.
#include <benchmark/benchmark.h>

#include "models/hbm/hbm_device.h"
#include "models/hbm/traffic.h"

using namespace cstsim::hbm;

namespace {

void hbm_traffic(benchmark::State& state, const char* preset, Pattern pattern, bool one_pc) {
  HbmOverrides o;
  if (one_pc) o = {{"organization.channels", "1"}, {"organization.pseudo_channels", "1"}};
  const HbmSpec spec = load_hbm_spec(std::string(CSTSIM_SOURCE_DIR "/configs/memory/") + preset + ".yaml", o);
  TrafficOptions t;
  t.pattern = pattern;
  t.total_bytes = uint64_t(state.range(0)) * spec.org.burst_bytes;
  TrafficResult r;
  for (auto _ : state) {
    HbmDevice dev(spec);
    r = run_traffic(dev, t);
    benchmark::DoNotOptimize(r.end_cycle);
  }
  state.counters["requests_per_s"] =
      benchmark::Counter(double(r.requests), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["sim_cycles_per_s"] =
      benchmark::Counter(double(r.end_cycle), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["efficiency"] = figures(spec, r).efficiency;
}

}  // namespace

BENCHMARK_CAPTURE(hbm_traffic, hbm2_seq_stack, "hbm2-2000", Pattern::Seq, false)
    ->Arg(1 << 16)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(hbm_traffic, hbm2_random_stack, "hbm2-2000", Pattern::Random, false)
    ->Arg(1 << 16)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(hbm_traffic, hbm2_seq_one_pc, "hbm2-2000", Pattern::Seq, true)
    ->Arg(1 << 16)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(hbm_traffic, hbm3_seq_stack, "hbm3-6400", Pattern::Seq, false)
    ->Arg(1 << 16)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(hbm_traffic, hbm3_random_stack, "hbm3-6400", Pattern::Random, false)
    ->Arg(1 << 16)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(hbm_traffic, hbm3_strided_one_pc, "hbm3-6400", Pattern::Strided, true)
    ->Arg(1 << 12)
    ->Unit(benchmark::kMillisecond);
