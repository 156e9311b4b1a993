// The progress line: layer, cycle, share of the workload's MACs before the current
// layer, elapsed time and the ETA that share gives.
#include <gtest/gtest.h>

#include "sim/run/progress.h"

using namespace cstsim;

TEST(RunProgress, TheLineSaysLayerCycleShareAndEta) {
  const RunProgress p({{"a", 100}, {"b", 300}}, 0, false);
  EXPECT_EQ(p.line(0, 7, 0.4), "progress: layer 1/2 a, cycle 7, 0 %, 0.4 s, ETA -");
  // a's 100 of 400 MACs are done after 10 s: 30 s to go at that rate.
  EXPECT_EQ(p.line(1, 500, 10.0), "progress: layer 2/2 b, cycle 500, 25 %, 10.0 s, ETA 30 s");
  const RunProgress bar({{"a", 100}, {"b", 300}}, 0, true);
  EXPECT_EQ(bar.line(1, 500, 10.0), "[######..................] layer 2/2 b, cycle 500, 25 %, 10.0 s, ETA 30 s");
}
