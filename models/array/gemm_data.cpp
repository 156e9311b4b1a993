#include "models/array/gemm_data.h"

#include <cmath>
#include <random>

#include "models/array/grid_arith.h"
#include "plan/fold_plan.h"

namespace cstsim {

GemmData make_random_gemm(int64_t M, int64_t N, int64_t K, uint64_t seed, const Precision& p, bool sparse_2_4,
                          double a_density) {
  GemmData d;
  d.M = M;
  d.N = N;
  d.K = K;
  d.operand = p.operand;
  d.accumulator = p.accumulator;
  std::mt19937_64 rng(seed);
  d.A.resize(size_t(M * K));
  d.B.resize(size_t(K * N));
  // Each at its stored type (exact in the operand's, which the grid computes in).
  for (auto& v : d.A) v = random_value(p.activation_type(), rng);
  for (auto& v : d.B) v = random_value(p.weight_type(), rng);
  place_zeros(d.A, a_density, p.activation_type(), rng);
  if (sparse_2_4) {
    static constexpr uint8_t kPairs[6] = {0x3, 0x5, 0x6, 0x9, 0xA, 0xC};  // two places of four
    d.sparse_2_4 = true;
    d.kept.resize(size_t(K / 4 * N));
    for (int64_t g = 0; g < K / 4; ++g)
      for (int64_t n = 0; n < N; ++n) {
        const uint8_t mask = kPairs[rng() % 6];
        d.kept[size_t(g * N + n)] = mask;
        for (int q = 0; q < 4; ++q)
          if (!(mask >> q & 1)) d.B[size_t((4 * g + q) * N + n)] = 0.0f;
      }
  }
  return d;
}

GemmData chip_share(const GemmData& whole, bool n_cut, int chip, int chips) {
  GemmData d = whole;
  const int64_t n = n_cut ? whole.N / chips : whole.N, k = n_cut ? whole.K : whole.K / chips;
  const int64_t n0 = n_cut ? chip * n : 0, k0 = n_cut ? 0 : chip * k;
  d.N = n;
  d.K = k;
  d.A.assign(size_t(d.M * k), 0.0f);
  d.B.assign(size_t(k * n), 0.0f);
  for (int64_t m = 0; m < d.M; ++m)
    for (int64_t j = 0; j < k; ++j) d.A[size_t(m * k + j)] = whole.A[size_t(m * whole.K + k0 + j)];
  for (int64_t j = 0; j < k; ++j)
    for (int64_t c = 0; c < n; ++c) d.B[size_t(j * n + c)] = whole.B[size_t((k0 + j) * whole.N + n0 + c)];
  if (whole.sparse_2_4) {  // K and the offset are multiples of 4 (a 2:4 layer's K per chip is)
    d.kept.assign(size_t(k / 4 * n), 0);
    for (int64_t g = 0; g < k / 4; ++g)
      for (int64_t c = 0; c < n; ++c) d.kept[size_t(g * n + c)] = whole.kept[size_t((k0 / 4 + g) * whole.N + n0 + c)];
  }
  return d;
}

namespace {

template <class Arith>
std::vector<double> reference_in(const GemmData& d, int64_t chunk) {
  using Acc = typename Arith::Acc;
  std::vector<Acc> c(size_t(d.M * d.N), Arith::zero());
  std::vector<Acc> s(size_t(d.N));
  // Dense: value k of K; 2:4: kept value k (of K / 2) of column n, at its place in K.
  const int64_t values = d.sparse_2_4 ? d.K / 2 : d.K;
  auto k_of = [&](int64_t k, int64_t n) { return d.sparse_2_4 ? 4 * (k / 2) + d.kept_place(k / 2, n, int(k % 2)) : k; };
  if (chunk <= 0 || chunk > values) chunk = values;
  for (int64_t m = 0; m < d.M; ++m)
    for (int64_t k0 = 0; k0 < values; k0 += chunk) {
      std::fill(s.begin(), s.end(), Arith::zero());
      for (int64_t k = k0; k < std::min(values, k0 + chunk); ++k) {
        if (!d.sparse_2_4) {  // one A value for the row of B
          const auto a = Arith::reg(d.A[size_t(m * d.K + k)]);
          const float* b = &d.B[size_t(k * d.N)];
          for (int64_t n = 0; n < d.N; ++n) s[size_t(n)] = Arith::mac(s[size_t(n)], a, Arith::reg(b[n]));
          continue;
        }
        for (int64_t n = 0; n < d.N; ++n) {  // each column its own kept place
          const int64_t kk = k_of(k, n);
          s[size_t(n)] = Arith::mac(s[size_t(n)], Arith::reg(d.A[size_t(m * d.K + kk)]), Arith::reg(d.B[size_t(kk * d.N + n)]));
        }
      }
      for (int64_t n = 0; n < d.N; ++n) c[size_t(m * d.N + n)] = Arith::add(c[size_t(m * d.N + n)], s[size_t(n)]);
    }
  std::vector<double> out(c.size());
  for (size_t i = 0; i < c.size(); ++i) out[i] = Arith::value(c[i], bits_of(d.accumulator));
  return out;
}

}  // namespace

void place_zeros(std::vector<float>& values, double density, NumType type, std::mt19937_64& rng) {
  if (density >= 1) return;
  const int64_t n = int64_t(values.size()), zeros = FoldPlan::zero_count(n, density);
  for (int64_t e = 0; e < n; ++e) {
    float& v = values[size_t(e)];
    if (FoldPlan::is_placed_zero(e, n, zeros)) v = 0.0f;
    else
      while (v == 0.0f) v = random_value(type, rng);
  }
}

std::vector<double> reference_gemm(const GemmData& d, int64_t chunk) {
  return with_grid_arith(d.operand, [&](auto arith) { return reference_in<decltype(arith)>(d, chunk); });
}

std::vector<double> fp64_gemm(const GemmData& d, bool magnitudes) {
  auto value = [&](float v) { return magnitudes ? std::fabs(double(v)) : double(v); };
  std::vector<double> c(size_t(d.M * d.N), 0.0);
  for (int64_t m = 0; m < d.M; ++m)
    for (int64_t k = 0; k < d.K; ++k) {
      const double a = value(d.A[size_t(m * d.K + k)]);
      for (int64_t n = 0; n < d.N; ++n) c[size_t(m * d.N + n)] += a * value(d.B[size_t(k * d.N + n)]);
    }
  return c;
}

double max_relative_error(const std::vector<double>& got, const GemmData& d) {
  if (!is_float(d.operand)) return 0;
  const std::vector<double> exact = fp64_gemm(d), scale = fp64_gemm(d, true);
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (scale[i] > 0) worst = std::max(worst, std::fabs(got[i] - exact[i]) / scale[i]);
  return worst;
}

}  // namespace cstsim
