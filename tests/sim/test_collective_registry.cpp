// Collective algorithms are registered by name, and registering is all it takes to add one: the
// toy below exists only in this file, yet a run's chip set (the path `cstsim run` takes) and
// `cstsim collective` both find it by its name and run it. Also: every topology family of the
// name table builds under its own name, and every registered algorithm runs the op it claims.
#include <gtest/gtest.h>

#include <iostream>
#include <numeric>
#include <sstream>
#include <systemc>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/input_error.h"
#include "models/interconnect/algorithms/i_collective_algorithm.h"
#include "models/interconnect/chip_set.h"
#include "models/interconnect/topologies.h"
#include "sim/bench/collective_cli.h"
#include "sim/run/chips.h"
#include "tests/sim/collective_chip.h"
#include "tests/test_util.h"

namespace cstsim::ic {

// A star all-reduce: every chip sends its data to the first chip, which sends the sum back once
// all of it has arrived. On links of their own (fully connected, no contention) that takes two
// hops of alpha + S / B.
class ToyStarAllReduce : public ICollectiveAlgorithm {
 public:
  bool runs(const std::string& op) const override { return op == "all_reduce"; }
  Collective post(Fabric& f, const CollectiveCall& c) const override {
    Collective out;
    out.sent_by_chip.assign(size_t(f.topology().chips()), 0);
    auto send = [&](int src, int dst, std::vector<int> after) {
      Message m;
      m.src = src, m.dst = dst, m.bytes = c.bytes, m.after = std::move(after), m.collective = c.options.id;
      m.ready_ps = size_t(src) < c.options.ready_by_chip.size() ? c.options.ready_by_chip[size_t(src)] : c.options.start_ps;
      out.messages.push_back(f.send(m));
      out.sent_by_chip[size_t(src)] += c.bytes;
      return out.messages.back();
    };
    const int root = c.chips.front();
    std::vector<int> in;
    for (int chip : c.chips)
      if (chip != root) in.push_back(send(chip, root, {}));
    for (int chip : c.chips)
      if (chip != root) send(root, chip, in);
    return out;
  }
};

CSTSIM_REGISTER(ICollectiveAlgorithm, ToyStarAllReduce, "toy_star")

}  // namespace cstsim::ic

namespace {

using namespace cstsim;

constexpr int64_t kToyBytes = 1 << 20;
// 1 MiB at 100 GB/s is 10.48576 us on the wire, plus 1 us: twice.
constexpr int64_t kToyStarPs = 2 * (10485760 + 1000000);


TEST(CollectiveRegistry, ARegisteredToyRunsWhereTheRunRunsCollectives) {
  ASSERT_TRUE(Registry<ic::ICollectiveAlgorithm>::instance().contains("toy_star"));
  ArchSpec a;  // what the arch reader gives for chips: 4 on a fully connected fabric
  a.chips = 4;
  a.interconnect.topology = "fully_connected";
  a.link_spec = ic::LinkSpec{100, 1000000, 0, 0, 0};
  a.vector.lanes = 0;  // no reduction time: the closed form is the links' alone
  ic::ChipSetParams p = chip_set_params(a);
  EXPECT_EQ(p.topology.name(), "fully_connected");
  p.algorithms["all_reduce"] = "toy_star";  // the run picks by name; the topology's choice is the ring
  CollectiveKernelPlan k;
  k.name = "x.all_reduce", k.op = "all_reduce", k.bytes = kToyBytes;
  ic::ChipSet set(p, {k}, nullptr);
  std::vector<int64_t> end(4, -1);
  std::vector<std::unique_ptr<testing_util::CollectiveChip>> chips;
  for (int c = 0; c < 4; ++c)
    chips.push_back(std::make_unique<testing_util::CollectiveChip>(fmt::format("toy_chip{}", c).c_str(), set, c, end[size_t(c)]));
  sc_core::sc_start();
  ASSERT_EQ(set.runs().size(), 1u);
  const ic::CollectiveRun& r = set.runs()[0];
  EXPECT_EQ(r.algorithm, "toy_star");
  EXPECT_EQ(r.messages, 6);
  EXPECT_EQ(r.sent_bytes, (std::vector<int64_t>{3 * kToyBytes, kToyBytes, kToyBytes, kToyBytes}));
  EXPECT_EQ(set.fabric().end_ps(), kToyStarPs);
  // At 1 GHz: the last byte in at 22971.52 ns, so cycle 22971 is each chip's last.
  for (int c = 1; c < 4; ++c) EXPECT_EQ(end[size_t(c)], kToyStarPs / 1000) << c;
}

TEST(CollectiveRegistry, ARegisteredToyRunsFromTheCollectiveCommand) {
  testing_util::TempDir dir;
  const std::string link = dir.write("l.yaml", "bandwidth_gbps: 100\nlatency_ns: 1000\n");
  std::ostringstream out;
  std::streambuf* was = std::cout.rdbuf(out.rdbuf());
  const int status = collective_command({"--link", link, "--chips", "4", "--topology", "fully_connected", "--bytes",
                                         "1MiB", "--algorithm", "toy_star", "--json"});
  std::cout.rdbuf(was);
  ASSERT_EQ(status, 0);
  const nlohmann::json j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["algorithm"], "toy_star");
  EXPECT_EQ(j["time_s"].get<double>(), kToyStarPs * 1e-12);
  EXPECT_EQ(j["bytes_sent_per_chip"][0].get<int64_t>(), 3 * kToyBytes);
  // An unknown name lists the known ones, the toy among them.
  try {
    collective_command({"--link", link, "--bytes", "1MiB", "--algorithm", "toy_ring"});
    FAIL() << "an unknown algorithm ran";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown collective algorithm 'toy_ring' (known: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("toy_star"), std::string::npos) << e.what();
  }
}

// Every row of the topology table makes a topology that prints its row's name, and the arch's
// choices are the table's names.
TEST(CollectiveRegistry, TopologyTableRowsBuildUnderTheirNames) {
  for (const ic::TopologyFamily& f : ic::topology_families()) {
    const int per_row = f.per_row ? 2 : 0;
    EXPECT_EQ(ic::topology_size_problem(f, 4, per_row), "") << f.name;
    EXPECT_EQ(ic::make_topology(f.name, 4, per_row).name(), f.name);
    EXPECT_EQ(ic::renamed_topology(f.name), "") << f.name;
    for (const auto& [op, algorithm] : f.algorithms) EXPECT_TRUE(ic::collective_algorithm(algorithm).runs(op)) << f.name;
  }
  for (const char* old : {"ring_both_ways", "ring2", "ring_bidirectional"})
    EXPECT_EQ(ic::renamed_topology(old), "bidirectional_ring") << old;
  EXPECT_EQ(ic::renamed_topology("full"), "fully_connected");
  EXPECT_EQ(ic::renamed_topology("torus:4x4"), "torus2d");
  // Every op's own algorithm runs it, on every family.
  for (const ic::CollectiveOp& op : ic::collective_ops())
    for (const ic::TopologyFamily& f : ic::topology_families()) {
      const ic::ICollectiveAlgorithm& a = ic::collective_algorithm(ic::default_algorithm(op.name, f.name));
      EXPECT_TRUE(a.runs(op.name)) << op.name << " on " << f.name;
      EXPECT_EQ(a.fit(ic::make_topology(f.name, 4, f.per_row ? 2 : 0)).problem, "") << op.name << " on " << f.name;
    }
}

}  // namespace
