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

void Program::check_order() const {
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    if (s.id != int(i))
      throw std::logic_error("program: step " + std::to_string(i) + " (" + s.name + ") has id " + std::to_string(s.id));
    for (size_t d = 0; d < s.deps.size(); ++d) {
      if (s.deps[d] < 0 || s.deps[d] >= s.id)
        throw std::logic_error("program: step " + std::to_string(i) + " (" + s.name + ") depends on step " +
                               std::to_string(s.deps[d]) + ", which does not run before it");
      if (d > 0 && s.deps[d] <= s.deps[d - 1])
        throw std::logic_error("program: step " + std::to_string(i) + " (" + s.name + ") lists its deps out of order");
    }
  }
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
