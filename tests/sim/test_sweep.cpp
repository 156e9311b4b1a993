// `cstsim sweep` and `cstsim pareto` end to end on the real binary: the local
// pool, resume after SIGKILL, failures and timeouts, malformed specs (exit 2,
// one line, nothing written), the Slurm scripts, and (when Slurm is up) the
// Slurm path against the local pool.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/csv.h"
#include "sim/sweep/process.h"
#include "tests/cli_util.h"

namespace fs = std::filesystem;
namespace csv = cstsim::csv;

extern char** environ;

using Result = cstsim::testing_util::CliResult;
using cstsim::testing_util::slurp;

namespace {

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// results.csv without the host_* (timing) columns.
std::string without_host(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  EXPECT_TRUE(csv::parse(text, rows));
  if (rows.empty()) return "";
  std::vector<size_t> keep;
  for (size_t i = 0; i < rows[0].size(); ++i)
    if (rows[0][i].rfind("host_", 0) != 0) keep.push_back(i);
  std::string out;
  for (const auto& r : rows) {
    std::vector<std::string> f;
    for (size_t i : keep) f.push_back(i < r.size() ? r[i] : "");
    out += csv::row(f);
  }
  return out;
}

std::vector<std::map<std::string, std::string>> table(const fs::path& p) {
  std::vector<std::vector<std::string>> rows;
  EXPECT_TRUE(csv::parse(slurp(p), rows)) << p;
  std::vector<std::map<std::string, std::string>> out;
  for (size_t r = 1; r < rows.size(); ++r) {
    std::map<std::string, std::string> m;
    for (size_t i = 0; i < rows[0].size() && i < rows[r].size(); ++i) m[rows[0][i]] = rows[r][i];
    out.push_back(m);
  }
  return out;
}

class Sweep : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cstsim-sweep-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    file("tiny.yaml", "layers:\n  - {name: g1, M: 40, N: 24, K: 30}\n  - {name: g2, M: 40, N: 12, K: 24}\n");
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  std::string file(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  static std::string src(const std::string& rel) { return std::string(CSTSIM_SOURCE_DIR) + "/" + rel; }
  Result cstsim(const std::string& args, const std::string& env = "") {
    const std::string cmd = env + " " + std::string(CSTSIM_BINARY) + " " + args + " >" + (dir_ / "stdout").string() +
                            " 2>" + (dir_ / "stderr").string();
    const int rc = std::system(cmd.c_str());
    return {WEXITSTATUS(rc), slurp(dir_ / "stdout"), slurp(dir_ / "stderr")};
  }
  // Runs a spec's sweep into `out` (it must succeed) and returns its results.csv.
  std::vector<std::map<std::string, std::string>> swept(const std::string& spec, const fs::path& out) {
    const Result r = cstsim("sweep " + spec + " --out " + out.string() + " --jobs 2 -q");
    EXPECT_EQ(r.status, 0) << r.err;
    return table(out / "results.csv");
  }
  // base + tiny.yaml, rows = cols in {8, 16} x {ws, os}: 4 points.
  std::string tiny_spec() {
    return file("spec.yaml", "base: " + src("configs/arch/npu-128.yaml") +
                                 "\nworkloads: [tiny.yaml]\n"
                                 "grid:\n  array.rows: [8, 16]\n  array.cols: [8, 16]\n  dataflow: [ws, os]\n"
                                 "constraints: [array.rows == array.cols]\n");
  }
  fs::path dir_;
};

TEST_F(Sweep, LocalPoolEndToEndRerunRunsNothingAndPareto) {
  const std::string spec = tiny_spec();
  const fs::path out = dir_ / "sw";
  Result r = cstsim("sweep " + spec + " --out " + out.string() + " --jobs 2");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto tasks = table(out / "tasks.csv");
  ASSERT_EQ(tasks.size(), 4u);
  EXPECT_EQ(tasks[0].at("array.rows"), "8");
  EXPECT_EQ(tasks[0].at("dataflow"), "ws");
  EXPECT_EQ(tasks[3].at("array.rows"), "16");
  EXPECT_EQ(tasks[3].at("dataflow"), "os");
  const auto results = table(out / "results.csv");
  ASSERT_EQ(results.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    const auto& row = results[i];
    EXPECT_EQ(row.at("index"), std::to_string(i));
    EXPECT_EQ(row.at("status"), "done");
    EXPECT_EQ(row.at("hash"), tasks[i].at("hash"));
    // summary.json of the point carries the task's hash.
    EXPECT_NE(slurp(out / "points" / std::to_string(i) / "summary.json").find("\"config_hash\": \"" + row.at("hash")),
              std::string::npos);
    for (const char* col : {"cycles", "stall_cycles", "utilization", "V_CST.V_C.PE_s", "V_CST.V_N",
                            "Theta_CST.T_wall", "Theta_CST.M_peak.total", "H_peak.M_peak", "energy.E_gross",
                            "energy.E_marg", "roofline.I_A", "roofline.bound_by", "arch.pes", "host_wall_s"})
      EXPECT_FALSE(row.at(col).empty()) << col;
    // Figures both reports carry under two names are written once (result_columns.h).
    for (const char* alias : {"arch.rows", "time_s", "C_P.T", "roofline.time_simulated", "C_P.E", "energy.E_attrib"})
      EXPECT_EQ(row.count(alias), 0u) << alias;
    EXPECT_EQ(count(slurp(out / "logs" / (std::to_string(i) + ".log")), "=== exit 0"), 1);
  }
  const std::string columns = slurp(out / "results.columns.csv");
  EXPECT_NE(columns.find("array.rows,PE,sweep,a sweep parameter (config key): array height R; also as arch.rows (left out)"),
            std::string::npos) << columns;
  EXPECT_NE(columns.find("also as time_s C_P.T roofline.time_simulated (left out)"), std::string::npos);
  EXPECT_NE(columns.find("\ncycles,cycle,summary.json,"), std::string::npos);  // summary columns have units
  EXPECT_EQ(count(slurp(out / "results.jsonl"), "\n"), 4);
  EXPECT_FALSE(fs::exists(out / "missing.txt"));
  const std::string first = slurp(out / "results.csv");

  // The same command again: nothing runs, every log still holds one attempt.
  r = cstsim("sweep " + spec + " --out " + out.string() + " --jobs 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("4 done before, 0 to run"), std::string::npos) << r.err;
  for (int i = 0; i < 4; ++i) EXPECT_EQ(count(slurp(out / "logs" / (std::to_string(i) + ".log")), "=== point"), 1);
  EXPECT_EQ(slurp(out / "results.csv"), first);
  EXPECT_EQ(cstsim("sweep collect " + out.string()).status, 0);
  EXPECT_EQ(slurp(out / "results.csv"), first);

  // Pareto over the sweep.
  r = cstsim("pareto " + (out / "results.csv").string() + " --axes cycles,energy,m_peak");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("§140"), std::string::npos);
  EXPECT_NE(r.out.find("group workload=tiny batch=1: 4 point(s)"), std::string::npos) << r.out;
  EXPECT_EQ(table(out / "pareto.csv").size(), 4u);
  r = cstsim("pareto " + (out / "results.csv").string() + " --axes cycles,watts");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(count(r.err, "\n"), 1) << r.err;
  EXPECT_NE(r.err.find("results.csv:1: --axes: no column 'watts'"), std::string::npos) << r.err;
  // pareto.csv is rewritten, but --out never overwrites a file pareto did not write.
  EXPECT_EQ(cstsim("pareto " + (out / "results.csv").string() + " --axes cycles").status, 0);
  const std::string results_text = slurp(out / "results.csv");
  r = cstsim("pareto " + (out / "results.csv").string() + " --axes cycles --out " + (out / "results.csv").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("is not a pareto.csv written by cstsim pareto"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(out / "results.csv"), results_text);
}

// Points are keyed by config_hash, which covers the HBM and NoC files by content: a
// resumed sweep reruns the points an edited HBM file affects, and only when edited.
TEST_F(Sweep, ResumeRerunsThePointsAnEditedHbmFileAffects) {
  file("hbm.yaml", slurp(src("configs/memory/hbm2-2000.yaml")));
  file("noc.yaml", slurp(src("configs/noc/npu-mesh-4x4.yaml")));
  file("arch.yaml", "array: {rows: 16, cols: 16}\ndataflow: ws\nmemory: hierarchy\n"
                    "sram: {ifmap_kib: 32, filter_kib: 16, ofmap_kib: 48}\n"
                    "hbm: {spec: hbm.yaml}\nnoc: {spec: noc.yaml}\nscratchpad: {banks: 24, word_bytes: 32}\n");
  const std::string spec = file("spec.yaml", "base: arch.yaml\nworkloads: [tiny.yaml]\ngrid: {hbm.max_outstanding: [8, 16]}\n");
  const fs::path out = dir_ / "sw";
  ASSERT_EQ(cstsim("sweep " + spec + " --out " + out.string()).status, 0);
  Result r = cstsim("sweep " + spec + " --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("2 done before, 0 to run"), std::string::npos) << r.err;
  std::string hbm = slurp(dir_ / "hbm.yaml");
  hbm.replace(hbm.find("tCL: 18ns"), 9, "tCL: 30ns");
  file("hbm.yaml", hbm);
  r = cstsim("sweep " + spec + " --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("2 point(s) hash differently now"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("0 done before, 2 to run"), std::string::npos) << r.err;
  for (int i = 0; i < 2; ++i) EXPECT_EQ(count(slurp(out / "logs" / (std::to_string(i) + ".log")), "=== point"), 2);
  r = cstsim("sweep " + spec + " --out " + out.string());  // and then they are done
  EXPECT_NE(r.err.find("2 done before, 0 to run"), std::string::npos) << r.err;
}

// A grid may sweep any key --set takes, the HBM and NoC files' own keys included.
TEST_F(Sweep, GridsSweepHbmAndNocFileKeys) {
  const std::string spec = file("spec.yaml", "base: " + src("configs/arch/npu-128-hbm3.yaml") +
                                                 "\nworkloads: [tiny.yaml]\n"
                                                 "grid: {hbm.timing.tCL: [14ns, 60ns], noc.flit_bytes: [8, 64]}\n");
  const fs::path out = dir_ / "sw";
  const Result r = cstsim("sweep " + spec + " --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto rows = table(out / "results.csv");
  ASSERT_EQ(rows.size(), 4u);
  std::set<std::string> hashes, cycles;
  for (const auto& row : rows) {
    hashes.insert(row.at("hash"));
    cycles.insert(row.at("cycles"));
  }
  EXPECT_EQ(hashes.size(), 4u);
  EXPECT_EQ(cycles.size(), 4u) << "every knob moves the result";
  EXPECT_EQ(rows[0].at("hbm.timing.tCL"), "14ns");
  EXPECT_EQ(rows[3].at("noc.flit_bytes"), "64");
}

TEST_F(Sweep, MalformedSpecIsOneLineExit2AndWritesNothing) {
  const std::string base = "base: " + src("configs/arch/npu-128.yaml") + "\nworkloads: [tiny.yaml]\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {base + "grid:\n  array.rowz: [8]\n", "spec.yaml:4: array.rowz: unknown config key"},
      {base + "gird: {dataflow: [ws]}\n", "spec.yaml:3: gird: unknown key"},
      {base + "grid:\n  dataflow: []\n", "spec.yaml:4: dataflow: empty list"},
      {base + "grid: {array.rows: [8], array.cols: [16]}\nconstraints:\n  - array.rows == array.cols\n",
       "spec.yaml:4: constraints: no point satisfies"},
      {base + "grid: {array.rows: [8]}\nconstraints:\n  - array.rows => 8\n", "spec.yaml:5: constraints: bad constraint"},
      {base + "grid: {array.rows: [8, -8]}\n", "spec.yaml:3: array.rows:"},
  };
  for (const auto& [text, where] : cases) {
    const std::string spec = file("spec.yaml", text);
    const Result r = cstsim("sweep " + spec + " --out " + (dir_ / "sw").string());
    EXPECT_EQ(r.status, 2) << text << r.err;
    EXPECT_EQ(count(r.err, "\n"), 1) << r.err;
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(where), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "sw")) << text;
  }
  // Usage errors are exit 2 as well.
  EXPECT_EQ(cstsim("sweep " + tiny_spec()).status, 2);  // no --out
  EXPECT_EQ(cstsim("sweep " + tiny_spec() + " --out " + (dir_ / "sw").string() + " --chunk 2").status, 2);
  EXPECT_FALSE(fs::exists(dir_ / "sw"));
  // A directory holding another sweep is refused.
  ASSERT_EQ(cstsim("sweep " + tiny_spec() + " --out " + (dir_ / "sw").string() + " --dry-run").status, 0);
  file("other.yaml", base + "grid: {array.rows: [8, 32]}\n");
  const Result r = cstsim("sweep " + (dir_ / "other.yaml").string() + " --out " + (dir_ / "sw").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("holds another sweep"), std::string::npos) << r.err;
}

TEST_F(Sweep, FailedAndTimedOutPointsAreRecordedAndRetried) {
  const std::string spec = tiny_spec();
  const fs::path out = dir_ / "sw";
  // A stand-in binary: point 1 fails, point 2 hangs; the others run the real simulator.
  const std::string wrapper = file("wrapper.sh", std::string("#!/bin/sh\n"
                                                             "case \"$*\" in\n"
                                                             "  *\"/points/1 \"*) echo \"error: injected failure\" >&2; exit 3;;\n"
                                                             "  *\"/points/2 \"*) sleep 30;;\n"
                                                             "esac\n"
                                                             "exec ") + CSTSIM_BINARY + " \"$@\"\n");
  ::chmod(wrapper.c_str(), 0755);
  const auto t0 = std::chrono::steady_clock::now();
  Result r = cstsim("sweep " + spec + " --out " + out.string() + " --jobs 2 --timeout 1", "CSTSIM_SWEEP_EXE=" + wrapper);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(slurp(out / "points" / "1.failed"), "exit status 3\nerror: injected failure\n");
  EXPECT_EQ(slurp(out / "points" / "2.failed").substr(0, 19), "timeout after 1 s\ne");
  const auto results = table(out / "results.csv");
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].at("status"), "done");
  EXPECT_EQ(results[1].at("status"), "failed");
  EXPECT_EQ(results[1].at("error"), "exit status 3: error: injected failure");
  EXPECT_EQ(results[2].at("status"), "failed");
  EXPECT_EQ(results[3].at("status"), "done");
  EXPECT_TRUE(results[1].at("cycles").empty());
  const std::string missing = slurp(out / "missing.txt");
  EXPECT_NE(missing.find("1,failed,exit status 3"), std::string::npos) << missing;
  EXPECT_NE(missing.find("2,failed,timeout after 1 s"), std::string::npos) << missing;
  EXPECT_EQ(cstsim("sweep collect " + out.string()).status, 1);

