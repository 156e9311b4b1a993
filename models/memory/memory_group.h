#pragma once
// The memory system one layer runs against under memory: hierarchy, shared by the
// clusters that run the layer: one mesh NoC, one HBM stack, a DMA and a
// scratchpad per cluster (models/dma/dma_system.h).
//
// Each cluster asks for its data from its own SystemC thread, in fold order. The
// shared system may only move forward while no cluster can still add traffic
// behind it. In a run its parts are stepped in SystemC time by their modules'
// processes (MemoryClock, implemented by models/accelerator/memory_system.h): time
// passes only once every cluster thread waits, and a process stops as soon as a
// waiting cluster can go on, so a cluster that goes on enqueues new transfers no
// earlier than the cycle its data arrived, never behind the system's clock.
// Without a clock a single cluster steps it from its own call, with no SystemC
// call (tests drive it without a kernel).
// ClusterSet (cluster_set.h) holds the run's group and the barriers between steps.
#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>


#include "models/dma/dma_system.h"
#include "models/scratchpad/scratchpad.h"
#include "models/accelerator/accelerator_spec.h"

// The kernel is needed only in memory_group.cpp: code that queries a MemoryGroup
// (the tile sources) stays plain C++.
namespace sc_core {
class sc_event;
}
namespace cstsim::hbm {
class ProtocolWatch;
}

namespace cstsim {

// A step series, the form R(t) is announced in: (cycle, value) when the value changes, from
// 0, replacing the last entry if it is for the same cycle. `now` is the value it holds, which
// stays when announced entries are taken away (take_before).
template <typename V>
struct StepSeries {
  std::vector<std::pair<int64_t, V>> steps;
  V now{};
  void step(int64_t cycle, V value) {
    if (!steps.empty() && steps.back().first == cycle)
      steps.back().second = value;
    else if (value != now)
      steps.emplace_back(cycle, value);
    else
      return;
    now = value;
  }
};

// Moves the entries of `from` before cycle `before` (their .first) to the end of `to`, in order.
template <typename E>
void take_before(std::vector<E>& from, int64_t before, std::vector<E>& to) {
  auto keep = std::stable_partition(from.begin(), from.end(), [before](const E& e) { return e.first < before; });
  to.insert(to.end(), from.begin(), keep);
  from.erase(from.begin(), keep);
}

// HBM and NoC occupancy over time, accelerator cycles, for the trace.
struct SharedTimeline {
  // Per HBM channel: (cycle, its pseudo-channels moving data) and (cycle, its open rows).
  std::vector<StepSeries<int>> hbm_busy_pcs;
  std::vector<StepSeries<int>> hbm_open_rows;
  // Per HBM channel: [begin, end) of each all-bank refresh's active part, tRFC - tRP from the REF
  // (DRAMPower books it as active cycles: its REF energy is the current above IDD3N).
  std::vector<std::vector<std::pair<int64_t, int64_t>>> hbm_refreshing;
  StepSeries<int> noc_busy_links;                          // (cycle, links carrying a flit)
  std::vector<std::pair<int64_t, int64_t>> noc_flit_hops;  // (cycle, flit-hops in that cycle)
  // Per HBM channel: (cycle, bytes its data buses started moving), for the bytes per edge.
  std::vector<std::vector<std::pair<int64_t, int64_t>>> hbm_bytes;
  // Per HBM command (hbm::Cmd index): (cycle, commands issued in it), for command energy.
  std::array<std::vector<std::pair<int64_t, int64_t>>, hbm::kNumCmds> hbm_commands;
  // Moves every entry before `before` into `out` (sized like this one).
  void take_before(int64_t before, SharedTimeline& out);
};

struct SharedStats {  // after every cluster is done
  int64_t hbm_bytes_read = 0, hbm_bytes_written = 0;  // bursts x burst bytes
  int64_t hbm_activates = 0;
  int64_t hbm_refreshes = 0, hbm_bank_refreshes = 0;  // REF + REFpb commands, and the REFpb among them
  int64_t hbm_bursts = 0, hbm_row_hits = 0;
  int64_t noc_flit_hops = 0, noc_packets = 0;
  double hbm_row_hit_rate() const { return hbm_bursts ? double(hbm_row_hits) / double(hbm_bursts) : 0.0; }
  SharedStats& operator+=(const SharedStats& o);  // one step after another (passes)
  SharedStats operator-(const SharedStats& o) const;  // what happened since o
};

class MemoryGroup;

// The processes that step a run's memory systems in SystemC time, one per part
// (MemoryPart: the DMA engines, the mesh, the stack; models/accelerator/memory_system.h).
// A group attaches while it lives and says when its next events may have moved earlier (a
// cluster enqueued transfers, stepped the system itself, or is done); each process then steps
// its part of every group at that part's times (run_part).
class MemoryClock {
 public:
  virtual ~MemoryClock() = default;
  virtual void attach(MemoryGroup& group) = 0;
  virtual void detach(const MemoryGroup& group) = 0;
  virtual void schedule(MemoryGroup& group) = 0;
};

// A run's memory system lives for the whole run (whole_run): its rows, refresh state, queues and
// scratchpads carry over from step to step, a step (layer, pass) being the traffic between two
// barriers of the clusters (begin_step); its figures are per step, and the checker's last word and
// the trace's last piece come at the run's end (finish). A pass alone (tests, a lone source) has
// a memory system of its own that ends with the pass.
class MemoryGroup {
 public:
  // `start`: the accelerator cycle it begins (refresh keeps the run's phase).
  // `clock`: the processes that step it. Without them the waiting clusters step it
  // themselves (--verify's lockstep grids, which run behind SystemC time): the last of
  // them to wait, until one can go on.
  MemoryGroup(const AcceleratorSpec& spec, int clusters, bool record_timeline, int64_t start,
              MemoryClock* clock = nullptr, bool whole_run = false);
  ~MemoryGroup();

