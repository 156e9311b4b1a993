#pragma once
// The cstsim binary as a test sees it: a fresh directory per test, runs with their
// status, stdout and stderr, and the inputs the end-to-end tests share.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "tests/cli_util.h"

namespace fs = std::filesystem;

using Result = cstsim::testing_util::CliResult;
using cstsim::testing_util::slurp;

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    // A parameterized test's name holds a '/': one directory, not a parent left behind.
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(name.begin(), name.end(), '/', '_');
    dir_ = fs::temp_directory_path() / ("cstsim-cli-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  // CSTSIM_TEST_KEEP=1 keeps the test's files (its arch and workload files, its last outputs) to rerun a case.
  void TearDown() override {
    if (!std::getenv("CSTSIM_TEST_KEEP")) fs::remove_all(dir_);
  }

  fs::path file(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  // `env`: shell text before the binary, e.g. "CSTSIM_PYTHON=/x".
  Result cstsim(const std::string& args, const std::string& env = "") {
    const std::string cmd = env + " " + std::string(CSTSIM_BINARY) + " " + args + " >" + (dir_ / "stdout").string() +
                            " 2>" + (dir_ / "stderr").string();
    const int rc = std::system(cmd.c_str());
    return {WEXITSTATUS(rc), slurp(dir_ / "stdout"), slurp(dir_ / "stderr")};
  }
  // A script of the source tree (`command` relative to it), run from there.
  Result script(const std::string& command) {
    const std::string cmd = "cd " + std::string(CSTSIM_SOURCE_DIR) + " && " + command + " >" +
                            (dir_ / "stdout").string() + " 2>" + (dir_ / "stderr").string();
    const int rc = std::system(cmd.c_str());
    return {WEXITSTATUS(rc), slurp(dir_ / "stdout"), slurp(dir_ / "stderr")};
  }
  // Asserts the run failed with status 2, one line naming `where`, and wrote nothing.
  void expect_input_error(const std::string& args, const std::string& where) {
    const Result r = cstsim(args + " --out " + (dir_ / "run").string());
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find(where), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "run"));
    for (const auto& e : fs::directory_iterator(dir_))
      EXPECT_EQ(e.path().filename().string().find(".run"), std::string::npos) << "staging left behind";
  }
  // g.yaml: one GEMM layer `fc` of M x N x K.
  std::string gemm(int64_t M, int64_t N, int64_t K) {
    return file("g.yaml", "name: g\nlayers:\n  - {name: fc, M: " + std::to_string(M) + ", N: " + std::to_string(N) +
                              ", K: " + std::to_string(K) + "}\n")
        .string();
  }
  std::string src(const std::string& rel) { return std::string(CSTSIM_SOURCE_DIR) + "/" + rel; }
  // A 16x16 WS array on the whole memory hierarchy (HBM2, the NPU mesh, a 96 KiB
  // scratchpad in 24 banks of 32 B); `extra` adds keys (clusters: 2).
  fs::path small_hierarchy(const std::string& name, const std::string& extra = "") {
    return file(name, "array: {rows: 16, cols: 16}\ndataflow: ws\nmemory: hierarchy\n" + extra +
                          "sram: {ifmap_kib: 32, filter_kib: 16, ofmap_kib: 48}\n"
                          "hbm: {spec: " + src("configs/memory/hbm2-2000.yaml") + ", fifo_tiles: 2}\n"
                          "noc: {spec: " + src("configs/noc/npu-mesh-4x4.yaml") + "}\n"
                          "scratchpad: {banks: 24, word_bytes: 32}\n");
  }
  fs::path dir_;
};

// The actions of a traced run, summed over windows and layers (`per_layer`: "<layer>:<action>").
inline std::map<std::string, int64_t> action_totals(const fs::path& run, bool per_layer = false) {
  std::map<std::string, int64_t> n;
  std::istringstream in(slurp(run / "trace" / "actions.csv"));
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    const size_t last = line.rfind(','), unit = line.rfind(',', last - 1), action = line.rfind(',', unit - 1);
    const std::string name = line.substr(action + 1, unit - action - 1);
    n[per_layer ? line.substr(0, line.find(',')) + ":" + name : name] += std::stoll(line.substr(last + 1));
  }
  return n;
}
