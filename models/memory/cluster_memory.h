#pragma once
// One cluster's view of the run's memory system, as the step engines use it: the cluster set's
// shared MemoryGroup (several clusters), or the cluster's own (one cluster), made on first use;
// with --verify a second one that the register grids drive. It also ends memory steps: the
// barrier with the other clusters, or (alone) the next step begun at once.
#include <cstdint>
#include <memory>

#include <systemc>

#include "models/accelerator/accelerator_spec.h"
#include "models/base/step_engine.h"
#include "models/memory/cluster_set.h"
#include "models/memory/memory_group.h"
#include "models/memory/memory_observer.h"

namespace cstsim {

class ClusterMemory {
 public:
  // `set`: the clusters' (nullptr: one cluster); `clock`: the processes that step the memory
  // systems; `record`: keep the shared timeline for the trace; `mirrored`: --verify's second one;
  // `observer`: told when traffic is final (nullptr: no trace, or ideal memory).
  ClusterMemory(const AcceleratorSpec& spec, int cluster, ClusterSet* set, MemoryClock* clock, bool record,
                bool mirrored, MemoryObserver* observer)
      : spec_(spec), cluster_(cluster), set_(set), clock_(clock), record_(record), mirrored_(mirrored),
        observer_(observer) {}

  bool hierarchy() const { return spec_.memory == MemoryMode::Hierarchy; }
  bool mirrored() const { return mirrored_; }  // the register grids have their own memory system
  int cluster() const { return cluster_; }
  ClusterSet* set() const { return set_; }
  MemoryObserver* observer() const { return observer_; }
  // The run's memory system (memory: hierarchy); `reference`: the register grids' own one.
  std::shared_ptr<MemoryGroup> group(bool reference);

  // Step `step`'s traffic of this cluster is all in.
  void computed(int step) {
    if (set_) set_->all_computed(step);
  }
  // Step `step` ends for this cluster at `end`: its end over every cluster, the next one begun.
  int64_t finished(int step, int64_t end);
  // This cluster has no share of a pass: it is done with the step's memory at once.
  void idle();
  // The run ended at `last`: the memory's last word on the trace (cluster 0, once every cluster
  // has passed the last barrier).
  void finish_run(int64_t last);

 private:
  const AcceleratorSpec& spec_;
  const int cluster_;
  ClusterSet* set_;
  MemoryClock* clock_;
  const bool record_, mirrored_;
  MemoryObserver* observer_;
  std::shared_ptr<MemoryGroup> own_, own_reference_;  // one cluster
};

// A kernel step is over for this cluster at `end`: its traffic is final (the clusters' barrier),
// the shared R(t) announced (`active`: the cluster had a share), the clock moved to `end`. Returns
// the step's memory figures (none without `group`).
SharedStats end_kernel_memory(StepContext& context, MemoryGroup* group, bool active, int64_t end);

// A traced kernel's shared memory record and the trace's clock moved along with the kernel, as
// the array's passes do fold by fold: held to the kernel's end, a traced prefill block's softmax
// kept most of a 288 MB peak in HBM commands and pending changes.
class KernelTrace {
 public:
  // Does nothing without a trace (no observer) or without `group`.
  KernelTrace(StepContext& context, MemoryGroup* group, sc_core::sc_time period);
  // The kernel has announced everything of its own before `before` (its retired transfers, its
  // tiles) and enqueues nothing that starts before it: the shared record is announced up to there
  // (or as far as the memory has simulated) and the trace's clock moves on. Never sleeps.
  void announced_before(int64_t before);

 private:
  static constexpr int64_t kStride = 1024;  // cycles between announcements, at least
  StepContext& context_;
  MemoryGroup* group_;
  MemoryObserver* observer_;
  sc_core::sc_time period_;
  int64_t next_ = 0;
};

}  // namespace cstsim
