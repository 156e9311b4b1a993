#include "plan/program.h"

#include <stdexcept>

namespace cstsim {

std::string Step::kind() const {
  return std::visit(
      [](const auto& s) -> std::string {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, ExtensionStep>)
          return s.kind;
        else
          return T::kKind;
      },
      what);
}

bool Program::kernels_between(size_t layer) const {
  bool kernel_right_before = false;
  for (const Step& s : steps) {
    if (s.layer == int(layer)) return kernel_right_before;
    kernel_right_before = s.layer < 0;  // what matters is the step right before it
  }
  throw std::logic_error("Program::kernels_between: layer " + std::to_string(layer) + " is not in the program");
}

std::vector<int> Program::trace_layers() const {
  std::vector<int> out(steps.size(), -1);
  int next = -1;
  for (size_t i = steps.size(); i-- > 0;) {
    if (steps[i].layer >= 0) next = steps[i].layer;
    out[i] = next;
  }
  return out;
}

}  // namespace cstsim
