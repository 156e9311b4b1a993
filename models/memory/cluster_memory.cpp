#include "models/memory/cluster_memory.h"

#include <algorithm>

namespace cstsim {

std::shared_ptr<MemoryGroup> ClusterMemory::group(bool reference) {
  if (set_) return set_->group(reference);
  std::shared_ptr<MemoryGroup>& g = reference ? own_reference_ : own_;
  if (!g) g = std::make_shared<MemoryGroup>(spec_, 1, record_ && !reference, 0, reference ? nullptr : clock_, true);
  return g;
}

int64_t ClusterMemory::finished(int step, int64_t end) {
  if (set_) return set_->all_finished(step, end);
  if (own_) own_->begin_step();
  if (own_reference_) own_reference_->begin_step();
  return end;
}

void ClusterMemory::idle() {
  if (!set_ || !hierarchy()) return;
  group(false)->done(cluster_);
  if (mirrored_) group(true)->done(cluster_);
}

void ClusterMemory::finish_run(int64_t last) {
  if (!hierarchy() || cluster_ != 0) return;
  std::shared_ptr<MemoryGroup> g = group(false);
  g->finish(last);
  if (observer_) observer_->run_finished(*g);
  if (mirrored_) group(true)->finish(last);
}

SharedStats end_kernel_memory(StepContext& context, MemoryGroup* group, bool active, int64_t end) {
  context.memory_computed();  // the step's memory is final
  SharedStats stats;
  if (group) {
    stats = group->stats();
    const ClusterMemory* memory = context.part<ClusterMemory>();
    MemoryObserver* observer = memory ? memory->observer() : nullptr;
    if (active && observer) observer->vector_simulated(*group, group->settle(end));
  }
  context.wait_until(end);
  return stats;
}

KernelTrace::KernelTrace(StepContext& context, MemoryGroup* group, sc_core::sc_time period)
    : context_(context), group_(group), period_(period) {
  const ClusterMemory* memory = context.part<ClusterMemory>();
  observer_ = group && memory ? memory->observer() : nullptr;
}

void KernelTrace::announced_before(int64_t before) {
  if (!observer_) return;
  // Not past the process's own time, so the clock's wait is no wait and the kernel's timing stays
  // what it is untraced.
  const int64_t now = int64_t(sc_core::sc_time_stamp() / period_);
  before = std::min({before, group_->dma().hbm_observed_before(), now});
  if (before < next_) return;
  observer_->vector_simulated(*group_, before);
  context_.wait_until(before);
  next_ = before + kStride;
}

}  // namespace cstsim
