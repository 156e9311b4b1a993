#pragma once
// How an array's process tells the memory-side modules that a step's memory traffic
// is final, so each announces its own part of R(t) ahead of time, as the array does
// with its folds. The accelerator's cluster modules implement it.
#include <cstdint>
#include <vector>

#include "models/memory/tile_source.h"

namespace cstsim {

class HierarchySource;
class MemoryGroup;
struct LayerTiming;

class MemoryObserver {
 public:
  virtual ~MemoryObserver() = default;
  // One pass of layer `layer`, starting at cycle `start`, of this cluster ran against the
  // run's memory system: what it did before cycle `before` (final: the memory has simulated
  // that far).
  virtual void memory_until(int layer, int64_t start, HierarchySource& source, int64_t before) = 0;
  // After the pass's drain: the rest of this cluster's own part, and the shared part before
  // `shared_before` (MemoryGroup::settle).
  virtual void pass_simulated(int layer, int64_t start, HierarchySource& source, int64_t shared_before) = 0;
  // A row-stationary layer `layer`, starting at `start`, moved its data through `group` (its own
  // source, models/memory/rs_hierarchy_source.h): the shared part before `shared_before`, with the
  // tensors the layer holds in HBM when `start` >= 0.
  virtual void layer_simulated(int layer, int64_t start, MemoryGroup& group, int64_t shared_before) = 0;
  // A vector kernel's traffic is done (every cluster's): the shared part before `shared_before`.
  virtual void vector_simulated(MemoryGroup& group, int64_t shared_before) = 0;
  // The run is over: the shared memory's last piece (MemoryGroup::finish).
  virtual void run_finished(MemoryGroup& group) = 0;
  // memory: channel | hbm: the tiles of one pass came through the FIFO (`folds` are its folds,
  // `timing` their closed-form schedule).
  virtual void tiles_fetched(const FoldPlan& folds, const std::vector<TileSource::Fetch>& fetches,
                             const LayerTiming& timing) = 0;
};

}  // namespace cstsim
