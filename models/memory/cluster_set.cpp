#include "models/memory/cluster_set.h"

#include <algorithm>

namespace cstsim {

ClusterSet::ClusterSet(const AcceleratorSpec& spec, int clusters, bool record_timeline, MemoryDriver* driver)
    : spec_(spec), clusters_(clusters), record_(record_timeline), driver_(driver), marks_(size_t(clusters), 0) {}

std::shared_ptr<MemoryGroup> ClusterSet::group(int step, int64_t start, bool reference) {
  auto& groups = reference ? reference_groups_ : groups_;
  if (groups.size() <= size_t(step)) groups.resize(size_t(step) + 1);
  if (!groups[size_t(step)]) groups[size_t(step)] = std::make_shared<MemoryGroup>(spec_, clusters_, record_ && !reference, start, driver_);
  return groups[size_t(step)];
}

int64_t ClusterSet::meet(std::vector<Barrier>& barriers, int layer, int64_t value) {
  if (barriers.size() <= size_t(layer)) barriers.resize(size_t(layer) + 1);
  Barrier& b = barriers[size_t(layer)];
  b.value = std::max(b.value, value);
  if (++b.arrived == clusters_)
    b.event->notify(sc_core::SC_ZERO_TIME);
  if (b.arrived <= clusters_) sc_core::wait(*b.event);
  return b.value;
}

void ClusterSet::all_computed(int layer) {
  meet(computed_, layer, 0);
  if (groups_.size() > size_t(layer)) groups_[size_t(layer)].reset();  // each cluster's source keeps it alive while it needs it
}

int64_t ClusterSet::all_finished(int layer, int64_t end_cycle) {
  const int64_t end = meet(finished_, layer, end_cycle);
  if (reference_groups_.size() > size_t(layer)) reference_groups_[size_t(layer)].reset();
  return end;
}

}  // namespace cstsim
