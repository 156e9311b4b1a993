#include "plan/vector_kernel.h"

namespace cstsim {

const char* to_string(VectorClass c) {
  switch (c) {
    case VectorClass::Add: return "add";
    case VectorClass::Mul: return "mul";
    case VectorClass::Special: return "special";
  }
  return "?";
}

nlohmann::ordered_json by_class_json(const std::array<int64_t, 3>& counts) {
  nlohmann::ordered_json j;
  for (int c = 0; c < kVectorClasses; ++c) j[to_string(VectorClass(c))] = counts[size_t(c)];
  return j;
}

}  // namespace cstsim
