// Issue 18's first cases: inputs that used to hang, crash through the SystemC kernel or be read
// wrongly now give one line naming file, line and key, exit 2, and leave nothing behind.
#include <sys/stat.h>

#include "tests/sim/cli_fixture.h"

namespace {

class InputGuards : public Cli {
 protected:
  std::string run_with(const std::string& extra) {
    return "run -q --arch " + file("a.yaml", "array: {rows: 8, cols: 8}\ndataflow: ws\n").string() + " --workload " +
           file("w.yaml", "layers:\n  - {name: a, M: 8, N: 8, K: 8}\n").string() + " " + extra;
  }
  std::string energy(const std::string& row_or_key) {
    return "--energy " + file("e.yaml", "name: t\ntemperature_K: 300\n" + row_or_key).string();
  }
  std::string normalization(const std::string& text) { return "--normalization " + file("n.yaml", text).string(); }
};

// A directory, a FIFO or a missing file as an input: refused before anything is opened (a FIFO
// with no writer used to block forever).
TEST_F(InputGuards, InputsMustBeRegularFiles) {
  fs::create_directories(dir_ / "d.yaml");
  expect_input_error("run --arch " + (dir_ / "d.yaml").string() + " --workload " + file("w.yaml", "layers: []\n").string(),
                     "d.yaml: is a directory, not a file");
  ASSERT_EQ(::mkfifo((dir_ / "f.yaml").c_str(), 0600), 0);
  expect_input_error("run --arch " + (dir_ / "f.yaml").string() + " --workload " + file("w2.yaml", "layers: []\n").string(),
                     "f.yaml: is not a regular file");
  expect_input_error("run --arch " + file("c.yaml", "array: {rows: 8, cols: 8}\ndataflow: ws\n").string() + " --workload " +
                         (dir_ / "d.yaml").string(),
                     "d.yaml: is a directory");
  ASSERT_EQ(::mkfifo((dir_ / "t.csv").c_str(), 0600), 0);  // SCALE-Sim's readers too
  expect_input_error("run --arch " + file("b.yaml", "array: {rows: 8, cols: 8}\ndataflow: ws\n").string() + " --workload " +
                         (dir_ / "t.csv").string(),
                     "t.csv: is not a regular file");
  expect_input_error("run --arch " + (dir_ / "d.yaml").string() + ".cfg --workload " + (dir_ / "t.csv").string(),
                     "d.yaml.cfg: cannot open file");
}

TEST_F(InputGuards, OneYamlDocumentPerFile) {
  expect_input_error("run --arch " + file("two.yaml", "array: {rows: 8, cols: 8}\ndataflow: ws\n---\ndataflow: os\n").string() +
                         " --workload " + file("w.yaml", "layers:\n  - {name: a, M: 8, N: 8, K: 8}\n").string(),
                     "two.yaml:3: a second YAML document");
}

// The energy table: finite numbers only, one row per action, single values where one is meant.
TEST_F(InputGuards, EnergyTableValuesAreChecked) {
  const std::string row = "actions:\n  mac.int8: {pJ: 0.3, per: MAC, source: s}\n";
  expect_input_error(run_with(energy("actions:\n  mac.int8: {pJ: .nan, per: MAC, source: s}\n")),
                     "e.yaml:4: actions.mac.int8.pJ: must be a finite number, got '.nan'");
  expect_input_error(run_with(energy("actions:\n  mac.int8: {pJ: .inf, per: MAC, source: s}\n")),
                     "actions.mac.int8.pJ: must be a finite number");
  expect_input_error(run_with(energy(row + "  mac.int8: {pJ: 0.4, per: MAC, source: s}\n")),
                     "e.yaml:5: actions.mac.int8: duplicate key (first at line 4)");
  expect_input_error(run_with(energy(row + "temperature_K: 4\n")), "temperature_K: duplicate key (first at line 2)");
  expect_input_error(run_with(energy("actions:\n  mac.int8: {pJ: 0.3, per: [x], source: s}\n")),
                     "actions.mac.int8.per: expected a single value, got a list");
  expect_input_error(run_with("--energy " + file("e2.yaml", "name: [a]\n" + row).string()), "name: expected a single value");
  expect_input_error(run_with("--energy " + file("e3.yaml", "temperature_K: .nan\n" + row).string()),
                     "temperature_K: must be a finite number");
  expect_input_error(run_with(energy(row + "static_power:\n  leak: {W: .nan, source: s}\n")),
                     "static_power.leak.W: must be a finite number");
}

TEST_F(InputGuards, NormalizationValuesAreChecked) {
  const std::string refs = "reference:\n  C_ref: {value: 1024, unit: PE}\n  M_ref: {value: 2048, unit: byte}\n"
                           "  N_ref: {value: 96, unit: link}\n  S_ref: {value: 1, unit: byte}\n";
  const std::string weights = "weights: {w_C: 1, w_M: 1, w_N: 1, w_S: 1}\n";
  expect_input_error(run_with(normalization("boundary: node\n" + refs + "weights: {w_C: .nan, w_M: 1, w_N: 1, w_S: 1}\n")),
                     "weights.w_C: must be a finite number");
  expect_input_error(run_with(normalization("boundary: node\nreference:\n  C_ref: {value: .inf, unit: PE}\n" + refs.substr(refs.find("  M_ref")) + weights)),
                     "reference.C_ref.value: must be a finite number");
  expect_input_error(run_with(normalization("boundary: [x]\n" + refs + weights)), "n.yaml:1: boundary: expected a single value");
  expect_input_error(run_with(normalization("boundary: node\nboundary: node\n" + refs + weights)),
                     "n.yaml:2: boundary: duplicate key (first at line 1)");
}

}  // namespace

