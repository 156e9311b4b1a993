#pragma once
// The vector unit's parameters (arch vector.*), resolved by the front (sim/config).
#include <array>
#include <cstdint>

namespace cstsim {

struct VectorParams {
  int lanes = 0;  // 0: no vector unit
  std::array<double, 3> per_lane{1, 1, 0.25};  // add, mul, special operations per lane per cycle
  int64_t port_bytes = 256;  // bytes per cycle through its own scratchpad ports
  int latency = 8;           // cycles from a tile's first operand to its first result
};

}  // namespace cstsim
