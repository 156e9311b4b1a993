#pragma once
// Laws every run obeys, checked on its results before anything is written. Each is
// measured by counters that do not define one another, so a violation is a model bug:
// the run stops with InvariantError naming the law and the layer, and writes nothing.
//   stalls:      per layer, the stall causes add up to the stall cycles
//   bytes:       memory: hierarchy, per layer: HBM bytes = DMA bytes = scratchpad bytes,
//                each way (HBM bursts x burst size, DMA payload, scratchpad port counters)
//   compute:     cycles >= MACs / (PEs x clusters)
//   bandwidth:   memory: hbm | hierarchy: cycles >= HBM bytes / the stack's peak per cycle
#include <stdexcept>
#include <string>
#include <vector>

#include "models/array/array_module.h"
#include "sim/config/arch_spec.h"

namespace cstsim {

class InvariantError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void check_invariants(const ArchSpec& arch, const std::vector<ArrayLayerResult>& layers);

}  // namespace cstsim
