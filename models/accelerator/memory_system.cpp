#include "models/accelerator/memory_system.h"

#include <algorithm>
#include <stdexcept>

namespace cstsim {

MemorySystemModule::MemorySystemModule(sc_core::sc_module_name name, int clusters)
    : sc_module(name), clusters_(clusters), wake_(size_t(2 + 2 * clusters)), pending_(wake_.size(), INT64_MAX) {}

size_t MemorySystemModule::process(MemoryPart part, int cluster) const {
  switch (part) {
    case MemoryPart::Noc: return 0;
    case MemoryPart::Hbm: return 1;
    case MemoryPart::DmaEarly:
    case MemoryPart::DmaLate: return size_t(2 + cluster);
    case MemoryPart::Ports: return size_t(2 + clusters_ + cluster);
  }
  return 0;
}

// Slot 0 is the clusters' clock edge; then every DMA's early slot, the mesh's, the stack's,
// every DMA's late slot and every scratchpad's (3 K + 3 in all).
int64_t MemorySystemModule::slot_of(MemoryPart part, int cluster) const {
  const int64_t k = clusters_;
  switch (part) {
    case MemoryPart::DmaEarly: return 1 + cluster;
    case MemoryPart::Noc: return k + 1;
    case MemoryPart::Hbm: return k + 2;
    case MemoryPart::DmaLate: return k + 3 + cluster;
    case MemoryPart::Ports: return 2 * k + 3 + cluster;
  }
  return 0;
}

void MemorySystemModule::attach(MemoryGroup& group) {
  if (group.clusters() > clusters_) throw std::logic_error("memory: a memory system with more clusters than the run");
  // The window: a tick's length in whole picoseconds, rounded up (the memory then lags the
  // clusters' edges, never leads them), and room for every slot.
  const int64_t tps = group.dma().ticks_per_second();
  const int64_t slot = std::max<int64_t>(3 * int64_t(clusters_) + 3, (int64_t(1'000'000'000'000) + tps - 1) / tps);
  if (slot_ps_ && slot != slot_ps_) throw std::logic_error("memory: two memory systems on different time bases");
  slot_ps_ = slot;
  groups_.push_back(&group);
  for (const auto& connect : connect_) connect(group);
}

void MemorySystemModule::detach(const MemoryGroup& group) {
  groups_.erase(std::remove(groups_.begin(), groups_.end(), &group), groups_.end());
}

void MemorySystemModule::schedule(MemoryGroup& group) {
  const DmaSystem& dma = group.dma();
  const int64_t now = now_ps();
  for (int k = 0; k < group.clusters(); ++k) {
    // A DMA's issue or injection in its early slot; one already past it (made by a later part
    // of the same tick) in its late one.
    if (const int64_t t = dma.next_time(MemoryPart::DmaEarly, k); t != INT64_MAX) {
      int64_t at = t * slot_ps_ + slot_of(MemoryPart::DmaEarly, k);
      if (at < now) at = t * slot_ps_ + slot_of(MemoryPart::DmaLate, k);
      notify(process(MemoryPart::DmaEarly, k), at, now);
    }
    if (const int64_t t = dma.next_time(MemoryPart::Ports, k); t != INT64_MAX)
      notify(process(MemoryPart::Ports, k), t * slot_ps_ + slot_of(MemoryPart::Ports, k), now);
  }
  for (MemoryPart part : {MemoryPart::Noc, MemoryPart::Hbm})
    if (const int64_t t = dma.next_time(part); t != INT64_MAX)
      notify(process(part, 0), t * slot_ps_ + slot_of(part, 0), now);
}

void MemorySystemModule::notify(size_t process, int64_t at_ps, int64_t now_ps) {
  at_ps = std::max(at_ps, now_ps);
  int64_t& pending = pending_[process];
  if (pending >= now_ps && pending <= at_ps) return;  // already due by then
  pending = at_ps;
  // An earlier pending notification wins; a later one is replaced by this.
  wake_[process].notify(sc_core::sc_time::from_value(sc_core::sc_time::value_type(at_ps - now_ps) * ps_));
}

void MemorySystemModule::run(MemoryPart part, int cluster, Stats& stats) {
  ++stats.activations;
  const int64_t now = now_ps();
  pending_[process(part, cluster)] = INT64_MAX;  // what woke it, or a spurious wake: asked again below
  const int64_t tick = now / slot_ps_, slot = now % slot_ps_;
  if (part == MemoryPart::DmaEarly || part == MemoryPart::DmaLate)  // which of its two slots: from the time
    part = slot < slot_of(MemoryPart::DmaLate, cluster) ? MemoryPart::DmaEarly : MemoryPart::DmaLate;
  for (MemoryGroup* g : groups_) {
    if (per_cluster(part) && cluster >= g->clusters()) continue;
    if (g->run_part(part, per_cluster(part) ? cluster : -1, tick, stats.events)) {
      // A waiting cluster can go on: it runs in this evaluation phase; this part goes on with
      // the same tick in the next delta cycle, after it (it may have enqueued).
      sc_core::next_trigger(sc_core::SC_ZERO_TIME);
      return;
    }
  }
  for (MemoryGroup* g : groups_) schedule(*g);
}

}  // namespace cstsim
