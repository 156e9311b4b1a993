#pragma once
// Precision: the number formats one array computes in, and how its PEs pack them.
// A PE word holds `pack` operands side by side along the reduction (K): a PE multiplies them
// all in one cycle and adds the products to the partial sum it passes on (a pack-way dot
// product), the way an 8-bit datapath takes two int4 pairs or a 32-bit one two fp16 pairs.
// Registers hold whole words of the operand type (whole bytes); memory and links carry A and B
// at their own stored types, which may be narrower (int4 weights for an int8 PE).
#include <cstdint>
#include <optional>
#include <string>

#include "core/num_type.h"

namespace cstsim {

struct Precision {
  NumType operand = NumType::Int8;       // what the PEs multiply: their registers hold it
  NumType accumulator = NumType::Int32;  // partial sums and outputs
  int pack = 1;                          // operands per PE word: MACs per PE per cycle
  // How A (activations, and the outputs the array requantizes) and B (weights) are stored and
  // moved: in HBM, the scratchpad and on the array's edge links; a PE widens them to `operand`
  // as it takes them (precision.activation / precision.weight; each exact in the operand; unset:
  // the operand).
  std::optional<NumType> activation, weight;
  NumType activation_type() const { return activation.value_or(operand); }
  NumType weight_type() const { return weight.value_or(operand); }
  // An operator-graph layer's own tensors: A (and its outputs) and B stored at their dtypes'
  // widths (0: the types above); see with_tensor_width in sim/mapper/mapper.cpp.
  int stored_a_bits = 0, stored_b_bits = 0;

  int operand_bits() const { return bits_of(operand); }
  int accumulator_bits() const { return bits_of(accumulator); }
  // One PE word in the PE's registers: `pack` operands (whole bytes).
  int64_t register_word_bytes() const { return int64_t(pack) * operand_bits() / 8; }
  // One stored value of A (or a requantized output) and of B.
  int value_bits() const { return stored_a_bits ? stored_a_bits : bits_of(activation_type()); }
  int weight_bits() const { return stored_b_bits ? stored_b_bits : bits_of(weight_type()); }
  // A PE word of A or B as stored and moved: `pack` stored values side by side along K. It may be
  // less than a byte (int4 weights on an int8 PE): memory and links count it in bits.
  int word_bits(bool of_weights) const { return pack * (of_weights ? weight_bits() : value_bits()); }
  // Bytes of `words` consecutive words of A or B (the last byte partly filled).
  int64_t bytes_of_words(bool of_weights, int64_t words) const { return (words * word_bits(of_weights) + 7) / 8; }
  int64_t accumulator_bytes() const { return (accumulator_bits() + 7) / 8; }
  // The operands' name in action counters ("mac.int8.executed").
  std::string operand_name() const { return to_string(operand); }
  // The reduction length in words: K operands packed `pack` to a word.
  int64_t words(int64_t k) const { return (k + pack - 1) / pack; }
  // For people: "int8", "fp16 x2/PE", "int8 (weights int4)".
  std::string label() const {
    std::string s = to_string(operand);
    if (pack > 1) s += " x" + std::to_string(pack) + "/PE";
    if (activation || weight) {
      s += " (";
      if (activation) s += std::string("activations ") + to_string(*activation) + (weight ? ", " : "");
      if (weight) s += std::string("weights ") + to_string(*weight);
      s += ")";
    }
    return s;
  }
};

}  // namespace cstsim
