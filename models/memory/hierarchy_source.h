#pragma once
// memory: hierarchy. Every operand of a layer moves through the whole memory
// system: the plan's DMA program (plan/dma_program.h) is executed by the
// DMA over the mesh NoC against the bank-level HBM (models/dma/dma_system.h),
// whose landing buffer writes the data into the banked scratchpad
// (models/scratchpad) around the array's own port use. Fold g may start loading when its stationary
// tile and its stream slice are in the scratchpad and, if accumulator blocks
// alternate, when the block it will use has been written back.
//
// Like every TileSource it answers ready(g) from the folds' load starts alone:
// from them the overlapped pipeline's rule (fold_timing.h) gives when each
// earlier fold streamed, consumed its inputs and finished its outputs, so the
// closed form and the register grid drive identical memory traffic.
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/dma/dma_system.h"
#include "models/memory/memory_group.h"
#include "models/memory/tile_source.h"
#include "models/scratchpad/scratchpad.h"
#include "plan/dma_program.h"

namespace cstsim {

// Per layer, for the summary and the conservation checks: the whole memory
// system's figures (shared by the clusters) and this cluster's DMA and scratchpad.
struct HierarchyLayerStats {
  SharedStats shared;
  int64_t dma_bytes_delivered = 0, dma_bytes_sent = 0;
  int64_t dma_requests = 0, dma_pieces = 0;  // requests issued, and their per-channel pieces
  // Outputs kept on chip for the next layer (overlap: pipeline): written into this cluster's
  // scratchpad, and read out of it (once, whichever clusters take them).
  int64_t dma_bytes_on_chip = 0, dma_bytes_on_chip_read = 0;
  int64_t spad_bytes_written = 0, spad_bytes_read = 0;  // by the DMA
  int64_t spad_conflict_cycles = 0;
  std::array<int64_t, 3> spad_peak{};  // resident bytes per partition (ifmap, filter, ofmap)
  // Passes that read the raw ifmap, lowered to im2col on chip (DmaBuffers::raw_channels), and
  // passes that read im2col rows from HBM.
  int raw_ifmap_passes = 0, im2col_ifmap_passes = 0;
};

// This cluster's scratchpad residency over time, per partition (ifmap, filter, ofmap): (cycle, bytes).
using ResidencyTimeline = std::array<StepSeries<int64_t>, 3>;

// The run checks every layer's program before simulating (sim/run/hierarchy_check.h),
// so HierarchySource assumes a program that fits.
class HierarchySource : public TileSource {
 public:
  // `group` is the layer's memory system (nullptr: a private one for a single cluster).
  // lockstep: the register grids of several clusters step together on one group;
  // the source then only looks as far as the grid's cycle (poll, fold_started,
  // start_drain / drain_done) instead of running the memory ahead (ready, drain).
  HierarchySource(const AcceleratorSpec& spec, const FoldPlan& plan, LayerDmaPlan dma, int64_t layer_start,
                  bool record_timeline, std::shared_ptr<MemoryGroup> group = nullptr, int cluster = 0,
                  bool lockstep = false);
  ~HierarchySource() override;

  int fifo_tiles() const override { return dma_.fifo_tiles; }
  int64_t ready(int g, const std::vector<int64_t>& load_starts) override;
  const std::vector<Fetch>& fetches() const override { return fetches_; }
  const char* stall_cause() const override { return "hbm_bandwidth"; }
  void explain_stall(int g, int64_t from, int64_t to, std::map<std::string, int64_t>& causes) const override;
  void explain_drain(int64_t from, int64_t to, std::map<std::string, int64_t>& causes) const override;
  int64_t drain(const std::vector<int64_t>& load_starts) override;
  int64_t poll(int g, const std::vector<int64_t>& load_starts, int64_t now) override;
  void fold_started(int g, const std::vector<int64_t>& load_starts) override;
  // Lockstep drain: enqueue the last write-backs, then ask each cycle until done.
  void start_drain(const std::vector<int64_t>& load_starts);
  bool drain_done(int64_t now);
  int64_t memory_end() const { return memory_end_; }
  // overlap: prefetch (sim/mapper/prefetch.h). Before the first question: the next pass's first
  // reads, queued behind this pass's own; the pass's drain waits for them too, and they count in
  // its figures and its trace (they move in its window).
  void add_prefetch(const std::vector<DmaTransfer>& next_reads);
  std::vector<int> prefetched() const;  // their DMA ids, for the next pass's adopt_prefetched
  // Before the first question: reads `reads` (indices into this pass's program) were loaded by
  // the previous pass, as DMA transfers `ids`.
  void adopt_prefetched(const std::vector<int>& reads, const std::vector<int>& ids);

