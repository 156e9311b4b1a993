#pragma once
// Precision: the number formats one array computes in. Today: integer operands and a
// wrapping integer accumulator (int8 x int8 -> int32 is what the register level
// simulates bit-exactly); issue 14 adds floating and block formats behind the same type.
#include <cstdint>
#include <string>

namespace cstsim {

struct Precision {
  int operand_bits = 8;
  int accumulator_bits = 32;

  int64_t operand_bytes() const { return (operand_bits + 7) / 8; }
  int64_t accumulator_bytes() const { return (accumulator_bits + 7) / 8; }
  // The operands' name in action counters ("mac.int8.executed").
  std::string operand_name() const { return "int" + std::to_string(operand_bits); }
};

}  // namespace cstsim
