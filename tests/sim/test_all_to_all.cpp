// The all-to-all that mixture-of-experts dispatch and combine use: each of N chips sends a distinct
// 1/N of its S-byte buffer to every other chip. It is an op of the collective table run by the
// registered `direct` algorithm, so a CollectiveStep of op all_to_all takes the run's path
// (collective engine -> ChipSet) with no code of its own. Checked here against its alpha-beta
// closed form at zero contention, through that path and through `cstsim collective`:
//   a link per pair (fully_connected): every message at once, alpha + S / (N B) on every link;
//   one switch port per chip: the N - 1 messages queue on the chip's port, (N-1) S / (N B), plus a
//   latency on each of the two links (the switch cuts through).
// Every chip sends (N-1)/N S; a switch port carries exactly that, a pair's link S / N.
#include <gtest/gtest.h>

#include <iostream>
#include <sstream>
#include <systemc>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/interconnect/chip_set.h"
#include "sim/bench/collective_cli.h"
#include "sim/run/chips.h"
#include "tests/sim/collective_chip.h"
#include "tests/test_util.h"

namespace {

using namespace cstsim;

constexpr int64_t kA2aBytes = 1 << 20;  // S, per chip
constexpr int64_t kA2aAlphaPs = 1000000;  // 1 us
// S / N at 100 GB/s (no packet headers): one message's time on a link, in ps.
int64_t a2a_message_ps(int chips) { return kA2aBytes / chips * 10; }

int64_t a2a_closed_form_ps(const std::string& topology, int chips) {
  return topology == "switch" ? (chips - 1) * a2a_message_ps(chips) + 2 * kA2aAlphaPs
                              : a2a_message_ps(chips) + kA2aAlphaPs;
}


// Through the run's path: the chip set of an arch (chip_set_params) runs the plan's all_to_all
// with the algorithm the run picks for it. One sc_start: one topology per test.
void run_all_to_all_on_chip_set(const std::string& topology, int chips) {
  ArchSpec a;
  a.chips = chips;
  a.interconnect.topology = topology;
  a.link_spec = ic::LinkSpec{100, kA2aAlphaPs, 0, 0, 0};
  a.vector.lanes = 0;
  const ic::ChipSetParams p = chip_set_params(a);
  CollectiveKernelPlan k;
  k.name = "tokens.all_to_all", k.op = "all_to_all", k.bytes = kA2aBytes;
  ic::ChipSet set(p, {k}, nullptr);
  EXPECT_EQ(set.algorithm("all_to_all"), "direct");
  std::vector<int64_t> end(size_t(chips), -1);
  std::vector<std::unique_ptr<testing_util::CollectiveChip>> procs;
  for (int c = 0; c < chips; ++c)
    procs.push_back(std::make_unique<testing_util::CollectiveChip>(fmt::format("a2a_chip{}", c).c_str(), set, c, end[size_t(c)]));
  sc_core::sc_start();

  const int64_t closed = a2a_closed_form_ps(topology, chips);
  EXPECT_EQ(set.fabric().end_ps(), closed);
  for (int c = 0; c < chips; ++c) EXPECT_EQ(end[size_t(c)], closed / 1000) << c;  // 1 GHz: its last cycle
  ASSERT_EQ(set.runs().size(), 1u);
  const ic::CollectiveRun& r = set.runs()[0];
  EXPECT_EQ(r.messages, chips * (chips - 1));
  for (int c = 0; c < chips; ++c) EXPECT_EQ(r.sent_bytes[size_t(c)], (chips - 1) * kA2aBytes / chips) << c;
  const std::vector<ic::DirectedLink>& links = set.fabric().topology().links();
  for (size_t l = 0; l < links.size(); ++l) {
    const int64_t want = topology == "switch" ? (chips - 1) * kA2aBytes / chips : kA2aBytes / chips;
    EXPECT_EQ(set.fabric().links()[l].payload_bytes, want) << links[l].from << ">" << links[l].to;
  }
}

TEST(AllToAll, OnAPairOfLinksPerChipPairItTakesOneMessageTime) { run_all_to_all_on_chip_set("fully_connected", 8); }

TEST(AllToAll, ThroughASwitchEachPortCarriesAllButItsOwnShare) { run_all_to_all_on_chip_set("switch", 8); }

// `cstsim collective --op all_to_all`: the same closed form, the same bytes, on both topologies.
TEST(AllToAll, TheCollectiveCommandGivesTheClosedForm) {
  testing_util::TempDir dir;
  const std::string link = dir.write("l.yaml", "bandwidth_gbps: 100\nlatency_ns: 1000\n");
  for (const std::string topology : {"fully_connected", "switch"})
    for (const int chips : {2, 4, 8}) {
      std::ostringstream out;
      std::streambuf* was = std::cout.rdbuf(out.rdbuf());
      const int status = collective_command({"--link", link, "--chips", std::to_string(chips), "--topology", topology,
                                             "--bytes", "1MiB", "--op", "all_to_all", "--json"});
      std::cout.rdbuf(was);
      ASSERT_EQ(status, 0) << topology << " " << chips;
      const nlohmann::json j = nlohmann::json::parse(out.str());
      EXPECT_EQ(j["algorithm"], "direct");
      EXPECT_EQ(j["time_s"].get<double>(), a2a_closed_form_ps(topology, chips) * 1e-12) << topology << " " << chips;
      for (const auto& sent : j["bytes_sent_per_chip"]) EXPECT_EQ(sent.get<int64_t>(), (chips - 1) * kA2aBytes / chips);
      for (const auto& l : j["links"]) {
        const bool port = topology == "switch";
        EXPECT_EQ(l["payload_bytes"].get<int64_t>(), port ? (chips - 1) * kA2aBytes / chips : kA2aBytes / chips)
            << topology << " " << chips << " " << l["src"] << ">" << l["dst"];
      }
    }
}

}  // namespace
