#pragma once
// One way to write a quantity in every input: a plain number in the key's own unit, or a number
// with a unit of the same dimension, which is converted — `14ns`, `3.9us`, `1GHz`, `700 MHz`,
// `64KiB`, `1MiB`, `100GB/s`, `2ck`. Byte sizes are binary (KiB = 1024 B); rates are decimal
// (GB/s = 1e9 B/s, as memory datasheets give them); `kB`, `MB` and `GB` alone are refused as
// ambiguous (SCALE-Sim's kB is 1024 B, a datasheet's 1000).
#include <string>
#include <string_view>

namespace cstsim {

struct QuantityResult {
  double value = 0;     // in the key's unit
  std::string problem;  // empty: parsed
};

// `unit` is the key's unit as its schema row names it ("ns", "Hz", "KiB", "bytes", "GB/s",
// "cycles", ...; others take plain numbers only). A bare number is already in it.
QuantityResult parse_quantity(std::string_view text, std::string_view unit);

// The units a key of `unit` accepts, for messages ("ns, us, ps, s, ms"); empty: numbers only.
std::string accepted_units(std::string_view unit);

}  // namespace cstsim
