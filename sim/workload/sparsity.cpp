#include "sim/workload/sparsity.h"

#include "core/input_error.h"

namespace cstsim {

Workload with_weight_sparsity(Workload w, const std::string& pattern, std::vector<std::string>* left_dense) {
  if (pattern.empty()) return w;
  if (pattern != "2:4") throw InputError("--sparsity", 0, "", "must be 2:4 (two nonzero weights in every four along K); got " + pattern);
  for (Layer& l : w.layers) {
    const bool own_weight = l.weight_layer < 0 && l.same_as[1].layer < 0;
    l.weights_2_4 = own_weight && l.K % 4 == 0;
    if (!l.weights_2_4 && left_dense) left_dense->push_back(l.name);
  }
  return w;
}

}  // namespace cstsim
