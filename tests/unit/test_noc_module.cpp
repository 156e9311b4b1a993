// The SystemC shell of the mesh (one module, one clockless method). Each test
// elaborates and runs the kernel once, so each runs in its own process (ctest).
//  - deliveries through the module happen at the same cycles as in the plain
//    Network, and the callback runs at SystemC time cycle * period;
//  - idle stretches are skipped: the process runs only at cycles with work;
//  - endpoints can answer from the delivery callback and back-pressure through
//    ejection capacity.
#include <map>
#include <random>
#include <vector>

#include <gtest/gtest.h>
#include <systemc>

#include "models/noc/mesh_module.h"

using namespace cstsim::noc;

namespace {

NocConfig preset() {
  NocConfig c;
  c.edge_nodes = {{Side::West, 1}, {Side::East, 2}};
  return c;
}

// Injects its packets at their cycles from an SC_THREAD, like a DMA engine would.
struct Driver : sc_core::sc_module {
  SC_HAS_PROCESS(Driver);
  Driver(sc_core::sc_module_name name, MeshModule& mesh, std::vector<Packet> packets)
      : sc_module(name), mesh_(mesh), packets_(std::move(packets)) {
    SC_THREAD(run);
  }
  void run() {
    for (const Packet& p : packets_) {
      const sc_core::sc_time at = mesh_.period() * double(p.cycle);
      if (at > sc_core::sc_time_stamp()) wait(at - sc_core::sc_time_stamp());
      Packet q = p;
      q.cycle = -1;  // "now"
      mesh_.inject(q);
    }
  }
  MeshModule& mesh_;
  std::vector<Packet> packets_;
};

std::vector<Packet> clustered_traffic(const Mesh& mesh, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Packet> out;
  uint64_t id = 0;
  for (int64_t base : {int64_t(0), int64_t(100000), int64_t(5000000)}) {
    for (int64_t t = base; t < base + 300; ++t) {
      for (NodeId s = 0; s < mesh.nodes(); ++s) {
        if (std::uniform_real_distribution<double>(0, 1)(rng) > 0.03) continue;
        out.push_back(Packet{s, NodeId(std::uniform_int_distribution<int>(0, mesh.nodes() - 1)(rng)),
                             std::uniform_int_distribution<int>(0, 1)(rng),
                             std::uniform_int_distribution<int64_t>(0, 96)(rng), id++, t});
      }
    }
  }
  return out;
}

}  // namespace

TEST(NocModule, DeliveriesMatchPlainNetworkAndIdleTimeIsSkipped) {
  const NocConfig c = preset();
  const Mesh mesh(c.cols, c.rows, c.edge_nodes);
  const std::vector<Packet> packets = clustered_traffic(mesh, 3);

  // Reference: the plain network, every packet offered in advance.
  std::map<uint64_t, int64_t> expected;
  Network plain(c);
  plain.set_delivery_callback([&](const Delivery& d) { expected[d.packet.id] = d.cycle; });
  for (const Packet& p : packets) plain.inject(p);
  plain.run_until(6000000);
  ASSERT_EQ(expected.size(), packets.size());

  MeshModule noc("noc", c);
  Driver driver("driver", noc, packets);
  std::map<uint64_t, int64_t> got;
  int wrong_time = 0;
  noc.on_delivery([&](const Delivery& d) {
    got[d.packet.id] = d.cycle;
    if (sc_core::sc_time_stamp() != noc.period() * double(d.cycle)) ++wrong_time;
  });
  sc_core::sc_start();
  EXPECT_EQ(got, expected);
  EXPECT_EQ(wrong_time, 0);
  EXPECT_TRUE(noc.network().idle());
  // The process ran only where there was work: at most once per stepped cycle of the
  // reference plus once per injection (a wake-up that finds the NI decision due).
  EXPECT_LE(noc.activations(), plain.steps() + packets.size());
  EXPECT_LT(noc.activations(), 5000u);  // the run spans 5,000,300 cycles
  EXPECT_EQ(noc.stats().packets_delivered, packets.size());
}

