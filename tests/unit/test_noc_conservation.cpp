// NoC conservation and deadlock freedom under random load:
//  - every offered packet is delivered exactly once, at its destination, with all
//    its flits in order (checked flit by flit by an observer);
//  - credits are conserved on every channel and VC every cycle
//    (Network::check_invariants; CreditCounter throws on underflow/overflow);
//  - counters agree: flits in = flits out, flit-hops = sum of F*H, link flits = sum
//    of F*(H-1) = sum of per-link busy cycles;
//  - after injection stops, everything drains within a bound (no deadlock), with
//    both vnets, tiny buffers and edge endpoints.
// Long variants ("Long" in the name) run 10-50x more cycles and configurations.
#include <algorithm>
#include <map>
#include <random>
#include <tuple>
#include <unordered_map>

#include <gtest/gtest.h>

#include "models/noc/network.h"

using namespace cstsim::noc;

namespace {

// Records every flit delivered and checks order per packet; integrates the
// links-busy change events (r_N) the way the trace post-processor would.
class FlitOrder : public NocObserver {
 public:
  void links_busy(int64_t cycle, int busy) override {
    if (cycle <= last_cycle_ || busy == last_busy_) ++errors;  // strictly increasing, changes only
    link_cycles += uint64_t(last_busy_) * uint64_t(cycle - last_cycle_);
    last_cycle_ = cycle;
    last_busy_ = busy;
  }
  void link_flit(int64_t cycle, LinkId) override {
    if (cycle < flit_cycle_) ++errors;
    flit_cycle_ = cycle;
    ++link_flit_calls;
  }
  int final_busy() const { return last_busy_; }
  uint64_t link_cycles = 0, link_flit_calls = 0;
  void flit_delivered(int64_t, NodeId node, uint64_t id, int seq, int flits) override {
    int& next = next_[id];
    if (seq != next) ++errors;
    ++next;
    if (seq == flits - 1 && next != flits) ++errors;
    ++flits_seen;
    (void)node;
  }
  int errors = 0;
  uint64_t flits_seen = 0;

