// `cstsim noc-bench`: output in text and JSON, and one-line errors with exit
// status 2 for every kind of bad flag.
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "models/noc/noc_bench.h"
#include "sim/bench/noc_bench_cli.h"

namespace {

struct BenchRun {
  int status;
  std::string out, err;
};

BenchRun bench(const std::vector<std::string>& args) {
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int status = cstsim::noc_bench_command(args);
  BenchRun r{status, ::testing::internal::GetCapturedStdout(), ::testing::internal::GetCapturedStderr()};
  return r;
}

::testing::AssertionResult fails_with(const std::vector<std::string>& args, const std::string& words) {
  const BenchRun r = bench(args);
  const bool one_line = !r.err.empty() && r.err.find('\n') == r.err.size() - 1;
  if (r.status == 2 && r.out.empty() && one_line && r.err.rfind("error: ", 0) == 0 &&
      r.err.find(words) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "status " << r.status << " stdout [" << r.out << "] stderr [" << r.err << "]";
}

}  // namespace

TEST(NocBench, JsonReportsThroughputAndLatency) {
  const BenchRun r = bench({"--mesh", "4x4", "--rate", "0.2", "--cycles", "2000", "--warmup", "200", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["mesh"]["cols"], 4);
  EXPECT_EQ(j["traffic"], "uniform");
  EXPECT_EQ(j["flits_per_packet"], 4);
  EXPECT_NEAR(j["offered_flits_per_node_cycle"].get<double>(), 0.2, 0.02);
  EXPECT_NEAR(j["accepted_flits_per_node_cycle"].get<double>(), j["offered_flits_per_node_cycle"].get<double>(), 0.01);
  EXPECT_DOUBLE_EQ(j["bound_flits_per_node_cycle"].get<double>(), 1.0);
  EXPECT_GE(j["latency_cycles"]["p99"].get<double>(), j["latency_cycles"]["avg"].get<double>());
  EXPECT_GE(j["latency_cycles"]["avg"].get<double>(), j["latency_cycles"]["zero_load_avg"].get<double>());
  EXPECT_TRUE(j["drained"].get<bool>());
  EXPECT_EQ(j["measured_packets"], j["delivered_packets"]);
}

TEST(NocBench, TextOutputAndOptions) {
  const BenchRun r = bench({"--mesh",
                            "6x6",
                            "--traffic",
                            "hotspot",
                            "--hotspot",
                            "1,4",
                            "--hotspot-fraction",
                            "0.1",
                            "--rate",
                            "0.05",
                            "--cycles",
                            "1000",
                            "--flit-bytes",
                            "32",
                            "--packet-bytes",
                            "100",
                            "--set",
                            "router_latency=2",
                            "--seed",
                            "9"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("6x6 mesh (xy), hotspot traffic, 100-byte packets = 4 flits of 32 B"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("router 2, link 1"), std::string::npos);
  EXPECT_NE(r.out.find("accepted"), std::string::npos);
  EXPECT_NE(r.out.find("p99"), std::string::npos);
  EXPECT_NE(r.out.find("ejection n(1,4)"), std::string::npos);
  const BenchRun cfg = bench({"--config", std::string(CSTSIM_SOURCE_DIR) + "/configs/noc/mesh-4x4.yaml", "--rate",
                              "0.1", "--cycles", "500", "--traffic", "transpose"});
  EXPECT_EQ(cfg.status, 0) << cfg.err;
  EXPECT_EQ(bench({"--help"}).status, 0);
}

TEST(NocBench, BadInputIsOneLineAndStatus2) {
  EXPECT_TRUE(fails_with({"--mesh", "4x4"}, "noc-bench: --rate: is required"));
  EXPECT_TRUE(fails_with({"--rate", "1.5"}, "--rate: must be in (0, 1]"));
  EXPECT_TRUE(fails_with({"--rate", "0"}, "--rate"));
  EXPECT_TRUE(fails_with({"--rate", "fast"}, "--rate: expected a number"));
  EXPECT_TRUE(fails_with({"--rate", "0.1", "--mesh", "4"}, "--mesh: expected KxK"));
  EXPECT_TRUE(fails_with({"--rate", "0.1", "--mesh", "0x4"}, "--mesh: each side"));
  EXPECT_TRUE(fails_with({"--rate", "0.1", "--traffic", "tornado"}, "--traffic: unknown traffic 'tornado'"));
  EXPECT_TRUE(fails_with({"--rate", "0.1", "--traffic", "transpose", "--mesh", "4x2"}, "square"));
  EXPECT_TRUE(fails_with({"--rate", "0.1", "--cycles", "0"}, "--cycles"));
  EXPECT_TRUE(fails_with({"--rate", "0.1", "--flit-bytes", "0"}, "--flit-bytes"));
  EXPECT_TRUE(fails_with({"--rate", "0.1", "--hotspot", "9,9", "--traffic", "hotspot"}, "--hotspot"));
  EXPECT_TRUE(fails_with({"--rate", "0.1", "--set", "vnets=0"}, "error: --set: vnets: must be 1..8"));
  EXPECT_TRUE(fails_with({"--rate", "0.1", "--set", "vnets"}, "expected key=value"));
  EXPECT_TRUE(fails_with({"--rate", "0.1", "--config", "/nonexistent/noc.yaml"}, "/nonexistent/noc.yaml: cannot open"));
  EXPECT_TRUE(fails_with({"--rate", "0.1", "--bogus"}, "noc-bench: unrecognised option '--bogus'"));
  EXPECT_TRUE(fails_with({"--rate", "0.1", "extra"}, "noc-bench:"));
}

#ifdef CSTSIM_BINARY
// Through the real binary: the command is dispatched and errors exit 2.
TEST(NocBench, DispatchedByTheCli) {
  const std::string ok = std::string(CSTSIM_BINARY) + " noc-bench --rate 0.1 --cycles 300 --json >/dev/null 2>&1";
  EXPECT_EQ(WEXITSTATUS(std::system(ok.c_str())), 0);
  const std::string bad = std::string(CSTSIM_BINARY) + " noc-bench --rate 7 >/dev/null 2>&1";
  EXPECT_EQ(WEXITSTATUS(std::system(bad.c_str())), 2);
}
#endif