  // Rerun with the real binary: the failed points are retried, the done ones are not.
  r = cstsim("sweep " + spec + " --out " + out.string() + " --jobs 2");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("2 done before, 2 to run"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out / "points" / "1.failed"));
  EXPECT_FALSE(fs::exists(out / "missing.txt"));
  EXPECT_EQ(count(slurp(out / "logs" / "0.log"), "=== point"), 1);
  EXPECT_EQ(count(slurp(out / "logs" / "1.log"), "=== point"), 2);
  for (const auto& row : table(out / "results.csv")) EXPECT_EQ(row.at("status"), "done");
}

// SIGKILL the driver after its first point completes, rerun: every point ends
// up done exactly once, no finished point runs again, and results.csv equals an
// uninterrupted run's (host_* columns aside).
TEST_F(Sweep, ResumeAfterSigkill) {
  const std::string spec =
      file("kill.yaml", "base: " + src("configs/arch/npu-128.yaml") + "\nworkloads: [" +
                            src("configs/workloads/resnet18.csv") +
                            "]\ngrid:\n  array.rows: [16, 32]\n  dataflow: [ws, os, is]\n"
                            "set: {array.cols: 32}\nrun: {keep_trace: false}\n");
  const fs::path ref = dir_ / "ref", out = dir_ / "sw";
  ASSERT_EQ(cstsim("sweep " + spec + " --out " + ref.string() + " --jobs 2 -q").status, 0);

  std::vector<std::string> args{CSTSIM_BINARY, "sweep", spec, "--out", out.string(), "--jobs", "2", "-q"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 2, (dir_ / "killed.err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, CSTSIM_BINARY, &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  auto done_points = [&]() {
    std::set<int> d;
    for (int i = 0; i < 6; ++i)
      if (fs::exists(out / "points" / std::to_string(i) / "report.json")) d.insert(i);
    return d;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (done_points().empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  const std::set<int> before = done_points();
  ASSERT_FALSE(before.empty());
  ASSERT_LT(before.size(), 6u) << "every point finished before the kill; the test needs slower points";
  std::map<int, ino_t> inode;
  for (int i : before) {
    struct stat st {};
    ::stat((out / "points" / std::to_string(i) / "summary.json").c_str(), &st);
    inode[i] = st.st_ino;
  }
  // The running points died with the driver (parent-death signal): nothing completes afterwards.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(done_points(), before);

  const Result r = cstsim("sweep " + spec + " --out " + out.string() + " --jobs 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find(std::to_string(before.size()) + " done before"), std::string::npos) << r.err;
  EXPECT_EQ(done_points().size(), 6u);
  for (int i = 0; i < 6; ++i) {
    const std::string log = slurp(out / "logs" / (std::to_string(i) + ".log"));
    EXPECT_LE(count(log, "=== exit 0"), 1) << log;
    if (before.count(i)) {
      EXPECT_EQ(count(log, "=== point"), 1) << "point " << i << " ran again:\n" << log;
      struct stat st {};
      ::stat((out / "points" / std::to_string(i) / "summary.json").c_str(), &st);
      EXPECT_EQ(st.st_ino, inode[i]) << "point " << i << " was rewritten";
    } else {
      EXPECT_LE(count(log, "=== point"), 2) << log;
    }
  }
  for (const auto& e : fs::directory_iterator(out / "points"))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << "staging left: " << e.path();
  EXPECT_EQ(without_host(slurp(out / "results.csv")), without_host(slurp(ref / "results.csv")));
  EXPECT_EQ(table(out / "results.csv").size(), 6u);
}

// The four sweep figures draw from a real sweep (PNG and PDF each).
TEST_F(Sweep, PlotScriptsDrawASweep) {
  if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "/usr/bin/python3 has no matplotlib (Debian package python3-matplotlib)";
  const fs::path out = dir_ / "sw";
  ASSERT_EQ(cstsim("sweep " + tiny_spec() + " --out " + out.string() + " --jobs 2 -q").status, 0);
  const std::string py = "/usr/bin/python3 " + src("traces/plot/");
  const std::vector<std::pair<std::string, std::string>> plots = {
      {"plot_sweep_heatmap.py " + out.string() + " --x array.rows --y dataflow --metric cycles,energy,utilization",
       "heat"},
      {"plot_pareto.py " + out.string() + " --x cycles --y energy --front cycles,energy,pes --size pes", "pareto"},
      {"plot_sweep_roofline.py " + (out / "results.csv").string(), "roof"},
      {"plot_rt_compare.py " + out.string() + " --points 0,1,3", "rt"},
  };
  for (const auto& [cmd, name] : plots) {
    const std::string prefix = (dir_ / "fig" / name).string();
    const int rc = std::system((py + cmd + " --out " + prefix + " >/dev/null 2>" + (dir_ / "plot.err").string()).c_str());
    EXPECT_EQ(rc, 0) << cmd << "\n" << slurp(dir_ / "plot.err");
    for (const char* ext : {".png", ".pdf"}) {
      EXPECT_TRUE(fs::exists(prefix + ext)) << prefix << ext;
      if (fs::exists(prefix + ext)) {
        EXPECT_GT(fs::file_size(prefix + ext), 5000u) << prefix << ext;
      }
    }
  }
  // A bad column is a one-line error.
  const int rc = std::system((py + "plot_pareto.py " + out.string() + " --x nope --out " + (dir_ / "x").string() +
                              " 2>" + (dir_ / "plot.err").string()).c_str());
  EXPECT_NE(rc, 0);
  EXPECT_EQ(slurp(dir_ / "plot.err").rfind("error: plot_pareto:", 0), 0u) << slurp(dir_ / "plot.err");
}

// array.size is a grid key (both sides of a square array), and a point that fails is drawn as
// failed in the figures, never dropped: OS drains each fold's 16 x 16 int32 sums into one of two
// output blocks (2 KiB) that a 1 KiB ofmap partition cannot hold on the 16 x 16 array, while
// every 8 x 8 point and WS (whose passes shorten its accumulator blocks) runs.
TEST_F(Sweep, ArraySizeAxisAndFailedPointsInTheFigures) {
  if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "/usr/bin/python3 has no matplotlib (Debian package python3-matplotlib)";
  const std::string base = file("h.yaml", "array: {rows: 4, cols: 4}\ndataflow: ws\nmemory: hierarchy\n"
                                          "sram: {ifmap_kib: 32, filter_kib: 2, ofmap_kib: 1}\n"
                                          "hbm: {spec: " + src("configs/memory/hbm2-2000.yaml") + "}\n"
                                          "noc: {spec: " + src("configs/noc/npu-mesh-4x4.yaml") + "}\n"
                                          "scratchpad: {banks: 140, word_bytes_per_edge: 4}\n");
  file("deep.yaml", "layers:\n  - {name: d, M: 40, N: 24, K: 150}\n");
  const std::string spec = file("spec.yaml", "base: " + base + "\nworkloads: [deep.yaml]\n"
                                             "grid:\n  array.size: [8, 16]\n  dataflow: [ws, os]\n");
  const fs::path out = dir_ / "sw";
  cstsim("sweep " + spec + " --out " + out.string() + " --jobs 2 -q");
  const auto results = table(out / "results.csv");
  ASSERT_EQ(results.size(), 4u);
  for (const auto& r : results) {
    const bool fails = r.at("array.size") == "16" && r.at("dataflow") == "os";
    EXPECT_EQ(r.at("status"), fails ? "failed" : "done") << r.at("array.size") << " " << r.at("dataflow");
    if (fails) continue;
    EXPECT_EQ(r.at("arch.pes"), r.at("array.size") == "8" ? "64" : "256");
    // The energy table that priced it, as its report names it.
    const auto report = nlohmann::json::parse(slurp(out / "points" / r.at("index") / "report.json"));
    EXPECT_EQ(r.at("energy_table.name"), report["energy_table"]["name"].get<std::string>());
    EXPECT_FALSE(r.at("energy_table.name").empty());
  }
  const std::string py = "/usr/bin/python3 " + src("traces/plot/");
  for (const std::string& cmd : {"plot_sweep_heatmap.py " + out.string() + " --x array.size --y dataflow --metric cycles",
                                 "plot_sweep_lines.py " + out.string(), "plot_pareto.py " + out.string()}) {
    const std::string log = (dir_ / "plot.out").string();
    const int rc = std::system((py + cmd + " --out " + (dir_ / "fig").string() + " >" + log + " 2>&1").c_str());
    EXPECT_EQ(rc, 0) << cmd << "\n" << slurp(log);
    EXPECT_NE(slurp(log).find("failed (1): 16 os deep"), std::string::npos) << cmd << "\n" << slurp(log);
  }
}

// `memory` is a sweep axis over one base: a point that sets memory: ideal on the full-hierarchy
// preset leaves the file's HBM, NoC and scratchpad keys out (its summary lists them), and one of
// those keys set by the spec itself is still an error naming it.
TEST_F(Sweep, MemoryIsAnAxisOverOneBase) {
  file("w.yaml", "layers:\n  - {name: a, M: 64, N: 96, K: 80}\n");
  const std::string spec = file("m.yaml", "base: " + src("configs/arch/npu-128-hbm3.yaml") +
                                              "\nworkloads: [w.yaml]\ngrid:\n  memory: [ideal, hierarchy]\n"
                                              "  array.size: [32, 64]\n");
  const fs::path out = dir_ / "sw";
  const auto results = swept(spec, out);
  ASSERT_EQ(results.size(), 4u);
  std::map<std::string, int64_t> cycles;
  for (const auto& row : results) {
    EXPECT_EQ(row.at("status"), "done");
    const auto s = nlohmann::json::parse(slurp(out / "points" / row.at("index") / "summary.json"));
    EXPECT_EQ(s["arch"]["memory"], row.at("memory"));
    EXPECT_EQ(s["arch"].contains("dropped_keys"), row.at("memory") == "ideal");
    if (row.at("memory") == "ideal") {
      const auto& dropped = s["arch"]["dropped_keys"];
      EXPECT_NE(std::find(dropped.begin(), dropped.end(), "hbm.spec"), dropped.end()) << dropped.dump();
      EXPECT_NE(std::find(dropped.begin(), dropped.end(), "scratchpad.banks"), dropped.end()) << dropped.dump();
    }
    cycles[row.at("memory") + row.at("array.size")] = s["total"]["cycles"].get<int64_t>();
  }
  EXPECT_LT(cycles["ideal32"], cycles["hierarchy32"]);  // the whole memory path costs cycles
  EXPECT_LT(cycles["ideal64"], cycles["hierarchy64"]);
  const std::string bad = file("b.yaml", "base: " + src("configs/arch/npu-128-hbm3.yaml") +
                                             "\nworkloads: [w.yaml]\ngrid:\n  memory: [ideal]\n"
                                             "set: {hbm.fifo_tiles: 2}\n");
  const Result e = cstsim("sweep " + bad + " --out " + (dir_ / "bad").string() + " --dry-run");
  EXPECT_EQ(e.status, 2);
  EXPECT_NE(e.err.find("hbm.fifo_tiles: applies only with memory: hbm or hierarchy"), std::string::npos) << e.err;
}

TEST_F(Sweep, DryRunWritesSlurmScriptsOnly) {
  const std::string spec = file("spec.yaml", "base: " + src("configs/arch/npu-128.yaml") +
                                                 "\nworkloads: [tiny.yaml]\nbatch: [1, 2]\n"
                                                 "grid: {array.rows: [8, 16], dataflow: [ws, os]}\n");
  const fs::path out = dir_ / "sw";
  const Result r = cstsim("sweep " + spec + " --out " + out.string() +
                          " --slurm --dry-run --chunk 3 --max-running 2 --partition debug --timeout 60 "
                          "--sbatch-arg=--account=x");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string array = slurp(out / "slurm" / "array.sh"), reduce = slurp(out / "slurm" / "reduce.sh"),
                    submit = slurp(out / "slurm" / "submit.sh");
  // The options are sbatch's arguments in submit.sh, shell-quoted; the job scripts carry none.
  EXPECT_EQ(count(submit, " --partition=debug "), 2) << submit;
  EXPECT_EQ(count(submit, " --account=x "), 2) << submit;
  EXPECT_EQ(count(submit, " --time="), 0) << submit;  // --time only with --time
  EXPECT_EQ(array.find("#SBATCH"), std::string::npos) << array;
  EXPECT_EQ(reduce.find("#SBATCH"), std::string::npos) << reduce;
  EXPECT_NE(array.find("sweep task " + out.string() + " --array-index \"$SLURM_ARRAY_TASK_ID\" --chunk 3 --timeout 60"),
            std::string::npos) << array;
  EXPECT_NE(reduce.find("sweep collect " + out.string()), std::string::npos) << reduce;
  EXPECT_NE(submit.find("--array=0-2%2 array.sh"), std::string::npos) << submit;  // 8 points, 3 per task
  EXPECT_NE(submit.find("--dependency=afterany:\"$array\""), std::string::npos) << submit;
  EXPECT_FALSE(fs::exists(out / "slurm" / "jobs.txt"));
  EXPECT_TRUE(fs::is_empty(out / "points"));
  EXPECT_EQ(table(out / "tasks.csv").size(), 8u);
}

// Files an injected command would create: any name starting with PWNED, anywhere below `dir`.
std::vector<std::string> planted(const fs::path& dir) {
  std::vector<std::string> found;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().rfind("PWNED", 0) == 0) found.push_back(e.path().string());
  return found;
}

// A newline (or any control character) in a value that would reach a Slurm script is
// refused before anything is written: one error line naming the field, exit 2.
TEST_F(Sweep, SlurmValuesWithControlCharactersAreRefused) {
  const std::string base = "base: " + src("configs/arch/npu-128.yaml") + "\nworkloads: [tiny.yaml]\ngrid: {array.rows: [8]}\n";
  const std::string good = file("good.yaml", base);
  const std::string named = file("named.yaml", "name: \"x\\ntouch PWNED1 #\"\n" + base);
  const std::string out = (dir_ / "sw").string();
  // dash's printf turns \n into a newline inside the argument.
  const struct {
    std::string args, field;
  } cases[] = {
      {named + " --out " + out, "name:"},
      {good + " --out " + out + " --partition \"$(printf 'debug\\ntouch PWNED2 #')\"", "--partition:"},
      {good + " --out " + out + " --time \"$(printf '1:00\\ntouch PWNED3 #')\"", "--time:"},
      {good + " --out " + out + " --sbatch-arg \"$(printf -- '--account=x\\ntouch PWNED4 #')\"", "--sbatch-arg:"},
      {good + " --out " + out + " --partition \"$(printf 'debug\\033[2J')\"", "--partition:"},
      {good + " --out \"" + out + "$(printf '\\ntouch PWNED5 #')\"", "--out:"},
      // Options that change what the job runs, or where, are not passed on.
      {good + " --out " + out + " --sbatch-arg=--wrap=id", "--sbatch-arg:"},
      {good + " --out " + out + " --sbatch-arg=--export=ALL,BASH_ENV=/tmp/x", "--sbatch-arg:"},
      {good + " --out " + out + " --sbatch-arg=other.sh", "--sbatch-arg:"},
      {good + " --out " + out + " --sbatch-arg=--chdir=/", "--sbatch-arg:"},
  };
  for (const auto& c : cases) {
    const Result r = cstsim("sweep " + c.args + " --slurm --dry-run");
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.err;
    EXPECT_EQ(count(r.err, "\n"), 1) << r.err;
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.field), std::string::npos) << c.field << " in " << r.err;
    EXPECT_FALSE(fs::exists(out)) << c.args;
    for (const auto& e : fs::directory_iterator(dir_))
      EXPECT_EQ(e.path().filename().string().rfind("sw", 0), std::string::npos) << e.path();
  }
  EXPECT_TRUE(planted(dir_).empty());
}

// Shell metacharacters in every field a user controls: the scripts parse (bash -n),
// submit.sh hands each value to sbatch as one argument, byte for byte, and running
// all three scripts for real (a stand-in sbatch records its arguments) runs nothing else.
TEST_F(Sweep, SlurmScriptsPassEveryValueVerbatim) {
  // YAML single quotes: the name is x$(touch PWNED_n1)`touch PWNED_n2`;touch PWNED_n3 #'"
  const std::string spec = file("spec.yaml", "name: 'x$(touch PWNED_n1)`touch PWNED_n2`;touch PWNED_n3 #''\"'\nbase: " + src("configs/arch/npu-128.yaml") +
                                                 "\nworkloads: [tiny.yaml]\ngrid: {array.rows: [8, 16]}\n");
  // Each value as it must reach sbatch, and the same as a POSIX-shell word for the command line.
  const std::string out = (dir_ / "sw $(touch PWNED_o1)'`touch PWNED_o2`\"%u").string();
  const std::string partition = "debug$(touch PWNED_p)", time_limit = "1:00;touch PWNED_t",
                    extra = "--comment=$(touch PWNED_c) `touch PWNED_c2` ' \" \\";
  const auto word = cstsim::testing_util::shell_word;
  Result r = cstsim("sweep " + spec + " --out " + word(out) + " --slurm --dry-run --chunk 1 --partition " +
                    word(partition) + " --time " + word(time_limit) + " --sbatch-arg=" + word(extra) +
                    " --sbatch-arg=--account=acct");
  ASSERT_EQ(r.status, 0) << r.err;
  const fs::path sd = fs::path(out) / "slurm";
  ASSERT_TRUE(fs::exists(sd / "submit.sh"));
  for (const char* script : {"array.sh", "reduce.sh", "submit.sh"}) {
    const int rc = std::system(("bash -n " + word((sd / script).string())).c_str());
    EXPECT_EQ(rc, 0) << script;
  }
  // A stand-in sbatch: one argument per line, then a job id.
  const fs::path bin = dir_ / "bin";
  fs::create_directories(bin);
  file("bin/sbatch", "#!/bin/bash\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done >> \"$SBATCH_LOG\"\n"
                     "echo '---' >> \"$SBATCH_LOG\"\necho 4242\n");
  fs::permissions(bin / "sbatch", fs::perms::owner_all);
  const std::string env = "cd " + word(dir_.string()) + " && SBATCH_LOG=" + word((dir_ / "sbatch.log").string()) +
                          " PATH=" + word(bin.string()) + ":\"$PATH\"";
  int rc = std::system((env + " bash " + word((sd / "submit.sh").string()) + " >/dev/null").c_str());
  ASSERT_EQ(rc, 0);
  rc = std::system(("cd " + word(dir_.string()) + " && SLURM_ARRAY_TASK_ID=0 bash " + word((sd / "array.sh").string()) +
                    " >/dev/null 2>&1 && SLURM_ARRAY_TASK_ID=1 bash " + word((sd / "array.sh").string()) +
                    " >/dev/null 2>&1 && bash " + word((sd / "reduce.sh").string()) + " >/dev/null 2>&1")
                       .c_str());
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(table(fs::path(out) / "results.csv").size(), 2u);  // the scripts did their own work
  // Two sbatch calls, every value one argument, unchanged.
  std::vector<std::string> args;
  {
    std::istringstream in(slurp(dir_ / "sbatch.log"));
    for (std::string line; std::getline(in, line);) args.push_back(line);
  }
  auto has = [&](const std::string& a) { return int(std::count(args.begin(), args.end(), a)); };
  EXPECT_EQ(has("---"), 2);
  EXPECT_EQ(has("--partition=" + partition), 2);
  EXPECT_EQ(has("--time=" + time_limit), 1);  // the array's tasks only
  EXPECT_EQ(has(extra), 2);
  EXPECT_EQ(has("--account=acct"), 2);
  std::string pct;  // sbatch reads % in --output as a pattern: the directory's own % is %%
  for (char c : out) pct += c == '%' ? std::string("%%") : std::string(1, c);
  EXPECT_EQ(has("--output=" + pct + "/slurm/logs/array-%A_%a.out"), 1);
  EXPECT_EQ(has("--job-name=cstsim-x__touch_PWNED_n1__touch_PWNED_n2__touch_PWNED_n3____"), 1);
  EXPECT_EQ(has("--dependency=afterany:4242"), 1);
  // No user text in a comment or #SBATCH line of any script.
  for (const char* script : {"array.sh", "reduce.sh", "submit.sh"}) {
    std::istringstream in(slurp(sd / script));
    for (std::string line; std::getline(in, line);)
      if (line.rfind('#', 0) == 0) {
        EXPECT_EQ(line.find("PWNED"), std::string::npos) << script << ": " << line;
      }
  }
  EXPECT_TRUE(planted(dir_).empty()) << planted(dir_).front();
}

// Needs a running Slurm (tools/slurm/up.sh); ctest label `slurm`. Skipped when
// sbatch is not in PATH, or the controller does not answer (unless
// CSTSIM_REQUIRE_SLURM=1, as tools/ci_slurm.sh sets, which makes that a failure).
class SweepSlurm : public Sweep {};

TEST_F(SweepSlurm, EndToEndMatchesLocalPool) {
  if (!cstsim::sweep::proc::in_path("sbatch")) GTEST_SKIP() << "sbatch is not in PATH (start Slurm with tools/slurm/up.sh)";
  std::string ping;
  if (cstsim::sweep::proc::capture({"scontrol", "ping"}, ping) != 0 || ping.find("UP") == std::string::npos) {
    if (std::getenv("CSTSIM_REQUIRE_SLURM")) FAIL() << "slurmctld does not answer: " << ping;
    GTEST_SKIP() << "sbatch is installed but slurmctld does not answer (tools/slurm/up.sh starts it)";
  }
  const std::string spec = src("configs/sweeps/ci-small.yaml");
  const fs::path local = dir_ / "local", slurm = dir_ / "slurm";
  const auto t0 = std::chrono::steady_clock::now();
  Result r = cstsim("sweep " + spec + " --out " + slurm.string() + " --slurm --chunk 2 --max-running 2 --wait");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(120));
  r = cstsim("sweep " + spec + " --out " + local.string() + " --jobs 2");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string a = without_host(slurp(slurm / "results.csv")), b = without_host(slurp(local / "results.csv"));
  EXPECT_EQ(a, b);
  EXPECT_EQ(table(slurm / "results.csv").size(), 8u);
  EXPECT_TRUE(fs::exists(slurm / "slurm" / "jobs.txt"));
  // Resubmitting a finished sweep submits nothing and collects here.
  r = cstsim("sweep " + spec + " --out " + slurm.string() + " --slurm --wait");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("every point is done"), std::string::npos) << r.err;
}

}  // namespace

