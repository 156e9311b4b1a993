#pragma once
// Operand values for the register-level reference: int8 operands, wrapping
// 32-bit accumulation (what an int32 accumulator does in hardware).
#include <cstdint>
#include <vector>

namespace cstsim {

struct GemmData {
  int64_t M = 0, N = 0, K = 0;
  std::vector<int8_t> A;  // M x K, row-major (ifmap after im2col)
  std::vector<int8_t> B;  // K x N, row-major (filters)
};

GemmData make_random_gemm(int64_t M, int64_t N, int64_t K, uint64_t seed);

// Plain triple loop, the oracle the array is checked against. M x N, row-major.
std::vector<int32_t> reference_gemm(const GemmData& d);

}  // namespace cstsim
