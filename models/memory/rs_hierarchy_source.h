#pragma once
// memory: hierarchy for row stationary: the global buffer is the cluster's scratchpad (its
// ifmap partition holds ifmap blocks, its ofmap partition the psums, its filter partition the
// filter prefetch buffer), filled and emptied by the DMA over the mesh NoC from the bank-level HBM
// (models/dma/dma_system.h). The transfers and the cycles they may start are RsChannel's
// (models/array/rs_memory.h); the DMA's read queue takes the reads in that order and its write
// queue the ofmaps, side by side. Each mode (timing, register grid) asks its own source on its
// own memory system, with the same history, and gets the same answers.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <memory>
#include <vector>

#include "models/accelerator/accelerator_spec.h"
#include "models/array/rs_memory.h"
#include "models/memory/hierarchy_source.h"
#include "models/memory/memory_group.h"

namespace cstsim {

// Where a layer's tensors lie in HBM (plan/plan.h TensorPlace: the ifmap, filters, ofmap).
struct RsTensors {
  uint64_t ifmap = 0, filters = 0, ofmap = 0;
};

class RsHierarchySource : public RsMemory {
 public:
  RsHierarchySource(const AcceleratorSpec& spec, const RsLayerPlan& plan, RsTensors tensors, int64_t layer_start,
                    std::shared_ptr<MemoryGroup> group, int cluster = 0);
  int64_t ready(size_t pass, const RsPassTiming* previous) override;
  int64_t drain(const RsPassTiming& last) override;
  const std::vector<RsTransfer>& transfers() const override { return transfers_; }
  // The layer's figures (after drain): HBM and NoC of the step, this cluster's DMA and scratchpad.
  HierarchyLayerStats stats() const;
  // Why the passes of `t` (this source's answers) waited: each pass's wait for its data, from the
  // cycle the PEs were free, and the write-back after the last psum, split along the way of the
  // transfer that arrived last (models/dma/explain_wait.h). They may add up to more than the
  // layer's stall (a later wait can hide in an earlier one).
  std::map<std::string, int64_t> explain(const RsLayerTiming& t) const;
  MemoryGroup& group() { return *group_; }

 private:
  // Queues a transfer of `bits` (none when 0); returns its DMA id or -1.
  int move(RsTransfer::Kind kind, size_t pass, int64_t bits, int64_t earliest);
  int64_t wait(int id);  // its done cycle (the data usable), the memory simulated until then
  const RsLayerPlan& plan_;
  RsTensors tensors_;
  int64_t layer_start_;
  std::shared_ptr<MemoryGroup> group_;
  int cluster_;
  DmaStats dma_base_;
  std::array<spad::PartitionStats, spad::kPartitions> spad_base_{};
  std::vector<RsTransfer> transfers_;
  std::vector<int> ids_;  // DMA id per transfer
  struct Asked {
    int64_t free_from = 0;  // the first cycle the pass could have started with its data in
    std::vector<int> reads;  // DMA ids of its filters and ifmap block
  };
  std::vector<Asked> asked_;  // per pass
  int drain_write_ = -1;
};

}  // namespace cstsim
