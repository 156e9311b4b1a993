// The hierarchy's common time base: every clock's period a whole number of ticks,
// nothing rounded, and clocks without a common tick of at least 1 fs refused
// (the DMA's own crossing: Hierarchy.TheDmaCrossesClocksExactly).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "models/dma/clock_base.h"

namespace cstsim {
namespace {

TEST(ClockBase, PeriodsAreWholeTicksOfTheLeastCommonMultiple) {
  // TPU v1's 700 MHz with a 1 GHz mesh and HBM3's 625 ps tCK (1.6 GHz): F = 56 GHz.
  const ClockBase c = make_clock_base(7e8, 1e9, 0.625);
  EXPECT_EQ(c.ticks_per_second, 56'000'000'000);
  EXPECT_EQ(c.acc, 80);
  EXPECT_EQ(c.noc, 56);
  EXPECT_EQ(c.hbm, 35);
  const ClockBase d = make_clock_base(1e9, 1e9, 0.625);  // npu-128-hbm3
  EXPECT_EQ(d.ticks_per_second, 8'000'000'000);
  EXPECT_EQ(d.acc, 8);
  EXPECT_EQ(d.hbm, 5);
  const ClockBase e = make_clock_base(1e9, 1e9, 1.0);  // HBM2: one clock
  EXPECT_EQ(e.acc, 1);
  EXPECT_EQ(e.noc, 1);
  EXPECT_EQ(e.hbm, 1);
}

TEST(ClockBase, ClocksWithoutACommonFemtosecondTickAreRefused) {
  try {
    make_clock_base(999'999'937, 1e9, 0.625);  // a prime in Hz: lcm ~ 1e18
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no common time base"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_clock_base(1e9 + 0.5, 1e9, 0.625), std::invalid_argument);
  EXPECT_THROW(make_clock_base(1e9, 1e9, 0.6255), std::invalid_argument);
}

}  // namespace
}  // namespace cstsim
