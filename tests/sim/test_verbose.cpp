// `-v` says what is simulated and why: the plan's choices per layer before the run and each
// layer's timing after it; without it, none of that.
#include "tests/sim/cli_fixture.h"

namespace {

class Verbose : public Cli {};

TEST_F(Verbose, DebugLogShowsThePlanAndEachLayersTiming) {
  const fs::path w = file("w.yaml", "name: w\nlayers:\n  - {name: fc0, M: 64, N: 48, K: 40}\n");
  const fs::path a = file("arch.yaml", "array: {rows: 16, cols: 16}\ndataflow: ws\n");
  const std::string base = "run --no-trace --arch " + a.string() + " --workload " + w.string() + " --out ";
  Result r = cstsim(base + (dir_ / "v").string() + " -v");
  ASSERT_EQ(r.status, 0) << r.err;
  // 64 x 48 x 40 on 16 x 16 under WS: 3 x 3 folds of the stationary 40 x 48 weights.
  EXPECT_NE(r.err.find("plan: layer 0 fc0: M 64 N 48 K 40 x1 repeats, ws, folds of the first pass 9 (3 x 3;"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("timing: layer 0 fc0: cycles 0.."), std::string::npos) << r.err;
  r = cstsim(base + (dir_ / "q").string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("plan: layer"), std::string::npos) << r.err;
}

}  // namespace
