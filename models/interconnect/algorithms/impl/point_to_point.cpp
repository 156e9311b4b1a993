// One message from a sender to a receiver (a pipeline stage's send).
#include "models/interconnect/algorithms/i_collective_algorithm.h"

namespace cstsim::ic {

class PointToPoint : public ICollectiveAlgorithm {
 public:
  bool runs(const std::string& op) const override { return op == "send"; }
  Collective post(Fabric& f, const CollectiveCall& c) const override {
    return point_to_point(f, c.from, c.to, c.bytes, c.options);
  }
};

CSTSIM_REGISTER(ICollectiveAlgorithm, PointToPoint, "point_to_point")

}  // namespace cstsim::ic
