#include "models/accelerator/memory_system.h"

#include <algorithm>
#include <stdexcept>

namespace cstsim {

namespace {

// A part's slot in a tick's window; 0 is the clusters' clock edge.
int64_t slot_of(MemoryPart part) { return int64_t(part) + 1; }
constexpr int64_t kSlots = kMemoryParts + 1;

}  // namespace

MemorySystemModule::MemorySystemModule(sc_core::sc_module_name name) : sc_module(name) {
  SC_HAS_PROCESS(MemorySystemModule);
  SC_METHOD(guarded_run_dma);  // a method, not a thread: it never waits inside, and costs no stack switch
  sensitive << wake_[0];
  dont_initialize();
}

void MemorySystemModule::attach(MemoryGroup& group) {
  // The window: a tick's length in whole picoseconds, rounded up (the memory then lags the
  // clusters' edges, never leads them), and room for every slot.
  const int64_t tps = group.dma().ticks_per_second();
  const int64_t slot = std::max<int64_t>(kSlots, (int64_t(1'000'000'000'000) + tps - 1) / tps);
  if (slot_ps_ && slot != slot_ps_) throw std::logic_error("memory: two memory systems on different time bases");
  slot_ps_ = slot;
  groups_.push_back(&group);
  for (const auto& connect : connect_) connect(group);
}

void MemorySystemModule::detach(const MemoryGroup& group) {
  groups_.erase(std::remove(groups_.begin(), groups_.end(), &group), groups_.end());
}

void MemorySystemModule::schedule(MemoryGroup& group) {
  const DmaSystem::PartTimes t = group.next_part_times();
  const int64_t now = now_ps();
  // The DMA engines: an issue or injection in the early slot, a port move in the late one; one
  // already past its early slot (made by a later part of the same tick) in the late one.
  const int64_t dma = std::min(t.issue, t.ports);
  if (dma != INT64_MAX) {
    int64_t at = dma * slot_ps_ + slot_of(t.issue == dma ? MemoryPart::DmaEarly : MemoryPart::DmaLate);
    if (at < now) at = dma * slot_ps_ + slot_of(MemoryPart::DmaLate);
    notify(0, at, now);
  }
  if (t.noc != INT64_MAX) notify(1, t.noc * slot_ps_ + slot_of(MemoryPart::Noc), now);
  if (t.hbm != INT64_MAX) notify(2, t.hbm * slot_ps_ + slot_of(MemoryPart::Hbm), now);
}

void MemorySystemModule::notify(int process, int64_t at_ps, int64_t now_ps) {
  at_ps = std::max(at_ps, now_ps);
  int64_t& pending = pending_[size_t(process)];
  if (pending >= now_ps && pending <= at_ps) return;  // already due by then
  pending = at_ps;
  // An earlier pending notification wins; a later one is replaced by this.
  wake_[size_t(process)].notify(sc_core::sc_time::from_value(sc_core::sc_time::value_type(at_ps - now_ps) * ps_));
}

void MemorySystemModule::run(MemoryPart part) {
  Stats& stats = stats_[size_t(part_process(part))];
  ++stats.activations;
  const int64_t now = now_ps();
  pending_[size_t(part_process(part))] = INT64_MAX;  // what woke it, or a spurious wake: asked again below
  const int64_t tick = now / slot_ps_, slot = now % slot_ps_;
  if (part_process(part) == 0)  // the DMA engines: issues before the mesh's slot, port moves after the stack's
    part = slot < slot_of(MemoryPart::DmaLate) ? MemoryPart::DmaEarly : MemoryPart::DmaLate;
  for (MemoryGroup* g : groups_) {
    if (g->run_part(part, tick, stats.events)) {
      // A waiting cluster can go on: it runs in this evaluation phase; this part goes on with
      // the same tick in the next delta cycle, after it (it may have enqueued).
      sc_core::next_trigger(sc_core::SC_ZERO_TIME);
      return;
    }
  }
  for (MemoryGroup* g : groups_) schedule(*g);
}

}  // namespace cstsim
