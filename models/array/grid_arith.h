#pragma once
// The arithmetic of one PE lane, by operand type: what the register grids and the reference
// GEMM both compute with (models/array/gemm_data.h states the order).
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/num_type.h"

namespace cstsim {

// Two's complement: products and sums wrap modulo 2^32, which equals wrapping at any narrower
// accumulator width once the result is cut to it (value()).
struct IntArith {
  using Reg = int32_t;
  using Acc = uint32_t;
  static Acc zero() { return 0; }
  static Reg reg(float v) { return Reg(v); }
  static Acc mac(Acc s, Reg x, Reg w) { return s + uint32_t(x * w); }
  static Acc add(Acc c, Acc v) { return c + v; }
  static double value(Acc c, int bits) {
    const uint32_t shift = uint32_t(32 - bits);
    return double(int32_t(c << shift) >> shift);
  }
  static void flip_low_bit(Acc& a) { a ^= 1u; }
};

// fp32 accumulation, one rounding per MAC. `Fused`: fp32 operands, whose product needs fma to be
// rounded once; narrower formats multiply exactly in fp32, so s + x * w is already one rounding.
template <bool Fused>
struct FloatArith {
  using Reg = float;
  using Acc = float;
  static Acc zero() { return 0.0f; }
  static Reg reg(float v) { return v; }
  static Acc mac(Acc s, Reg x, Reg w) {
    if constexpr (Fused) return std::fma(x, w, s);
    else return s + x * w;
  }
  static Acc add(Acc c, Acc v) { return c + v; }
  static double value(Acc c, int) { return double(c); }
  static void flip_low_bit(Acc& a) {
    uint32_t bits;
    std::memcpy(&bits, &a, sizeof bits);
    bits ^= 1u;
    std::memcpy(&a, &bits, sizeof bits);
  }
};

// Calls f with the arithmetic of `operand` (an IntArith or a FloatArith value).
template <class F>
auto with_grid_arith(NumType operand, F&& f) {
  if (operand == NumType::Fp32) return f(FloatArith<true>{});
  if (is_float(operand)) return f(FloatArith<false>{});
  return f(IntArith{});
}

}  // namespace cstsim
