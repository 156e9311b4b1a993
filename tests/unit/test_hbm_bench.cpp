// `cstsim hbm-bench`: output and errors (in-process; the systemc engine elaborates once here).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "sim/bench/hbm_bench.h"
#include "tests/hbm_util.h"

namespace {

// Request i of --pattern seq (32 B requests), alternating the two spellings of a read.
std::string fmt_address(int i) { return std::string(i % 2 ? "LD " : "R ") + std::to_string(i * 32) + "\n"; }

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
      {{"--memory", kHbm2, "--pattern", "zigzag"}, "error: hbm-bench: --pattern: must be seq, random, strided or trace"},
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

namespace {

std::string write_trace(const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::temp_directory_path() / ("cstsim_hbm_trace_" + name)).string();
  std::ofstream(path) << text;
  return path;
}

}  // namespace

// A trace of the sequential pattern's own addresses (in both spellings, with a comment and a blank
// line) is that pattern: the same requests, cycles, commands and latencies. Its writes are the ones
// it names.
TEST(HbmBench, a_trace_of_the_sequential_addresses_runs_as_the_sequential_pattern) {
  std::string text = "# the first 4096 requests of --pattern seq\n\n";
  for (int i = 0; i < 4096; ++i) text += fmt_address(i);
  const std::string path = write_trace("seq", text);
  const std::vector<std::string> common = {"--memory", kHbm2, "--scope", "pc", "--engine", "direct", "--json"};
  std::vector<std::string> seq = common, tr = common;
  for (const char* a : {"--pattern", "seq", "--bytes", "128KiB"}) seq.push_back(a);
  for (const std::string& a : {std::string("--pattern"), std::string("trace"), std::string("--trace"), path}) tr.push_back(a);
  const Out a = bench(seq), b = bench(tr);
  ASSERT_EQ(a.rc, 0) << a.err;
  ASSERT_EQ(b.rc, 0) << b.err;
  auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  EXPECT_EQ(jb["traffic"]["pattern"], "trace");
  EXPECT_EQ(jb["traffic"]["requests"], 4096);
  for (const char* k : {"cycles", "commands", "latency_cycles", "row_hit_rate", "bandwidth_gbps"}) EXPECT_EQ(ja[k], jb[k]) << k;

  const Out w = bench({"--memory", kHbm2, "--scope", "pc", "--engine", "direct", "--json", "--pattern", "trace", "--trace",
                       write_trace("rw", "R 0\nW 0x20\nST 64\nLD 96\n")});
  ASSERT_EQ(w.rc, 0) << w.err;
  const auto jw = nlohmann::json::parse(w.out);
  EXPECT_EQ(jw["commands"]["RD"], 2);
  EXPECT_EQ(jw["commands"]["WR"], 2);
  EXPECT_DOUBLE_EQ(jw["traffic"]["write_fraction"].get<double>(), 0.5);
}

TEST(HbmBench, a_bad_trace_is_refused_with_its_line) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"R 0\nREAD 32\n", ":2: trace: expected 'R|W|LD|ST <address>', got 'READ 32'"},
      {"R 0\nW\n", ":2: trace: expected 'R|W|LD|ST <address>', got 'W'"},
      {"R 0 1\n", ":1: trace: expected 'R|W|LD|ST <address>', got 'R 0 1'"},
      {"R 0x1g\n", ":1: trace: '0x1g' is not an address (decimal or 0x hex)"},
      {"R -32\n", ":1: trace: '-32' is not an address (decimal or 0x hex)"},
      {"# nothing\n", "trace: no requests in the file"},
      {"# a comment\nR 0\nR 16\n", ":3: trace: address 16 is not the start of a 32 B request inside the stack"},
      {"R 0x100000000000\n", ":1: trace: address 0x100000000000 is not the start of a 32 B request inside the stack"},
  };
  int k = 0;
  for (const auto& [text, want] : cases) {
    const Out o = bench({"--memory", kHbm2, "--engine", "direct", "--pattern", "trace", "--trace",
                         write_trace("bad" + std::to_string(k++), text)});
    EXPECT_EQ(o.rc, 2) << text;
    EXPECT_NE(o.err.find(want), std::string::npos) << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_EQ(o.out, "");
  }
  for (const auto& [args, want] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--memory", kHbm2, "--pattern", "trace"}, "--pattern trace needs --trace FILE"},
           {{"--memory", kHbm2, "--trace", "x.trace"}, "--trace: only with --pattern trace"},
           {{"--memory", kHbm2, "--pattern", "trace", "--trace", "x.trace", "--writes", "0.5"}, "--writes: not with --pattern trace"},
           {{"--memory", kHbm2, "--pattern", "trace", "--trace", "/nonexistent.trace"}, "/nonexistent.trace"}}) {
    const Out o = bench(args);
    EXPECT_EQ(o.rc, 2);
    EXPECT_NE(o.err.find(want), std::string::npos) << o.err;
    EXPECT_EQ(o.out, "");
  }
}
