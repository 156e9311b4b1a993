#pragma once
// The ledger of an operator graph: the same workload the simulator runs, priced as the ledger
// prices seed 003's operators. Each layer is a row (2 x MACs, and its tensors' bytes read once
// and written once at their dtypes); each vector kernel the mapper would make under `fusion`
// (sim/mapper/vector_plan.h: none, op or chain) is a row with the operations and bytes of its
// steps (sim/workload/vector_steps.h). One vocabulary: `cstsim run` simulates these kernels and
// `cstsim ledger --graph` gives their lower bound.
#include <string>
#include <vector>

#include "sim/ledger/ops.h"
#include "sim/workload/workload.h"

namespace cstsim::ledger {

std::vector<Row> graph_rows(const Workload& w, const std::string& fusion);

}  // namespace cstsim::ledger
