// `cstsim collective` and the link presets (configs/interconnect): the worked check end
// to end, the presets as their sources give them, and bad inputs as one line with exit 2.
#include <nlohmann/json.hpp>

#include "tests/sim/cli_fixture.h"

namespace {

using nlohmann::json;

class Collective : public Cli {};

TEST_F(Collective, TheWorkedCheckEndToEnd) {
  const fs::path link = file("l.yaml", "bandwidth_gbps: 400\nlatency_ns: 936\n");
  const Result r = cstsim("collective --link " + link.string() + " --chips 8 --bytes 1GiB --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  // 14 steps of 936 ns + 134217728 B / 400 GB/s: 4.7107 ms (docs/design/multi-chip.md §2.1).
  EXPECT_DOUBLE_EQ(j["time_s"].get<double>(), 14 * (936e-9 + 134217728 / 400e9));
  for (const json& sent : j["bytes_sent_per_chip"]) EXPECT_EQ(sent.get<int64_t>(), 1879048192);
  EXPECT_EQ(j["links"].size(), 8u);
  for (const json& l : j["links"]) EXPECT_EQ(l["payload_bytes"].get<int64_t>(), 1879048192);
}

TEST_F(Collective, EveryAlgorithmFromTheCommandLine) {
  const fs::path link = file("l.yaml", "bandwidth_gbps: 100\nlatency_ns: 1000\n");
  auto time = [&](const std::string& flags) {
    const Result r = cstsim("collective --link " + link.string() + " --bytes 1MiB --json " + flags);
    EXPECT_EQ(r.status, 0) << flags << ": " << r.err;
    return json::parse(r.out)["time_s"].get<double>();
  };
  EXPECT_DOUBLE_EQ(time("--chips 16 --topology torus2d --torus-x 4 --algorithm torus2d"), 31.6608e-6);
  EXPECT_DOUBLE_EQ(time("--chips 16 --topology ring"), 49.6608e-6);
  EXPECT_DOUBLE_EQ(time("--chips 8 --topology fully_connected --algorithm halving_doubling"), 24.35008e-6);
}

TEST_F(Collective, ReductionsOnTheChipsVectorUnit) {
  // npu-128's vector unit: 512 lanes x 2 adds of 1-byte values a cycle, 1024 B/cycle of ports: the
  // ports bind, 3 B a value: 2.9296875 ps per byte at 1 GHz, 768 ns per 256 KiB chunk, in 3 steps.
  const fs::path link = file("l.yaml", "bandwidth_gbps: 100\nlatency_ns: 1000\n");
  const Result r = cstsim("collective --link " + link.string() + " --chips 4 --bytes 1MiB --json --arch " +
                          src("configs/arch/npu-128.yaml"));
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_DOUBLE_EQ(j["reduce_ps_per_byte"].get<double>(), 2.9296875);
  EXPECT_DOUBLE_EQ(j["time_s"].get<double>(), (21728640 + 3 * 768000) * 1e-12);
  const fs::path none = file("a.yaml", "array: {rows: 4, cols: 4}\ndataflow: ws\n");
  const Result bad = cstsim("collective --link " + link.string() + " --bytes 1MiB --arch " + none.string());
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("vector unit"), std::string::npos) << bad.err;
}

TEST_F(Collective, LinksOverTime) {
  // Per link and bin: wire bytes (adding up to the link's) and the busy fraction (at most 1).
  const fs::path link = file("l.yaml", "bandwidth_gbps: 100\nlatency_ns: 1000\n");
  const Result r = cstsim("collective --link " + link.string() + " --chips 4 --bytes 1MiB --json --bins 20");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  for (const json& l : j["links"]) {
    double bytes = 0, busy = 0;
    for (const json& b : l["timeline"]["wire_bytes"]) bytes += b.get<double>();
    for (const json& b : l["timeline"]["busy"]) {
      EXPECT_LE(b.get<double>(), 1 + 1e-12);
      busy += b.get<double>() * l["timeline"]["bin_s"].get<double>();
    }
    EXPECT_NEAR(bytes, l["wire_bytes"].get<double>(), 1e-6);
    EXPECT_NEAR(busy, l["busy_s"].get<double>(), 1e-15);
  }
}

TEST_F(Collective, PresetsLoadWithTheirSourcesNumbers) {
  struct Want {
    const char* file;
    double gbps, latency_ns;
  } presets[] = {{"nvlink4-h100", 450, 936.25}, {"ici-v5p", 100, 1000}, {"pcie5-x16", 63.02, 5700}};
  for (const Want& w : presets) {
    const Result r = cstsim("collective --link " + src(std::string("configs/interconnect/") + w.file + ".yaml") +
                            " --topology bidirectional_ring --chips 4 --bytes 1MiB --algorithm bidirectional_ring --json");
    ASSERT_EQ(r.status, 0) << w.file << ": " << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["link"]["name"], w.file);
    EXPECT_DOUBLE_EQ(j["link"]["bandwidth_gbps"].get<double>(), w.gbps);
    EXPECT_DOUBLE_EQ(j["link"]["latency_ns"].get<double>(), w.latency_ns);
    EXPECT_GT(j["energy_j"].get<double>(), 0);
  }
}

