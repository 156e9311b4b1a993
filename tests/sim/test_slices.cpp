// trace/slices.csv: a slice per fold on the array's track, never overlapping, inside the layer,
// the same from the register-level reference as from the timing mode, and drawn by both
// Perfetto exports.
#include <nlohmann/json.hpp>

#include "core/csv.h"
#include "tests/sim/cli_fixture.h"

namespace {

TEST_F(Cli, FoldSlicesCoverEveryFoldOnce) {
  const fs::path arch = file("a.yaml", "array: {rows: 8, cols: 8}\ndataflow: ws\n");
  const fs::path work = file("w.yaml", "layers:\n  - {name: \"a, \\\"b\\\"\", M: 20, N: 20, K: 20}\n"
                                       "  - {name: c, M: 9, N: 30, K: 17}\n");
  const std::string common = " -q --arch " + arch.string() + " --workload " + work.string() + " --out ";
  ASSERT_EQ(cstsim("run" + common + (dir_ / "t").string()).status, 0);
  ASSERT_EQ(cstsim("run --verify" + common + (dir_ / "r").string()).status, 0);
  const std::string slices = slurp(dir_ / "t" / "trace" / "slices.csv");
  EXPECT_EQ(slices, slurp(dir_ / "r" / "trace" / "slices.csv"));
  std::vector<std::vector<std::string>> rows;
  ASSERT_TRUE(cstsim::csv::parse(slices, rows));
  const auto summary = nlohmann::json::parse(slurp(dir_ / "t" / "summary.json"));
  size_t row = 1;
  int64_t previous_end = -1;
  for (const auto& layer : summary["layers"]) {
    const int64_t folds = layer["folds"]["count"];
    for (int64_t g = 0; g < folds; ++g, ++row) {
      ASSERT_LT(row, rows.size());
      EXPECT_EQ(rows[row][0], "array.folds");
      EXPECT_EQ(rows[row][1], layer["name"].get<std::string>() + " fold " + std::to_string(g));
      const int64_t start = std::stoll(rows[row][2]), end = std::stoll(rows[row][3]);
      EXPECT_GT(start, previous_end) << "slices on one track never overlap";
      EXPECT_GE(end, start);
      EXPECT_GE(start, layer["start_cycle"].get<int64_t>());
      EXPECT_LE(end, layer["end_cycle"].get<int64_t>());
      previous_end = end;
    }
  }
  EXPECT_EQ(row, rows.size());
  ASSERT_EQ(cstsim("export perfetto " + (dir_ / "t").string() + " --format json").status, 0);
  const auto j = nlohmann::json::parse(slurp(dir_ / "t" / "trace" / "perfetto.json"));
  size_t drawn = 0;
  for (const auto& e : j["traceEvents"]) drawn += e.value("cat", "") == "slice";
  EXPECT_EQ(drawn, rows.size() - 1);
}

}  // namespace