namespace {

// Workload names that differ only in characters file names drop ("a b", "a_b") get derived
// files of their own: each point runs its own workload (they used to share one, and those points
// failed on every resume).
TEST_F(InputGuards, SweepWorkloadNamesThatCollideGetFilesOfTheirOwn) {
  file("a.yaml", "name: t\narray: {rows: 8, cols: 8}\ndataflow: ws\n");
  file("w1.yaml", "name: a b\nlayers:\n  - {name: g1, M: 16, N: 16, K: 16}\n");
  file("w2.yaml", "name: a_b\nlayers:\n  - {name: g1, M: 8, N: 16, K: 16}\n");
  const fs::path spec = file("s.yaml", "name: sw\nbase: a.yaml\nworkloads: [w1.yaml, w2.yaml]\nbatch: [2]\n"
                                       "grid:\n  array.rows: [8]\n");
  const Result r = cstsim("sweep " + spec.string() + " --out " + (dir_ / "sw").string() + " -q");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "sw/workloads/a_b-b2.yaml"));
  EXPECT_TRUE(fs::exists(dir_ / "sw/workloads/a_b.2-b2.yaml"));
  const std::string first = slurp(dir_ / "sw/workloads/a_b-b2.yaml"), second = slurp(dir_ / "sw/workloads/a_b.2-b2.yaml");
  EXPECT_NE(first.find("M: 32"), std::string::npos) << first;  // 16 rows x batch 2
  EXPECT_NE(second.find("M: 16"), std::string::npos) << second;
}

// A point whose report.json was damaged after it ran is not counted as done: the next sweep runs
// it again, and collect then has every point.
TEST_F(InputGuards, ADamagedSweepPointRunsAgain) {
  file("a.yaml", "name: t\narray: {rows: 8, cols: 8}\ndataflow: ws\n");
  file("w.yaml", "name: w\nlayers:\n  - {name: g1, M: 16, N: 16, K: 16}\n");
  const fs::path spec = file("s.yaml", "name: sw\nbase: a.yaml\nworkloads: [w.yaml]\ngrid:\n  array.rows: [8, 16]\n");
  const std::string sweep = "sweep " + spec.string() + " --out " + (dir_ / "sw").string() + " -q";
  ASSERT_EQ(cstsim(sweep).status, 0);
  const std::string good = slurp(dir_ / "sw/points/0/report.json");
  std::ofstream(dir_ / "sw/points/0/report.json") << good.substr(0, 10);
  const Result again = cstsim(sweep);
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(slurp(dir_ / "sw/points/0/report.json"), good);
}

// The trace size: a run whose trace is estimated past --max-trace-bytes is refused before it
// starts (the estimate of GEMM 65536^3 on 128x128 is the 6.0 GB the reliability review measured
// growing past 300 s); one that grows past it while running is stopped, and nothing is left.
TEST_F(InputGuards, TraceSizeIsBounded) {
  const fs::path arch = file("a.yaml", "array: {rows: 8, cols: 8}\ndataflow: ws\n");
  const fs::path w = file("w.yaml", "layers:\n  - {name: a, M: 256, N: 256, K: 256}\n");
  // 2^24 MACs / 64 PEs = 262144 cycles at least: (256 windows + 1 layer) x 9 actions x 40 B = 92.5 kB
  expect_input_error("run --arch " + arch.string() + " --workload " + w.string() + " --max-trace-bytes 4000",
                     "--max-trace-bytes: the trace would take about");
  // under the estimate's bar but over the real size: stopped while running
  const Result r = cstsim("run -q --arch " + arch.string() + " --workload " + w.string() +
                          " --window 1000000 --max-trace-bytes 2000 --out " + (dir_ / "run").string());
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("--max-trace-bytes: the trace passed 2000 bytes at cycle"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "run"));
  const Result ok = cstsim("run -q --arch " + arch.string() + " --workload " + w.string() + " --out " + (dir_ / "run").string());
  EXPECT_EQ(ok.status, 0) << ok.err;
}

}  // namespace
