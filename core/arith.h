#pragma once
// Integer helpers shared by the mapper and the models.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace cstsim {

// ceil(a / b) for a >= 0, b > 0.
inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The most picoseconds a model's time may reach (2^62 ps, 53 days): sums of two such times still
// fit in int64, so a model adds them unchecked and tests the result against this.
constexpr int64_t kMaxPs = int64_t(1) << 62;

// ceil(v) as int64 for a time computed in floating point from the user's numbers (bytes over a
// bandwidth, cycles times a period): NaN or past kMaxPs throws std::overflow_error naming `what`
// (a one-line error, exit 2), where a plain cast would be undefined behaviour.
inline int64_t checked_ps(long double v, const std::string& what) {
  if (!(v >= 0) || v > (long double)kMaxPs)
    throw std::overflow_error(what + ": past 2^62 ps (53 days), the longest time the models count");
  return int64_t(std::ceil(v));
}
// a + b for two times in [0, kMaxPs]: the same error past kMaxPs.
inline int64_t checked_add_ps(int64_t a, int64_t b, const std::string& what) {
  if (a > kMaxPs - b) throw std::overflow_error(what + ": past 2^62 ps (53 days), the longest time the models count");
  return a + b;
}

}  // namespace cstsim
