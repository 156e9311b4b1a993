// Simulator speed of the mesh NoC model (plain Network, no process start-up):
// simulated flit-hops (router traversals) per second of wall time at moderate
// load, uniform random traffic, 4-flit packets. Figures go into bench/README.md.
#include <benchmark/benchmark.h>

#include "models/noc/noc_bench.h"

using namespace cstsim::noc;

namespace {

// Args: k (k x k mesh), offered load in milli-flits/node/cycle.
void BM_NocUniform(benchmark::State& state) {
  BenchOptions o;
  o.config.cols = o.config.rows = int(state.range(0));
  o.rate = double(state.range(1)) / 1000.0;
  o.warmup = 500;
  o.cycles = 5000;
  uint64_t hops = 0, cycles = 0;
  double accepted = 0;
  for (auto _ : state) {
    const BenchResult r = run_noc_bench(o);
    hops = r.flit_hops;
    cycles = uint64_t(r.end_cycle);
    accepted = r.accepted;
  }
  state.counters["flit_hops"] = double(hops);
  state.counters["sim_cycles"] = double(cycles);
  state.counters["accepted"] = accepted;
  state.counters["flit_hops_per_s"] = benchmark::Counter(double(hops), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["cycles_per_s"] = benchmark::Counter(double(cycles), benchmark::Counter::kIsIterationInvariantRate);
}
// Moderate load: about half of the bisection bound 4/k.
BENCHMARK(BM_NocUniform)
    ->Args({4, 500})
    ->Args({8, 250})
    ->Args({16, 125})
    ->ArgNames({"k", "mrate"})
    ->Unit(benchmark::kMillisecond);

}  // namespace
