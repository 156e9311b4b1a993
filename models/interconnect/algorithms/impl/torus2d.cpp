// On an x by y torus: reduce-scatter along the rows, then the columns, and all-gather back.
#include "models/interconnect/algorithms/i_collective_algorithm.h"

namespace cstsim::ic {

class Torus2d : public ICollectiveAlgorithm {
 public:
  bool runs(const std::string& op) const override { return op == "all_reduce"; }
  Fit fit(const Topology& t) const override {
    if (t.torus_x() == 0) return {"torus2d runs on the topology torus2d, not " + t.name(), false};
    return {};
  }
  Collective post(Fabric& f, const CollectiveCall& c) const override {
    return torus_all_reduce(f, f.topology().torus_x(), f.topology().torus_y(), c.bytes, c.options);
  }
};

CSTSIM_REGISTER(ICollectiveAlgorithm, Torus2d, "torus2d")

}  // namespace cstsim::ic
