// NoC zero-load latency: a lone packet's tail is delivered exactly
//   H * (router_latency + link_latency) + (flits - 1)
// cycles after it is offered, H = routers on the XY path = Manhattan distance + 1,
// whenever buffer_depth >= link + router + credit latency (full-rate credits).
#include <vector>

#include <gtest/gtest.h>

#include "models/noc/network.h"

using namespace cstsim::noc;

namespace {

NocConfig config(int cols, int rows, int router, int link, int flit_bytes = 16, int credit = 1) {
  NocConfig c;
  c.cols = cols;
  c.rows = rows;
  c.router_latency = router;
  c.link_latency = link;
  c.credit_latency = credit;
  c.flit_bytes = flit_bytes;
  c.buffer_depth = c.full_rate_depth();
  return c;
}

// Sends one packet through an empty network; returns its delivery.
Delivery send_alone(const NocConfig& c, Packet p, Network** keep = nullptr) {
  static std::unique_ptr<Network> last;
  last = std::make_unique<Network>(c);
  std::vector<Delivery> got;
  last->set_delivery_callback([&](const Delivery& d) { got.push_back(d); });
  last->inject(p);
  last->run_until(p.cycle + 100000);
  EXPECT_EQ(got.size(), 1u);
  EXPECT_TRUE(last->idle());
  if (keep) *keep = last.get();
  return got.empty() ? Delivery{} : got.front();
}

int64_t formula(const Network& net, NodeId s, NodeId d, int flits) {
  const NocConfig& c = net.config();
  return int64_t(net.mesh().hops(s, d)) * (c.router_latency + c.link_latency) + flits - 1;
}

struct Case {
  int cols, rows;
  Coord src, dst;
  int64_t bytes;
  int router, link, flit_bytes;
  int64_t cycle;
  int64_t expect;  // written out by hand from the formula
};

}  // namespace

TEST(NocLatency, ZeroLoadHandComputedCases) {
  const std::vector<Case> cases = {
      // 4x4, 1-cycle router and link: neighbour, 1 flit: H = 2 -> 2*2 + 0
      {4, 4, {0, 0}, {1, 0}, 16, 1, 1, 16, 0, 4},
      // corner to corner, 64 B = 4 flits: H = 7 -> 7*2 + 3
      {4, 4, {0, 0}, {3, 3}, 64, 1, 1, 16, 0, 17},
      // to itself, 0 bytes = 1 flit: H = 1 -> 2
      {4, 4, {2, 1}, {2, 1}, 0, 1, 1, 16, 5, 2},
      // 3-cycle router, 2-cycle link, 17 B with 16 B flits = 2 flits, H = 4 -> 4*5 + 1
      {4, 4, {3, 0}, {1, 1}, 17, 3, 2, 16, 100, 21},
      // 8x8, 2-cycle router, 1-cycle link, 256 B of 32 B flits = 8 flits, H = 15 -> 15*3 + 7
      {8, 8, {7, 7}, {0, 0}, 256, 2, 1, 32, 7, 52},
      // non-square 6x3, 1-cycle router, 4-cycle link, 1 KiB of 64 B = 16 flits, H = 6 -> 6*5 + 15
      {6, 3, {0, 2}, {4, 1}, 1024, 1, 4, 64, 12345, 45},
  };
  for (const Case& k : cases) {
    const NocConfig c = config(k.cols, k.rows, k.router, k.link, k.flit_bytes);
    const Mesh mesh(k.cols, k.rows);
    const NodeId s = mesh.node(k.src.x, k.src.y), d = mesh.node(k.dst.x, k.dst.y);
    Network* net = nullptr;
    const Delivery got = send_alone(c, Packet{s, d, 0, k.bytes, 7, k.cycle}, &net);
    EXPECT_EQ(got.latency(), k.expect) << "src (" << k.src.x << "," << k.src.y << ") dst (" << k.dst.x << "," << k.dst.y
                                       << ") bytes " << k.bytes;
    EXPECT_EQ(got.latency(), formula(*net, s, d, c.flits_for(k.bytes)));
    EXPECT_EQ(got.cycle, k.cycle + k.expect);
    EXPECT_EQ(got.packet.id, 7u);
  }
}

// Every source/destination pair of a 4x4 mesh with four edge endpoints, several
// sizes and latency settings, both vnets: the formula holds exactly for each.
TEST(NocLatency, ZeroLoadAllPairsAllSettings) {
  struct Setting {
    int router, link, credit;
  };
  for (const Setting& s : {Setting{1, 1, 1}, Setting{2, 1, 1}, Setting{1, 3, 2}, Setting{4, 2, 3}}) {
    NocConfig c = config(4, 4, s.router, s.link, 16, s.credit);
    c.edge_nodes = {{Side::West, 1}, {Side::East, 2}, {Side::North, 0}, {Side::South, 3}};
    for (int64_t bytes : {0, 16, 17, 100}) {
      Network net(c);
      std::vector<Delivery> got;
      net.set_delivery_callback([&](const Delivery& d) { got.push_back(d); });
      int64_t t = 0;
      int checked = 0;
      for (NodeId a = 0; a < net.mesh().nodes(); ++a) {
        for (NodeId b = 0; b < net.mesh().nodes(); ++b) {
          got.clear();
          net.inject(Packet{a, b, int((a + b) % 2), bytes, uint64_t(a * 100 + b), t});
          net.run_until(t + 200);
          ASSERT_EQ(got.size(), 1u);
          ASSERT_TRUE(net.idle());
          const int flits = c.flits_for(bytes);
          ASSERT_EQ(got[0].latency(), formula(net, a, b, flits))
              << net.mesh().endpoint(a).name << " -> " << net.mesh().endpoint(b).name << ", " << bytes << " B, router "
              << s.router << " link " << s.link;
          ASSERT_EQ(got[0].hops, net.mesh().hops(a, b));
          t += 200;
          ++checked;
        }
      }
      EXPECT_EQ(checked, 20 * 20);
    }
  }
}

