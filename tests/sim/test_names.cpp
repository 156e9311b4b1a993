// A layer's name is the user's: one with commas, quotes and 80 characters survives every table the
// tool writes and reads (stdout, plan, layers.csv, the trace's layers.csv that `post` reads back,
// the Perfetto export) intact; a name with a line break is refused, since every table holds a name
// on one line.
#include <nlohmann/json.hpp>

#include "core/csv.h"
#include "tests/sim/cli_fixture.h"

namespace {

const std::string kLong = "encoder.layer.0.attention.self.query, the \"first\" one of a long list of names xx";

std::string yaml_quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\\\"") : std::string(1, c);
  return out + "\"";
}

class Names : public Cli {};

TEST_F(Names, CommasQuotesAndLengthSurviveEveryTable) {
  ASSERT_EQ(kLong.size(), 80u);
  const fs::path w = file("names.yaml", "name: names\nlayers:\n  - {name: " + yaml_quoted(kLong) +
                                            ", M: 64, N: 64, K: 64}\n  - {name: encoder.layer.0.attention.self.key, "
                                            "M: 64, N: 64, K: 64}\n");
  const fs::path a = file("arch.yaml", "array: {rows: 16, cols: 16}\ndataflow: ws\n");
  const Result r = cstsim("run --arch " + a.string() + " --workload " + w.string() + " --out " + (dir_ / "run").string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(kLong + "  "), std::string::npos) << r.out;  // the whole name, then the columns
  for (const char* table : {"layers.csv", "trace/layers.csv"}) {
    std::vector<std::vector<std::string>> rows;
    ASSERT_TRUE(cstsim::csv::parse(slurp(dir_ / "run" / table), rows)) << table;
    ASSERT_EQ(rows.size(), 3u) << table;
    EXPECT_EQ(rows[1][1], kLong) << table;
    EXPECT_EQ(rows[2][1], "encoder.layer.0.attention.self.key") << table;
  }
  const nlohmann::json report = nlohmann::json::parse(slurp(dir_ / "run" / "report.json"));
  EXPECT_EQ(report["layers"][0]["name"], kLong);  // `post` read the trace's table back
  const Result plan = cstsim("plan --arch " + a.string() + " --workload " + w.string());
  ASSERT_EQ(plan.status, 0) << plan.err;
  EXPECT_NE(plan.out.find(kLong + "  "), std::string::npos) << plan.out;
  const Result exported = cstsim("export perfetto " + (dir_ / "run").string());
  ASSERT_EQ(exported.status, 0) << exported.err;
  EXPECT_NE(exported.out.find("wrote " + (dir_ / "run" / "trace" / "perfetto.json").string()), std::string::npos)
      << exported.out;
  EXPECT_NE(slurp(dir_ / "run" / "trace" / "perfetto.json").find(nlohmann::json(kLong).dump()), std::string::npos);
  // A line break in a name is refused where it is written.
  fs::remove_all(dir_ / "run");
  const fs::path broken = file("broken.yaml", "name: broken\nlayers:\n  - {name: \"two\\nlines\", M: 8, N: 8, K: 8}\n");
  expect_input_error("run --arch " + a.string() + " --workload " + broken.string(), "broken.yaml:3: name:");
}

}  // namespace