TEST_F(Collective, BadInputsAreOneLine) {
  auto expect_bad = [&](const std::string& link_text, const std::string& flags, const std::string& where) {
    const fs::path link = file("bad.yaml", link_text);
    const Result r = cstsim("collective --link " + link.string() + " " + flags);
    EXPECT_EQ(r.status, 2) << link_text << flags;
    EXPECT_NE(r.err.find(where), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  };
  const std::string ok = "bandwidth_gbps: 100\nlatency_ns: 1000\n";
  expect_bad("latency_ns: 1000\n", "--bytes 1MiB", "bandwidth_gbps");
  expect_bad("bandwidth_gbps: .nan\nlatency_ns: 1\n", "--bytes 1MiB", "bandwidth_gbps");
  expect_bad("bandwidth_gbps: 0\nlatency_ns: 1\n", "--bytes 1MiB", "bandwidth_gbps");
  expect_bad(ok + "bandwidth_gbps: 200\n", "--bytes 1MiB", "bad.yaml:3: bandwidth_gbps: duplicate key (first at line 1)");
  expect_bad(ok + "bandwith: 3\n", "--bytes 1MiB", "bandwith");
  expect_bad("bandwidth_gbps: 100\nlatency_ns: 0.0001\n", "--bytes 1MiB", "latency_ns");
  expect_bad(ok + "header_bytes: -4\n", "--bytes 1MiB", "header_bytes");
  expect_bad(ok, "--bytes 0", "--bytes");
  expect_bad(ok, "--bytes 3TB", "--bytes");
  expect_bad(ok, "--bytes 1MiB --chips 1", "--chips");
  expect_bad(ok, "--bytes 1MiB --chips 16 --topology torus:4x3", "--topology");
  expect_bad(ok, "--bytes 1MiB --chips 16 --topology torus2d --torus-x 3", "--torus-x");
  expect_bad(ok, "--bytes 1MiB --topology mesh", "--topology");
  expect_bad(ok, "--bytes 1MiB --op broadcast", "--op");
  expect_bad(ok, "--bytes 1MiB --op bidirectional_all_reduce", "--op");
  expect_bad(ok, "--bytes 1MiB --algorithm bidirectional_ring", "--algorithm");
  expect_bad(ok, "--bytes 1MiB --algorithm halving_doubling --chips 6 --topology fully_connected", "--chips");
  expect_bad(ok, "--bytes 1MiB --op torus_all_reduce --topology full", "--op");
  expect_bad(ok, "--bytes 1MiB --algorithm torus2d --topology fully_connected", "--algorithm");
  expect_bad(ok, "--bytes 1MiB --bins 10", "--bins");
}

}  // namespace
