#include "models/memory/memory_params.h"

namespace cstsim {

const char* to_string(MemoryMode m) {
  switch (m) {
    case MemoryMode::Ideal: return "ideal";
    case MemoryMode::Channel: return "channel";
    case MemoryMode::Hbm: return "hbm";
    case MemoryMode::Hierarchy: return "hierarchy";
  }
  return "?";
}

}  // namespace cstsim
