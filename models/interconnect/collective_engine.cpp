// The "collective" engine: chips > 1, this chip meets the others in a collective of the program
// (models/interconnect/chip_set.h). Cluster 0 takes part for its chip; the chip's other clusters
// wait for it at the barrier that ends the step.
#include <stdexcept>

#include "core/registry.h"
#include "models/base/step_engine.h"
#include "models/interconnect/chip_set.h"

namespace cstsim {

class CollectiveEngine : public IStepEngine {
 public:
  StepOutcome run(const Step& step, int64_t start, StepContext& context) override {
    ic::ChipSet* chips = context.part<ic::ChipSet>();
    if (!chips) throw std::logic_error("a collective in a plan run on one chip");
    // The chip set's index of it: its own (chips running different plans), else its place among
    // the program's collectives. (No wait here: the chip's trace mark stays what its memory has
    // announced, which the next step's first wait moves on.)
    const CollectiveKernelPlan& c = step.as<CollectiveStep>()->collective;
    size_t index = 0;
    if (c.id >= 0) {
      index = size_t(c.id);
    } else {
      for (const Step& s : context.plan().program.steps) {
        if (s.id == step.id) break;
        if (s.as<CollectiveStep>()) ++index;
      }
    }
    const int64_t end = context.cluster() == 0 ? chips->collective(context.chip(), index, start) : start - 1;
    return {end, {}};
  }
};
CSTSIM_REGISTER(IStepEngine, CollectiveEngine, "collective")

}  // namespace cstsim
