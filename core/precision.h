#pragma once
// Precision: the number formats one array computes in, and how its PEs pack them.
// A PE word holds `pack` operands side by side along the reduction (K): a PE multiplies them
// all in one cycle and adds the products to the partial sum it passes on (a pack-way dot
// product), the way an 8-bit datapath takes two int4 pairs or a 32-bit one two fp16 pairs.
// Links, registers and memory move whole words, so a word must be whole bytes.
#include <cstdint>
#include <string>

#include "core/num_type.h"

namespace cstsim {

struct Precision {
  NumType operand = NumType::Int8;       // A and B
  NumType accumulator = NumType::Int32;  // partial sums and outputs
  int pack = 1;                          // operands per PE word: MACs per PE per cycle
  // Operator-graph layers whose tensors have another dtype than the array computes in move them
  // at that dtype's width (0: the operand's); see with_tensor_width in sim/mapper/mapper.cpp.
  int stored_bits = 0;

  int operand_bits() const { return bits_of(operand); }
  int accumulator_bits() const { return bits_of(accumulator); }
  // One PE word: what an edge link carries per cycle, a weight register holds, and a stored
  // element of A or B takes in SRAM and HBM (the K dimension counted in words).
  int64_t operand_bytes() const { return (int64_t(pack) * value_bits() + 7) / 8; }
  // One stored value of A, B or a requantized output.
  int value_bits() const { return stored_bits ? stored_bits : operand_bits(); }
  int64_t accumulator_bytes() const { return (accumulator_bits() + 7) / 8; }
  // The operands' name in action counters ("mac.int8.executed").
  std::string operand_name() const { return to_string(operand); }
  // The reduction length in words: K operands packed `pack` to a word.
  int64_t words(int64_t k) const { return (k + pack - 1) / pack; }
};

}  // namespace cstsim
