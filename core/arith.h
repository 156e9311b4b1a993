#pragma once
// Integer helpers shared by the mapper and the models.
#include <cstdint>

namespace cstsim {

// ceil(a / b) for a >= 0, b > 0.
inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace cstsim