  int clusters() const { return int(spads_.size()); }
  DmaSystem& dma() { return *dma_; }
  const DmaSystem& dma() const { return *dma_; }
  spad::Scratchpad& spad(int cluster) { return *spads_[size_t(cluster)]; }
  // Nothing will ask how `cluster`'s requests went before accelerator cycle `mark`: the DMA drops
  // them, and the cluster's scratchpad its port record before the mark (but what the memory has
  // yet to simulate or the DMA's port queues still look back to). Keeps a long pass or kernel's
  // memory to what is in flight.
  void forget_history(int cluster, int64_t mark);
  const spad::Scratchpad& spad(int cluster) const { return *spads_[size_t(cluster)]; }
  // Returns once `satisfied()` holds: the clock's processes step the system meanwhile (kernel
  // time cannot pass while a cluster still runs, so none can add traffic behind the system).
  // Throws std::logic_error when nothing can make it true.
  void wait_for(int cluster, const std::function<bool()>& satisfied);
  // For the clock's process of `part` (of `cluster`, for a per-cluster part), at `tick`: steps
  // that part's events up to the tick, and stops early when a waiting cluster can go on (it is
  // woken: the one whose wait made every cluster wait first, then the others in cluster order);
  // true then, so the process lets it run before it goes on with the same tick. `events` counts
  // what it stepped.
  bool run_part(MemoryPart part, int cluster, int64_t tick, int64_t& events);
  // Every cluster but `cluster` waits (not yet woken) or is done: none can enqueue before it is
  // woken, so the memory may be run ahead of what the waiting needs (DmaSystem::catch_up).
  bool others_wait(int cluster) const;
  // The cluster will add no more traffic in this step.
  void done(int cluster);
  // Every cluster is done with a step and none goes on before `cycle`: runs the HBM's idle channels
  // up to it (their refreshes and closing precharges), so the memory's record is final before
  // cycle + 1 (what the trace may announce); returns that bound.
  int64_t settle(int64_t cycle);
  // whole_run: the clusters meet between steps; the next step begins (none done, figures from 0).
  void begin_step();
  int step() const { return step_; }  // the current step, from 0
  // whole_run: the run ends at `end` (the last cycle): the idle channels run up to it, the
  // checker has its last word, and the trace's last piece (take_timeline(kTimelineEnd)) closes
  // the rows still open there.
  void finish(int64_t end);
  // Lockstep use (register grids stepping together): simulate every event up to
  // and including accelerator cycle `cycle`'s edge, but the scratchpad writes of
  // `cycle` (DmaSystem::advance_to). Safe when every cluster has enqueued what it
  // issues before that cycle; an issue at `cycle` itself cannot change anything that
  // completes by then.
  void advance_to(int64_t cycle);
  // The HBM and NoC timeline before cycle `before`, taken away: a run announces it piece by
  // piece as the memory has simulated that far (every event up to before - 1's edge), or all of
  // it (kTimelineEnd) once every cluster is done, which also closes the rows still open.
  static constexpr int64_t kTimelineEnd = INT64_MAX;
  SharedTimeline take_timeline(int64_t before);
  SharedStats stats() const;  // of the current step
  // fidelity: sampled. Some traffic was estimated rather than simulated (a pass's or a kernel's
  // skipped folds or tiles): from then on the memory's clock, refresh phase, rows and queues are
  // not the exact run's, and what is simulated after is one draw of the states it could meet.
  void mark_estimated() { estimated_ = true; }
  bool estimated() const { return estimated_; }

 private:
  struct Observer;
  bool everyone_waits() const;
  bool nobody_runs() const;  // every cluster waits, not yet woken, or is done
  void finish_checks();  // the checker's last word
  SharedStats stats_so_far() const;  // since the memory system began

  std::vector<std::unique_ptr<spad::Scratchpad>> spads_;
  std::unique_ptr<DmaSystem> dma_;
  std::unique_ptr<Observer> observer_;
  std::unique_ptr<hbm::ProtocolWatch> checker_;  // spec.check_hbm_protocol
  SharedTimeline timeline_;
  void schedule() { if (clock_) clock_->schedule(*this); }
  bool wake_satisfied(int self = -1);  // wakes the waiting clusters that can go on; true if any
  // No clock: every cluster waits, `first` last to: steps the system until one can go on.
  // `self`: the cluster whose thread steps it (it needs no wake-up), or -1.
  void drive(int first, int self);

  MemoryClock* clock_;
  bool whole_run_;
  int first_waiter_ = -1;  // the cluster whose wait last made every cluster wait
  SharedStats step_base_;  // stats_so_far() when the step began
  int step_ = 0;
  int64_t run_end_ = -1;   // finish(): rows still open close there
  bool estimated_ = false;
  std::vector<std::function<bool()>> waiting_;  // per cluster: what it waits for, empty if running
  std::vector<bool> woken_;                     // per cluster: waiting, and told to look again
  std::vector<bool> done_;
  std::vector<std::unique_ptr<sc_core::sc_event>> wake_;
};

}  // namespace cstsim
