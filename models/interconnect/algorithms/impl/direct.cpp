// Every chip sends each other chip its part at once (an all-to-all with no forwarding).
#include "models/interconnect/algorithms/i_collective_algorithm.h"

namespace cstsim::ic {

class Direct : public ICollectiveAlgorithm {
 public:
  bool runs(const std::string& op) const override { return op == "all_to_all"; }
  Collective post(Fabric& f, const CollectiveCall& c) const override {
    return all_to_all(f, c.chips, c.bytes, c.options);
  }
};

CSTSIM_REGISTER(ICollectiveAlgorithm, Direct, "direct")

}  // namespace cstsim::ic
