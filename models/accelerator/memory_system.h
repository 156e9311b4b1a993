#pragma once
// memory: hierarchy: the clock of the run's memory systems (DMA engines, mesh NoC, HBM
// stack, scratchpad ports: models/dma/dma_system.h). It runs nothing itself.
//
// Each part steps in SystemC time in its own module's process, woken at its next event: each
// cluster's DMA engine in accelerator.clusterK.dma, its scratchpad's port moves in
// accelerator.clusterK.scratchpad, the mesh in accelerator.noc, the stack in accelerator.hbm.
// The parts keep their exact common time base (models/dma/clock_base.h); SystemC time only
// orders them. A tick of that base is a window of `slot` picoseconds, at least the tick's
// length, and the parts step in fixed slots inside it, in the order one tick's events go
// (MemoryPart): the clusters' own clock edges at the window's start, then each cluster's DMA
// issues and injections, the mesh, the stack, each DMA again, and each scratchpad's port
// moves. So no delta-cycle order decides a result. Kernel time passes only when every cluster
// thread waits, and a part that makes a waiting cluster able to go on stops and lets it run
// first (MemoryGroup::run_part): the memory never runs ahead of a cluster that may still add
// traffic.
//
// The arrays compute a pass's timing ahead of SystemC time (closed form, or the register
// grid's channel), the way a TLM-2.0 loosely-timed initiator runs ahead of the kernel: they
// ask the memory when their data is there and wait on it. Lockstep register grids
// (--verify with clusters > 1) step their group themselves to each cycle's edge
// (MemoryGroup::advance_to); the processes then find those events done.
#include <functional>
#include <vector>

#include <systemc>

#include "models/memory/memory_group.h"

namespace cstsim {

class MemorySystemModule : public sc_core::sc_module, public MemoryClock {
 public:
  MemorySystemModule(sc_core::sc_module_name name, int clusters);
  void attach(MemoryGroup& group) override;
  void detach(const MemoryGroup& group) override;
  void schedule(MemoryGroup& group) override;
  // Called with each group as it attaches (the modules connect their sockets to it).
  void on_attach(std::function<void(MemoryGroup&)> connect) { connect_.push_back(std::move(connect)); }

  // Statistics with their units, of one part's process.
  struct Stats {
    int64_t activations = 0;  // times it ran (count)
    int64_t events = 0;       // events it stepped (count)
  };
  // What the process of `part` (of `cluster`, for a per-cluster part; DmaEarly and DmaLate are
  // one process) wakes on, and what it runs there: the modules register their own method on
  // their part's event and call run() with their own statistics.
  sc_core::sc_event& wake_event(MemoryPart part, int cluster = 0) { return wake_[process(part, cluster)]; }
  void run(MemoryPart part, int cluster, Stats& stats);

 private:
  // 0: the mesh, 1: the stack, 2 + k: cluster k's DMA engine, 2 + K + k: its scratchpad's ports.
  size_t process(MemoryPart part, int cluster) const;
  int64_t slot_of(MemoryPart part, int cluster) const;  // a part's slot in a tick's window
  int64_t now_ps() const { return int64_t(sc_core::sc_time_stamp().value() / ps_); }
  void notify(size_t process, int64_t at_ps, int64_t now_ps);

  const sc_core::sc_time::value_type ps_ = sc_core::sc_time(1, sc_core::SC_PS).value();  // in kernel units

  const int clusters_;
  std::vector<MemoryGroup*> groups_;
  std::vector<std::function<void(MemoryGroup&)>> connect_;
  int64_t slot_ps_ = 0;  // a tick's window (set by the first group)
  std::vector<sc_core::sc_event> wake_;
  // Per process: the time (ps) its pending wake-up is for, INT64_MAX when none; a later or equal
  // one asked for meanwhile changes nothing and costs no kernel call.
  std::vector<int64_t> pending_;
};

}  // namespace cstsim
