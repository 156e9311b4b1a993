// The "vector" engine: a kernel of the program on this cluster's vector unit, its share of the
// tiles, its traffic (memory: hierarchy) on the run's memory system.
#include <stdexcept>

#include "core/registry.h"
#include "models/base/step_engine.h"
#include "models/memory/cluster_memory.h"
#include "models/vector/vector_unit.h"

namespace cstsim {

class VectorEngine : public IStepEngine {
 public:
  StepOutcome run(const Step& step, int64_t start, StepContext& context) override {
    VectorUnitModule* unit = context.part<VectorUnitModule>();
    if (!unit) throw std::logic_error("a vector kernel was planned for a cluster without a vector unit");
    ClusterMemory* memory = context.part<ClusterMemory>();
    const bool hierarchy = memory && memory->hierarchy();
    std::shared_ptr<MemoryGroup> group = hierarchy ? memory->group(false) : nullptr;
    std::shared_ptr<MemoryGroup> mirror = hierarchy && memory->mirrored() ? memory->group(true) : nullptr;
    KernelTrace trace(context, group.get(), unit->period());
    VectorKernelResult r = unit->execute(step.as<VectorKernelStep>()->kernel, start, group.get(), mirror.get(),
                                         context.cluster(), context.clusters(), &trace);
    r.shared = end_kernel_memory(context, group.get(), !r.idle, r.end_cycle);
    const int64_t end = r.end_cycle;
    return {end, std::move(r)};
  }
};
CSTSIM_REGISTER(IStepEngine, VectorEngine, "vector")

}  // namespace cstsim
