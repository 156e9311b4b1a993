#pragma once
// memory: hierarchy: the clock of the run's memory systems (DMA engines, mesh NoC, HBM
// stack: models/dma/dma_system.h), and the DMA engines' own process.
//
// Each part steps in SystemC time in its own module's process, woken at its next event:
// the DMA engines here (accelerator.memory: every cluster's queues and scratchpad port
// moves, in cluster order), the mesh in accelerator.noc, the stack in accelerator.hbm.
// The parts keep their exact common time base (models/dma/clock_base.h); SystemC time only
// orders them. A tick of that base is a window of `slot` picoseconds, at least the tick's
// length, and the parts step in fixed slots inside it, in the order one tick's events go
// (MemoryPart): the clusters' own clock edges at the window's start, then the DMA engines'
// issues, the mesh, the stack, and the DMA engines' port moves. So no delta-cycle order
// decides a result. Kernel time passes only when every cluster thread waits, and a part that
// makes a waiting cluster able to go on stops and lets it run first (MemoryGroup::run_part):
// the memory never runs ahead of a cluster that may still add traffic.
//
// The arrays compute a pass's timing ahead of SystemC time (closed form, or the register
// grid's channel), the way a TLM-2.0 loosely-timed initiator runs ahead of the kernel: they
// ask the memory when their data is there and wait on it. Lockstep register grids
// (--verify with clusters > 1) step their group themselves to each cycle's edge
// (MemoryGroup::advance_to); the processes then find those events done.
#include <array>
#include <functional>
#include <vector>

#include <systemc>

#include "models/base/process_guard.h"
#include "models/memory/memory_group.h"

namespace cstsim {

class MemorySystemModule : public sc_core::sc_module, public MemoryClock {
 public:
  explicit MemorySystemModule(sc_core::sc_module_name name);
  void attach(MemoryGroup& group) override;
  void detach(const MemoryGroup& group) override;
  void schedule(MemoryGroup& group) override;
  // Called with each group as it attaches (the modules connect their sockets to it).
  void on_attach(std::function<void(MemoryGroup&)> connect) { connect_.push_back(std::move(connect)); }

  // What the process of `part` wakes on, and what it runs there (the mesh's and the stack's
  // modules register their own method on their part's event and call run()).
  sc_core::sc_event& wake_event(MemoryPart part) { return wake_[size_t(part_process(part))]; }
  void run(MemoryPart part);

  // Statistics with their units, per process (0: the DMA engines', 1: the mesh's, 2: the stack's).
  struct Stats {
    int64_t activations = 0;  // times it ran (count)
    int64_t events = 0;       // events it stepped (count)
  };
  const Stats& stats(MemoryPart part) const { return stats_[size_t(part_process(part))]; }

 private:
  static int part_process(MemoryPart part) {  // 0: DMA engines (early and late), 1: mesh, 2: stack
    return part == MemoryPart::Noc ? 1 : part == MemoryPart::Hbm ? 2 : 0;
  }
  void run_dma() { run(MemoryPart::DmaEarly); }  // which of its two slots: from the time
  void guarded_run_dma() { guard_process([this] { run_dma(); }); }  // what SC_*(run_dma) registers
  int64_t now_ps() const { return int64_t(sc_core::sc_time_stamp().value() / ps_); }
  void notify(int process, int64_t at_ps, int64_t now_ps);

  const sc_core::sc_time::value_type ps_ = sc_core::sc_time(1, sc_core::SC_PS).value();  // in kernel units

  std::vector<MemoryGroup*> groups_;
  std::vector<std::function<void(MemoryGroup&)>> connect_;
  int64_t slot_ps_ = 0;  // a tick's window (set by the first group)
  std::array<sc_core::sc_event, 3> wake_;
  // Per process: the time (ps) its pending wake-up is for, INT64_MAX when none; a later or equal
  // one asked for meanwhile changes nothing and costs no kernel call.
  std::array<int64_t, 3> pending_{INT64_MAX, INT64_MAX, INT64_MAX};
  std::array<Stats, 3> stats_;
};

}  // namespace cstsim
