#pragma once
// Where the run's graph tensors lie in HBM, by name, for the kernels placed after the layers
// (sim/mapper/vector_plan.h, flash_plan.h): a tensor a layer (or an earlier kernel) placed keeps
// that place; a new one goes at `next`, which advances past it to the next 4 KiB boundary.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/mapper/program_order.h"
#include "plan/plan.h"

namespace cstsim {

class TensorPlaces {
 public:
  TensorPlaces(const std::vector<LayerPlan>& layers, uint64_t& next) : next_(next) {
    for (const LayerPlan& l : layers)
      for (int x = 0; x < kMatrices; ++x)
        if (!l.tensor_names[size_t(x)].empty()) place_.emplace(l.tensor_names[size_t(x)], l.tensors[size_t(x)].addr);
  }
  // The tensors placed vector kernels read and write keep their places too.
  void keep(const std::vector<Placed<VectorKernelPlan>>& kernels) {
    for (const auto& [k, before, order] : kernels)
      for (const auto* list : {&k.reads, &k.writes})
        for (const VectorOperandPlan& o : *list) place_.emplace(o.tensor, o.addr);
  }
  // The tensor's first byte; `bytes`: what a new one takes.
  uint64_t at(const std::string& tensor, int64_t bytes) {
    auto [it, fresh] = place_.emplace(tensor, next_);
    if (fresh) next_ = (next_ + uint64_t(bytes) + kAlign - 1) / kAlign * kAlign;
    return it->second;
  }

 private:
  static constexpr uint64_t kAlign = 4096;
  uint64_t& next_;
  std::map<std::string, uint64_t> place_;
};

}  // namespace cstsim
