// `cstsim plot <run | sweep>`: every figure of a hierarchy run or of a sweep in one command, PNG and
// PDF each, listed on stdout; a directory that is neither is one line and status 2.
#include "tests/sim/cli_fixture.h"

namespace {

class Plot : public Cli {};

TEST_F(Plot, EveryFigureOfAHierarchyRun) {
  if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "/usr/bin/python3 has no matplotlib (Debian package python3-matplotlib)";
  const fs::path a = small_hierarchy("a.yaml");
  const fs::path w = file("w.yaml", "layers:\n  - {name: \"a, the \\\"first\\\"\", M: 200, N: 70, K: 90}\n"
                                    "  - {name: b, M: 64, N: 33, K: 70}\n");
  ASSERT_EQ(cstsim("run -q --arch " + a.string() + " --workload " + w.string() + " --out " + (dir_ / "r").string()).status, 0);
  const Result r = cstsim("plot " + (dir_ / "r").string());
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* figure : {"rt", "power", "roofline", "layers-stalls", "layers-utilization", "layers-energy",
                             "layers-traffic"})
    for (const char* ext : {".png", ".pdf"}) {
      const fs::path f = dir_ / "r" / "figures" / (std::string(figure) + ext);
      EXPECT_TRUE(fs::is_regular_file(f)) << f;
      EXPECT_GT(fs::is_regular_file(f) ? fs::file_size(f) : 0, 1000u) << f;
      EXPECT_NE(r.out.find(f.string()), std::string::npos) << r.out;
    }
  const Result bad = cstsim("plot " + dir_.string());
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("error: plot: " + dir_.string() + ": no summary.json or results.csv there"), std::string::npos)
      << bad.err;
}

// On a sweep: metrics against the swept size (one line per dataflow), the Pareto front, the roofline.
TEST_F(Plot, EveryFigureOfASweep) {
  if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "/usr/bin/python3 has no matplotlib (Debian package python3-matplotlib)";
  const Result sweep = cstsim("sweep " + src("configs/sweeps/ci-small.yaml") + " --jobs 1 --out " + (dir_ / "s").string());
  ASSERT_EQ(sweep.status, 0) << sweep.err;
  const Result r = cstsim("plot " + (dir_ / "s").string());
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* figure : {"lines", "pareto", "roofline"})
    for (const char* ext : {".png", ".pdf"}) {
      const fs::path f = dir_ / "s" / "figures" / (std::string(figure) + ext);
      EXPECT_TRUE(fs::is_regular_file(f)) << f;
      EXPECT_NE(r.out.find(f.string()), std::string::npos) << r.out;
    }
}

}  // namespace
