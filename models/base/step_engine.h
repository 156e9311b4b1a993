#pragma once
// How a cluster executes a step of the program (plan/program.h): its sequencer
// (models/accelerator/sequencer.h) hands each step to the engine registered under the step's
// kind, through a StepContext, and keeps what the engine returns. The sequencer knows no kind;
// an engine knows nothing of the steps around its own. A new step kind is a Step alternative
// plus one file here-by-registration:
//
//   class MyEngine : public IStepEngine { StepOutcome run(const Step&, int64_t, StepContext&) override; };
//   CSTSIM_REGISTER(IStepEngine, MyEngine, "my_kind")
//
// (CONTRIBUTING.md, "A step kind", walks it through.)
#include <any>
#include <cstdint>
#include <typeindex>
#include <unordered_map>

#include "plan/plan.h"

namespace cstsim {

// What a step left: its last busy cycle on this cluster (before the barrier that ends it) and
// its result, a value of the engine's own type (ArrayLayerResult, VectorKernelResult, ...) that
// the accelerator reads back by type; empty when the step reports nothing.
struct StepOutcome {
  int64_t end_cycle = 0;
  std::any result;
};

// The one hop from the sequencer to an engine: simulated time, the clusters' barriers and the
// parts of the cluster the engine may use.
class StepContext {
 public:
  virtual ~StepContext() = default;
  virtual const Plan& plan() const = 0;
  virtual int cluster() const = 0;
  virtual int clusters() const = 0;
  virtual int chip() const = 0;
  // Sleeps this cluster's process until `cycle`, telling the trace that everything before
  // `mark` (<= cycle) has been announced.
  virtual void wait_until(int64_t cycle, int64_t mark) = 0;
  void wait_until(int64_t cycle) { wait_until(cycle, cycle); }
  // Memory steps are what the clusters share a memory system over and meet after: each pass of a
  // layer, each kernel. The current one's index:
  virtual int memory_step() const = 0;
  // This cluster's traffic of the current memory step is all in (a zero-time barrier with the
  // other clusters: the step's shared memory is final once they have all said so).
  virtual void memory_computed() = 0;
  // The current memory step ends for this cluster at `end`: waits for the other clusters, begins
  // the memory systems' next step and returns the step's end over every cluster.
  virtual int64_t end_memory_step(int64_t end) = 0;

  // The cluster's parts, by type (its array, its vector unit, its memory, the chip set); nullptr
  // when it has none. The sequencer's owner provides them.
  template <typename T>
  T* part() const {
    auto it = parts_.find(std::type_index(typeid(T)));
    return it == parts_.end() ? nullptr : static_cast<T*>(it->second);
  }
  template <typename T>
  void provide(T* part) {
    parts_[std::type_index(typeid(T))] = part;
  }

 private:
  std::unordered_map<std::type_index, void*> parts_;
};

class IStepEngine {
 public:
  virtual ~IStepEngine() = default;
  // Runs `step` on this cluster from cycle `start`. The sequencer ends the step's last memory
  // step (the barrier after it); an engine whose step makes several (a layer's passes) ends the
  // ones before the last itself.
  virtual StepOutcome run(const Step& step, int64_t start, StepContext& context) = 0;
};

}  // namespace cstsim
