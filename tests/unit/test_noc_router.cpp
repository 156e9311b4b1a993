// One router on its own (no network, no kernel): pipeline timing, round-robin
// switch and VC allocation, vnet separation, VC reuse (after the tail, atomic), credit flow control
// and the invariants it enforces (credits never below 0 nor above the depth).
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "models/noc/router.h"

using namespace cstsim::noc;

namespace {

// A router whose four mesh ports are links and whose Local port is an ejection port.
Router make_router(int vnets = 2, int vcs = 1, int depth = 4, int latency = 1, bool atomic = false) {
  const std::array<OutputKind, kPorts> kinds = {OutputKind::Sink, OutputKind::Link, OutputKind::Link, OutputKind::Link,
                                                OutputKind::Link};
  return Router(0, RouterParams{vnets, vcs, depth, latency, atomic}, kinds);
}

Flit flit(uint32_t packet, int seq, int flits, int vnet, int64_t ready) {
  Flit f;
  f.packet = packet;
  f.seq = uint16_t(seq);
  f.kind = uint8_t((seq == 0 ? Flit::kHead : 0) | (seq == flits - 1 ? Flit::kTail : 0));
  f.vnet = uint8_t(vnet);
  f.ready = ready;
  return f;
}

}  // namespace

TEST(NocRouter, CreditCounterNeverBelowZeroNorAboveDepth) {
  CreditCounter c(2);
  EXPECT_TRUE(c.full());
  c.consume();
  c.consume();
  EXPECT_FALSE(c.available());
  EXPECT_THROW(c.consume(), std::logic_error);
  c.restore();
  c.restore();
  EXPECT_THROW(c.restore(), std::logic_error);
  EXPECT_EQ(c.credits(), 2);
}

TEST(NocRouter, FlitLeavesRouterLatencyAfterItsBufferWrite) {
  for (int latency : {1, 3}) {
    Router r = make_router(2, 1, 4, latency);
    // The network writes the flit at cycle 10 with ready = 10 + latency.
    r.accept(kWest, 0, flit(1, 0, 1, 0, 10 + latency), kEast);
    std::vector<Departure> out;
    for (int64_t c = 10; c < 10 + latency; ++c) {
      EXPECT_FALSE(r.step(c, out) && !out.empty());
      EXPECT_TRUE(out.empty()) << "left early at " << c;
    }
    EXPECT_TRUE(r.step(10 + latency, out));
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].out_port, kEast);
    EXPECT_EQ(out[0].in_port, kWest);
    EXPECT_EQ(r.output(kEast, 0).credits.credits(), 3);
    EXPECT_EQ(r.output(kEast, 0).owner, -1);  // after_tail: free once the tail has left
  }
}

TEST(NocRouter, SwitchAllocationIsRoundRobinAcrossInputPorts) {
  Router r = make_router(1, 4, 4);
  // Three inputs each send 1-flit packets to East, on VCs 0..3 in turn; credits are
  // returned immediately so only the switch decides.
  std::vector<int> winners;
  std::vector<Departure> out;
  uint32_t id = 0;
  for (int64_t c = 1; c <= 12; ++c) {
    for (int port : {kWest, kSouth, kNorth}) {
      for (int vc = 0; vc < 4; ++vc) {
        if (r.input(port, vc).size == 0) {
          r.accept(port, vc, flit(id++, 0, 1, 0, c), kEast);
          break;
        }
      }
    }
    out.clear();
    r.step(c, out);
    ASSERT_EQ(out.size(), 1u) << "one flit per output port per cycle";
    winners.push_back(out[0].in_port);
    r.credit(kEast, out[0].out_vc, true);
  }
  for (size_t i = 3; i < winners.size(); ++i) EXPECT_EQ(winners[i], winners[i - 3]) << "not a rotation at " << i;
  EXPECT_NE(winners[0], winners[1]);
  EXPECT_NE(winners[1], winners[2]);
  EXPECT_NE(winners[0], winners[2]);
}

TEST(NocRouter, OneFlitPerInputPortPerCycleButParallelOutputs) {
  Router r = make_router(2, 1, 4);
  r.accept(kWest, 0, flit(1, 0, 1, 0, 1), kEast);
  r.accept(kWest, 1, flit(2, 0, 1, 1, 1), kNorth);  // same input port, other vnet and output
  r.accept(kSouth, 0, flit(3, 0, 1, 0, 1), kLocal);
  std::vector<Departure> out;
  r.step(1, out);
  EXPECT_EQ(out.size(), 2u);  // West sends one of its two, South ejects
  out.clear();
  r.step(2, out);
  EXPECT_EQ(out.size(), 1u);
  EXPECT_EQ(r.buffered(), 0);
}