// Energy counters of a lone packet: F * H router traversals, F * (H - 1) link traversals,
// each link of the XY path busy F cycles, and nothing else.
TEST(NocLatency, FlitHopsAndLinkBusyOfOnePacket) {
  const NocConfig c = config(4, 4, 1, 1);
  const Mesh mesh(4, 4);
  Network* net = nullptr;
  const NodeId s = mesh.node(0, 3), d = mesh.node(2, 1);
  send_alone(c, Packet{s, d, 1, 80, 1, 0}, &net);  // 5 flits, H = 5
  const NocStats& st = net->stats();
  EXPECT_EQ(st.flit_hops, 5u * 5u);
  EXPECT_EQ(st.link_flits, 5u * 4u);
  EXPECT_EQ(st.flits_injected, 5u);
  EXPECT_EQ(st.flits_delivered, 5u);
  EXPECT_EQ(st.injected_flits_at[size_t(s)], 5u);
  EXPECT_EQ(st.ejected_flits_at[size_t(d)], 5u);
  // XY: east twice along y = 3, then south twice along x = 2.
  const std::vector<LinkId> path = {mesh.link_at(mesh.node(0, 3), kEast), mesh.link_at(mesh.node(1, 3), kEast),
                                    mesh.link_at(mesh.node(2, 3), kSouth), mesh.link_at(mesh.node(2, 2), kSouth)};
  for (LinkId l = 0; l < LinkId(st.link_busy.size()); ++l) {
    const bool on_path = std::find(path.begin(), path.end(), l) != path.end();
    EXPECT_EQ(st.link_busy[size_t(l)], on_path ? 5u : 0u) << mesh.links()[size_t(l)].name;
  }
}

// Below the full-rate depth the credit loop throttles each channel to D flits per
// round trip (RT = link + router + credit): the head is unaffected, the tail
// trails by floor((F-1)/D) * RT + (F-1) mod D instead of F - 1.
TEST(NocLatency, ShallowBuffersAreCreditBound) {
  for (int depth : {1, 2, 3}) {
    NocConfig c = config(4, 4, 1, 1);  // RT = 3
    c.buffer_depth = depth;
    const Mesh mesh(4, 4);
    const NodeId s = mesh.node(0, 0), d = mesh.node(3, 2);
    for (int flits : {1, 2, 5, 9}) {
      const Delivery got = send_alone(c, Packet{s, d, 0, int64_t(flits) * 16, 0, 0});
      const int rt = c.full_rate_depth();
      const int64_t serial = int64_t((flits - 1) / depth) * rt + (flits - 1) % depth;
      EXPECT_EQ(got.latency(), mesh.hops(s, d) * 2 + serial) << "depth " << depth << " flits " << flits;
    }
  }
}

// Idle cycles are skipped, not stepped: a lone packet offered late costs only the
// cycles it is in flight.
TEST(NocLatency, IdleCyclesAreSkipped) {
  const NocConfig c = config(8, 8, 1, 1);
  Network* net = nullptr;
  const Delivery got = send_alone(c, Packet{0, 63, 0, 64, 0, 5'000'000}, &net);
  EXPECT_EQ(got.latency(), 15 * 2 + 3);
  EXPECT_LE(net->steps(), uint64_t(got.latency() + 8));
}

// A back-to-back stream of N one-flit packets between neighbours on one VC per vnet,
// D = RT = 3: under after_tail reuse a packet follows the previous tail into the same VC,
// so the link carries one flit per cycle and the last tail arrives N - 1 cycles after the
// first one. Under atomic reuse the VC waits for each tail's credit: one packet per credit
// round trip RT = link + router + credit, the last N - 1 round trips after the first.
TEST(NocLatency, OneFlitStreamFillsALinkOnlyWhenVcsAreReusedAfterTheTail) {
  constexpr int kPackets = 40;
  for (VcReuse reuse : {VcReuse::AfterTail, VcReuse::Atomic}) {
    NocConfig c = config(2, 1, 1, 1);
    c.vcs_per_vnet = 1;
    c.vc_reuse = reuse;
    Network net(c);
    std::vector<int64_t> tails;
    net.set_delivery_callback([&](const Delivery& d) { tails.push_back(d.cycle); });
    for (int i = 0; i < kPackets; ++i) net.inject(Packet{0, 1, 0, 16, uint64_t(i), 0});
    net.run_until(100000);
    ASSERT_EQ(tails.size(), size_t(kPackets));
    const int64_t span = tails.back() - tails.front();
    EXPECT_EQ(span, reuse == VcReuse::AfterTail ? kPackets - 1 : (kPackets - 1) * c.full_rate_depth())
        << vc_reuse_name(reuse);
    EXPECT_EQ(tails.front(), formula(net, 0, 1, 1));
  }
}