 private:
  std::unordered_map<uint64_t, int> next_;
  int64_t last_cycle_ = 0, flit_cycle_ = 0;
  int last_busy_ = 0;
};

struct Expected {
  Packet packet;
  int flits = 0;
  int hops = 0;
  int delivered = 0;
};

struct Load {
  double packets_per_node_cycle = 0.1;
  int64_t max_bytes = 160;
  int64_t cycles = 3000;
  bool invariants_every_cycle = true;
  int invariant_period = 1;
};

struct Outcome {
  uint64_t packets = 0;
  int64_t stop_cycle = 0;
  int64_t drained_at = 0;
  int64_t drain_bound = 0;
  uint64_t remaining_flits_at_stop = 0;
};

// Random sources and destinations over all endpoints (tiles and edge nodes), random
// vnet and size; then drains. Every check of the file header is applied.
Outcome run_random(const NocConfig& c, const Load& load, uint64_t seed) {
  Network net(c);
  FlitOrder order;
  net.set_observer(&order);
  std::map<uint64_t, Expected> expected;
  uint64_t delivered_packets = 0, sum_fh = 0, sum_f_h1 = 0, flits_total = 0, misdelivered = 0;
  net.set_delivery_callback([&](const Delivery& d) {
    auto it = expected.find(d.packet.id);
    if (it == expected.end() || it->second.packet.dst != d.packet.dst || d.flits != it->second.flits ||
        d.hops != it->second.hops) {
      ++misdelivered;
      return;
    }
    ++it->second.delivered;
    ++delivered_packets;
  });
  std::mt19937_64 rng(seed);
  const int nodes = net.mesh().nodes();
  std::uniform_int_distribution<int> node_of(0, nodes - 1), vnet_of(0, c.vnets - 1);
  std::uniform_int_distribution<int64_t> bytes_of(0, load.max_bytes);
  std::bernoulli_distribution fire(load.packets_per_node_cycle);
  uint64_t id = 0;
  for (int64_t t = 0; t < load.cycles; ++t) {
    for (NodeId s = 0; s < nodes; ++s) {
      if (!fire(rng)) continue;
      Packet p{s, NodeId(node_of(rng)), vnet_of(rng), bytes_of(rng), id++, t};
      Expected e{p, c.flits_for(p.bytes), net.mesh().hops(p.src, p.dst), 0};
      sum_fh += uint64_t(e.flits * e.hops);
      sum_f_h1 += uint64_t(e.flits * (e.hops - 1));
      flits_total += uint64_t(e.flits);
      expected[p.id] = e;
      net.inject(p);
    }
    net.run_until(t + 1);
    if (t % load.invariant_period == 0) net.check_invariants();
  }
  Outcome out;
  out.packets = id;
  out.stop_cycle = load.cycles;
  out.remaining_flits_at_stop = flits_total - net.stats().flits_delivered;
  // Drain bound: in the worst case every remaining flit crosses one common channel,
  // which moves min(D, RT) flits per credit round trip RT; plus the longest
  // zero-load path for the last one.
  const int rt = c.full_rate_depth();
  const int64_t t0_path =
      int64_t(c.cols + c.rows - 1) * (c.router_latency + c.link_latency) + c.flits_for(load.max_bytes);
  out.drain_bound = int64_t(out.remaining_flits_at_stop) * rt / std::min(c.buffer_depth, rt) + 4 * t0_path;
  while (!net.idle()) {
    const auto next = net.next_event();
    EXPECT_TRUE(next.has_value()) << "network stalled with " << net.packets_in_network() << " packets inside";
    if (!next || net.now() > load.cycles + out.drain_bound) break;
    net.run_until(net.now() + 1);
    if (net.now() % load.invariant_period == 0) net.check_invariants();
  }
  out.drained_at = net.now();
  net.check_invariants();
  EXPECT_TRUE(net.idle());
  EXPECT_EQ(misdelivered, 0u);
  EXPECT_EQ(order.errors, 0);
  EXPECT_EQ(delivered_packets, id);
  for (const auto& [pid, e] : expected)
    if (e.delivered != 1) ADD_FAILURE() << "packet " << pid << " delivered " << e.delivered << " times";
  const NocStats& st = net.stats();
  EXPECT_EQ(st.packets_offered, id);
  EXPECT_EQ(st.packets_injected, id);
  EXPECT_EQ(st.packets_delivered, id);
  EXPECT_EQ(st.flits_injected, flits_total);
  EXPECT_EQ(st.flits_delivered, flits_total);
  EXPECT_EQ(order.flits_seen, flits_total);
  EXPECT_EQ(st.flit_hops, sum_fh);
  EXPECT_EQ(st.link_flits, sum_f_h1);
  uint64_t busy = 0, in = 0, out_flits = 0;
  for (uint64_t b : st.link_busy) busy += b;
  for (uint64_t f : st.injected_flits_at) in += f;
  for (uint64_t f : st.ejected_flits_at) out_flits += f;
  EXPECT_EQ(busy, sum_f_h1);
  EXPECT_EQ(order.final_busy(), 0);        // r_N back to 0 once idle
  EXPECT_EQ(order.link_cycles, sum_f_h1);  // V_N: integral of r_N = link busy cycles
  EXPECT_EQ(order.link_flit_calls, sum_f_h1);
  EXPECT_EQ(in, flits_total);
  EXPECT_EQ(out_flits, flits_total);
  EXPECT_EQ(st.latency.count(), id);
  EXPECT_LE(out.drained_at - load.cycles, out.drain_bound);
  return out;
}

NocConfig small(int cols, int rows) {
  NocConfig c;
  c.cols = cols;
  c.rows = rows;
  c.edge_nodes = {{Side::West, 0}, {Side::East, rows - 1}, {Side::North, cols / 2}, {Side::South, cols - 1}};
  return c;
}

}  // namespace

TEST(NocConservation, RandomTrafficEveryPacketOnceInOrder) {
  NocConfig c = small(4, 4);
  c.buffer_depth = 2;
  c.vcs_per_vnet = 1;
  Load load;
  load.packets_per_node_cycle = 0.08;  // ~0.4 flits/node/cycle: past saturation for these buffers
  const Outcome o = run_random(c, load, 1);
  EXPECT_GT(o.packets, 3000u);
  EXPECT_GT(o.remaining_flits_at_stop, 0u);  // it really was congested
}

