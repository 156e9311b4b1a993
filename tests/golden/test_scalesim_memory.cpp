// fold_pipeline: scalesim's memory replay against SCALE-Sim v2 itself: cstsim run on SCALE-Sim's
// own .cfg and topology files writes COMPUTE_REPORT.csv, BANDWIDTH_REPORT.csv and
// DETAILED_ACCESS_REPORT.csv byte for byte as SCALE-Sim wrote them (tests/golden/scalesim-v2:
// CALC and USER bandwidth, ws/os/is, GEMM and conv topologies, a 9-field row, a `#dw` note and
// a DP layer split per channel).
#include <algorithm>
#include <cctype>
#include <vector>

#include "tests/sim/cli_fixture.h"

namespace {

const fs::path kGoldenData = fs::path(CSTSIM_SOURCE_DIR) / "tests" / "golden" / "scalesim-v2";

struct MemoryCase {
  std::string dir;  // under kGoldenData: SCALE-Sim's three reports
  std::string cfg, topology;
};

std::vector<MemoryCase> cases() {
  std::vector<MemoryCase> out = {{"v2_g16_a8_ws_calc_trace", "a8_ws_calc.cfg", "gemm16.csv"},
                           {"v2_g16_a8_os_calc_trace", "a8_os_calc.cfg", "gemm16.csv"},
                           {"v2_g16_a8_is_calc_trace", "a8_is_calc.cfg", "gemm16.csv"},
                           {"v2_g512_a32_ws_calc", "a32_ws_calc.cfg", "gemm512.csv"},
                           {"v2_g512_a32_os_calc", "a32_os_calc.cfg", "gemm512.csv"},
                           {"v2_g512_a32_is_calc", "a32_is_calc.cfg", "gemm512.csv"},
                           {"v2_resnet18_scalecfg", "scale.cfg", "Resnet18.csv"}};
  // memory/<cfg>_<topology>: small SRAMs (1-2 kB) where USER bandwidth stalls the array.
  std::vector<std::string> runs;
  for (const auto& e : fs::directory_iterator(kGoldenData / "memory")) runs.push_back(e.path().filename().string());
  std::sort(runs.begin(), runs.end());
  for (const std::string& run : runs) {
    const size_t cut = run.rfind('_');
    out.push_back({"memory/" + run, run.substr(0, cut) + ".cfg", run.substr(cut + 1) + ".csv"});
  }
  return out;
}

class ScaleSimMemory : public Cli, public ::testing::WithParamInterface<MemoryCase> {};

TEST_P(ScaleSimMemory, ReportsAreSCALESims) {
  const MemoryCase& c = GetParam();
  const fs::path out = dir_ / "run";
  const std::string inputs = " --arch " + (kGoldenData / "inputs" / c.cfg).string() + " --workload " +
                             (kGoldenData / "inputs" / c.topology).string() + " --out ";
  const Result r = cstsim("run --no-trace --scalesim-reports all" + inputs + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* report : {"COMPUTE_REPORT.csv", "BANDWIDTH_REPORT.csv", "DETAILED_ACCESS_REPORT.csv"})
    EXPECT_EQ(slurp(out / report), slurp(kGoldenData / c.dir / report)) << report;
  // By default only the compute report, the same one: the memory replayed for its stalls alone.
  const Result d = cstsim("run --no-trace" + inputs + (dir_ / "compute").string());
  ASSERT_EQ(d.status, 0) << d.err;
  EXPECT_EQ(slurp(dir_ / "compute" / "COMPUTE_REPORT.csv"), slurp(kGoldenData / c.dir / "COMPUTE_REPORT.csv"));
  // InterfaceBandwidth: USER replays the whole memory for its stalls, and writes what it found.
  const bool user = slurp(kGoldenData / "inputs" / c.cfg).find("USER") != std::string::npos;
  EXPECT_EQ(fs::exists(dir_ / "compute" / "BANDWIDTH_REPORT.csv"), user);
  EXPECT_EQ(fs::exists(dir_ / "compute" / "DETAILED_ACCESS_REPORT.csv"), user);
  const auto layers = nlohmann::json::parse(slurp(dir_ / "compute" / "summary.json"))["layers"];
  for (const auto& l : layers) EXPECT_EQ(l["dram_bytes"].is_null(), !user) << "known only where replayed";
  const auto replayed = nlohmann::json::parse(slurp(out / "summary.json"));  // kept: the loop reads into it
  for (const auto& l : replayed["layers"]) EXPECT_GT(l["dram_bytes"].get<int64_t>(), 0);
}

INSTANTIATE_TEST_SUITE_P(Runs, ScaleSimMemory, ::testing::ValuesIn(cases()), [](const auto& info) {
  std::string name = info.param.dir;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
});

}  // namespace
