// `cstsim hbm-bench`: output and errors (in-process; the systemc engine elaborates once here).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim/bench/hbm_bench.h"
#include "tests/hbm_util.h"

namespace {


struct Out {
  int rc;
  std::string out, err;
};

Out bench(const std::vector<std::string>& args) {
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int rc = cstsim::hbm_bench_command(args);
  Out o{rc, ::testing::internal::GetCapturedStdout(), ::testing::internal::GetCapturedStderr()};
  return o;
}

}  // namespace

TEST(HbmBench, json_reports_bandwidth_row_hits_latency_and_refresh) {
  const Out o = bench(
      {"--memory", kHbm2, "--pattern", "seq", "--scope", "pc", "--bytes", "1MiB", "--engine", "direct", "--json"});
  ASSERT_EQ(o.rc, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["traffic"]["requests"], 32768);
  EXPECT_EQ(j["commands"]["RD"], 32768);
  EXPECT_DOUBLE_EQ(j["peak_gbps"].get<double>(), 16.0);
  EXPECT_GE(j["efficiency"].get<double>(), 0.9);
  EXPECT_NEAR(j["row_hit_rate"].get<double>(), 31.0 / 32.0, 0.005);
  EXPECT_LE(j["latency_cycles"]["p50"].get<double>(), j["latency_cycles"]["p99"].get<double>());
  EXPECT_LE(j["latency_cycles"]["p99"].get<double>(), j["latency_cycles"]["max"].get<double>());
  EXPECT_NEAR(j["refresh_share"].get<double>(), 220.0 / 3900.0, 0.005);
  EXPECT_EQ(j["memory"]["refresh"], "all_bank");
  EXPECT_EQ(j["commands"]["REFpb"], 0);
}

TEST(HbmBench, hbm3_uses_per_bank_refresh_and_sequential_reads_pass_90_percent) {
  const Out o = bench({"--memory", CSTSIM_SOURCE_DIR "/configs/memory/hbm3-6400.yaml", "--pattern", "seq", "--scope",
                       "pc", "--bytes", "4MiB", "--engine", "direct", "--json"});
  ASSERT_EQ(o.rc, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["memory"]["refresh"], "per_bank");
  EXPECT_GE(j["efficiency"].get<double>(), 0.90);
  EXPECT_EQ(j["commands"]["REF"], 0);
  EXPECT_GT(j["commands"]["REFpb"].get<int>(), 100);
  // Share of bank time inside tRFCpb: tRFCpb / tREFI = 320 / 6240 in steady state; the run's
  // first tREFI has none (every bank starts refreshed), 1/42 of this one.
  EXPECT_DOUBLE_EQ(j["refresh_share_expected"].get<double>(), 320.0 / 6240.0);
  EXPECT_NEAR(j["refresh_share"].get<double>(), 320.0 / 6240.0, 0.002);
}

TEST(HbmBench, text_table_through_the_systemc_module) {
  const Out o = bench({"--memory", kHbm2, "--pattern", "random", "--bytes", "256KiB", "--writes", "0.5"});
  ASSERT_EQ(o.rc, 0) << o.err;
  for (const char* line : {"hbm-bench: hbm2-2000 (HBM2, 16 pseudo-channel(s)", "  bandwidth     ", "  row hits      ",
                           "  latency ns    mean ", "  commands      ACT ", "  refresh       "})
    EXPECT_NE(o.out.find(line), std::string::npos) << line << "\n" << o.out;
}

TEST(HbmBench, bad_usage_is_one_line_and_status_2) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{}, "error: hbm-bench: --memory is required"},
      {{"--memory", kHbm2, "--pattern", "zigzag"}, "error: hbm-bench: --pattern: must be seq, random or strided"},
      {{"--memory", kHbm2, "--bytes", "lots"}, "error: hbm-bench: --bytes: expected a size"},
      {{"--memory", kHbm2, "--stride", "64"}, "error: hbm-bench: --stride: only with --pattern strided"},
      {{"--memory", kHbm2, "--writes", "2"}, "error: hbm-bench: --writes: must be between 0 and 1"},
      {{"--memory", kHbm2, "--set", "timing.tRP"}, "error: hbm-bench: --set: timing.tRP: expected key=value"},
      {{"--memory", kHbm2, "--set", "timing.tRP=x"}, "error: hbm-bench: --set: timing.tRP: expected a number"},
      {{"--memory", "/nonexistent.yaml"}, "error: hbm-bench: /nonexistent.yaml: cannot open file"},
  };
  for (const auto& [args, want] : cases) {
    const Out o = bench(args);
    EXPECT_EQ(o.rc, 2);
    EXPECT_EQ(o.err.rfind(want, 0), 0u) << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_EQ(o.out, "");
  }
}
