#include "sim/mapper/rocc_map.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "core/arith.h"
#include "sim/config/arch_spec.h"
#include "sim/workload/workload.h"

namespace cstsim {

RoccConvTile rocc_conv_tile(const RoccLayerPlan& p) {
  const RoccParams& q = p.params;
  const int64_t dim = q.dim;
  // batches, output rows, output columns, output channels, kernel rows, kernel columns, input channels
  enum { Batch, Orows, Ocols, Ochs, Krows, Kcols, Kchs };
  const std::array<int64_t, 7> whole{p.batch, p.out_rows, p.out_cols, p.out_chs, p.krows, p.kcols, p.in_chs};
  std::array<int64_t, 7> t = whole;
  const int64_t max_sp = q.spad_rows / 2, max_acc = q.acc_rows / 2;
  auto fits = [&](const std::array<int64_t, 7>& a) {
    const int64_t irows = (a[Orows] - 1) * p.stride + a[Krows], icols = (a[Ocols] - 1) * p.stride + a[Kcols];
    const int64_t sp = ceil_div(a[Kchs], dim) * a[Batch] * irows * icols + ceil_div(a[Ochs], dim) * a[Krows] * a[Kcols] * a[Kchs];
    const int64_t acc = ceil_div(a[Ochs], dim) * a[Batch] * a[Orows] * a[Ocols];
    return sp <= max_sp && acc <= max_acc;
  };
  auto is_channels = [](int i) { return i == Ochs || i == Kchs; };
  while (!fits(t)) {
    int pick = -1;
    for (int i = 0; i < 7; ++i) {
      if (i == Ocols && t[Ocols] <= dim && t[Orows] > 1) continue;
      if (t[size_t(i)] > 1 && (pick < 0 || t[size_t(i)] > t[size_t(pick)])) pick = i;
    }
    if (pick < 0) throw std::logic_error("rocc: no convolution tile fits (the arch reader checks that the least one does)");
    int64_t& v = t[size_t(pick)];
    if (is_channels(pick))
      v = v > dim && v % dim != 0 ? v / dim * dim : std::max<int64_t>(1, v - dim);
    else
      --v;
  }
  for (auto grown = t; grown[Ocols] < whole[Ocols];) {  // the widest rows first
    ++grown[Ocols];
    if (!fits(grown)) break;
    t = grown;
  }
  for (bool grew = true; grew;) {
    grew = false;
    for (int i = 0; i < 7; ++i) {
      auto grown = t;
      grown[size_t(i)] = std::min(whole[size_t(i)], t[size_t(i)] + 1);
      if (grown[size_t(i)] != t[size_t(i)] && fits(grown)) t = grown, grew = true;
    }
  }
  return {t[Batch], t[Orows], t[Ocols], t[Ochs], t[Krows], t[Kcols], t[Kchs]};
}

void rocc_matmul_tile(RoccLayerPlan& p) {
  const int64_t dim = p.params.dim;
  const int64_t sp = p.params.spad_rows / 2 / dim, acc = p.params.acc_rows / 2 / dim;  // in blocks
  const int64_t nI = ceil_div(p.I, dim), nJ = ceil_div(p.J, dim), nK = ceil_div(p.K, dim);
  auto fits = [&](int64_t i, int64_t j, int64_t k) { return i * k + k * j <= sp && i * j <= acc; };
  // The library's start (Gemmini's: 5 x 5 output blocks and 51 reduction blocks), smaller while
  // it does not fit (a scratchpad smaller than Gemmini's).
  const int64_t side = std::max<int64_t>(1, int64_t(std::sqrt(double(acc))));
  int64_t i = std::min(nI, side), j = std::min(nJ, side), k = 1;
  for (;; --(i >= j ? i : j)) {
    k = std::min(nK, std::max<int64_t>(1, sp / (i + j)));
    if (fits(i, j, k) || (i == 1 && j == 1)) break;
  }
  if (!fits(i, j, k)) throw std::logic_error("rocc: no matmul tile fits (the arch reader checks that the least one does)");
  while (j < nJ && fits(i, j + 1, k)) ++j;
  while (i < nI && fits(i + 1, j, k)) ++i;
  while (k < nK && fits(i, j, k + 1)) ++k;
  p.tile_i = i, p.tile_j = j, p.tile_k = k;
}

RoccLayerPlan map_rocc_layer(const ArchSpec& a, const Layer& l) {
  RoccLayerPlan p;
  RoccParams& q = p.params;
  q.dim = a.rows;
  q.bus_bytes_per_cycle = a.channel.bandwidth_bytes_per_s / a.clock_hz;
  q.latency = int64_t(std::llround(a.channel.latency_s * a.clock_hz));
  q.request_bytes = a.rocc.request_bytes;
  q.max_in_flight = a.rocc.max_in_flight;
  q.rob_entries = a.rocc.rob_entries;
  q.padded_compute = a.rocc.padded_compute;
  q.mesh_latency = 2 * q.dim + 4;
  q.in_bytes = RoccParams::element_bytes(a.precision.word_bits(false));
  q.acc_bytes = a.precision.accumulator_bytes();
  q.out_bytes = q.in_bytes;
  q.mvin_max_cols = std::max<int64_t>(q.dim, q.request_bytes / q.in_bytes);
  q.spad_rows = RoccParams::rows_of(a.ifmap_sram_kib + a.filter_sram_kib, q.dim, q.in_bytes);
  q.acc_rows = RoccParams::rows_of(a.ofmap_sram_kib, q.dim, q.acc_bytes);
  const bool pointwise = l.conv && l.conv->filter_h == 1 && l.conv->filter_w == 1 && l.conv->stride == 1 &&
                         l.conv->col_stride() == 1;
  // LoopConv's loops: one stride, no dilation, the images sharing one set of filters. Other
  // convolutions go as the host's im2col and a matmul (grouped ones a matmul per group).
  const bool shared_filters = l.pieces[1].count(l.repeats) == 1;
  const bool loop_conv = l.conv && !pointwise && l.conv->dilation == 1 && l.conv->col_stride() == l.conv->stride &&
                         shared_filters;
  if (loop_conv) {
    const ConvShape& c = *l.conv;
    p.loop = RoccLayerPlan::Loop::Conv;
    p.batch = l.repeats;  // a convolution's repeats are its images, sharing the filters
    p.in_rows = c.ifmap_h, p.in_cols = c.ifmap_w, p.in_chs = c.channels, p.out_chs = c.filters;
    p.krows = c.filter_h, p.kcols = c.filter_w, p.stride = c.stride;
    p.out_rows = c.out_h(), p.out_cols = c.out_w();
    p.tile = rocc_conv_tile(p);
  } else {
    p.loop = RoccLayerPlan::Loop::Matmul;
    const bool images_as_rows = l.conv && shared_filters;  // a convolution's images: rows of one product
    p.I = images_as_rows ? l.M * l.repeats : l.M;
    p.J = l.N, p.K = l.K;
    p.repeats = images_as_rows ? 1 : l.repeats;
    rocc_matmul_tile(p);
  }
  return p;
}

nlohmann::ordered_json rocc_tile_json(const RoccLayerPlan& p) {
  if (p.loop == RoccLayerPlan::Loop::Conv)
    return {{"loop", "conv"}, {"batches", p.tile.batches}, {"orows", p.tile.porows}, {"ocols", p.tile.pocols},
            {"ochs", p.tile.pochs}, {"krows", p.tile.krows}, {"kcols", p.tile.kcols}, {"kchs", p.tile.kchs}};
  return {{"loop", "matmul"}, {"I", p.I}, {"J", p.J}, {"K", p.K}, {"tile_i_blocks", p.tile_i},
          {"tile_j_blocks", p.tile_j}, {"tile_k_blocks", p.tile_k}};
}

int64_t rocc_tiles(const RoccLayerPlan& p) {
  if (p.loop == RoccLayerPlan::Loop::Conv)
    return ceil_div(p.batch, p.tile.batches) * ceil_div(p.out_rows, p.tile.porows) * ceil_div(p.out_cols, p.tile.pocols) *
           ceil_div(p.out_chs, p.tile.pochs) * ceil_div(p.krows, p.tile.krows) * ceil_div(p.kcols, p.tile.kcols) *
           ceil_div(p.in_chs, p.tile.kchs);
  const int64_t dim = p.params.dim;
  return p.repeats * ceil_div(p.I, p.tile_i * dim) * ceil_div(p.J, p.tile_j * dim) * ceil_div(p.K, p.tile_k * dim);
}

}  // namespace cstsim
