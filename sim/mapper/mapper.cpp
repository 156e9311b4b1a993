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

// OS convolutions: a row fold's rows are output pixels, and its stream slice their im2col rows.
// Read instead the raw input rows those pixels see (all channels, NHWC), per row fold, and
// lower on chip; neighbouring row folds share rows of halo, which the plan's re-read factor
// shows. Two slots alternate unless every row fold's rows fit; too big: im2col slices.
void use_raw_rows_per_fold(const ArchSpec& a, const ConvShape& c, int64_t m0, int64_t m1, DmaBuffers& d) {
  const int64_t elem = (a.operand_bits + 7) / 8;
  DmaBuffers raw = d;
  raw.raw_row_bytes = c.ifmap_w * c.channels * elem;
  raw.raw_out_w = (c.ifmap_w - c.filter_w) / c.stride + 1;
  raw.raw_stride = c.stride;
  raw.raw_filter_h = c.filter_h;
  raw.raw_ifmap_h = c.ifmap_h;
  raw.raw_m0 = m0;
  const auto [first, last] = raw.raw_rows_of(m0, m1);
  raw.raw_first_row = first;
  raw.raw_rows = last - first;
  int64_t all = 0, largest = 0;
  for (int64_t f0 = m0; f0 < m1; f0 += a.rows) {
    const auto [from, to] = raw.raw_run_of(f0, std::min(m1, f0 + a.rows));
    all += to - from;
    largest = std::max(largest, to - from);
  }
  raw.stream_resident = all <= d.stream_partition_bytes;
  raw.stream_slot = raw.stream_resident ? all : largest;
  if (!raw.stream_resident && 2 * largest > d.stream_partition_bytes) return;
  raw.raw_channels = c.channels;
  raw.raw_block_channels = c.channels;
  raw.raw_channel_bytes = raw.raw_rows * c.ifmap_w * elem;
  d = raw;
}

// WS convolutions stream the ifmap: read it raw (with its halo), in blocks of as many
// channels as the array has rows, and lower it on chip, when the raw rows fit the stream
// partition; otherwise the pass keeps its im2col slices.
void use_raw_ifmap(const ArchSpec& a, const Layer& l, int64_t m0, int64_t m1, DmaBuffers& d) {
  // Only where the streamed operand is the ifmap and the folds' rows are reduction rows (WS):
  // a fold's rows k pick the channels it needs. Under OS the rows are output pixels.
  const DataflowRoles& r = roles(a.dataflow);
  if (l.conv && r.stationary_outputs) return use_raw_rows_per_fold(a, *l.conv, m0, m1, d);
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
    c.share = cluster_share(a, l.M, l.N, l.K, k, lp.raw_ifmap_bytes);
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
