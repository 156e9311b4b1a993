// Who wins a contended output (NocConfig::arbitration). Two properties of the whole network,
// measured as the share of an ejection port each saturated source gets:
//  - round-robin VC allocation is fair per output: four inputs that all want the same
//    ejection port get a quarter each, even while another port's packets win VCs every cycle;
//  - in a chain of merges round-robin halves a far source's share at every merge (the
//    parking-lot problem), age arbitration gives every source the same share.
#include <array>
#include <map>

#include <gtest/gtest.h>

#include "models/noc/network.h"

using namespace cstsim::noc;

namespace {

// Offers `packets` packets from each source to `dst`, one per cycle from cycle 0 (each source
// stays backlogged), runs until `until` and returns, per source, the packets delivered in
// [from, until).
std::map<NodeId, int> delivered(Network& net, const std::vector<NodeId>& sources, NodeId dst, int vnet, int flits,
                                int packets, int64_t from, int64_t until) {
  std::map<NodeId, int> got;
  net.set_delivery_callback([&](const Delivery& d) {
    if (d.packet.dst == dst && d.cycle >= from && d.cycle < until) ++got[d.packet.src];
  });
  const int64_t bytes = int64_t(flits) * net.config().flit_bytes;
  uint64_t id = 0;
  for (int i = 0; i < packets; ++i)
    for (NodeId s : sources) net.inject(Packet{s, dst, vnet, bytes, id++, i});
  net.run_until(until);
  return got;
}

}  // namespace

// 3x3 mesh, the centre router (1, 1) = node 4 is the hotspot: its four neighbours send it
// 2-flit responses as fast as they can, while node 4 itself sends a 1-flit request west every
// cycle. Each neighbour's packets enter through their own input port, so each deserves a
// quarter of the ejection port (one flit per cycle: 1/8 packet per cycle each). A single VC
// allocation pointer shared by all outputs was reset past the Local input by each request's
// grant every cycle, so the West input (visited last) lost every ejection VC that freed.
TEST(NocArbitration, RoundRobinGivesEachInputPortItsShareOfAnEjectionPortWhileAnotherOutputIsBusy) {
  NocConfig c;
  c.cols = c.rows = 3;
  Network net(c);
  const NodeId centre = 4, west = 3;
  // The requests: one per cycle from the centre to its west neighbour, on the request vnet.
  for (int i = 0; i < 4000; ++i) net.inject(Packet{centre, west, kRequestVnet, 0, uint64_t(1000000 + i), i});
  const auto got = delivered(net, {1, 3, 5, 7}, centre, kResponseVnet, 2, 3000, 1000, 3000);
  const double quarter = (3000 - 1000) / 2.0 / 4.0;  // 2-flit packets, one flit per cycle, 4 inputs
  for (NodeId s : {1, 3, 5, 7}) {
    const double share = got.count(s) ? got.at(s) : 0;
    EXPECT_GT(share, 0.8 * quarter) << "source " << s;
    EXPECT_LT(share, 1.2 * quarter) << "source " << s;
  }
}

// A 4x1 line, nodes 0, 1 and 2 all send 1-flit packets to node 3. Round-robin VC allocation
// rotates over input VCs: at each merge the through traffic holds both VCs of its input port,
// the router's own node injects one packet at a time (one VC), so the through traffic wins 2/3
// of the grants and the merges compound: shares 4/9, 2/9, 1/3 for nodes 0, 1, 2 (the share a
// source gets depends on where it sits). Age arbitration serves the oldest packet first, and
// every source offers one per cycle, so each gets a third.
TEST(NocArbitration, AgeGivesFarSourcesTheirShareOfAHotspotWhereRoundRobinHalvesIt) {
  for (Arbitration a : {Arbitration::RoundRobin, Arbitration::Age}) {
    NocConfig c;
    c.cols = 4;
    c.rows = 1;
    c.arbitration = a;
    Network net(c);
    const auto got = delivered(net, {0, 1, 2}, 3, kRequestVnet, 1, 6000, 1000, 5000);
    const double total = got.at(0) + got.at(1) + got.at(2);
    EXPECT_GT(total, 0.95 * 4000) << arbitration_name(a) << ": the ejection port stays busy";
    if (a == Arbitration::RoundRobin) {
      EXPECT_NEAR(got.at(0) / total, 4.0 / 9.0, 0.03);
      EXPECT_NEAR(got.at(1) / total, 2.0 / 9.0, 0.03);
      EXPECT_NEAR(got.at(2) / total, 1.0 / 3.0, 0.03);
    } else {
      for (NodeId s : {0, 1, 2}) EXPECT_NEAR(got.at(s) / total, 1.0 / 3.0, 0.03) << "source " << s;
    }
  }
}
