#include "sim/mapper/mapper.h"

#include <algorithm>

#include "sim/mapper/dma_plan.h"

namespace cstsim {

namespace {

// One channel of the raw ifmap rows a pass over output pixels [m0, m1) of a convolution
// reads: the input rows those output rows see (stride apart, filter_h tall), every column.
int64_t raw_channel_bytes(const ConvShape& c, int64_t m0, int64_t m1, int64_t elem) {
  const int64_t out_w = (c.ifmap_w - c.filter_w) / c.stride + 1;
  const int64_t y0 = m0 / out_w, y1 = (m1 - 1) / out_w;
  const int64_t rows = std::min(c.ifmap_h, y1 * c.stride + c.filter_h) - y0 * c.stride;
  return rows * c.ifmap_w * elem;
}

// WS convolutions stream the ifmap: read it raw (with its halo), in blocks of as many
// channels as the array has rows, and lower it on chip, when the raw rows fit the stream
// partition; otherwise the pass keeps its im2col slices.
void use_raw_ifmap(const ArchSpec& a, const Layer& l, int64_t m0, int64_t m1, DmaBuffers& d) {
  // Only where the streamed operand is the ifmap and the folds' rows are reduction rows (WS):
  // a fold's rows k pick the channels it needs. Under OS the rows are output pixels.
  const DataflowRoles& r = roles(a.dataflow);
  if (!l.conv || !r.tile_is_filter || r.Sr != Dim::K) return;
  const int64_t elem = (a.operand_bits + 7) / 8, C = l.conv->channels, bc = std::min<int64_t>(C, a.rows);
  const int64_t per_channel = raw_channel_bytes(*l.conv, m0, m1, elem);
  int64_t padded = 0;  // the blocks as lay_out_dma_program stores them
  for (int64_t c0 = 0; c0 < C; c0 += bc) padded += padded_block(per_channel * std::min(bc, C - c0));
  if (padded > d.stream_partition_bytes) return;
  d.raw_channels = C;
  d.raw_block_channels = bc;
  d.raw_channel_bytes = per_channel;
  d.stream_resident = true;
  d.stream_slot = padded;
}

LayerPlan plan_layer(const ArchSpec& a, const Layer& l) {
  LayerPlan lp;
  lp.name = l.name;
  lp.dims = {l.M, l.N, l.K};
  lp.pass_rows = layer_passes(a, l.M, l.N, l.K, l.name);
  if (l.conv) lp.raw_ifmap_bytes = l.conv->ifmap_h * l.conv->ifmap_w * l.conv->channels * ((a.operand_bits + 7) / 8);
  const Dim stream = roles(a.dataflow).T;  // every cluster streams the whole T, so all make the same passes
  const bool hierarchy = a.memory == "hierarchy";
  for (int k = 0; k < a.clusters; ++k) {
    ClusterLayerPlan c;
    c.share = cluster_share(a, l.M, l.N, l.K, k);
    const FoldPlan whole = make_fold_plan(a.dataflow, a.rows, a.cols, std::max<int64_t>(1, c.share.M),
                                          std::max<int64_t>(1, c.share.N), std::max<int64_t>(1, c.share.K));
    int64_t first_row = 0;  // of the pass, along the stream dimension
    for (int64_t rows : lp.pass_rows) {
      PassPlan p;
      p.dims = {c.share.M, c.share.N, c.share.K};
      p.dims[stream] = c.share.empty() ? 0 : rows;
      if (hierarchy && !p.idle()) {
        const FoldPlan folds = with_stream(whole, rows);
        p.has_dma = true;
        p.dma = choose_dma_buffers(a, folds, l.name, c.share.hbm_base);
        use_raw_ifmap(a, l, first_row, first_row + rows, p.dma);
        const LayerDmaPlan program = lay_out_dma_program(folds, p.dma);
        lp.hbm_read_bytes += program.read_bytes();
        for (const DmaTransfer& t : program.reads)
          if (t.operand == Operand::Stream) lp.stream_read_bytes += t.bytes;
        lp.hbm_write_bytes += program.write_bytes();
      }
      c.passes.push_back(p);
      first_row += rows;
    }
    lp.clusters.push_back(std::move(c));
  }
  return lp;
}

}  // namespace

Plan make_plan(const ArchSpec& a, const Workload& w) {
  Plan plan;
  plan.dataflow = a.dataflow;
  plan.rows = a.rows;
  plan.cols = a.cols;
  for (const Layer& l : w.layers) plan.layers.push_back(plan_layer(a, l));
  return plan;
}

const PassPlan& widest_pass(const LayerPlan& layer) {
  const ClusterLayerPlan* widest = &layer.clusters.front();
  for (const ClusterLayerPlan& c : layer.clusters)
    if (c.share.M * c.share.N > widest->share.M * widest->share.N) widest = &c;
  return widest->passes.front();
}

}  // namespace cstsim
