#pragma once
// memory: hierarchy. Every operand of a layer moves through the whole memory
// system: the mapper's DMA program (sim/mapper/dma_plan.h) is executed by the
// DMA over the mesh NoC against the bank-level HBM (models/dma/dma_system.h),
// and landed data is written into the banked scratchpad (models/scratchpad)
// around the array's own port use. Fold g may start loading when its stationary
// tile and its stream slice are in the scratchpad and, if accumulator blocks
// alternate, when the block it will use has been written back.
//
// Like every TileSource it answers ready(g) from the folds' load starts alone:
// from them the overlapped pipeline's rule (fold_timing.h) gives when each
// earlier fold streamed, consumed its inputs and finished its outputs, so the
// closed form and the register grid drive identical memory traffic.
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/dma/dma_system.h"
#include "models/memory/tile_source.h"
#include "models/scratchpad/scratchpad.h"
#include "sim/mapper/dma_plan.h"

namespace cstsim {

// Per layer, for the summary and the conservation checks.
struct HierarchyLayerStats {
  int64_t hbm_bytes_read = 0, hbm_bytes_written = 0;  // counted by the HBM (bursts x 32 B)
  int64_t dma_bytes_delivered = 0, dma_bytes_sent = 0;
  int64_t spad_bytes_written = 0, spad_bytes_read = 0;  // by the DMA
  int64_t spad_conflict_cycles = 0;
  int64_t noc_flit_hops = 0, noc_packets = 0;
  int64_t hbm_activates = 0, hbm_refreshes = 0;
  double hbm_row_hit_rate = 0;
  std::array<int64_t, 3> spad_peak{};  // resident bytes per partition (ifmap, filter, ofmap)
};

// Occupancy over time, accelerator cycles, for the trace (announced per layer).
struct HierarchyTimeline {
  std::vector<std::pair<int64_t, int>> hbm_busy_pcs;    // (cycle, pseudo-channels moving data from then on)
  std::vector<std::pair<int64_t, int>> hbm_open_rows;   // (cycle, open rows in the stack)
  std::vector<std::pair<int64_t, int>> noc_busy_links;  // (cycle, links carrying a flit)
  std::vector<std::pair<int64_t, int64_t>> noc_flit_hops;  // (cycle, flit-hops since the previous entry)
  std::array<std::vector<std::pair<int64_t, int64_t>>, 3> spad_resident;  // per partition: (cycle, bytes)
};

// Every way a layer's DMA program can fail to fit the arch, as InputError (file,
// key, the numbers): scratchpad geometry, array port use, HBM capacity, NoC
// placement. make_dma_plan() checks the partition sizes; run checks both up front.
void check_hierarchy(const ArchSpec& arch, const LayerDmaPlan& dma);

class HierarchySource : public TileSource {
 public:
  HierarchySource(const ArchSpec& arch, const FoldPlan& plan, LayerDmaPlan dma, int64_t layer_start,
                  bool record_timeline);
  ~HierarchySource() override;

  int fifo_tiles() const override { return dma_.fifo_tiles; }
  int64_t ready(int g, const std::vector<int64_t>& load_starts) override;
  const std::vector<Fetch>& fetches() const override { return fetches_; }
  const char* stall_cause() const override { return "hbm_bandwidth"; }
  void explain_stall(int g, int64_t from, int64_t to, std::map<std::string, int64_t>& causes) const override;
  int64_t drain(const std::vector<int64_t>& load_starts) override;

  const HierarchyLayerStats& stats() const { return stats_; }
  const HierarchyTimeline& timeline() const { return timeline_; }
  const LayerDmaPlan& dma_plan() const { return dma_; }
  // After drain(): the DMA's record of read / write k of the plan.
  const TransferState& read_state(int k) const { return dma_system_->transfer(read_id_[size_t(k)]); }
  const TransferState& write_state(int k) const { return dma_system_->transfer(write_id_[size_t(k)]); }

 private:
  struct Observer;
  struct FoldHistory {
    int64_t load = 0, S = 0, last_input = 0, end = 0;
  };
  void learn_folds(int upto, const std::vector<int64_t>& load_starts);  // folds [known, upto)
  void enqueue_known(int g);     // every transfer whose slot is known when fold g asks
  int64_t in_scratchpad(int read);  // lands read `read` (and those before it) in the scratchpad
  void record_residency();

  const FoldPlan& plan_;
  LayerDmaPlan dma_;
  int64_t layer_start_;
  int64_t elem_, acc_;
  int spad_word_;
  std::unique_ptr<spad::Scratchpad> spad_;
  std::unique_ptr<DmaSystem> dma_system_;
  std::unique_ptr<Observer> observer_;
  std::vector<FoldHistory> folds_;   // learned so far
  std::vector<int> read_id_, write_id_;  // DmaSystem ids per plan entry, -1 until enqueued
  std::vector<int64_t> read_in_spad_;    // cycle each read is all in the scratchpad, -1 until landed
  std::vector<int64_t> read_conflicts_;  // scratchpad conflict cycles per read
  int reads_enqueued_ = 0, writes_enqueued_ = 0, reads_landed_ = 0;
  struct Critical {
    int kind = -1;  // 0 stationary read, 1 stream read, 2 output write-back
    int index = -1;
  };
  std::vector<Critical> critical_;  // per fold
  std::vector<Fetch> fetches_;      // stationary tiles, for the FIFO view
  HierarchyLayerStats stats_;
  HierarchyTimeline timeline_;
  bool drained_ = false;
};

}  // namespace cstsim
