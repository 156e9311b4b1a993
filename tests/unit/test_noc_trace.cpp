// The NoC's part of the R(t) trace (NocTrace -> TraceSink): the links-busy
// resource integrates to the links' busy cycles (V_N), and the action counters
// equal the network's own counters.
#include <filesystem>
#include <random>
#include <unistd.h>

#include <gtest/gtest.h>

#include "models/noc/network.h"
#include "models/noc/noc_trace.h"
#include "traces/reader.h"
#include "traces/sink.h"

namespace fs = std::filesystem;
using namespace cstsim;
using namespace cstsim::noc;

TEST(NocTrace, LinksBusyIntegratesToLinkBusyCycles) {
  const fs::path dir = fs::temp_directory_path() / ("cstsim_noc_trace_" + std::to_string(getpid()));
  fs::remove_all(dir);
  NocConfig c;
  c.edge_nodes = {{Side::West, 1}, {Side::East, 2}};
  Network net(c);
  int64_t end = 0;
  {
    trace::TraceSink sink({dir, c.clock_hz, 256, 1 << 10, {}});
    NocTrace observer(sink, net, "noc");
    net.set_observer(&observer);
    std::mt19937_64 rng(4);
    const int nodes = net.mesh().nodes();
    uint64_t id = 0;
    for (int64_t t = 0; t < 3000; ++t) {
      // Bursts with idle gaps, so r_N returns to 0 and idle stretches are skipped.
      if ((t / 500) % 2 == 0) {
        for (NodeId s = 0; s < nodes; ++s) {
          if (std::uniform_real_distribution<double>(0, 1)(rng) >= 0.05) continue;
          const NodeId dst = NodeId(std::uniform_int_distribution<int>(0, nodes - 1)(rng));
          net.inject(Packet{s, dst, int(id % 2), 48, id, t});
          ++id;
        }
      }
      net.run_until(t + 1);
      sink.advance(t + 1);  // every change up to now is final: the network never reports late
    }
    net.run_until(20000);
    ASSERT_TRUE(net.idle());
    end = net.now();
    sink.finish(end);
  }
  trace::TraceReader reader(dir);
  int id = -1;
  for (const trace::Resource& r : reader.resources())
    if (r.name == "noc.links_busy") id = int(r.id);
  ASSERT_GE(id, 0);
  EXPECT_EQ(reader.resources()[size_t(id)].cls, trace::ResourceClass::Network);
  EXPECT_EQ(reader.resources()[size_t(id)].capacity, int64_t(net.mesh().links().size()));
  int64_t value = 0, since = 0, integral = 0;
  trace::Record rec;
  while (reader.next(rec)) {
    if (int(rec.resource) != id) continue;
    integral += value * (int64_t(rec.cycle) - since);
    value = rec.value;
    since = int64_t(rec.cycle);
  }
  integral += value * (end - since);
  EXPECT_EQ(value, 0);
  EXPECT_EQ(uint64_t(integral), net.stats().link_flits);
  int64_t hops = 0, link_bytes = 0;
  for (const trace::ActionRow& a : reader.actions()) {
    if (a.action == "noc.flit_hop") hops += a.count;
    if (a.action == "noc.link") link_bytes += a.count;
  }
  EXPECT_EQ(uint64_t(hops), net.stats().flit_hops);
  EXPECT_EQ(uint64_t(link_bytes), net.stats().link_flits * uint64_t(c.flit_bytes));
  fs::remove_all(dir);
}