namespace {

// `run: {train, sparsity}` reach every point: each runs the workload's training step over 2:4
// weights on PEs that skip them; a bad value is one line naming the spec's line.
// A sweep's batch on operator graphs: a small attention block and a small CNN at batch 1, 2, 4 on
// a weight-stationary NPU and on the row-stationary Eyeriss. The MACs the arrays count are batch x
// the batch-1 MACs computed here from the graphs' shapes; cycles grow with the batch; every layer
// and vector kernel is there at every batch; the array's size matters at every batch as at batch 1.
TEST_F(Sweep, BatchOnOperatorGraphsKeepsEveryOpAndScalesMacs) {
  file("blk.yaml", slurp(src("tests/data/attention-block.yaml")));
  file("cnn.yaml", slurp(src("tests/data/small-cnn.yaml")));
  // From the shapes as written: q, k, v projections (S x D x D) and attention's two GEMMs per head
  // (S x S x d each); conv1 18x18 out (padding 1), conv2 5x5 out of the 9x9 pool, the head.
  const int64_t S = 16, D = 32, H = 4;
  const std::map<std::string, int64_t> macs1 = {{"blk", 3 * S * D * D + 2 * H * S * S * (D / H)},
                                                {"cnn", 18 * 18 * 16 * 9 * 8 + 5 * 5 * 16 * 9 * 16 + 16 * 10}};
  const std::map<std::string, size_t> layers = {{"blk", 5}, {"cnn", 3}};
  const std::map<std::string, std::set<std::string>> vector_ops = {
      {"blk", {"norm", "attn.scale", "attn.softmax", "res", "act"}},
      {"cnn", {"relu1", "pool1", "relu2", "pool2"}}};
  struct Case {
    std::string base, dataflow, sizes, extra;
  };
  const Case cases[] = {
      {src("configs/arch/npu-128.yaml"), "ws", "[12, 16]", ""},
      {src("configs/arch/eyeriss.yaml"), "rs", "[8, 12]",
       "  vector.lanes: 16\nrun:\n  energy: " + src("configs/energy/horowitz-45nm.yaml") + "\n"}};
  for (const Case& c : cases) {
    const fs::path out = dir_ / ("sw-" + c.dataflow);
    const std::string spec = file("b-" + c.dataflow + ".yaml",
                                  "base: " + c.base + "\nworkloads: [blk.yaml, cnn.yaml]\nbatch: [1, 2, 4]\n"
                                  "grid:\n  array.rows: " + c.sizes + "\n  array.cols: " + c.sizes + "\n"
                                  "constraints: [array.rows == array.cols]\nset:\n  dataflow: " + c.dataflow + "\n" +
                                  c.extra);
    const Result r = cstsim("sweep " + spec + " --out " + out.string() + " --jobs 2");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto rows = table(out / "results.csv");
    ASSERT_EQ(rows.size(), 12u);
    std::map<std::pair<std::string, std::string>, int64_t> cycles_before;  // (workload, rows) -> cycles at the last batch
    std::map<std::pair<std::string, int64_t>, std::set<int64_t>> by_size;   // (workload, batch) -> cycles over sizes
    for (const auto& row : rows) {
      ASSERT_EQ(row.at("status"), "done") << row.at("error");
      const std::string w = row.at("workload");
      const int64_t batch = std::stoll(row.at("batch")), cycles = std::stoll(row.at("cycles"));
      EXPECT_EQ(std::stoll(row.at("macs")), batch * macs1.at(w)) << c.dataflow << " " << w << " b" << batch;
      const auto key = std::make_pair(w, row.at("array.rows"));
      if (batch > 1) EXPECT_GT(cycles, cycles_before.at(key)) << c.dataflow << " " << w << " b" << batch;
      cycles_before[key] = cycles;
      by_size[{w, batch}].insert(cycles);
      // Every layer and every vector op, at every batch.
      const nlohmann::json s = nlohmann::json::parse(slurp(out / "points" / row.at("index") / "summary.json"));
      EXPECT_EQ(s.at("layers").size(), layers.at(w)) << c.dataflow << " " << w << " b" << batch;
      std::set<std::string> ops;
      for (const auto& k : s.at("vector").at("kernels"))
        for (const auto& op : k.at("ops")) ops.insert(op.get<std::string>());
      EXPECT_EQ(ops, vector_ops.at(w)) << c.dataflow << " " << w << " b" << batch;
      int csv_rows = -1;  // layers.csv: a header and a row per layer
      std::istringstream in(slurp(out / "points" / row.at("index") / "layers.csv"));
      for (std::string line; std::getline(in, line);) ++csv_rows;
      EXPECT_EQ(csv_rows, int(layers.at(w)));
    }
    // The array's size matters at every batch as at batch 1 (it did not for the CNN under RS once
    // batched: a GEMM list without its convolutions).
    EXPECT_EQ(by_size.at({"cnn", 1}).size(), 2u) << c.dataflow;
    for (const auto& [key, cycles] : by_size)
      EXPECT_EQ(cycles.size(), by_size.at({key.first, 1}).size()) << c.dataflow << " " << key.first << " b" << key.second;
  }
}

// A multi-chip sweep (chips in the grid, the link in `set:`, and a pipeline point) completes: every
// task's hash is the config_hash its run writes, and a rerun runs nothing (reliability.md S6).
TEST_F(Sweep, MultiChipPointsAreDoneAndAResumeRunsNothing) {
  file("chip.yaml", "name: t\narray: {rows: 16, cols: 16}\ndataflow: ws\nvector: {lanes: 64}\n");
  file("wc.yaml", "name: wc\nlayers:\n  - {name: a, M: 16, N: 64, K: 64}\n  - {name: b, M: 16, N: 64, K: 64}\n");
  const std::string spec = file("mc.yaml", "base: chip.yaml\nworkloads: [wc.yaml]\n"
                                           "grid:\n  chips: [2, 4]\n  interconnect.topology: [ring, switch]\n"
                                           "points:\n  - {chips: 2, parallel.pipeline: 2, interconnect.topology: ring}\n"
                                           "set:\n  interconnect.link: " +
                                               src("configs/interconnect/nvlink4-h100.yaml") + "\n");
  const fs::path out = dir_ / "sw";
  Result r = cstsim("sweep " + spec + " --out " + out.string() + " --jobs 2");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto tasks = table(out / "tasks.csv");
  const auto rows = table(out / "results.csv");
  ASSERT_EQ(rows.size(), 5u);
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].at("status"), "done") << i << " " << rows[i].at("error");
    const nlohmann::json s = nlohmann::json::parse(slurp(out / "points" / std::to_string(i) / "summary.json"));
    EXPECT_EQ(s.at("config_hash").get<std::string>(), tasks[i].at("hash")) << i;
  }
  const std::string log0 = slurp(out / "logs" / "0.log");
  r = cstsim("sweep " + spec + " --out " + out.string() + " --jobs 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("5 done before, 0 to run"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(out / "logs" / "0.log"), log0);  // no new attempt
}

