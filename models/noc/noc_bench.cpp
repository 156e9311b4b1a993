#include "models/noc/noc_bench.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/noc/network.h"

namespace cstsim::noc {

BenchResult run_noc_bench(const BenchOptions& o) {
  if (!(o.rate > 0 && o.rate <= 1)) throw std::invalid_argument("rate must be in (0, 1] flits/node/cycle");
  if (o.cycles < 1 || o.warmup < 0 || o.packet_bytes < 0) throw std::invalid_argument("bad bench window or size");
  const auto t_start = std::chrono::steady_clock::now();
  Network net(o.config);
  const Mesh& mesh = net.mesh();
  const Traffic traffic(mesh, o.traffic);
  const auto routing = make_routing(o.config.routing);
  BenchResult r;
  r.bound = channel_bound(mesh, *routing, traffic);
  r.sources = int(traffic.sources().size());
  r.flits_per_packet = o.config.flits_for(o.packet_bytes);
  const int F = r.flits_per_packet;
  const int per_hop = o.config.router_latency + o.config.link_latency;
  const int64_t w0 = o.warmup, w1 = o.warmup + o.cycles;

  LatencyHistogram latency;
  uint64_t outstanding = 0, accepted_flits = 0, offered_flits = 0;
  double zero_load_sum = 0;
  net.set_delivery_callback([&](const Delivery& d) {
    if (d.cycle >= w0 && d.cycle < w1) accepted_flits += uint64_t(d.flits);
    if (d.packet.cycle >= w0 && d.packet.cycle < w1) {
      latency.add(d.latency());
      --outstanding;
    }
  });

  // Bernoulli(rate / F) per source and cycle, drawn as geometric gaps.
  std::mt19937_64 rng(o.seed);
  const double p = o.rate / F;
  std::geometric_distribution<int64_t> gap(std::min(1.0, p));
  std::uniform_int_distribution<int> vnet_of(0, o.config.vnets - 1);
  const std::vector<NodeId>& sources = traffic.sources();
  std::vector<int64_t> next(sources.size());
  for (int64_t& n : next) n = gap(rng);
  uint64_t id = 0;
  std::vector<uint64_t> busy_at_w0;
  for (int64_t t = 0; t < w1; ++t) {
    if (t == w0) busy_at_w0 = net.stats().link_busy;
    for (size_t i = 0; i < sources.size(); ++i) {
      if (next[i] != t) continue;
      next[i] = t + 1 + gap(rng);
      const NodeId src = sources[i], dst = traffic.destination(src, rng);
      net.inject(Packet{src, dst, vnet_of(rng), o.packet_bytes, id++, t});
      if (t >= w0) {
        ++r.measured_packets;
        ++outstanding;
        offered_flits += uint64_t(F);
        zero_load_sum += double(mesh.hops(src, dst) * per_hop + F - 1);
      }
    }
    net.run_until(t + 1);
  }
  const std::vector<uint64_t>& busy_at_w1 = net.stats().link_busy;
  for (size_t l = 0; l < busy_at_w1.size(); ++l) {
    const double u = double(busy_at_w1[l] - (busy_at_w0.empty() ? 0 : busy_at_w0[l])) / double(o.cycles);
    if (u > r.busiest_link_utilization || r.busiest_link < 0) {
      r.busiest_link = LinkId(l);
      r.busiest_link_utilization = u;
      r.busiest_link_name = mesh.links()[l].name;
    }
  }
  // Drain: no new packets; run until every measured packet is out.
  const int64_t limit = w1 + o.drain_limit;
  while (outstanding > 0 && net.now() < limit) {
    net.run_until(std::min(limit, net.now() + 256));
    if (net.stalled()) throw std::logic_error("noc-bench: the network stalled with packets inside (deadlock)");
  }
  r.drained = outstanding == 0;
  r.delivered_measured = latency.count();
  const double denom = double(r.sources) * double(o.cycles);
  r.offered = double(offered_flits) / denom;
  r.accepted = double(accepted_flits) / denom;
  r.latency_avg = latency.mean();
  r.latency_p50 = latency.percentile(0.50);
  r.latency_p99 = latency.percentile(0.99);
  r.latency_max = latency.max();
  r.zero_load_avg = r.measured_packets ? zero_load_sum / double(r.measured_packets) : 0;
  r.end_cycle = net.now();
  r.flit_hops = net.stats().flit_hops;
  r.steps = net.steps();
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  return r;
}

}  // namespace cstsim::noc
