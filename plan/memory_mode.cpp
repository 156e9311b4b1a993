#include "plan/memory_mode.h"

namespace cstsim {

namespace {
constexpr MemoryMode kAllModes[] = {MemoryMode::Ideal, MemoryMode::Channel, MemoryMode::Hbm, MemoryMode::Hierarchy};
}  // namespace

const char* to_string(MemoryMode m) {
  switch (m) {
    case MemoryMode::Ideal: return "ideal";
    case MemoryMode::Channel: return "channel";
    case MemoryMode::Hbm: return "hbm";
    case MemoryMode::Hierarchy: return "hierarchy";
  }
  return "?";
}

const std::vector<std::string>& memory_mode_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (MemoryMode m : kAllModes) out.push_back(to_string(m));
    return out;
  }();
  return names;
}

std::optional<MemoryMode> memory_mode_named(const std::string& name) {
  for (MemoryMode m : kAllModes)
    if (name == to_string(m)) return m;
  return std::nullopt;
}

}  // namespace cstsim
