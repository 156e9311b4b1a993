#pragma once
// `cstsim noc-bench`: synthetic-traffic load test of the mesh (BookSim style).
//
// Each source node generates packets by a Bernoulli process: in every cycle a
// packet of `packet_bytes` (F flits) with probability rate / F, so `rate` is the
// offered load in flits/node/cycle (at most 1: one injection channel per node).
// The vnet of each packet is drawn uniformly, so all VCs carry traffic.
// Phases: warm-up [0, W) (not measured), measurement [W, W+N): packets created in
// it are the measured ones (latency from creation, source queueing included);
// accepted throughput = flits of packets delivered in the window / (sources × N).
// Drain: generation stops at W+N and the run continues until every measured
// packet is delivered (or drain_limit cycles pass: then `drained` is false).
#include <cstdint>
#include <string>
#include <vector>

#include "models/noc/noc_config.h"
#include "models/noc/traffic.h"

namespace cstsim::noc {

struct BenchOptions {
  NocConfig config;
  TrafficSpec traffic;
  double rate = 0.1;  // offered flits/node/cycle, (0, 1]
  int64_t packet_bytes = 64;
  int64_t warmup = 1000;   // cycles
  int64_t cycles = 10000;  // measurement window, cycles
  int64_t drain_limit = 1000000;
  uint64_t seed = 1;
};

struct BenchResult {
  int sources = 0;
  int flits_per_packet = 0;
  double offered = 0;      // flits/node/cycle, created in the window
  double accepted = 0;     // flits/node/cycle, delivered in the window
  ChannelBound bound;      // ideal throughput of the pattern
  double latency_avg = 0;  // cycles, measured packets
  int64_t latency_p50 = 0, latency_p99 = 0, latency_max = 0;
  double zero_load_avg = 0;  // cycles: mean H*(t_r+t_l)+F-1 over the measured packets
  LinkId busiest_link = -1;  // most busy mesh link during the window
  std::string busiest_link_name;
  double busiest_link_utilization = 0;  // its busy cycles / window cycles
  uint64_t measured_packets = 0;
  uint64_t delivered_measured = 0;
  bool drained = true;
  int64_t end_cycle = 0;   // last simulated cycle + 1
  uint64_t flit_hops = 0;  // over the whole run
  uint64_t steps = 0;      // cycles actually stepped
  double wall_seconds = 0;
};

BenchResult run_noc_bench(const BenchOptions& options);

}  // namespace cstsim::noc
