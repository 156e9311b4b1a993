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
                     "two.yaml:4: a second YAML document");
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
