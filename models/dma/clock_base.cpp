#include "models/dma/clock_base.h"

#include <cmath>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

namespace cstsim {
namespace {

int64_t whole(double v, const char* what) {
  const double r = std::round(v);
  if (!(r >= 1) || r > 9e18 || std::fabs(v - r) > 1e-6 * r)
    throw std::invalid_argument(fmt::format("{} {} is not a whole number", what, v));
  return int64_t(r);
}

// lcm(a, b), or 0 when it exceeds `limit`.
int64_t bounded_lcm(int64_t a, int64_t b, int64_t limit) {
  const int64_t m = a / std::gcd(a, b);
  return m > limit / b ? 0 : m * b;
}

}  // namespace

ClockBase make_clock_base(double acc_hz, double noc_hz, double tck_ns) {
  const int64_t fa = whole(acc_hz, "clock_hz"), fn = whole(noc_hz, "noc clock_hz");
  const int64_t tck_ps = whole(tck_ns * 1000.0, "HBM tCK in ps");
  constexpr int64_t kPsPerSecond = 1'000'000'000'000;
  const int64_t fh = kPsPerSecond / std::gcd(kPsPerSecond, tck_ps);  // smallest F with F * tCK whole
  int64_t f = bounded_lcm(fa, fn, kMaxTicksPerSecond);
  if (f) f = bounded_lcm(f, fh, kMaxTicksPerSecond);
  if (!f)
    throw std::invalid_argument(fmt::format(
        "the array clock {} Hz, the NoC clock {} Hz and the HBM tCK {} ps have no common time base of at least 1 fs "
        "(their least common multiple exceeds 1e15 Hz); round a clock to whole kHz",
        fa, fn, tck_ps));
  ClockBase c;
  c.ticks_per_second = f;
  c.acc = f / fa;
  c.noc = f / fn;
  c.hbm = int64_t((__int128(f) * tck_ps) / kPsPerSecond);
  return c;
}

}  // namespace cstsim
