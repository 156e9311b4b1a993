#pragma once
// The clusters of a run under memory: ideal | hierarchy: the run's one memory system
// (MemoryGroup, made by the first cluster to ask for it), and the zero-time barriers
// between steps (layer, pass), which run one after another. SystemC: the barriers wait
// on sc_events, so only the array modules include this.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>

#include "models/memory/memory_group.h"

namespace cstsim {

class ClusterSet {
 public:
  // `clock`: the processes that step the memory systems it makes.
  ClusterSet(const AcceleratorSpec& spec, int clusters, bool record_timeline, MemoryClock* clock);
  int clusters() const { return clusters_; }
  // The run's memory system; `reference`: a second one the register grids (--verify) drive in
  // lockstep, independent of the closed form's.
  std::shared_ptr<MemoryGroup> group(bool reference = false);
  // Zero-time barrier once every cluster has simulated step `step`'s memory traffic.
  void all_computed(int step);
  // Barrier at the step's end: returns the latest end cycle over the clusters. The last to
  // arrive begins the memory systems' next step before any cluster goes on, so none of them
  // can find the others done and step the memory while one still has to enqueue.
  int64_t all_finished(int step, int64_t end_cycle);
  // The trace's clock: cluster k will announce nothing before `cycle` (it has announced what
  // its memory did before it and sleeps to it); the trace may be final up to the smallest mark.
  void trace_mark(int cluster, int64_t cycle) { marks_[size_t(cluster)] = cycle; }
  int64_t trace_time() const { return *std::min_element(marks_.begin(), marks_.end()); }

 private:
  struct Barrier {
    int arrived = 0;
    int64_t value = 0;
    std::unique_ptr<sc_core::sc_event> event = std::make_unique<sc_core::sc_event>();
  };
  // Waits until every cluster has arrived; `last` runs when the last one does, before any goes on.
  template <typename Last>
  int64_t meet(std::vector<Barrier>& barriers, int step, int64_t value, Last last);

  AcceleratorSpec spec_;
  int clusters_;
  bool record_;
  MemoryClock* clock_;
  std::shared_ptr<MemoryGroup> group_, reference_group_;
  std::vector<Barrier> computed_, finished_;
  std::vector<int64_t> marks_;
};

}  // namespace cstsim