TEST(NocModule, EndpointAnswersFromTheDeliveryCallback) {
  const NocConfig c = preset();
  MeshModule noc("noc", c);
  const Mesh& mesh = noc.mesh();
  const NodeId core = mesh.node(3, 3), mc = mesh.edge_node(Side::West, 1);
  const int per_hop = c.router_latency + c.link_latency;
  std::vector<Delivery> seen;
  int wrong_time = 0;
  noc.on_delivery([&](const Delivery& d) {
    seen.push_back(d);
    if (sc_core::sc_time_stamp() != noc.period() * double(d.cycle)) ++wrong_time;
    if (d.packet.dst == mc)  // a read request: answer with 64 bytes, now
      noc.inject(Packet{mc, d.packet.src, kResponseVnet, 64, d.packet.id + 1000, -1});
  });
  struct Core : sc_core::sc_module {
    SC_HAS_PROCESS(Core);
    Core(sc_core::sc_module_name n, MeshModule& m, NodeId from, NodeId to) : sc_module(n), m_(m), from_(from), to_(to) {
      SC_THREAD(run);
    }
    void run() {
      wait(m_.period() * 40.0);
      m_.inject(Packet{from_, to_, kRequestVnet, 8, 1, -1});
    }
    MeshModule& m_;
    NodeId from_, to_;
  } driver("core", noc, core, mc);
  sc_core::sc_start();
  ASSERT_EQ(seen.size(), 2u);
  const int hops = mesh.hops(core, mc);  // (3,3) -> router (0,1): 5 links, 6 routers
  EXPECT_EQ(hops, 6);
  EXPECT_EQ(seen[0].cycle, 40 + hops * per_hop + 0);             // 1 flit
  EXPECT_EQ(seen[1].packet.cycle, seen[0].cycle);                // answered the same cycle
  EXPECT_EQ(seen[1].cycle, seen[0].cycle + hops * per_hop + 3);  // 4 flits back
  EXPECT_EQ(wrong_time, 0);
  // The last activations return the last credits (and check one cycle later that
  // nothing else moved): the kernel stops right after.
  EXPECT_LE(sc_core::sc_time_stamp(), noc.period() * double(seen[1].cycle + c.credit_latency + 1));
}

TEST(NocModule, EjectionCapacityBackPressuresUntilReleased) {
  const NocConfig c = preset();
  MeshModule noc("noc", c);
  const NodeId mc = noc.mesh().edge_node(Side::East, 2);
  noc.set_ejection_capacity(mc, kRequestVnet, 1);  // room for one 1-flit request
  std::vector<int64_t> arrivals;
  noc.on_delivery([&](const Delivery& d) { arrivals.push_back(d.cycle); });
  struct Mc : sc_core::sc_module {
    SC_HAS_PROCESS(Mc);
    Mc(sc_core::sc_module_name n, MeshModule& m, NodeId mc) : sc_module(n), m_(m), mc_(mc) { SC_THREAD(run); }
    void run() {
      for (int k = 0; k < 3; ++k) m_.inject(Packet{k, mc_, kRequestVnet, 4, uint64_t(k), -1});
      wait(m_.period() * 500.0);
      m_.release_ejection(mc_, kRequestVnet, 1);  // room again from cycle 501
      wait(m_.period() * 300.0);
      m_.release_ejection(mc_, kRequestVnet, 1);  // from cycle 801
    }
    MeshModule& m_;
    NodeId mc_;
  } driver("mc", noc, mc);
  sc_core::sc_start();
  ASSERT_EQ(arrivals.size(), 3u);
  EXPECT_LT(arrivals[0], 20);
  EXPECT_EQ(arrivals[1], 501);  // the blocked head was ready: it leaves as soon as there is room
  EXPECT_EQ(arrivals[2], 801);
  EXPECT_LT(noc.activations(), 40u);  // and nobody polled in between
}

// A caller in another clock domain may inject between NoC clock edges: the packet
// counts from the current cycle (floor), and the module still wakes on cycle edges.
TEST(NocModule, InjectionBetweenClockEdges) {
  const NocConfig c = preset();
  MeshModule noc("noc", c);
  const NodeId a = noc.mesh().node(0, 0), b = noc.mesh().node(2, 0);
  std::vector<Delivery> seen;
  int wrong_time = 0;
  noc.on_delivery([&](const Delivery& d) {
    seen.push_back(d);
    if (sc_core::sc_time_stamp() != noc.period() * double(d.cycle)) ++wrong_time;
  });
  struct Dma : sc_core::sc_module {
    SC_HAS_PROCESS(Dma);
    Dma(sc_core::sc_module_name n, MeshModule& m, NodeId a, NodeId b) : sc_module(n), m_(m), a_(a), b_(b) {
      SC_THREAD(run);
    }
    void run() {
      wait(m_.period() * 10.4);  // cycle 10
      m_.inject(Packet{a_, b_, kRequestVnet, 32, 1, -1});
    }
    MeshModule& m_;
    NodeId a_, b_;
  } dma("dma", noc, a, b);
  sc_core::sc_start();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].packet.cycle, 10);
  EXPECT_EQ(seen[0].cycle, 10 + 3 * 2 + 1);  // H = 3, 2 flits
  EXPECT_EQ(wrong_time, 0);
}
