#pragma once
// The clocks every model accepts (array, NoC, HBM): whole Hz from 1 MHz to 100 GHz.
// Below 1 MHz no accelerator of interest runs (Eyeriss, the slowest preset, is at
// 200 MHz), and the HBM would refresh many times per array cycle, so a run crawls:
// such a value is almost always a typo (1e3 for 1e9). Above 100 GHz lies beyond any
// CMOS logic clock. Whole Hz (whole ps for tCK) let the memory hierarchy keep time
// exactly on one common base (models/dma/clock_base.h).
#include <cmath>
#include <string>

#include <fmt/format.h>

namespace cstsim {

inline constexpr double kMinClockHz = 1e6, kMaxClockHz = 1e11;

// Why `hz` is not an acceptable clock, or "" when it is.
inline std::string clock_hz_problem(double hz) {
  if (!std::isfinite(hz) || hz < kMinClockHz)
    return fmt::format("{} Hz is below 1 MHz, slower than any accelerator clock (1e6 to 1e11 Hz; did you mean 1e9?)", hz);
  if (hz > kMaxClockHz) return fmt::format("{} Hz is above 100 GHz, beyond any CMOS logic clock (1e6 to 1e11 Hz)", hz);
  if (hz != std::floor(hz))
    return fmt::format("{:.6f} Hz is not a whole number of Hz (the memory hierarchy keeps time exactly in Hz)", hz);
  return "";
}

// The same bounds for a clock given as its period (HBM tCK), in ns.
inline std::string clock_period_problem(double ns) {
  if (!std::isfinite(ns) || ns < 1e9 / kMaxClockHz || ns > 1e9 / kMinClockHz)
    return fmt::format("{} ns is outside 10 ps to 1 us (clocks from 100 GHz down to 1 MHz)", ns);
  const double ps = ns * 1000.0;
  if (std::fabs(ps - std::round(ps)) > 1e-6 * ps)
    return fmt::format("{} ns is not a whole number of picoseconds (the memory hierarchy keeps time exactly)", ns);
  return "";
}

}  // namespace cstsim
