// Row-stationary placement (plan/rs_placement.h): the logical PE sets of AlexNet's layers on
// Eyeriss's 12 x 14 array take the PEs the chip reports (JSSC 2017 Table V: 154, 135, 156, 156,
// 156), and the three folding cases behave as the paper describes.
#include <gtest/gtest.h>

#include "plan/rs_placement.h"

using namespace cstsim;

namespace {

// A convolution's filter rows, ifmap rows (padding included) and stride.
RsConv conv(int64_t R, int64_t H, int64_t U) { return {R, H, U}; }

TEST(RsPlacement, AlexNetOnEyerissTakesThePublishedPes) {
  // AlexNet as Eyeriss ran it (227 x 227 input; CONV2-5 padded by 2, 1, 1, 1).
  const RsConv conv1 = conv(11, 227, 4), conv2 = conv(5, 31, 1), conv3 = conv(3, 15, 1);
  EXPECT_EQ(conv1.E(), 55);
  EXPECT_EQ(conv2.E(), 27);
  EXPECT_EQ(conv3.E(), 13);
  // CONV1: 11 x 55 strip-mined to the array's width: 11 x 14, four strips (the last 13 wide).
  const RsPlacement p1 = place_rs(conv1, 12, 14);
  EXPECT_EQ(p1.active_pes(), 154);
  EXPECT_EQ(p1.strips, 4);
  // CONV2: 5 x 27 cut into two segments stacked: 5 x 14 over 5 x 13.
  const RsPlacement p2 = place_rs(conv2, 12, 14);
  EXPECT_EQ(p2.active_pes(), 135);
  EXPECT_EQ(p2.segments, 2);
  EXPECT_EQ(p2.strips, 1);
  // CONV3-5: four 3 x 13 sets stacked.
  const RsPlacement p3 = place_rs(conv3, 12, 14);
  EXPECT_EQ(p3.active_pes(), 156);
  EXPECT_EQ(p3.down, 4);
  EXPECT_EQ(p3.across, 1);
}

TEST(RsPlacement, TallNarrowAndSmallSets) {
  // A 13-row filter on 12 PE rows: two folds of filter rows, one after another.
  const RsPlacement tall = place_rs(conv(13, 40, 1), 12, 14);
  EXPECT_EQ(tall.height, 12);
  EXPECT_EQ(tall.row_folds, 2);
  EXPECT_EQ(tall.strips, 2);  // E = 28: two strips of 14 (two 12-row segments do not fit)
  // Small sets replicate across and down: 3 x 4 sets, 3 across and 4 down.
  const RsPlacement small = place_rs(conv(3, 6, 1), 12, 14);
  EXPECT_EQ(small.across, 3);
  EXPECT_EQ(small.down, 4);
  EXPECT_EQ(small.active_pes(), 144);
  // Two segments of a 3-row set, twice down.
  const RsPlacement seg = place_rs(conv(3, 22, 1), 12, 14);
  EXPECT_EQ(seg.segments, 2);
  EXPECT_EQ(seg.down, 2);
  EXPECT_EQ(seg.active_pes(), 3 * 20 * 2);
  EXPECT_THROW(place_rs(conv(3, 6, 1), 0, 14), std::invalid_argument);
}

}  // namespace
