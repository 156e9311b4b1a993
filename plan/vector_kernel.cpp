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

}  // namespace cstsim
