#pragma once
// The mapper's DMA program for one layer under memory: hierarchy: which blocks
// move between HBM and the scratchpad, in which order, where they live in HBM,
// and which buffer slot each one waits for. The memory models execute it as
// given (models/memory/hierarchy_source.h); `cstsim plan` prints its totals.
//
// The array visits folds column-fold outer, row-fold inner (fold_plan.h). Per
// fold g the scratchpad must hold
//   - the stationary tile (r x c elements) in a FIFO of hbm.fifo_tiles slots of
//     R x C elements; tile g's slot frees when fold g - fifo_tiles starts loading;
//   - the stream slice of its row fold (T x r elements). If every slice of the
//     layer fits in the stream partition they are read once and stay ("stream
//     resident"); otherwise two slots alternate and each fold reads its own,
//     slot g%2 freeing after fold g-2's last input;
//   - an accumulator block for its column fold (T x c accumulators). If every
//     block fits they all stay; otherwise two alternate, and the first fold of
//     column fold k waits until block k-2 has been written back.
// Each column fold's outputs go back to HBM (requantized to operand width) once
// its last fold's last output row has left the array.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/array/fold_plan.h"
#include "sim/config/arch_spec.h"

namespace cstsim {

// Blocks start on this boundary in HBM and move whole (a multiple of both
// HBM2's and HBM3's 32 B burst), so every level counts the same bytes.
inline constexpr uint64_t kBlockAlign = 64;

enum class Operand { Stationary, Stream, Output };
const char* to_string(Operand o);

struct DmaTransfer {
  Operand operand = Operand::Stationary;
  bool write = false;     // scratchpad -> HBM
  uint64_t hbm_addr = 0;  // contiguous in HBM (the compiler lays blocks out tiled)
  int64_t bytes = 0;
  int fold = 0;           // reads: the first fold that needs it; writes: the fold after which it goes
};

struct LayerDmaPlan {
  int fifo_tiles = 0;
  bool stream_resident = false, output_resident = false;
  // Scratchpad partition of each operand ("ifmap", "filter", "ofmap") and its bytes.
  std::string stationary_partition, stream_partition;
  int64_t stationary_slot = 0, stream_slot = 0, output_slot = 0;  // bytes per slot
  int64_t stationary_partition_bytes = 0, stream_partition_bytes = 0, output_partition_bytes = 0;
  std::vector<DmaTransfer> reads;   // DMA read queue, in issue order
  std::vector<DmaTransfer> writes;  // DMA write queue, in issue order
  std::vector<int> stationary_read;  // per fold: index into reads
  std::vector<int> stream_read;      // per fold: index into reads (shared while resident)
  std::vector<int> writeback_after;  // per fold: index into writes issued when it ends, or -1
  std::vector<int> output_wait;      // per fold: index into writes that must be done first, or -1
  uint64_t hbm_footprint = 0;        // end of the layer's last block in HBM (bytes from address 0)
  int passes = 1;                    // stream passes of the layer (stream_passes), for printing

  int64_t read_bytes() const;
  int64_t write_bytes() const;
};

// How a layer is split across `clusters` identical arrays: each takes a
// contiguous run of column folds (WS: output columns N, IS: output rows M), that
// is its own stationary tiles and its own outputs, and streams the whole other
// operand (every cluster reads all of it). Cluster k gets column folds
// [floor(k F / n), floor((k+1) F / n)) of F; a share can be empty.
struct ClusterShare {
  int64_t M = 0, N = 0, K = 0;
  uint64_t hbm_base = 0;  // where its blocks start in HBM (one region per cluster)
  bool empty() const { return M == 0 || N == 0 || K == 0; }
};
ClusterShare cluster_share(const ArchSpec& arch, int64_t M, int64_t N, int64_t K, int cluster);

// Throws InputError naming the layer and the sizes when a slot does not fit its
// partition (the array streams a whole fold, so the stream slice cannot be cut).
LayerDmaPlan make_dma_plan(const ArchSpec& arch, const FoldPlan& plan, const std::string& layer,
                           uint64_t hbm_base = 0);

// The array streams a whole fold, so a layer whose stream slices or accumulator
// blocks cannot be double-buffered runs as several passes, each over a run of
// stream rows (WS: rows of A, IS: columns of B), re-reading the stationary tiles
// every pass. Returns the rows of each pass (one pass of T when the layer fits):
// as few passes as fit, rows spread evenly. Throws make_dma_plan's error when
// not even one row fits.
std::vector<int64_t> stream_passes(const ArchSpec& arch, const FoldPlan& whole, const std::string& layer);

// What `cstsim plan` shows for a layer: the program of its widest cluster share's
// first (longest) pass, with `passes` filled in.
LayerDmaPlan layer_program(const ArchSpec& arch, int64_t M, int64_t N, int64_t K, const std::string& layer);

nlohmann::ordered_json to_json(const LayerDmaPlan& plan);
std::string dma_plan_table(const std::vector<std::string>& layers, const std::vector<LayerDmaPlan>& plans);

}  // namespace cstsim
