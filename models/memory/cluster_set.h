#pragma once
// The clusters of a run under memory: ideal | hierarchy: one MemoryGroup per
// (layer, pass) step, made by the first cluster to reach it, and the zero-time
// barriers between steps (they run one after another). SystemC: the barriers wait
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
  // `driver`: the process that steps every group it makes.
  ClusterSet(const AcceleratorSpec& spec, int clusters, bool record_timeline, MemoryDriver* driver);
  int clusters() const { return clusters_; }
  // The memory system of step (layer, pass) `step`; `reference`: a second one the
  // register grids (--verify) drive in lockstep, independent of the closed form's.
  // The shared memory of (layer, pass) `step`, made when first asked for; `start` is the step's first cycle.
  std::shared_ptr<MemoryGroup> group(int step, int64_t start, bool reference = false);
  // Zero-time barrier once every cluster has simulated the layer's memory traffic.
  void all_computed(int layer);
  // Barrier at the layer's end: returns the latest end cycle over the clusters.
  int64_t all_finished(int layer, int64_t end_cycle);
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
  int64_t meet(std::vector<Barrier>& barriers, int layer, int64_t value);

  AcceleratorSpec spec_;
  int clusters_;
  bool record_;
  MemoryDriver* driver_;
  std::vector<std::shared_ptr<MemoryGroup>> groups_, reference_groups_;
  std::vector<Barrier> computed_, finished_;
  std::vector<int64_t> marks_;
};

}  // namespace cstsim
