// Half the data round the ring each way: an all-reduce on links that carry both directions.
#include "models/interconnect/algorithms/i_collective_algorithm.h"

namespace cstsim::ic {

class BidirectionalRing : public ICollectiveAlgorithm {
 public:
  bool runs(const std::string& op) const override { return op == "all_reduce"; }
  Fit fit(const Topology& t) const override {
    if (!t.both_ways()) return {"sends both ways round the ring; the links of " + t.name() + " go one way", false};
    return {};
  }
  Collective post(Fabric& f, const CollectiveCall& c) const override {
    return bidirectional_ring_all_reduce(f, c.chips, c.bytes, c.options);
  }
};

CSTSIM_REGISTER(ICollectiveAlgorithm, BidirectionalRing, "bidirectional_ring")

}  // namespace cstsim::ic
