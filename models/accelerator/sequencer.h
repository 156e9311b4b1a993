#pragma once
// A cluster's sequencer: the one process that walks the program (plan/program.h) for its cluster.
// Step after step it hands the step to the engine registered under the step's kind
// (models/base/step_engine.h), keeps what the engine returns, and ends the step with the barrier
// that every cluster meets before the next begins. It knows no step kind: what a step does is its
// engine's, when it runs is the sequencer's. Simulated time counts cycles as integers; SystemC
// time only orders the processes (cycle c is c clock periods).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "core/progress.h"
#include "models/base/step_engine.h"
#include "models/memory/cluster_memory.h"
#include "traces/sink.h"

namespace cstsim {

namespace ic {
class ChipSet;
}

struct SequencerParams {
  int cluster = 0, clusters = 1;
  sc_core::sc_time period;     // of the clock
  ClusterSet* cluster_set = nullptr;  // clusters > 1: the barriers and the trace's clock
  // chips > 1: this cluster belongs to chip `chip`, whose trace clock it moves with the others'.
  ic::ChipSet* chips = nullptr;
  int chip = 0;
  trace::TraceSink* sink = nullptr;
  RunPosition* position = nullptr;  // optional: the step it is at, for a progress display
};

class Sequencer : public StepContext {
 public:
  // `plan` and `memory` must outlive it; the cluster's parts are given with provide().
  Sequencer(const Plan& plan, SequencerParams params, ClusterMemory& memory);

  // The process body: every step of the program, in order.
  void run();
  bool finished() const { return finished_; }
  int64_t end_cycle() const { return end_cycle_; }  // first cycle after the last step, once finished()
  // Per step of the program, in order: what its engine returned on this cluster.
  const std::vector<StepOutcome>& outcomes() const { return outcomes_; }

  const Plan& plan() const override { return plan_; }
  int cluster() const override { return params_.cluster; }
  int clusters() const override { return params_.clusters; }
  int chip() const override { return params_.chip; }
  void wait_until(int64_t cycle, int64_t mark) override;
  using StepContext::wait_until;
  int memory_step() const override { return memory_step_; }
  void memory_computed() override { memory_.computed(memory_step_); }
  int64_t end_memory_step(int64_t end) override;

 private:
  IStepEngine& engine(const std::string& kind);

  const Plan& plan_;
  const SequencerParams params_;
  ClusterMemory& memory_;
  std::map<std::string, std::unique_ptr<IStepEngine>> engines_;  // by kind, made on first use
  std::vector<StepOutcome> outcomes_;
  int memory_step_ = 0;
  int64_t end_cycle_ = 0;
  bool finished_ = false;
};

}  // namespace cstsim
