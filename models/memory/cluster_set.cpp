#include "models/memory/cluster_set.h"

#include <algorithm>

namespace cstsim {

ClusterSet::ClusterSet(const AcceleratorSpec& spec, int clusters, bool record_timeline, MemoryClock* clock)
    : spec_(spec), clusters_(clusters), record_(record_timeline), clock_(clock), marks_(size_t(clusters), 0) {}

std::shared_ptr<MemoryGroup> ClusterSet::group(bool reference) {
  std::shared_ptr<MemoryGroup>& g = reference ? reference_group_ : group_;
  if (!g) g = std::make_shared<MemoryGroup>(spec_, clusters_, record_ && !reference, 0, reference ? nullptr : clock_, true);
  return g;
}

template <typename Last>
int64_t ClusterSet::meet(std::vector<Barrier>& barriers, int step, int64_t value, Last last) {
  if (barriers.size() <= size_t(step)) barriers.resize(size_t(step) + 1);
  Barrier& b = barriers[size_t(step)];
  b.value = std::max(b.value, value);
  if (++b.arrived == clusters_) {
    last();
    b.event->notify(sc_core::SC_ZERO_TIME);
  }
  if (b.arrived <= clusters_) sc_core::wait(*b.event);
  return b.value;
}

void ClusterSet::all_computed(int step) {
  meet(computed_, step, 0, [] {});
}

int64_t ClusterSet::all_finished(int step, int64_t end_cycle) {
  return meet(finished_, step, end_cycle, [this] {
    if (group_) group_->begin_step();
    if (reference_group_) reference_group_->begin_step();
  });
}

}  // namespace cstsim
