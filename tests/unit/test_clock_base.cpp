// The hierarchy's common time base: every clock's period a whole number of ticks,
// nothing rounded, and clocks without a common tick of at least 1 fs refused.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "models/dma/clock_base.h"
#include "models/dma/dma_system.h"
#include "models/hbm/hbm_spec.h"
#include "models/memory/memory_group.h"
#include "models/noc/noc_config.h"

namespace cstsim {
namespace {

std::string config(const std::string& rel) { return std::string(CSTSIM_SOURCE_DIR) + "/configs/" + rel; }

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

// 3 GHz is 333.33 ps. With the period rounded to 333 ps (as before), HBM edge 8 at
// 5 ns would be seen at array edge 16; exactly, 5 ns is array edge 15.
TEST(ClockBase, TheDmaCrossesClocksExactly) {
  ArchSpec a;
  a.rows = a.cols = 16;
  a.clock_hz = 3e9;
  a.memory = "hierarchy";
  a.hbm.spec = config("memory/hbm3-6400.yaml");
  a.noc.spec = config("noc/npu-mesh-4x4.yaml");
  a.ifmap_sram_kib = 64;
  a.filter_sram_kib = 32;
  a.ofmap_sram_kib = 32;
  a.scratchpad.banks = 16;
  a.scratchpad.word_bytes = 64;
  spad::Scratchpad sp(scratchpad_params(a));
  DmaSystem dma(a, hbm::load_hbm_spec(a.hbm.spec), noc::load_noc_config(a.noc.spec), {&sp}, {{1, 1}});
  EXPECT_EQ(dma.to_acc(8 * dma.hbm_period()), 15);
  EXPECT_EQ(dma.to_acc(8 * dma.hbm_period() + 1), 16);
  // One second is the same number of ticks on every clock.
  EXPECT_EQ(dma.acc_period() * 3'000'000'000, dma.hbm_period() * 1'600'000'000);
  EXPECT_EQ(dma.acc_period() * 3'000'000'000, dma.noc_period() * 1'000'000'000);
}

}  // namespace
}  // namespace cstsim
