#pragma once
// Structured weight sparsity as a property of a workload's weights (--sparsity 2:4): every
// layer whose B is a weight of its own (not another layer's output, not read first by another
// layer) and whose K is a multiple of 4 holds two nonzero values in every four along K (the
// NVIDIA Ampere 2:4 pattern: Mishra et al., "Accelerating Sparse Deep Neural Networks", 2021).
// What it buys depends on the arch (sparsity.skip_2_4): PEs that skip hold the kept half with
// a 2-bit index per value and do half the MACs; others run the layer dense.
#include <string>
#include <vector>

#include "sim/workload/workload.h"

namespace cstsim {

// `pattern`: "" (unchanged) or "2:4"; another value is an input error of --sparsity. Returns
// the layers left dense, by name (K not a multiple of 4, or B not a weight).
Workload with_weight_sparsity(Workload w, const std::string& pattern, std::vector<std::string>* left_dense = nullptr);

}  // namespace cstsim