TEST_F(Sweep, RunSettingsTrainAndSparsityReachEveryPoint) {
  const std::string spec = file("t.yaml", "base: " + src("configs/arch/npu-128.yaml") + "\nworkloads: [" +
                                              (dir_ / "tiny.yaml").string() +
                                              "]\ngrid: {array.rows: [8, 16]}\nset: {array.cols: 8, "
                                              "sparsity.skip_2_4: true}\nrun: {train: full, sparsity: \"2:4\"}\n");
  const Result r = cstsim("sweep " + spec + " --out " + (dir_ / "out").string() + " --jobs 2");
  ASSERT_EQ(r.status, 0) << r.err;
  for (int p = 0; p < 2; ++p) {
    const auto s = nlohmann::json::parse(slurp(dir_ / "out" / "points" / std::to_string(p) / "summary.json"));
    EXPECT_EQ(s["training"]["recompute"], "full");
    EXPECT_FALSE(s["layers"][0].contains("sparsity"));  // g1: K = 30 is not a multiple of 4
    EXPECT_EQ(s["layers"][1]["sparsity"]["weights"], "2:4");
  }
  const std::string bad = file("b.yaml", "base: " + src("configs/arch/npu-128.yaml") + "\nworkloads: [" +
                                             (dir_ / "tiny.yaml").string() + "]\nrun:\n  train: most\n");
  const Result e = cstsim("sweep " + bad + " --out " + (dir_ / "bad").string());
  EXPECT_EQ(e.status, 2);
  EXPECT_NE(e.err.find(":4: run.train: must be one of none, selective, full; got most"), std::string::npos) << e.err;
  EXPECT_FALSE(fs::exists(dir_ / "bad"));
}

}  // namespace