TEST(NocConservation, VariedConfigurations) {
  struct Variant {
    int cols, rows, router, link, credit, depth, vnets, vcs;
    const char* routing;
  };
  const Variant variants[] = {
      {3, 5, 1, 1, 1, 1, 2, 1, "xy"}, {4, 4, 2, 1, 1, 2, 2, 2, "yx"}, {5, 3, 1, 3, 2, 3, 3, 1, "xy"},
      {2, 2, 3, 2, 1, 1, 1, 1, "xy"}, {6, 6, 1, 1, 3, 4, 2, 3, "yx"}, {1, 6, 1, 1, 1, 1, 2, 1, "xy"},
      {4, 4, 1, 1, 1, 2, 2, 8, "xy"},  // 16 VCs a port: VC allocation's request set spans two words
  };
  uint64_t seed = 10;
  for (const Variant& v : variants) {
    NocConfig c = small(v.cols, v.rows);
    c.router_latency = v.router;
    c.link_latency = v.link;
    c.credit_latency = v.credit;
    c.buffer_depth = v.depth;
    c.vnets = v.vnets;
    c.vcs_per_vnet = v.vcs;
    c.routing = v.routing;
    Load load;
    load.cycles = 1500;
    load.packets_per_node_cycle = 0.05;
    for (Arbitration a : {Arbitration::RoundRobin, Arbitration::Age}) {  // both arbiters, same laws
      c.arbitration = a;
      SCOPED_TRACE(::testing::Message() << v.cols << "x" << v.rows << " router " << v.router << " link " << v.link
                                        << " credit " << v.credit << " depth " << v.depth << " vnets " << v.vnets
                                        << " vcs " << v.vcs << " " << v.routing << " " << arbitration_name(a));
      run_random(c, load, seed++);
    }
  }
}

// With one VC per vnet, packets of a vnet between one source and one destination
// arrive in the order they were offered (same path, one FIFO VC per hop).
TEST(NocConservation, OneVcPerVnetKeepsPointToPointOrder) {
  NocConfig c = small(4, 4);
  c.vcs_per_vnet = 1;
  c.buffer_depth = 2;
  Network net(c);
  std::map<std::tuple<NodeId, NodeId, int>, uint64_t> last;
  int out_of_order = 0;
  uint64_t delivered = 0;
  net.set_delivery_callback([&](const Delivery& d) {
    auto key = std::make_tuple(d.packet.src, d.packet.dst, d.packet.vnet);
    auto it = last.find(key);
    if (it != last.end() && it->second > d.packet.id) ++out_of_order;
    last[key] = d.packet.id;
    ++delivered;
  });
  std::mt19937_64 rng(5);
  const int nodes = net.mesh().nodes();
  uint64_t id = 0;
  for (int64_t t = 0; t < 3000; ++t) {
    for (NodeId s = 0; s < nodes; ++s) {
      if (std::uniform_real_distribution<double>(0, 1)(rng) > 0.06) continue;
      // Few destinations, so many packets share a (src, dst, vnet) stream.
      net.inject(Packet{s, NodeId(std::uniform_int_distribution<int>(0, 3)(rng)),
                        std::uniform_int_distribution<int>(0, 1)(rng),
                        std::uniform_int_distribution<int64_t>(0, 80)(rng), id++, t});
    }
    net.run_until(t + 1);
  }
  net.run_until(200000);
  EXPECT_EQ(delivered, id);
  EXPECT_EQ(out_of_order, 0);
}

// Both vnets, one 1-flit buffer per VC, 8x8 plus edge nodes, far past saturation:
// everything still drains within the bound once injection stops.
TEST(NocDeadlock, BothVnetsTinyBuffersDrainWithinBound) {
  NocConfig c = small(8, 8);
  c.buffer_depth = 1;
  c.vcs_per_vnet = 1;
  Load load;
  load.cycles = 1500;
  load.packets_per_node_cycle = 0.05;
  load.invariant_period = 50;
  const Outcome o = run_random(c, load, 7);
  EXPECT_GT(o.remaining_flits_at_stop, 1000u);
  RecordProperty("drain_cycles", int(o.drained_at - o.stop_cycle));
  RecordProperty("drain_bound", int(o.drain_bound));
}

