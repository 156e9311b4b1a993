#pragma once
// The mapper's DMA program for one layer under memory: hierarchy: which blocks
// move between HBM and the scratchpad, in which order, where they live in HBM,
// and which buffer slot each one waits for. The memory models execute it as
// given (models/memory/hierarchy_source.h); `cstsim plan` prints its totals.
//
// The array visits folds column-fold outer, row-fold inner (fold_plan.h). Per
// fold g the scratchpad must hold
//   - the stationary tile (r x c elements) in a FIFO of R x C slots, hbm.fifo_tiles of
//     them or as many as the partition holds if fewer (DmaBuffers::fifo_tiles, which
//     `cstsim plan` and the layer's summary show); tile g's slot frees when fold
//     g - fifo_tiles starts loading;
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

#include "plan/dma_program.h"
#include "plan/fold_plan.h"
#include "sim/config/arch_spec.h"

namespace cstsim {

// Cluster k's share of a layer (ClusterShare, plan/dma_program.h says how it is cut).
ClusterShare cluster_share(const ArchSpec& arch, int64_t M, int64_t N, int64_t K, int cluster);
// The whole layer as one cluster's share: repeats spread across clusters (LayerPlan::repeats_across_clusters).
ClusterShare whole_share(const ArchSpec& arch, int64_t M, int64_t N, int64_t K);

// The buffers of one pass (its HBM places unset: the mapper places the run's tensors). Throws
// InputError naming the layer and the sizes when a slot does not fit its partition (the array
// streams a whole fold, so the stream slice cannot be cut). `split_stream`: the pass is one of
// several along the stream, so its share of a matrix need not start on a kBlockAlign boundary.
DmaBuffers choose_dma_buffers(const ArchSpec& arch, const FoldPlan& plan, const std::string& layer,
                              bool split_stream = false);

// The buffers laid out (lay_out_dma_program), the pass alone from address 0.
LayerDmaPlan make_dma_plan(const ArchSpec& arch, const FoldPlan& plan, const std::string& layer);

// The array streams a whole fold, so a layer whose stream slices or accumulator
// blocks cannot be double-buffered runs as several passes, each over a run of
// stream rows (WS: rows of A, IS: columns of B), re-reading the stationary tiles
// every pass. A pass whose slices do not all fit streams them anew for every column
// fold; so the mapper takes, of the fewest passes that fit and the fewest whose
// slices all stay resident, the one that moves fewer bytes (column folds x stream +
// passes x stationary against stream + passes x stationary). Returns the rows of
// each pass (one pass of T when the layer is resident), rows spread evenly. Throws
// make_dma_plan's error when not even one row fits.
std::vector<int64_t> stream_passes(const ArchSpec& arch, const FoldPlan& whole, const std::string& layer);

// The stream passes every cluster makes of a layer, in the layer's own values of the stream
// dimension (OS: values of K, not PE words of `pack`): under memory:
// hierarchy as many as the widest share needs (rows that fit it fit every share),
// otherwise one pass of the whole T.
// `sparse`: 2:4 weights, K their kept half (PassPlan::sparse_2_4). `whole_layer`: every cluster runs
// whole GEMMs of the layer (repeats across clusters).
std::vector<int64_t> layer_passes(const ArchSpec& arch, int64_t M, int64_t N, int64_t K, const std::string& layer,
                                  bool sparse = false, bool whole_layer = false);

}  // namespace cstsim