namespace {

// run.trace: false runs every point with --no-trace: no trace and no report.json, a point done on
// its summary alone, and results.csv with the summary's columns; a rerun finds every point done.
TEST_F(Sweep, PointsWithoutTraces) {
  file("w.yaml", "layers:\n  - {name: a, M: 64, N: 96, K: 80}\n");
  const std::string spec = file("nt.yaml", "base: " + src("configs/arch/npu-128-hbm3.yaml") +
                                               "\nworkloads: [w.yaml]\ngrid:\n  array.size: [32, 64]\nrun:\n  trace: false\n");
  const fs::path out = dir_ / "nt";
  const auto results = swept(spec, out);
  ASSERT_EQ(results.size(), 2u);
  for (const auto& r : results) {
    EXPECT_EQ(r.at("status"), "done");
    EXPECT_FALSE(r.at("cycles").empty());
    EXPECT_FALSE(fs::exists(out / "points" / r.at("index") / "report.json"));
    EXPECT_FALSE(fs::exists(out / "points" / r.at("index") / "trace"));
  }
  const auto again = cstsim("sweep " + spec + " --out " + out.string() + " --jobs 2");
  EXPECT_NE(again.err.find("ran 0 point(s)"), std::string::npos) << again.err;
}

// run.fidelity reaches every point: a GEMV of 1024 folds through the hierarchy, sampled at each
// point, with its interval and the estimated share in results.csv; exact runs say exact.
TEST_F(Sweep, PointsRunAtTheSpecsFidelity) {
  file("w.yaml", "layers:\n  - {name: gemv, M: 1, N: 4096, K: 4096}\n");
  for (const char* f : {"sampled", "exact"}) {
    const std::string spec = file(std::string("f-") + f + ".yaml",
                                  "base: " + src("configs/arch/npu-128-hbm3.yaml") +
                                      "\nworkloads: [w.yaml]\ngrid:\n  hbm.fifo_tiles: [2, 4]\nrun:\n  trace: false\n"
                                      "  fidelity: " + f + "\n");
    const auto results = swept(spec, dir_ / f);
    ASSERT_EQ(results.size(), 2u);
    for (const auto& r : results) {
      EXPECT_EQ(r.at("status"), "done");
      EXPECT_EQ(r.at("fidelity.requested"), f);
      EXPECT_EQ(r.at("fidelity.result"), f);
      if (std::string(f) == "sampled") {
        EXPECT_GT(std::stod(r.at("cycles_ci95")), 0);
        EXPECT_GT(std::stod(r.at("fidelity.estimated_share")), 0.5);
      } else {
        EXPECT_EQ(std::stod(r.at("cycles_ci95")), 0);
      }
    }
  }
}

}  // namespace