// Request/response protocol with memory controllers on the edge whose request queue
// is bounded (ejection capacity) and who only take a request when their response
// queue has room: with requests and responses in separate vnets it always completes.
namespace {

struct ProtocolOutcome {
  bool completed = false;
  bool stalled = false;  // the network holds packets and will never move again on its own
  uint64_t responses = 0;
  int64_t end = 0;
};

ProtocolOutcome run_protocol(int vnets, uint64_t seed, int64_t requests_per_core) {
  NocConfig c = small(4, 4);
  c.vnets = vnets;
  c.vcs_per_vnet = 1;
  c.buffer_depth = 2;
  Network net(c);
  const int request_vnet = 0, response_vnet = vnets > 1 ? 1 : 0;
  std::vector<NodeId> mcs;
  for (const Endpoint& e : net.mesh().endpoints())
    if (e.edge) mcs.push_back(e.id);
  const int64_t request_flits = c.flits_for(16), response_flits = c.flits_for(64);
  const int64_t queue_packets = 2, response_room = 2;
  std::map<NodeId, std::deque<Packet>> queue;  // per MC: requests received, not yet served
  for (NodeId m : mcs) net.set_ejection_capacity(m, request_vnet, queue_packets * request_flits);
  uint64_t responses = 0, id = 0;
  net.set_delivery_callback([&](const Delivery& d) {
    if (d.packet.vnet == request_vnet && net.mesh().endpoint(d.packet.dst).edge)
      queue[d.packet.dst].push_back(d.packet);
    else
      ++responses;
  });
  std::mt19937_64 rng(seed);
  std::vector<int64_t> sent(size_t(net.mesh().tile_nodes()), 0);
  const uint64_t total = uint64_t(requests_per_core) * uint64_t(net.mesh().tile_nodes());
  int64_t t = 0, quiet = 0;
  while (responses < total && quiet < 2000) {
    for (NodeId n = 0; n < net.mesh().tile_nodes(); ++n) {
      if (sent[size_t(n)] >= requests_per_core || net.unsent(n, request_vnet) > 2) continue;
      const NodeId mc = mcs[size_t(std::uniform_int_distribution<int>(0, int(mcs.size()) - 1)(rng))];
      net.inject(Packet{n, mc, request_vnet, 16, id++, t});
      ++sent[size_t(n)];
    }
    // Each MC serves one request per cycle if its response queue has room.
    for (NodeId m : mcs) {
      auto& q = queue[m];
      if (q.empty() || net.unsent(m, response_vnet) >= uint64_t(response_room)) continue;
      const Packet req = q.front();
      q.pop_front();
      net.release_ejection(m, request_vnet, request_flits, t + 1);
      net.inject(Packet{m, req.src, response_vnet, 64, id++, t});
    }
    const uint64_t before = net.stats().flits_delivered + net.stats().flits_injected;
    net.run_until(t + 1);
    net.check_invariants();
    quiet = net.stats().flits_delivered + net.stats().flits_injected == before ? quiet + 1 : 0;
    ++t;
  }
  (void)response_flits;
  return {responses == total, net.stalled(), responses, t};
}

}  // namespace

TEST(NocDeadlock, RequestResponseWithBoundedMemoryControllersCompletes) {
  for (uint64_t seed : {1, 2, 3}) {
    const ProtocolOutcome o = run_protocol(2, seed, 200);
    EXPECT_TRUE(o.completed) << "seed " << seed << ": " << o.responses << " responses by cycle " << o.end;
  }
}

TEST(NocDeadlock, LongRandomManyConfigurations) {
  struct Variant {
    int cols, rows, depth, vnets, vcs;
    double rate;
    int64_t cycles;
  };
  const Variant variants[] = {
      {8, 8, 1, 2, 1, 0.06, 40000}, {8, 8, 2, 2, 2, 0.04, 40000},   {4, 4, 1, 3, 1, 0.10, 60000},
      {6, 3, 1, 2, 1, 0.08, 60000}, {16, 16, 2, 2, 1, 0.03, 10000},
  };
  uint64_t seed = 100;
  for (const Variant& v : variants) {
    NocConfig c = small(v.cols, v.rows);
    c.buffer_depth = v.depth;
    c.vnets = v.vnets;
    c.vcs_per_vnet = v.vcs;
    Load load;
    load.cycles = v.cycles;
    load.packets_per_node_cycle = v.rate;
    load.invariant_period = 97;
    SCOPED_TRACE(::testing::Message() << v.cols << "x" << v.rows << " depth " << v.depth << " vnets " << v.vnets);
    run_random(c, load, seed++);
  }
}

TEST(NocDeadlock, LongRequestResponseManySeeds) {
  for (uint64_t seed = 10; seed < 30; ++seed) {
    const ProtocolOutcome o = run_protocol(2, seed, 1000);
    EXPECT_TRUE(o.completed) << "seed " << seed << ": " << o.responses << " responses by cycle " << o.end;
  }
}

// The reason for two vnets: the same protocol with requests and responses sharing
// one vnet (and its VCs) deadlocks — responses wait behind requests that wait for
// memory controllers that wait for room to send responses. The network reports it
// as stalled (work inside, no event will ever come).
TEST(NocDeadlock, OneSharedVnetProtocolDeadlocks) {
  for (uint64_t seed : {1, 2, 3}) {
    const ProtocolOutcome o = run_protocol(1, seed, 200);
    EXPECT_FALSE(o.completed) << "seed " << seed;
    EXPECT_TRUE(o.stalled) << "seed " << seed;
  }
}
