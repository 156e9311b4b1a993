// Recursive halving then doubling: log2(N) exchanges with the chip 2^k away each way, so a
// power-of-two number of chips on links both ways.
#include "models/interconnect/algorithms/i_collective_algorithm.h"

namespace cstsim::ic {

class HalvingDoubling : public ICollectiveAlgorithm {
 public:
  bool runs(const std::string& op) const override { return op == "all_reduce"; }
  Fit fit(const Topology& t) const override {
    if ((t.chips() & (t.chips() - 1)) != 0)
      return {"halving_doubling needs a power-of-two number of chips, got " + std::to_string(t.chips()), true};
    if (!t.both_ways()) return {"halving_doubling exchanges both ways; the links of " + t.name() + " go one way", false};
    return {};
  }
  Collective post(Fabric& f, const CollectiveCall& c) const override {
    return halving_doubling_all_reduce(f, c.chips, c.bytes, c.options);
  }
};

CSTSIM_REGISTER(ICollectiveAlgorithm, HalvingDoubling, "halving_doubling")

}  // namespace cstsim::ic