namespace {

// Several bases in one spec: `base` is then the grid's first axis, each arch crossed with the
// workloads and the grid; results.csv names each point's base by its file's stem, and each point
// ran on its own arch. Two bases with one file name are an error on the spec's line.
TEST_F(Sweep, SeveralBasesInOneSpec) {
  file("w.yaml", "layers:\n  - {name: a, M: 64, N: 96, K: 80}\n");
  const std::string spec = file("b.yaml", "base: [" + src("configs/arch/npu-128.yaml") + ", " +
                                              src("configs/arch/npu-128-hbm3.yaml") +
                                              "]\nworkloads: [w.yaml]\ngrid:\n  dataflow: [ws, os]\n");
  const fs::path out = dir_ / "bases";
  const auto results = swept(spec, out);
  ASSERT_EQ(results.size(), 4u);
  std::map<std::string, int> per_base;
  for (const auto& row : results) {
    EXPECT_EQ(row.at("status"), "done");
    EXPECT_EQ(row.at("arch.name"), row.at("base"));  // each preset names itself after its file
    EXPECT_EQ(row.at("arch.memory"), row.at("base") == "npu-128" ? "ideal" : "hierarchy");
    ++per_base[row.at("base")];
  }
  EXPECT_EQ(per_base, (std::map<std::string, int>{{"npu-128", 2}, {"npu-128-hbm3", 2}}));
  const auto again = cstsim("sweep " + spec + " --out " + out.string() + " --jobs 2");
  EXPECT_NE(again.err.find("ran 0 point(s)"), std::string::npos) << again.err;
  const std::string twice = file("t.yaml", "base: [" + src("configs/arch/npu-128.yaml") + ",\n       " +
                                               src("configs/arch/npu-128.yaml") + "]\nworkloads: [w.yaml]\n");
  const auto bad = cstsim("sweep " + twice + " --out " + (dir_ / "t").string());
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find(twice + ":2: base: two bases have the file name npu-128.yaml"), std::string::npos) << bad.err;
}

}  // namespace
