#include "models/array/gemm_data.h"

#include <random>

namespace cstsim {

GemmData make_random_gemm(int64_t M, int64_t N, int64_t K, uint64_t seed) {
  GemmData d;
  d.M = M;
  d.N = N;
  d.K = K;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> dist(-128, 127);
  d.A.resize(size_t(M * K));
  d.B.resize(size_t(K * N));
  for (auto& v : d.A) v = int8_t(dist(rng));
  for (auto& v : d.B) v = int8_t(dist(rng));
  return d;
}

std::vector<int32_t> reference_gemm(const GemmData& d) {
  std::vector<uint32_t> acc(size_t(d.M * d.N), 0);
  for (int64_t m = 0; m < d.M; ++m)
    for (int64_t k = 0; k < d.K; ++k) {
      const uint32_t a = uint32_t(int32_t(d.A[size_t(m * d.K + k)]));
      for (int64_t n = 0; n < d.N; ++n)
        acc[size_t(m * d.N + n)] += a * uint32_t(int32_t(d.B[size_t(k * d.N + n)]));
    }
  return std::vector<int32_t>(acc.begin(), acc.end());
}

}  // namespace cstsim