TEST(NocRouter, VcAllocationStaysInTheVnet) {
  Router r = make_router(3, 2, 4);
  r.accept(kWest, 2 * 2 + 1, flit(1, 0, 2, 2, 1), kEast);  // vnet 2 uses VCs 4..5
  std::vector<Departure> out;
  r.step(1, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_GE(out[0].out_vc, 4);
  EXPECT_LE(out[0].out_vc, 5);
  EXPECT_THROW(r.accept(kSouth, 0, flit(9, 0, 1, 1, 1), kEast), std::logic_error);  // vnet 1 flit on a vnet-0 VC
}

TEST(NocRouter, AtomicOutputVcIsReusedOnlyAfterTheTailCredit) {
  Router r = make_router(1, 1, 4, 1, /*atomic=*/true);
  std::vector<Departure> out;
  r.accept(kWest, 0, flit(1, 0, 1, 0, 1), kEast);
  r.accept(kSouth, 0, flit(2, 0, 1, 0, 1), kEast);
  r.step(1, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(r.output(kEast, 0).owner, out[0].in_port);  // held until the tail's credit returns
  for (int64_t c = 2; c < 6; ++c) {
    out.clear();
    r.step(c, out);
    EXPECT_TRUE(out.empty()) << "the single VC is still owned at " << c;
  }
  r.credit(kEast, 0, true);  // tail credit: the downstream VC is empty again
  out.clear();
  r.step(6, out);
  EXPECT_EQ(out.size(), 1u);
}

TEST(NocRouter, AfterTailOneVcCarriesOnePacketPerCycle) {
  // One VC, depth 4, credits back immediately: 1-flit packets from two inputs share
  // it back to back (atomic reuse would give one per credit round trip).
  Router r = make_router(1, 1, 4);
  std::vector<Departure> out;
  r.accept(kWest, 0, flit(1, 0, 1, 0, 1), kEast);
  r.accept(kSouth, 0, flit(2, 0, 1, 0, 1), kEast);
  for (int64_t c = 1; c <= 2; ++c) {
    out.clear();
    r.step(c, out);
    ASSERT_EQ(out.size(), 1u) << "cycle " << c;
    EXPECT_EQ(out[0].out_vc, 0);
    r.credit(kEast, 0, true);  // the tail flag frees nothing here: the VC was free already
  }
}

TEST(NocRouter, AfterTailPacketsQueueInOneInputVcWithTheirOwnRoutes) {
  // Two packets follow each other into one input VC: the second head waits behind the
  // first packet's tail, then takes its own route (North, not East) with no gap.
  Router r = make_router(1, 1, 4);
  std::vector<Departure> out;
  r.accept(kWest, 0, flit(1, 0, 2, 0, 1), kEast);
  r.accept(kWest, 0, flit(1, 1, 2, 0, 2), -1);
  r.accept(kWest, 0, flit(2, 0, 1, 0, 3), kNorth);
  std::vector<int> ports;
  for (int64_t c = 1; c <= 3; ++c) {
    out.clear();
    r.step(c, out);
    ASSERT_EQ(out.size(), 1u) << "cycle " << c;
    ports.push_back(out[0].out_port);
  }
  EXPECT_EQ(ports, (std::vector<int>{kEast, kEast, kNorth}));
  EXPECT_EQ(r.buffered(), 0);
}

TEST(NocRouter, CreditsStopAPacketAtTheBufferDepth) {
  Router r = make_router(1, 1, 2);
  std::vector<Departure> out;
  // A 2-flit-deep downstream VC and a 6-flit packet: two flits leave, then it waits.
  r.accept(kWest, 0, flit(1, 0, 6, 0, 1), kEast);
  r.accept(kWest, 0, flit(1, 1, 6, 0, 2), -1);
  for (int64_t c = 1; c <= 5; ++c) r.step(c, out);
  EXPECT_EQ(out.size(), 2u);
  EXPECT_EQ(r.output(kEast, 0).credits.credits(), 0);
  r.accept(kWest, 0, flit(1, 2, 6, 0, 6), -1);
  r.step(6, out);
  EXPECT_EQ(out.size(), 2u);
  r.credit(kEast, 0, false);
  r.step(7, out);
  EXPECT_EQ(out.size(), 3u);
}

TEST(NocRouter, InvariantViolationsThrow) {
  Router r = make_router(1, 1, 2);
  r.accept(kWest, 0, flit(1, 0, 4, 0, 1), kEast);
  r.accept(kWest, 0, flit(1, 1, 4, 0, 1), -1);
  EXPECT_THROW(r.accept(kWest, 0, flit(1, 2, 4, 0, 1), -1), std::logic_error);   // overflow: sent without credit
  EXPECT_THROW(r.accept(kSouth, 0, flit(2, 1, 4, 0, 1), -1), std::logic_error);  // body without head
  EXPECT_THROW(r.credit(kEast, 0, false), std::logic_error);                     // credit beyond the depth
  EXPECT_THROW(r.credit(kLocal, 0, false), std::logic_error);                    // ejection port has no credits
  Router s = make_router(1, 1, 4);
  s.accept(kWest, 0, flit(1, 0, 3, 0, 1), kEast);
  EXPECT_THROW(s.accept(kWest, 0, flit(2, 0, 1, 0, 1), kEast), std::logic_error);  // head cuts into a packet
  Router a = make_router(1, 1, 4, 1, /*atomic=*/true);
  a.accept(kWest, 0, flit(1, 0, 1, 0, 1), kEast);
  EXPECT_THROW(a.accept(kWest, 0, flit(2, 0, 1, 0, 1), kEast), std::logic_error);  // atomic: VC not empty
  EXPECT_THROW(a.credit(kNorth, 0, true), std::logic_error);                        // atomic: tail credit, free VC
}

TEST(NocRouter, EjectionCapacityBackPressures) {
  Router r = make_router(2, 1, 4);
  r.set_sink_capacity(kLocal, 0, 1);
  std::vector<Departure> out;
  r.accept(kWest, 0, flit(1, 0, 2, 0, 1), kLocal);
  r.accept(kWest, 0, flit(1, 1, 2, 0, 1), -1);
  r.accept(kNorth, 1, flit(2, 0, 1, 1, 1), kLocal);  // vnet 1 is unbounded
  for (int64_t c = 1; c <= 4; ++c) r.step(c, out);
  EXPECT_EQ(out.size(), 2u);  // one vnet-0 flit, one vnet-1 flit
  EXPECT_EQ(r.sink_capacity(kLocal, 0), 0);
  r.release_sink(kLocal, 0, 1);
  r.step(5, out);
  EXPECT_EQ(out.size(), 3u);
  EXPECT_THROW(r.set_sink_capacity(kEast, 0, 1), std::invalid_argument);
}
