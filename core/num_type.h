#pragma once
// The number formats a tensor or a PE can hold, by the names configs and graphs use.
// Integers are two's complement; the floating formats are IEEE 754 binary16/binary32,
// bfloat16 and the two OCP 8-bit formats (OCP "8-bit Floating Point Specification (OFP8)"
// rev 1.0, 2023): E4M3 (bias 7, no infinities, max 448) and E5M2 (bias 15, IEEE-like).
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace cstsim {

// Fp64 and Tf32 (fp32's range, fp16's mantissa, stored in 4 bytes) are formats of the GPU kernels
// the ledger prices: the accelerator's PEs and tensors never hold them (on_chip false).
enum class NumType : uint8_t { Int4, Int8, Int16, Int32, Fp8E4M3, Fp8E5M2, Bf16, Fp16, Fp32, Fp64, Tf32 };

struct NumTypeInfo {
  const char* name;  // as configs spell it: int8, fp8_e4m3, bf16, ...
  int bits;
  bool is_float;
  int exponent_bits, mantissa_bits;  // floats only
  bool on_chip = true;  // a PE, a graph tensor or an arch may hold it (decode_float, random_value)
};
const NumTypeInfo& info(NumType t);
inline const char* to_string(NumType t) { return info(t).name; }
inline int bits_of(NumType t) { return info(t).bits; }
inline bool is_float(NumType t) { return info(t).is_float; }
inline bool on_chip(NumType t) { return info(t).on_chip; }

// Whether every value of `narrow` is a value of `wide` (int4 in int8, int8 in bf16, fp8 in bf16
// or fp16, bf16 and fp16 in fp32; never a float in an integer).
bool holds_exactly(NumType wide, NumType narrow);

// By name, every type; "fp8" is taken as fp8_e4m3 (the graph format's short name). Empty if unknown.
std::optional<NumType> num_type_named(const std::string& name);
// Every on-chip type, in enum order, by name (what configs and graphs may write).
const std::vector<std::string>& num_type_names();
// Every type, the ledger's fp64 and tf32 too, in enum order.
const std::vector<std::string>& all_num_type_names();

// The value a bit pattern of an on-chip floating type stands for, exactly (every format above fits in a
// float); NaN for a NaN pattern, +-inf where the format has them.
float decode_float(NumType t, uint32_t bits);

// A random finite value of type t, exactly representable in it: integers uniform over their
// range; floats normal, with a uniform sign and mantissa and an exponent uniform in -6..7, so
// products and sums of many thousands stay far from fp32's overflow and underflow.
float random_value(NumType t, std::mt19937_64& rng);

}  // namespace cstsim
