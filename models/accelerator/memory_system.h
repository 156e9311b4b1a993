#pragma once
// memory: hierarchy: the process that runs the run's memory system (DMA engines,
// mesh NoC, HBM controllers: one exact event queue over their three clocks for the
// whole run, models/dma/dma_system.h).
//
// The arrays compute a pass's timing ahead of SystemC time (closed form, or the
// register grid's channel), the way a TLM-2.0 loosely-timed initiator runs ahead of
// the kernel: they ask the memory when their data is there, not to be told at the
// cycle it lands. So the memory runs ahead of SystemC time too, and its queue is
// stepped by one process (an SC_METHOD) that runs when every cluster of a step waits on it
// (conservative: no cluster can still add traffic behind its clock), then steps the
// queue until one of them can go on and wakes it. The NoC and HBM are not separate
// processes: each of their events would be a kernel event at a time the kernel has
// not reached. Lockstep register grids (--verify with clusters > 1) advance their
// step's queue from their own per-cycle threads (MemoryGroup::advance_to).
#include <deque>

#include <systemc>

#include "models/memory/memory_group.h"
#include "models/base/process_guard.h"

namespace cstsim {

class MemorySystemModule : public sc_core::sc_module, public MemoryDriver {
 public:
  explicit MemorySystemModule(sc_core::sc_module_name name);
  void every_cluster_waits(MemoryGroup& group, int last) override;
  void forget(const MemoryGroup& group) override;

  // Statistics with their units: how often the process ran and what it did.
  struct Stats {
    int64_t wakeups = 0;  // requests served (count)
    int64_t steps = 0;    // queue events it processed (count)
  };
  const Stats& stats() const { return stats_; }

 private:
  void serve();  // SC_METHOD, on work_
  void guarded_serve() { guard_process([this] { serve(); }); }  // what SC_*(serve) registers

  struct Request {
    MemoryGroup* group;
    int last;  // the cluster whose wait made every cluster wait: it goes on first
  };
  std::deque<Request> requests_;
  sc_core::sc_event work_;
  Stats stats_;
};

}  // namespace cstsim
