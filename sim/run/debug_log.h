#pragma once
// What `-v` adds to a run's log: the plan's choices before the simulation and each layer's and
// kernel's timing after it (debug level; nothing is computed unless it will be printed).
#include <vector>

#include "models/array/layer_result.h"
#include "models/vector/vector_result.h"
#include "plan/plan.h"
#include "sim/config/arch_spec.h"

namespace cstsim {

// Per layer: its GEMM, the fold grid of its first pass, passes, clusters' shares, the HBM bytes its
// DMA programs move; then the vector, flash and collective kernels between the layers.
void log_plan(const ArchSpec& a, const Plan& plan);

// Per layer: start and end cycle, cycles against the ideal-memory cycles, stalls by cause, DRAM
// bytes; per vector kernel: its span, compute and waiting cycles.
void log_timing(const std::vector<ArrayLayerResult>& layers, const std::vector<VectorKernelResult>& vector);

}  // namespace cstsim
