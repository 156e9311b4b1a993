// fold_pipeline: scalesim against real SCALE-Sim v2 reports (tests/golden/scalesim-v2):
// every COMPUTE_REPORT column and the SRAM counts of DETAILED_ACCESS_REPORT.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "models/array/array_stats.h"
#include "models/array/fold_timing.h"
#include "sim/config/arch_spec.h"
#include "sim/workload/workload.h"

using namespace cstsim;
namespace fs = std::filesystem;

namespace {

// SCALE-Sim v2's reports and inputs (no traces), in tests/golden/scalesim-v2.
const fs::path kData = fs::path(CSTSIM_SOURCE_DIR) / "tests" / "golden" / "scalesim-v2";

std::vector<std::vector<double>> read_report(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::vector<double>> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<double> row;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, ','))
      if (field.find_first_not_of(" \r") != std::string::npos) row.push_back(std::stod(field));
    if (!row.empty()) rows.push_back(row);
  }
  return rows;
}

struct GoldenCase {
  const char* run;
  const char* cfg;
  const char* topology;
};

class ScaleSimGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(ScaleSimGolden, ReportsMatch) {
  const GoldenCase c = GetParam();
  const ArchSpec arch = load_arch((kData / "inputs" / c.cfg).string());
  ASSERT_EQ(arch.fold_pipeline, FoldPipeline::ScaleSim);
  const Workload w = load_workload((kData / "inputs" / c.topology).string());
  const auto compute = read_report(kData / c.run / "COMPUTE_REPORT.csv");
  const auto access = read_report(kData / c.run / "DETAILED_ACCESS_REPORT.csv");
  ASSERT_EQ(compute.size(), w.layers.size());
  ASSERT_EQ(access.size(), w.layers.size());
  for (size_t i = 0; i < w.layers.size(); ++i) {
    const Layer& l = w.layers[i];
    SCOPED_TRACE(l.name);
    const FoldPlan p = make_fold_plan(arch.dataflow, arch.rows, arch.cols, l.M, l.N, l.K);
    const LayerTiming t = compute_layer_timing(p, arch.fold_pipeline, 0);
    const ArrayLayerStats s = compute_layer_stats(p);
    const double cycles = double(t.reported_cycles);
    EXPECT_EQ(t.reported_cycles, int64_t(compute[i][1]));
    EXPECT_NEAR(100.0 * double(s.macs) / (arch.rows * arch.cols * cycles), compute[i][3], 1e-9);
    EXPECT_NEAR(100.0 * s.mapping_efficiency, compute[i][4], 1e-9);
    EXPECT_NEAR(100.0 * s.compute_utilization, compute[i][5], 1e-9);
    EXPECT_EQ(s.sram.ifmap_reads, int64_t(access[i][3]));
    EXPECT_EQ(s.sram.filter_reads, int64_t(access[i][6]));
    EXPECT_EQ(s.scalesim_ofmap_writes, int64_t(access[i][9]));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Runs, ScaleSimGolden,
    ::testing::Values(GoldenCase{"v2_g16_a8_ws_calc_trace", "a8_ws_calc.cfg", "gemm16.csv"},
                      GoldenCase{"v2_g16_a8_os_calc_trace", "a8_os_calc.cfg", "gemm16.csv"},
                      GoldenCase{"v2_g16_a8_is_calc_trace", "a8_is_calc.cfg", "gemm16.csv"},
                      GoldenCase{"v2_g512_a32_ws_calc", "a32_ws_calc.cfg", "gemm512.csv"},
                      GoldenCase{"v2_g512_a32_os_calc", "a32_os_calc.cfg", "gemm512.csv"},
                      GoldenCase{"v2_g512_a32_is_calc", "a32_is_calc.cfg", "gemm512.csv"},
                      GoldenCase{"v2_resnet18_scalecfg", "scale.cfg", "Resnet18.csv"}),
    [](const auto& info) { return std::string(info.param.run); });

}  // namespace
