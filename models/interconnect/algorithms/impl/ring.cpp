// The ring: the data cut into one chunk per chip, each step every chip forwards a chunk to the
// next chip (collectives.h). All-reduce is reduce-scatter then all-gather.
#include "models/interconnect/algorithms/i_collective_algorithm.h"

namespace cstsim::ic {

class Ring : public ICollectiveAlgorithm {
 public:
  bool runs(const std::string& op) const override {
    return op == "all_reduce" || op == "reduce_scatter" || op == "all_gather";
  }
  Collective post(Fabric& f, const CollectiveCall& c) const override {
    if (c.op == "reduce_scatter") return ring_reduce_scatter(f, c.chips, c.bytes, c.options);
    if (c.op == "all_gather") return ring_all_gather(f, c.chips, c.bytes, c.options);
    return ring_all_reduce(f, c.chips, c.bytes, c.options);
  }
};

CSTSIM_REGISTER(ICollectiveAlgorithm, Ring, "ring")

}  // namespace cstsim::ic
