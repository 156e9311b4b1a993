// The progress line: layer, pass, fold, cycle, the share of the workload's MACs done
// (layers before, and of the current one its passes and folds), elapsed time and the
// ETA that share gives.
#include <gtest/gtest.h>

#include "sim/run/progress.h"

using namespace cstsim;

TEST(RunProgress, TheLineSaysWhereTheRunIsAndItsEta) {
  const RunProgress p({{"a", 100}, {"b", 300}}, 0, false);
  EXPECT_EQ(p.line({0, 0, 1, 0, 8, 7}, 0.4), "progress: layer 1/2 a, fold 0/8, cycle 7, 0 %, 0.4 s, ETA -");
  // a's 100 of 400 MACs are done after 10 s: 30 s to go at that rate.
  EXPECT_EQ(p.line({1, 0, 1, 0, 4, 500}, 10.0), "progress: layer 2/2 b, fold 0/4, cycle 500, 25 %, 10.0 s, ETA 30 s");
  // In b's second pass of 2, 2 of its 4 folds in: a + 3/4 of b = 325 of 400 MACs.
  EXPECT_EQ(p.line({1, 1, 2, 2, 4, 900}, 13.0),
            "progress: layer 2/2 b, pass 2/2, fold 2/4, cycle 900, 81 %, 13.0 s, ETA 3 s");
  // A pass whose folds are not known yet: no fold count, the pass's start.
  EXPECT_EQ(p.line({1, 1, 2, 0, 0, 900}, 10.0), "progress: layer 2/2 b, pass 2/2, cycle 900, 62 %, 10.0 s, ETA 6 s");
  const RunProgress bar({{"a", 100}, {"b", 300}}, 0, true);
  EXPECT_EQ(bar.line({1, 0, 1, 0, 4, 500}, 10.0),
            "[######..................] layer 2/2 b, fold 0/4, cycle 500, 25 %, 10.0 s, ETA 30 s");
}
