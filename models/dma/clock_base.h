#pragma once
// The hierarchy's three clocks on one exact time base. A tick is 1/F seconds, with F
// the least common multiple of the array and NoC clocks (whole Hz) and of the HBM
// clock 1/tCK (tCK in whole picoseconds), so every edge of every clock falls on a
// whole tick and crossing from one clock to another rounds nothing: 700 MHz runs at
// 700 MHz. npu-128-hbm3 (1 GHz array and mesh, tCK 625 ps) has F = 8 GHz; a tick is
// never finer than 1 fs, which keeps 2^63 ticks >= 9,223 s of simulated time.
#include <cstdint>
#include <string>

namespace cstsim {

struct ClockBase {
  int64_t ticks_per_second = 0;
  int64_t acc = 0, noc = 0, hbm = 0;  // each clock's period, in ticks
};

inline constexpr int64_t kMaxTicksPerSecond = 1'000'000'000'000'000;  // 1 fs

// Throws std::invalid_argument (with the reason) when a clock is not a whole number of
// Hz (ps for tCK) or the clocks have no common tick of at least 1 fs.
ClockBase make_clock_base(double acc_hz, double noc_hz, double tck_ns);

}  // namespace cstsim
