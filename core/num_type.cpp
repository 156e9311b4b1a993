#include "core/num_type.h"

#include <array>
#include <cmath>
#include <limits>

namespace cstsim {

namespace {
constexpr std::array<NumTypeInfo, 11> kTypes = {{
    {"int4", 4, false, 0, 0},
    {"int8", 8, false, 0, 0},
    {"int16", 16, false, 0, 0},
    {"int32", 32, false, 0, 0},
    {"fp8_e4m3", 8, true, 4, 3},
    {"fp8_e5m2", 8, true, 5, 2},
    {"bf16", 16, true, 8, 7},
    {"fp16", 16, true, 5, 10},
    {"fp32", 32, true, 8, 23},
    {"fp64", 64, true, 11, 52, false},
    {"tf32", 32, true, 8, 10, false},
}};
}  // namespace

const NumTypeInfo& info(NumType t) { return kTypes[size_t(t)]; }

namespace {
// A float format's significand bits (with the implicit one), and the exponents of its smallest
// nonzero magnitude (a subnormal) and of its largest; E4M3 has no infinities, so its top
// exponent holds numbers (OFP8).
struct FloatRange {
  int digits, lowest, highest;
};
FloatRange float_range(NumType t) {
  const NumTypeInfo& i = info(t);
  const int bias = (1 << (i.exponent_bits - 1)) - 1;
  return {i.mantissa_bits + 1, 1 - bias - i.mantissa_bits, t == NumType::Fp8E4M3 ? bias + 1 : bias};
}
}  // namespace

bool holds_exactly(NumType wide, NumType narrow) {
  if (wide == narrow) return true;
  if (!is_float(wide)) return !is_float(narrow) && bits_of(narrow) <= bits_of(wide);
  const FloatRange w = float_range(wide);
  if (!is_float(narrow)) return bits_of(narrow) - 1 <= w.digits;  // magnitudes up to 2^(bits-1)
  const FloatRange n = float_range(narrow);
  return n.digits <= w.digits && n.lowest >= w.lowest && n.highest <= w.highest;
}

std::optional<NumType> num_type_named(const std::string& name) {
  if (name == "fp8") return NumType::Fp8E4M3;
  for (size_t i = 0; i < kTypes.size(); ++i)
    if (name == kTypes[i].name) return NumType(i);
  return std::nullopt;
}

const std::vector<std::string>& num_type_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const NumTypeInfo& t : kTypes)
      if (t.on_chip) n.push_back(t.name);
    return n;
  }();
  return names;
}

const std::vector<std::string>& all_num_type_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const NumTypeInfo& t : kTypes) n.push_back(t.name);
    return n;
  }();
  return names;
}

float decode_float(NumType t, uint32_t bits) {
  const NumTypeInfo& f = info(t);
  const int E = f.exponent_bits, M = f.mantissa_bits, bias = (1 << (E - 1)) - 1;
  const uint32_t mant = bits & ((1u << M) - 1), exp = (bits >> M) & ((1u << E) - 1);
  const bool negative = (bits >> (E + M)) & 1u;
  const uint32_t top = (1u << E) - 1;
  float v;
  if (t == NumType::Fp8E4M3 && exp == top && mant == (1u << M) - 1) {
    v = std::numeric_limits<float>::quiet_NaN();  // E4M3 spends only S.1111.111 on NaN
  } else if (t != NumType::Fp8E4M3 && exp == top) {
    v = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  } else if (exp == 0) {
    v = std::ldexp(float(mant), 1 - bias - M);  // subnormal
  } else {
    v = std::ldexp(float(mant | (1u << M)), int(exp) - bias - M);
  }
  return negative ? -v : v;
}

float random_value(NumType t, std::mt19937_64& rng) {
  const NumTypeInfo& f = info(t);
  if (!f.is_float) {
    const int64_t lo = -(int64_t(1) << (f.bits - 1)), hi = (int64_t(1) << (f.bits - 1)) - 1;
    return float(std::uniform_int_distribution<int64_t>(lo, hi)(rng));
  }
  const int E = f.exponent_bits, M = f.mantissa_bits, bias = (1 << (E - 1)) - 1;
  const int lo = std::max(0, bias - 6), hi = std::min((1 << E) - 2, bias + 7);
  const uint32_t exp = uint32_t(std::uniform_int_distribution<int>(lo, hi)(rng));
  const uint32_t mant = uint32_t(std::uniform_int_distribution<uint32_t>(0, (1u << M) - 1)(rng));
  const uint32_t sign = uint32_t(rng() & 1u);
  // hi stops below E4M3's top exponent, so its NaN pattern is never drawn.
  return decode_float(t, (sign << (E + M)) | (exp << M) | mant);
}

}  // namespace cstsim
