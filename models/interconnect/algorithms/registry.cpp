// The collective algorithms' lookup and the ops table. Implementations register themselves
// (CSTSIM_REGISTER in impl/); the anchors below only keep them linked in.
#include <stdexcept>

#include "models/interconnect/algorithms/i_collective_algorithm.h"
#include "models/interconnect/topologies.h"

namespace cstsim::ic {

int cstsim_anchor_Ring();               // impl/ring.cpp
int cstsim_anchor_BidirectionalRing();  // impl/bidirectional_ring.cpp
int cstsim_anchor_HalvingDoubling();    // impl/halving_doubling.cpp
int cstsim_anchor_Torus2d();            // impl/torus2d.cpp
int cstsim_anchor_Direct();             // impl/direct.cpp
int cstsim_anchor_PointToPoint();       // impl/point_to_point.cpp

namespace {
Registry<ICollectiveAlgorithm>& algorithms() {
  static const int linked = cstsim_anchor_Ring() + cstsim_anchor_BidirectionalRing() + cstsim_anchor_HalvingDoubling() +
                            cstsim_anchor_Torus2d() + cstsim_anchor_Direct() + cstsim_anchor_PointToPoint();
  (void)linked;
  return Registry<ICollectiveAlgorithm>::instance();
}
}  // namespace

const std::vector<CollectiveOp>& collective_ops() {
  static const std::vector<CollectiveOp> ops = {
      {"all_reduce", "ring", false, 2},  {"reduce_scatter", "ring", false, 1}, {"all_gather", "ring", false, 1},
      {"all_to_all", "direct", false, 1}, {"send", "point_to_point", true, 1},
  };
  return ops;
}

const CollectiveOp* collective_op(const std::string& name) {
  for (const CollectiveOp& op : collective_ops())
    if (op.name == name) return &op;
  return nullptr;
}

double bus_factor(const CollectiveOp& op, int chips) {
  return op.pair ? 1.0 : op.bus_steps * double(chips - 1) / chips;
}

std::vector<std::string> collective_algorithm_names() { return algorithms().names(); }

const ICollectiveAlgorithm& collective_algorithm(const std::string& name) {
  return algorithms().shared(name, "collective algorithm");
}

std::string default_algorithm(const std::string& op, const std::string& topology) {
  const CollectiveOp* o = collective_op(op);
  const TopologyFamily* t = topology_family(topology);
  if (!o || !t) throw std::logic_error("default_algorithm: unknown op " + op + " or topology " + topology);
  const auto it = t->algorithms.find(op);
  return it != t->algorithms.end() ? it->second : o->algorithm;
}

}  // namespace cstsim::ic
