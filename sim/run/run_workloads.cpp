#include "sim/run/run_workloads.h"

#include "sim/workload/sparsity.h"

namespace cstsim {

std::vector<Workload> run_workloads(const ArchSpec& a, const Workload& loaded, const std::string& sparsity,
                                    const std::string& train, std::vector<std::string>* dense) {
  return chip_workloads(with_weight_sparsity(loaded, sparsity, dense), train, a.precision.value_bits(), chip_split(a));
}

}  // namespace cstsim
