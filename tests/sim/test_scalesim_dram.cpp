// fold_pipeline: scalesim with SCALE-Sim's DRAM interface (models/scalesim/): the knobs move the
// result the way its model says, the reports stay consistent with the run, bad values are refused.
#include <nlohmann/json.hpp>

#include "core/csv.h"
#include "tests/sim/cli_fixture.h"

namespace {

std::vector<std::vector<std::string>> table(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  EXPECT_TRUE(cstsim::csv::parse(text, rows));
  return rows;
}

class ScaleSimDram : public Cli {
 protected:
  fs::path cfg(const std::string& name, const std::string& mode, const std::string& bandwidth, int kib) {
    return file(name, "[general]\nrun_name = " + name + "\n\n[architecture_presets]\nArrayHeight: 8\nArrayWidth: 8\n" +
                          "IfmapSramSzkB: " + std::to_string(kib) + "\nFilterSramSzkB: " + std::to_string(kib) +
                          "\nOfmapSramSzkB: " + std::to_string(kib) + "\nDataflow: ws\n" +
                          (bandwidth.empty() ? "" : "Bandwidth: " + bandwidth + "\n") +
                          "\n[run_presets]\nInterfaceBandwidth: " + mode + "\n");
  }
  fs::path gemm() { return file("g.csv", "Layer, M, N, K,\ng1, 64, 48, 40,\n"); }
  struct Run {
    int64_t cycles = 0, ideal = 0, stalls = 0, report_stalls = 0;
    std::vector<std::vector<std::string>> access;  // DETAILED_ACCESS_REPORT.csv
  };
  Run run(const fs::path& arch, const std::string& tag) {
    const fs::path out = dir_ / tag;
    const Result r = cstsim("run --no-trace --scalesim-reports all --arch " + arch.string() + " --workload " + gemm().string() +
                            " --out " + out.string());
    EXPECT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(slurp(out / "summary.json"));
    Run x;
    x.cycles = j["total"]["cycles"];
    x.ideal = j["total"]["ideal_cycles"];
    x.stalls = j["total"]["stalls"]["memory_bandwidth"];
    x.report_stalls = std::stoll(table(slurp(out / "COMPUTE_REPORT.csv")).at(1).at(2));
    x.access = table(slurp(out / "DETAILED_ACCESS_REPORT.csv"));
    return x;
  }
  static double field(const Run& r, size_t col) { return std::stod(r.access.at(1).at(col)); }
};

// Halving the DRAM bandwidth never makes the layer faster, and at 1 word a cycle it is far
// slower; every interface's average rate stays within the bandwidth it was given.
TEST_F(ScaleSimDram, StallsGrowAsBandwidthFalls) {
  int64_t previous = -1;
  for (int bw : {64, 16, 4, 2, 1}) {
    const Run r = run(cfg("u" + std::to_string(bw) + ".cfg", "USER", std::to_string(bw), 1), "bw" + std::to_string(bw));
    EXPECT_EQ(r.cycles, r.ideal + r.stalls) << bw;
    EXPECT_EQ(r.stalls, r.report_stalls) << bw;  // summary.json and COMPUTE_REPORT agree
    EXPECT_GE(r.stalls, previous) << bw;
    previous = r.stalls;
    for (size_t first : {10, 13}) {  // DRAM IFMAP and Filter: start, stop, words
      const double span = field(r, first + 1) - field(r, first) + 1;
      EXPECT_LE(field(r, first + 2) / span, bw + 1e-9) << bw << " column " << first;
    }
  }
  EXPECT_GT(previous, 2 * 2579) << "at 1 word a cycle the stalls outweigh the 2579 compute cycles";
}

// A bigger SRAM holds more of each operand: fewer misses, fewer stalls. CALC never stalls a read.
TEST_F(ScaleSimDram, BiggerSramAndCalcStallLess) {
  const Run small = run(cfg("s.cfg", "USER", "4", 1), "small");
  const Run big = run(cfg("b.cfg", "USER", "4", 16), "big");
  const Run calc = run(cfg("c.cfg", "CALC", "4", 1), "calc");
  EXPECT_GT(small.stalls, 0);
  EXPECT_LT(big.stalls, small.stalls);
  EXPECT_EQ(calc.stalls, 0);
  EXPECT_EQ(calc.cycles, 2579);  // F * L - 1: 30 folds of 86
}

// The register-level grid keeps SCALE-Sim's stalled slots too: --verify passes (every event at
// the timing mode's cycle, the layer ending when the last stalled row is served) and both modes
// write the same trace.
TEST_F(ScaleSimDram, RegisterLevelReferenceKeepsTheStalledSlots) {
  const fs::path arch = cfg("v.cfg", "USER", "4", 1);
  const fs::path convs = file("c.csv", "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, "
                                       "Num Filter, Strides,\nc1, 12, 12, 3, 3, 4, 8, 1,\nc2, 15, 13, 3, 2, 3, 10, 2,\n");
  for (const std::string& workload : {gemm().string(), convs.string()}) {
    const std::string common = " -q --arch " + arch.string() + " --workload " + workload + " --out ";
    const Result t = cstsim("run" + common + (dir_ / "t").string());
    const Result r = cstsim("run --verify" + common + (dir_ / "r").string());
    ASSERT_EQ(t.status, 0) << t.err;
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_GT(nlohmann::json::parse(slurp(dir_ / "t" / "summary.json"))["total"]["stall_cycles"].get<int64_t>(), 0);
    for (const char* f : {"rt.bin", "actions.csv", "slices.csv"})
      EXPECT_EQ(slurp(dir_ / "t" / "trace" / f), slurp(dir_ / "r" / "trace" / f)) << f;
  }
}

TEST_F(ScaleSimDram, BadInterfaceSettingsAreRefused) {
  expect_input_error("run --arch " + cfg("m.cfg", "FAST", "10", 1).string() + " --workload " + gemm().string(),
                     "InterfaceBandwidth: expected USER or CALC");
  expect_input_error("run --arch " + cfg("l.cfg", "USER", "10,20", 1).string() + " --workload " + gemm().string(),
                     "Bandwidth: SCALE-Sim v2 uses the first bandwidth");
  expect_input_error("run --arch " + cfg("n.cfg", "USER", "", 1).string() + " --workload " + gemm().string(),
                     "USER needs Bandwidth");
  const fs::path yaml = file("a.yaml", "array: {rows: 8, cols: 8}\ndataflow: ws\nscalesim: {interface_bandwidth: user}\n");
  expect_input_error("run --arch " + yaml.string() + " --workload " + gemm().string(),
                     "scalesim.interface_bandwidth: SCALE-Sim's DRAM interface needs fold_pipeline: scalesim");
}

// SCALE-Sim's topology quirks: a 9th field (the width's stride), a `#dw` note after the last
// comma, a DP layer run as one convolution per channel.
TEST_F(ScaleSimDram, TopologyQuirksReadAsScaleSimReadsThem) {
  const fs::path topo = file("q.csv",
                             "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n"
                             "c1, 14, 16, 3, 3, 3, 8, 1, 2,\nconv2_dw, 12, 12, 3, 3, 1, 1, 1,#dw\nDP3, 10, 10, 3, 3, 4, 1, 1,\n");
  const Result r = cstsim("run --no-trace --arch " + cfg("c.cfg", "CALC", "10", 1).string() + " --workload " + topo.string() +
                          " --out " + (dir_ / "q").string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto rows = table(slurp(dir_ / "q" / "layers.csv"));
  ASSERT_EQ(rows.size(), 1u + 2 + 4);
  EXPECT_EQ(rows[1][1], "c1");
  EXPECT_EQ(rows[1][2], "96");  // 12 x 8 output pixels: rows stride 1, columns stride 2 (SCALE-Sim's rounding)
  EXPECT_EQ(rows[2][1], "conv2_dw");
  for (int c = 0; c < 4; ++c) {
    EXPECT_EQ(rows[size_t(3 + c)][1], "DP3Channel_" + std::to_string(c));
    EXPECT_EQ(rows[size_t(3 + c)][4], "9");  // K: 3 x 3 taps of one channel
  }
  expect_input_error("run --arch " + cfg("d.cfg", "CALC", "10", 1).string() + " --workload " +
                         file("x.csv", "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n"
                                       "c1, 14, 16, 3, 3, 3, 8, 1, x\n").string(),
                     "Stride Width: must be a positive integer");
}

}  // namespace
