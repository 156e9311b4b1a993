#pragma once
// What a run executes on its chips, from the arch and the workload as loaded: the one place
// `cstsim run`, `cstsim plan` and the sweep (its tasks' config hashes) make it.
#include <string>
#include <vector>

#include "sim/config/arch_spec.h"
#include "sim/workload/data_parallel.h"
#include "sim/workload/workload.h"

namespace cstsim {

// How the arch splits the workload over its chips (parallel.*).
inline ChipSplit chip_split(const ArchSpec& a) {
  return {a.tensor_parallel, a.data_parallel, a.pipeline_parallel, a.micro_batches, a.precision.accumulator_bits()};
}

// chip_workloads (every chip's share, one per pipeline stage) of `loaded` after --sparsity, with
// --train's step; `dense`: the layers --sparsity leaves dense. Throws InputError.
std::vector<Workload> run_workloads(const ArchSpec& a, const Workload& loaded, const std::string& sparsity,
                                    const std::string& train, std::vector<std::string>* dense = nullptr);

}  // namespace cstsim