  // overlap: pipeline (sim/mapper/pipeline.h). Before the first question: this pass's outputs are
  // the next layer's input and stay on chip: each write-back is read out of the ofmap partition
  // and written into partition `to` of this cluster and, with several, of every other cluster
  // (over the mesh; never HBM), where the next layer's input takes `room` bytes from the first
  // write-back's issue on (each cluster books its own); the next layer releases it.
  void keep_outputs_on_chip(spad::Partition to, int64_t room);
  std::vector<int> on_chip_outputs() const;  // their DMA ids, for the next pass's adopt_on_chip
  // Before the first question: reads `reads` (indices into this pass's program) are the previous
  // layer's outputs, in the scratchpad since its on-chip write-backs `ids`.
  void adopt_on_chip(const std::vector<int>& reads, const std::vector<int>& ids);

  // Sampled simulation (models/array/sampled_source.h). Before the first question: the folds
  // flagged are not simulated. A transfer that first serves such a fold (a read for it, the
  // write-back after it) never moves; a later simulated fold finds such a read in the scratchpad
  // from the pass's start, as it would have been. Only for a pass of its own (no prefetch, no
  // on-chip hand-over, one cluster, not lockstep).
  void skip_folds(const std::vector<uint8_t>& skipped);
  // During the pass: from fold `from` on, no fold is simulated any more (a repeat whose check
  // agreed with its memo); what was enqueued for them already still moves.
  void skip_from(int from);
  // A run of simulated folds ends before fold `next` (skipped): the write-backs of the folds
  // before it go, and the memory simulates until every transfer enqueued so far is done.
  void end_window(int next, const std::vector<int64_t>& load_starts);
  // A run of simulated folds starts at fold `first`, which the array could begin at `cycle`:
  // reads whose slot frees in the skipped span before it are enqueued from `cycle` on.
  // `refresh_phase` (0..1): where in a refresh period the HBM's next refresh falls after the
  // window's first read (HbmDevice::rephase_refresh); < 0: the phase the run's clock has.
  void start_window(int first, int64_t cycle, double refresh_phase = -1);
  // Program bytes this source moved (reads, writes), of those it simulated.
  std::pair<int64_t, int64_t> simulated_bytes() const;

  // After drain(); the shared fields are final once every cluster has drained.
  HierarchyLayerStats stats() const;
  // What the trace announces, taken away up to cycle `before` (MemoryGroup::kTimelineEnd: all of
  // it, after drain()): the scratchpad's residency, and the bytes the HBM and the scratchpad
  // ports moved per request, by what they were (ActionKind), in the cycle they moved them.
  ResidencyTimeline take_residency(int64_t before);
  enum class ActionKind { HbmReadTile, HbmReadStream, SpadWrite, SpadRead, HbmWrite };
  void take_actions(int64_t before, const std::function<void(ActionKind, int64_t cycle, int64_t bytes)>& out);
  // A run that announces as it goes (ArrayModule): fold g is timed; the memory simulates every
  // event up to cycle `through`'s edge (which fold g + 1 cannot use: it starts later). Returns
  // the cycle before which what the memory did is final: through + 1, or less when another
  // cluster could still enqueue and the HBM's idle channels may not be run ahead.
  int64_t simulate_through(int g, const std::vector<int64_t>& load_starts, int64_t through);
  const MemoryGroup& group() const { return *group_; }
  MemoryGroup& group() { return *group_; }
  const LayerDmaPlan& dma_plan() const { return dma_; }
  // Folds ahead whose reads the DMA can have in flight at once: the tile FIFO's depth, or fewer
  // when a fold reads more than its requests in flight carry.
  int reach_folds() const;
  // After drain(): the DMA's record of read / write k of the plan.
  const TransferState& read_state(int k) const { return dma().transfer(read_id_[size_t(k)]); }
  const TransferState& write_state(int k) const { return dma().transfer(write_id_[size_t(k)]); }

