#pragma once
// Laws every run obeys, checked on its results before anything is written. Each is
// measured by counters that do not define one another, so a violation is a model bug:
// the run stops with InvariantError naming the law and the layer, and writes nothing.
//   stalls:      per layer, the stall causes add up to the stall cycles
//   bytes:       memory: hierarchy, per layer: HBM bytes = DMA bytes = scratchpad bytes,
//                each way (HBM bursts x burst size, DMA payload, scratchpad port counters)
//   compute:     cycles >= MACs / (PEs x clusters)
//   bandwidth:   memory: hbm | hierarchy: cycles >= HBM bytes / the stack's peak per cycle
//   stalls also: stall cycles = cycles - ideal-memory cycles, no cause negative
// and on report.json (check_report_scope: the total and each layer, as post makes them):
//   work:        executed MACs (counted from the active PEs, cycle by cycle) = nominal MACs
//                (M x N x K of every pass), per precision
//   landauer:    E_gross >= E_thermo_min (k_B T ln 2 per erased bit)
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/array/layer_result.h"
#include "sim/config/arch_spec.h"
#include "sim/workload/workload.h"

namespace cstsim {

class InvariantError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void check_invariants(const ArchSpec& arch, const std::vector<ArrayLayerResult>& layers);
// The work the run did against the workload as written, never against the plan: every layer's
// MACs (counted by the array as it works) equal repeats x M x N x K of the layer's own shape (K
// the kept half where the PEs skip 2:4 weights), the layers' sum the workload's, every flash
// kernel's MACs its attention's. A planning error that grid and reference share (--verify
// compares the two) is caught here.
void check_work_as_written(const ArchSpec& arch, const Workload& workload, const std::vector<ArrayLayerResult>& layers,
                           const std::vector<FlashKernelResult>& flash);
void check_report_scope(const nlohmann::ordered_json& scope, const std::string& what);

}  // namespace cstsim
