#pragma once
// Confidence intervals of sampled estimates (docs/sampling.md): Student's t and a sample's mean
// and variance, shared by the array's sampled passes and the vector unit's sampled kernels.
#include <algorithm>
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

}  // namespace cstsim
