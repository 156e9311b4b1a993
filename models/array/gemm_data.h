#pragma once
// Operand values for the register-level reference, in the array's types (core/precision.h),
// and the references its results are checked against.
//
// Integers: two's complement operands, products and sums wrap at the accumulator's width
// (what an int32 or int16 accumulator does in hardware), so the order of the sum cannot matter.
//
// Floats: every operand format here multiplies exactly into fp32 except fp32 itself, and the
// accumulator is fp32 with round-to-nearest-even. The grid's order is fixed by its wiring, and
// the reference follows it: an output's K values are cut into chunks of R x pack (the K one row
// fold of a WS or IS array holds; OS holds all of K in one chunk); within a chunk a partial sum
// starts at +0 and takes each product in K order with one rounding, s = fma(a_k, b_k, s) (the
// PE rows top to bottom, a word's lanes in order); the output starts at +0 and adds the
// chunks' sums in K order, one rounding each. The padding lanes and rows a chunk does not fill
// add products of zero, which leave s unchanged (s never is -0: it starts at +0 and every term
// is a product of finite values), so they need no place in it.
#include <cstdint>
#include <random>
#include <vector>

#include "core/precision.h"

namespace cstsim {

struct GemmData {
  int64_t M = 0, N = 0, K = 0;  // K in values
  NumType operand = NumType::Int8, accumulator = NumType::Int32;
  std::vector<float> A;  // M x K, row-major (ifmap after im2col); every type here is exact in a float
  std::vector<float> B;  // K x N, row-major (filters)
  // 2:4 weights: in every group of four along K, column n keeps the two places kept_places
  // lists (a 4-bit mask per group and column, K/4 x N); B is zero at the others.
  bool sparse_2_4 = false;
  std::vector<uint8_t> kept;
  // The place (0..3) of the `which`-th (0, 1) kept value of group g in column n.
  int kept_place(int64_t g, int64_t n, int which) const {
    const uint8_t mask = kept[size_t(g * N + n)];
    for (int p = 0, seen = 0; p < 4; ++p)
      if (mask >> p & 1 && seen++ == which) return p;
    return 0;
  }
};

// Random values of p's operand type (core/num_type.h random_value); `sparse_2_4`: B keeps two
// random places of every four along K (K a multiple of 4). `a_density` < 1: A is zero exactly
// where FoldPlan::is_placed_zero puts its zeros and nonzero elsewhere (zero gating's count).
GemmData make_random_gemm(int64_t M, int64_t N, int64_t K, uint64_t seed, const Precision& p = {},
                          bool sparse_2_4 = false, double a_density = 1.0);

// Chip `chip`'s share of `whole` when chips split it by columns (`n_cut`: B's columns and C's,
// N / chips each) or else by rows of B (K / chips of A's columns and B's rows, 2:4 groups
// whole): the operands a tensor-parallel chip computes its part of one GEMM from.
GemmData chip_share(const GemmData& whole, bool n_cut, int chip, int chips);

// Zero gating's operand: zero exactly where FoldPlan::is_placed_zero puts floor(n (1 - density))
// zeros among the n values, every other value redrawn until nonzero (of `type`); density 1: unchanged.
void place_zeros(std::vector<float>& values, double density, NumType type, std::mt19937_64& rng);

// The grid's arithmetic in the order above, `chunk` values of K at a time (0: all of K). M x N,
// row-major; integers as their accumulator's signed value. 2:4 data: the kept values only, in K
// order, `chunk` of them at a time (what a row fold of compressed weights holds).
std::vector<double> reference_gemm(const GemmData& d, int64_t chunk = 0);

// The same GEMM in fp64 with no rounding of its own worth naming (each product exact, the sum
// in fp64): what a float result's error is measured against. `magnitudes`: sums of |a_k b_k|.
std::vector<double> fp64_gemm(const GemmData& d, bool magnitudes = false);

// The largest |got - fp64| over the outputs, relative to that output's sum of |a_k b_k| (the
// scale a float sum's rounding error grows with); 0 for integers.
double max_relative_error(const std::vector<double>& got, const GemmData& d);

}  // namespace cstsim
