#pragma once
// Sampled estimates (docs/sampling.md), shared by the array's sampled passes and the vector unit's
// sampled kernels: where a stratum's windows go, and the 95 % interval of what they measured.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace cstsim {

// Student's t, two-sided 95 %, for `dof` degrees of freedom (1.96 beyond the table).
inline double t95(int dof) {
  static const double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                 2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                 2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof < 1) return table[0];
  return dof <= 30 ? table[dof - 1] : dof <= 60 ? 2.000 : dof <= 120 ? 1.980 : 1.960;
}

// The mean and the sample variance of `xs` (the variance 0 below two values).
inline std::pair<double, double> mean_variance(const std::vector<double>& xs) {
  const double n = double(xs.size());
  double mean = 0, var = 0;
  for (double x : xs) mean += x / n;
  for (double x : xs) var += (x - mean) * (x - mean) / std::max(1.0, n - 1);
  return {mean, var};
}

// Windows of `len` units over a stratum's body [body0, body0 + body): about `share` of it, at
// least `least` and at most `most` windows, and never more than half of it (0 when the body is too
// short). One window in each of n equal parts: the first at its part's start, so no unit is
// skipped before a mean was measured, the others at a place the seed draws. Their first units.
// With `period` > 0, the units repeat a pattern of that many units (from unit 0) and a window
// measures from its `offset`-th unit on: the measured parts start at phases spread evenly over
// the period, window by window, so the windows see its phases in their share rather than as
// chance draws them (a column fold's first folds stall most; on WS passes of 17-24 folds a column
// fold, 16-fold units at random phases were off by up to 3.1 % a layer, docs/sampling.md).
inline std::vector<int64_t> window_starts(int64_t body0, int64_t body, int64_t len, double share, int64_t least,
                                          int64_t most, uint64_t seed, int64_t period = 0, int64_t offset = 0) {
  const int64_t wanted = std::llround(share * double(std::max<int64_t>(0, body)) / double(len));
  const int64_t n = std::min({std::max(least, wanted), most, std::max<int64_t>(0, body) / (2 * len)});
  std::vector<int64_t> starts;
  std::mt19937_64 rng(seed);
  int64_t phase0 = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t from = body0 + i * body / n, to = body0 + (i + 1) * body / n;
    int64_t at = i == 0 ? from : from + int64_t(rng() % uint64_t(to - from - len + 1));
    if (period > 1 && i == 0) phase0 = (at + offset) % period;
    if (period > 1 && i > 0) {
      const int64_t phase = (phase0 + i * period / n) % period;
      at += ((phase - (at + offset)) % period + period) % period;  // forward to that phase
      if (at > to - len) at -= period;                            // or back, when it fits
      at = std::clamp(at, from, to - len);
    }
    starts.push_back(at);
  }
  return starts;
}

// The 95 % half-width of `skipped` units estimated at the mean of the window `means` (`measured`
// units in all, the largest extra among them `largest`): Student's t over the means, or, when the
// windows cannot be told apart (fewer than two, or all equal; `degenerate`), how often an extra as
// large as the largest seen could hide in the skipped units (the rule of three), never zero.
inline double window_ci95(const std::vector<double>& means, double skipped, int64_t measured, double largest,
                          bool* degenerate = nullptr) {
  const auto [mean, var] = mean_variance(means);
  const bool flat = means.size() < 2 || var <= 0;
  if (degenerate) *degenerate = flat;
  if (flat) return skipped * std::min(1.0, 3.0 / double(std::max<int64_t>(1, measured))) * std::max(1.0, largest - mean);
  return t95(int(means.size()) - 1) * std::sqrt(var / double(means.size())) * skipped;
}

// The tail's warm-up, settled in advance at the windows' mean warm-up shortfall: the shortfalls'
// spread is its uncertainty (what one more window's would be, at 95 %); 0 below two.
inline double shortfall_ci95(const std::vector<double>& shortfalls) {
  if (shortfalls.size() < 2) return 0;
  const double n = double(shortfalls.size());
  return t95(int(n) - 1) * std::sqrt(mean_variance(shortfalls).second * (1.0 + 1.0 / n));
}

}  // namespace cstsim
