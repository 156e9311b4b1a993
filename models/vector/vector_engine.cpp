// The "vector" engine: a kernel of the program on this cluster's vector unit, its share of the
// tiles, its traffic (memory: hierarchy) on the run's memory system.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/registry.h"
#include "models/base/step_engine.h"
#include "models/memory/cluster_memory.h"
#include "models/vector/vector_unit.h"

namespace cstsim {

namespace {

// A sampled kernel's memory figures: the skipped tiles' bytes exactly, the rest (but refresh, which
// ran on through the skipped spans) at the simulated tiles' rate per byte.
SharedStats with_skipped_tiles(SharedStats s, const VectorKernelResult::Sampling& k) {
  const int64_t simulated = s.hbm_bytes_read + s.hbm_bytes_written;
  const int64_t skipped = k.skipped_read_bytes + k.skipped_written_bytes;
  auto scale = [&](int64_t& v) {
    if (simulated > 0) v += int64_t((__int128(v) * skipped + simulated / 2) / simulated);
  };
  scale(s.hbm_activates);
  scale(s.hbm_bursts);
  scale(s.hbm_row_hits);
  scale(s.noc_flit_hops);
  scale(s.noc_packets);
  s.hbm_bytes_read += k.skipped_read_bytes;
  s.hbm_bytes_written += k.skipped_written_bytes;
  return s;
}

}  // namespace

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
    if (r.sampling) r.shared = with_skipped_tiles(r.shared, *r.sampling);
    // One refresh more or less than the exact run's: the skipped tiles meet them at the windows'
    // mean rate, a kernel simulated whole after an estimate from another clock, refresh phase and
    // rows (measured on the decode step: a 325-cycle RMSNorm 172 cycles later than exact, a
    // 3,838-cycle softmax 233 earlier).
    const double refresh = group ? group->dma().hbm().spec().refresh_hit_ns() * 1e-9 / unit->period().to_seconds() : 0;
    if (r.sampling && r.sampling->detailed_tiles < r.sampling->tiles) {
      r.sampling->ci95_cycles = std::hypot(r.sampling->ci95_cycles, refresh);
      group->mark_estimated();
    } else if (!r.sampling && !r.idle && group && group->estimated()) {
      r.sampling = VectorKernelResult::Sampling{};
      r.sampling->tiles = r.sampling->detailed_tiles = r.tiles;
      r.sampling->ci95_cycles = std::max(1.0, refresh);  // never certain, even without refresh
    }
    const int64_t end = r.end_cycle;
    return {end, std::move(r)};
  }
};
CSTSIM_REGISTER(IStepEngine, VectorEngine, "vector")

}  // namespace cstsim
