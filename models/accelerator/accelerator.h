#pragma once
// The accelerator as a SystemC module hierarchy, elaborated from the AcceleratorSpec
// and executing the run's Plan:
//
//   accelerator
//     cluster<k>          one per cluster; its process is the sequencer (sequencer.h), which
//                         walks the program and hands each step to its engine
//       array             ArrayModule: the systolic array
//       vector            VectorUnitModule: vector.lanes > 0
//       scratchpad, dma   memory: hierarchy
//       fifo, dma         memory: channel (fifo alone) | hbm
//     memory              memory: hierarchy: the memory's clock and the DMA engines' process
//     noc                 memory: hierarchy: the mesh
//     hbm                 memory: hbm | hierarchy: the stack
//       ch<NN>            its channel controllers
//
// Every module holds its params by value and declares the trace resources it owns.
// With several clusters the sequencers share one memory system per memory step (a pass of a
// layer, a kernel) and meet at a barrier after each (ClusterSet).
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "models/accelerator/accelerator_spec.h"
#include "models/accelerator/memory_modules.h"
#include "models/accelerator/memory_system.h"
#include "models/accelerator/sequencer.h"
#include "models/array/array_module.h"
#include "models/memory/cluster_set.h"
#include "models/memory/memory_observer.h"
#include "models/vector/vector_unit.h"
#include "plan/plan.h"
#include "traces/sink.h"

namespace cstsim {

struct AcceleratorOptions {
  ArrayMode mode = ArrayMode::Timing;
  ArrayListener* listener = nullptr;  // optional: cluster 0's array events
  uint64_t seed = 1;        // operand values for the reference mode
  ArrayParams::Fault fault;  // reference mode: the checker's self-test
  RunPosition* position = nullptr;  // optional: where cluster 0 is, for a progress display
  // chips > 1: this accelerator is chip `chip` of `chips` (models/interconnect/chip_set.h).
  ic::ChipSet* chips = nullptr;
  int chip = 0;
  // fidelity: sampled (ArrayParams::sampled).
  bool sampled = false;
  int64_t sample_min_folds = 0;
};

class HbmStackModule;
class NocModule;

class ClusterModule : public sc_core::sc_module, public MemoryObserver {
 public:
  SC_HAS_PROCESS(ClusterModule);
  ClusterModule(sc_core::sc_module_name name, int index, const AcceleratorSpec& spec, const Plan& plan,
                const AcceleratorOptions& options, ClusterSet* cluster_set, MemoryClock* memory,
                MemorySystemModule* memory_system, NocModule* noc, HbmStackModule* hbm, trace::TraceSink* sink);
  const ArrayModule& array() const { return *array_; }
  const Sequencer& sequencer() const { return *sequencer_; }
  DmaModule* dma() { return dma_.get(); }  // memory: hbm and hierarchy

  void memory_until(int layer, int64_t start, HierarchySource& source, int64_t before) override;
  void pass_simulated(int layer, int64_t start, HierarchySource& source, int64_t shared_before) override;
  void run_finished(MemoryGroup& group) override;
  void layer_simulated(int layer, int64_t start, MemoryGroup& group, int64_t shared_before) override;
  void vector_simulated(MemoryGroup& group, int64_t shared_before) override;
  void tiles_fetched(const FoldPlan& folds, const std::vector<TileSource::Fetch>& fetches,
                     const LayerTiming& timing) override;

 private:
  void announce_shared(int layer, int64_t start, MemoryGroup& group, int64_t before);

  const int index_;
  trace::TraceSink* sink_;
  NocModule* noc_;
  HbmStackModule* hbm_;
  std::unique_ptr<ScratchpadModule> scratchpad_;
  std::unique_ptr<DmaModule> dma_;
  std::unique_ptr<TileFifoModule> fifo_;
  std::unique_ptr<VectorUnitModule> vector_;
  std::unique_ptr<ArrayModule> array_;
  std::unique_ptr<ClusterMemory> memory_;
  std::unique_ptr<Sequencer> sequencer_;
  void sequence() { guard_process([this] { sequencer_->run(); }); }  // its SC_THREAD
};

class Accelerator : public sc_core::sc_module {
 public:
  // `plan` must outlive the module; `sink` (optional) receives R(t).
  Accelerator(sc_core::sc_module_name name, AcceleratorSpec spec, const Plan& plan, AcceleratorOptions options,
              trace::TraceSink* sink = nullptr);
  ~Accelerator() override;

  int clusters() const { return int(clusters_.size()); }
  bool finished() const;
  int64_t end_cycle() const;  // first cycle after the last step, once finished()
  // Per step of the program, what its engine returned on cluster `cluster`.
  const std::vector<StepOutcome>& outcomes(int cluster) const { return clusters_[size_t(cluster)]->sequencer().outcomes(); }
  // Per layer, cluster `cluster`'s share of it.
  std::vector<const ArrayLayerResult*> cluster_layer_results(int cluster) const;
  // Per layer, over every cluster (one cluster: its own results). Built once the run has finished
  // and kept (a run of many layers holds one copy, not one per call).
  const std::vector<ArrayLayerResult>& layer_results() const;
  // Per vector kernel of the plan, over every cluster.
  std::vector<VectorKernelResult> vector_results() const;
  std::vector<FlashKernelResult> flash_results() const;  // per flash-attention kernel, over every cluster
  // This module and every module below it, depth first.
  std::vector<ModuleInfo> modules() const;
  const MemorySystemModule* memory() const { return memory_.get(); }  // memory: hierarchy
  const NocModule* noc() const { return noc_.get(); }                 // memory: hierarchy

 private:
  const AcceleratorSpec spec_;
  const Plan& plan_;
  std::unique_ptr<MemorySystemModule> memory_;
  std::unique_ptr<ClusterSet> cluster_set_;
  std::unique_ptr<HbmStackModule> hbm_;
  std::unique_ptr<NocModule> noc_;
  std::vector<std::unique_ptr<ClusterModule>> clusters_;
  mutable std::vector<ArrayLayerResult> merged_results_;
  mutable bool merged_finished_ = false;  // merged_results_ are the finished run's
};

}  // namespace cstsim
