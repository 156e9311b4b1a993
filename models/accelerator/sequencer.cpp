#include "models/accelerator/sequencer.h"

#include <stdexcept>

#include "core/registry.h"
#include "models/interconnect/chip_set.h"

namespace cstsim {

// The engines of the built-in step kinds register themselves in their own files; these anchors
// only keep them linked into the static library.
int cstsim_anchor_GemmLayerEngine();  // models/array/layer_engines.cpp
int cstsim_anchor_RsLayerEngine();    // models/array/layer_engines.cpp
int cstsim_anchor_RoccLayerEngine();  // models/array/rocc_engine.cpp
int cstsim_anchor_FlashEngine();      // models/array/flash_engine.cpp
int cstsim_anchor_VectorEngine();     // models/vector/vector_engine.cpp
int cstsim_anchor_CollectiveEngine(); // models/interconnect/collective_engine.cpp

namespace {
Registry<IStepEngine>& step_engines() {
  static const int linked = cstsim_anchor_GemmLayerEngine() + cstsim_anchor_RsLayerEngine() + cstsim_anchor_RoccLayerEngine() +
                            cstsim_anchor_FlashEngine() + cstsim_anchor_VectorEngine() +
                            cstsim_anchor_CollectiveEngine();
  (void)linked;
  return Registry<IStepEngine>::instance();
}
}  // namespace

Sequencer::Sequencer(const Plan& plan, SequencerParams params, ClusterMemory& memory)
    : plan_(plan), params_(std::move(params)), memory_(memory) {}

IStepEngine& Sequencer::engine(const std::string& kind) {
  auto it = engines_.find(kind);
  if (it != engines_.end()) return *it->second;
  try {
    return *engines_.emplace(kind, step_engines().make(kind, "step kind")).first->second;
  } catch (const std::invalid_argument& e) {  // the mapper made a step nothing can run
    throw std::logic_error(e.what());
  }
}

void Sequencer::wait_until(int64_t cycle, int64_t mark) {
  ClusterSet* set = params_.cluster_set;
  if (set) set->trace_mark(params_.cluster, mark);  // it has announced what lies before it
  // A step a cluster had no share of ends the cycle before it began (-1 for the run's first): no
  // wait, and no time built from a negative cycle (it would wrap SystemC time past 2^64 ps, where
  // the memory's processes, which step in that time, would never be woken in order again).
  if (cycle > 0) {
    const sc_core::sc_time target = params_.period * double(cycle);
    if (target > sc_core::sc_time_stamp()) sc_core::wait(target - sc_core::sc_time_stamp());
  }
  // With clusters the trace is final only up to the slowest one's mark: one still waiting for
  // its data has not yet announced what its own memory did meanwhile. With chips, likewise the
  // slowest chip's.
  int64_t final_before = set ? set->trace_time() : cycle;
  if (params_.chips) {  // what this chip has announced, as its clusters would mark it
    params_.chips->trace_mark(params_.chip, set ? final_before : mark);
    final_before = params_.chips->trace_time();
  }
  if (params_.sink) params_.sink->advance(final_before);
  if (params_.position) params_.position->advance(cycle);
}

int64_t Sequencer::end_memory_step(int64_t end) {
  end = memory_.finished(memory_step_, end);
  ++memory_step_;
  return end;
}

void Sequencer::run() {
  const std::vector<Step>& steps = plan_.program.steps;
  const std::vector<int> trace_layer = plan_.program.trace_layers();
  outcomes_.reserve(steps.size());
  int64_t start = 0;
  for (const Step& step : steps) {
    // On the trace a step belongs to the layer it computes or (a kernel) to the next one; a layer's
    // engine begins its layer as its first pass starts.
    const int layer = trace_layer[size_t(&step - steps.data())];
    if (step.layer >= 0 && params_.position) params_.position->at(step.layer, start);
    if (step.layer < 0 && params_.sink && layer >= 0) params_.sink->begin_layer(layer, plan_.layers[size_t(layer)].name, start);
    outcomes_.push_back(engine(step.kind()).run(step, start, *this));
    start = end_memory_step(outcomes_.back().end_cycle) + 1;  // steps run back to back, in order
  }
  // The run's memory ends with its last cycle (every cluster has passed the last barrier, so
  // every step's traffic is in).
  memory_.finish_run(start - 1);
  wait_until(start);
  end_cycle_ = start;
  finished_ = true;
}

}  // namespace cstsim
