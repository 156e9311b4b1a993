#pragma once
// ICollectiveAlgorithm: how a collective's data moves between the chips, as messages on the fabric
// (collectives.h has the schedules). Implementations live in impl/, one file each, and register
// under the name inputs and outputs use (CSTSIM_REGISTER, core/registry.h); registry.cpp keeps
// them linked in. A run (chip_set.h) and `cstsim collective` both pick them here: by name, or for
// an op on a topology with default_algorithm.
#include <memory>
#include <string>
#include <vector>

#include "core/registry.h"
#include "models/interconnect/collectives.h"
#include "models/interconnect/fabric.h"

namespace cstsim::ic {

// What a collective is asked to do.
struct CollectiveCall {
  std::string op;          // a collective_ops() name
  int64_t bytes = 0;       // per chip (a send: the message)
  std::vector<int> chips;  // the chips taking part, in ring order
  int from = -1, to = -1;  // a send's two ends
  CollectiveOptions options;
};

// Why an algorithm cannot run on a topology ("" when it can); `chip_count`: the number of chips
// is what does not fit (else the topology's shape).
struct Fit {
  std::string problem;
  bool chip_count = false;
};

class ICollectiveAlgorithm {
 public:
  virtual ~ICollectiveAlgorithm() = default;
  virtual bool runs(const std::string& op) const = 0;
  virtual Fit fit(const Topology&) const { return {}; }
  // Adds the collective's messages to f (not yet timed: f.run() does that).
  virtual Collective post(Fabric& f, const CollectiveCall& call) const = 0;
};

// The ops a collective performs: the plan's CollectiveKernelPlan::op and `cstsim collective --op`.
struct CollectiveOp {
  std::string name;
  std::string algorithm;  // what runs it unless the topology's row names another
  bool pair = false;      // between two chips (a send), not every chip
  int bus_steps = 1;      // nccl-tests' busbw = algbw x bus_steps (N-1)/N (a pair: x 1)
};
const std::vector<CollectiveOp>& collective_ops();
const CollectiveOp* collective_op(const std::string& name);
double bus_factor(const CollectiveOp& op, int chips);

// Registry lookups; collective_algorithm throws std::invalid_argument
// "unknown collective algorithm 'x' (known: a, b)".
std::vector<std::string> collective_algorithm_names();
const ICollectiveAlgorithm& collective_algorithm(const std::string& name);
// The algorithm for `op` on the topology family `topology` (topologies.h): the family's row's, else
// the op's own. Both must be known names (a logic error otherwise).
std::string default_algorithm(const std::string& op, const std::string& topology);

}  // namespace cstsim::ic