 private:
  struct Observer;
  struct FoldHistory {
    int64_t load = 0, S = 0, last_input = 0, end = 0;
  };
  void learn_folds(int upto, const std::vector<int64_t>& load_starts);  // folds [known, upto)
  void enqueue_known(int g);     // every transfer whose slot is known when fold g asks
  void forget_history(int g);    // what no later question needs, once fold g asks
  void forget_reads(int g);      // the DMA's records of the reads nothing will ask about again
  int64_t in_scratchpad(int read);  // waits until read `read` is all in the scratchpad; its ready cycle
  int64_t answer(int g);            // fold g's data is all there: its ready cycle, recorded
  void finish_drain();
  bool drained_all() const;  // every write-back and prefetch done
  void wait_done(int id);
  int64_t fold_point(int fold, FoldPoint point) const;  // the cycle a slot frees (fold learned)
  // Adds [from, to) to `causes` along one request's way, up to `last` (the cycle its data was usable).
  void explain_request(const RequestPath& p, int64_t last, int64_t from, int64_t to,
                       std::map<std::string, int64_t>& causes) const;
  void record_residency(int64_t before);  // the changes before `before` not yet made
  DmaSystem& dma() { return group_->dma(); }
  const DmaSystem& dma() const { return group_->dma(); }

  const FoldPlan& plan_;
  LayerDmaPlan dma_;
  int64_t layer_start_;
  int64_t acc_;
  int spad_word_;
  std::shared_ptr<MemoryGroup> group_;
  int cluster_;
  spad::Scratchpad* spad_;
  std::unique_ptr<Observer> observer_;
  std::vector<FoldHistory> folds_;   // learned so far
  std::vector<int> read_id_, write_id_;  // DmaSystem ids per plan entry, -1 until enqueued
  int own_reads_ = 0;  // dma_.reads beyond these are the next pass's prefetch
  std::optional<spad::Partition> outputs_to_;  // overlap: pipeline: where the write-backs go on chip
  int64_t on_chip_room_ = 0;                   // the next layer's input there, bytes
  bool on_chip_booked_ = false;                // that room occupied
  std::vector<int64_t> read_in_spad_;    // cycle each read is all in the scratchpad, -1 until landed
  int reads_enqueued_ = 0, writes_enqueued_ = 0;
  struct Critical {
    int kind = -1;  // 0 stationary read, 1 stream read, 2 output write-back
    int index = -1;
  };
  std::vector<Critical> critical_;  // per fold
  std::vector<Fetch> fetches_;      // stationary tiles, for the FIFO view
  ResidencyTimeline residency_;
  std::vector<int> last_user_;                 // per read: the last fold that uses it
  std::vector<int64_t> release_;               // per read: when the folds learned so far are done with it
  std::vector<uint8_t> read_changes_, write_changes_;  // per read / write: 1 occupied, 2 also released
  int reads_settled_ = 0, writes_settled_ = 0;  // those before are occupied and released
  std::vector<size_t> read_hbm_taken_, read_spad_taken_, write_hbm_taken_, write_spad_taken_;
  int reads_announced_ = 0, writes_announced_ = 0;
  // forget_reads: reads before read_scan_ were looked at; those still needed wait in reads_kept_.
  // adopted_: loaded by the previous pass (its transfers, shared by several reads on chip).
  int read_scan_ = 0;
  std::vector<int> reads_kept_;
  std::vector<uint8_t> adopted_;
  bool lockstep_ = false;
  int hold_fold_ = -1;                    // start_window: reads after folds before it wait ...
  int64_t hold_until_ = 0;                //   ... until this cycle
  bool skipping_ = false;                 // skip_folds: some transfers are kSkipped
  static constexpr int kSkipped = -2;     // read_id_ / write_id_ of a transfer never simulated
  bool skipped(int id) const { return id == kSkipped; }
  int64_t memory_end_ = -1;
  int64_t conflicts_ = 0;
  // This cluster's DMA and scratchpad figures when the pass began (a run's memory goes on).
  DmaStats dma_base_;
  std::array<spad::PartitionStats, spad::kPartitions> spad_base_{};
  bool drained_ = false;
};

}  // namespace cstsim
