#include "sim/mapper/dma_plan.h"

#include <optional>
#include <stdexcept>

#include <algorithm>

#include <fmt/format.h>

#include "core/input_error.h"

namespace cstsim {

ClusterShare cluster_share(const ArchSpec& a, int64_t M, int64_t N, int64_t K, int k) {
  ClusterShare s;
  s.M = M;
  s.N = N;
  s.K = K;
  s.split = roles(a.dataflow).Sc;
  if (a.clusters == 1) return s;
  GemmDims dims{M, N, K};
  const int64_t Sc = dims[s.split], F = (Sc + a.cols - 1) / a.cols, n = a.clusters;
  const int64_t first = k * F / n, last = (k + 1) * F / n;  // column folds [first, last)
  s.offset = std::min(Sc, first * a.cols);
  dims[s.split] = std::max<int64_t>(0, std::min(Sc, last * a.cols) - s.offset);
  s.M = dims.M;
  s.N = dims.N;
  return s;
}

DmaBuffers choose_dma_buffers(const ArchSpec& a, const FoldPlan& p, const std::string& layer, bool split_stream) {
  const int64_t acc = a.precision.accumulator_bytes();
  const DataflowRoles& r = roles(p.dataflow);
  const bool ws = r.tile_is_filter, os = r.stationary_outputs;
  DmaBuffers d;
  d.a_word_bits = a.precision.word_bits(false);
  d.b_word_bits = a.precision.word_bits(true);
  const Matrix tile = tile_matrix(p.dataflow), stream = stream_matrix(p.dataflow);
  auto tile_row = [&](int64_t words) { return d.words_bytes(tile, words); };
  d.output_bits = a.precision.value_bits();
  d.row_major = a.hbm.layout == "row_major";
  const bool rm = d.row_major;
  d.fifo_tiles = a.hbm.fifo_tiles;
  d.stationary_partition = ws ? "filter" : "ifmap";
  d.stream_partition = ws ? "ifmap" : "filter";
  const int64_t ifmap = a.ifmap_sram_kib * 1024, filter = a.filter_sram_kib * 1024;
  d.stationary_partition_bytes = ws ? filter : ifmap;
  d.stream_partition_bytes = ws ? ifmap : filter;
  d.output_partition_bytes = a.ofmap_sram_kib * 1024;
  const std::string stationary_key = std::string("sram.") + d.stationary_partition + "_kib";
  const std::string stream_key = std::string("sram.") + d.stream_partition + "_kib";

  auto too_small = [&](const std::string& key, const std::string& what, int64_t need, int64_t have) {
    throw InputError(a.source, 0, key,
                     fmt::format("layer {}: {} needs {} bytes, the partition has {} (M={} N={} K={}, {}x{} array)",
                                 layer, what, need, have, p.M, p.N, p.K, p.R, p.C));
  };
  // A FIFO of tiles: R x C (WS, IS), or T x C blocks of B, one per column fold (OS); under IS
  // the tile is A's C rows (m) of R elements (k) when A lies row-major.
  // Row-major tile rows start at a column fold (step C) or, under IS, a row fold (step R).
  auto aligned = [](int64_t bits) { return bits % (8 * int64_t(kBlockAlign)) == 0; };
  const bool c_aligned = aligned(p.C * d.word_bits(tile)), r_aligned = aligned(p.R * d.a_word_bits);  // rows of A
  auto tile_slot = [&](int64_t rows) {
    return !os && !ws && rm ? block_bytes(p.C, tile_row(p.R), rm, r_aligned)
           : rm ? block_bytes(rows, tile_row(p.C), rm, c_aligned) + p.index_bytes(rows * p.C)
                : padded_block(tile_row(rows * p.C)) + p.index_bytes(rows * p.C);
  };
  // OS: a block of B the filter partition cannot hold, or a row fold's slice of A (r x T) of
  // which the ifmap partition cannot hold two while A does not fit whole, streams in K chunks
  // (FoldPlan::with_k_chunks): as few as let two chunks of B alternate and two chunks of A's
  // slice (at most), else one chunk of B.
  auto chunk_rows = [&](int64_t n) { return even_part(p.T, n, 0); };  // the longest chunk: the first
  auto a_slice = [&](int64_t r, int64_t t) {  // a row fold's slice of t steps of A (OS: r rows of t words)
    return rm ? block_bytes(r, d.words_bytes(Matrix::A, t), rm, t == p.T) : padded_block(d.words_bytes(Matrix::A, r * t));
  };
  int64_t a_bytes = 0;  // all of A's slices, whole (as the resident check below counts them)
  for (int64_t r0 = 0; os && r0 < p.Sr; r0 += p.R) a_bytes += a_slice(std::min<int64_t>(p.R, p.Sr - r0), p.T);
  const bool a_whole = a_bytes <= d.stream_partition_bytes;
  auto fits = [&](int64_t t, int64_t slots) {
    return slots * tile_slot(t) <= d.stationary_partition_bytes && (a_whole || 2 * a_slice(p.R, t) <= d.stream_partition_bytes);
  };
  if (os && p.k_chunks == 1 && !fits(p.T, 1)) {
    auto fewest = [&](int64_t slots) {  // fewest chunks whose `slots` slots fit, or 0
      if (!fits(1, slots)) return int64_t(0);
      int64_t lo = 1, hi = p.T;  // lo chunks do not fit, hi do
      while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        (fits(chunk_rows(mid), slots) ? hi : lo) = mid;
      }
      return hi;
    };
    const int64_t two = fewest(2);
    d.k_chunks = two > 0 ? two : std::max<int64_t>(1, fewest(1));
  }
  const int64_t tile_rows = os ? chunk_rows(d.k_chunks) : p.R;
  d.stationary_slot = tile_slot(tile_rows);
  // The FIFO is as deep as the partition allows, up to hbm.fifo_tiles: a shallower one loads
  // the next tiles later (the run's stalls show it), which is what such a buffer does. With room
  // for no tile at all the layer cannot run.
  if (d.stationary_slot > d.stationary_partition_bytes)
    too_small(stationary_key,
              fmt::format("one {} of {}x{}", os ? "K chunk of B" : "stationary tile", tile_rows, p.C),
              d.stationary_slot, d.stationary_partition_bytes);
  d.fifo_tiles = int(std::min<int64_t>(a.hbm.fifo_tiles, d.stationary_partition_bytes / d.stationary_slot));
  int64_t all_slices = 0;  // every slice of the layer, padded
  // A slice: T rows of r (WS: A's rows, r of its K columns), or r rows of T (OS: A, IS: B; OS
  // K chunks: r rows of a chunk's t). Under IS a pass of a split stream starts at an arbitrary
  // column of B, and an OS chunk at an arbitrary column of A: row-major, such slices may take
  // one more kBlockAlign per row.
  const bool is_split = !ws && !os && split_stream, unaligned = is_split || d.k_chunks > 1;
  auto slice_bytes = [&](int64_t r0, int64_t r, int64_t t) {  // 2:4: the kept values' groups (FoldPlan::stream_words)
    if (!rm) return padded_block(d.words_bytes(stream, ws && !os ? t * p.stream_words(r0, r) : r * t));
    return ws && !os ? block_bytes(t, d.words_bytes(stream, p.stream_words(r0, r)), rm, r_aligned)
                     : block_bytes(r, d.words_bytes(stream, t), rm, !unaligned);
  };
  int64_t largest = 0;
  for (int64_t r0 = 0; r0 < p.Sr; r0 += p.R)
    for (int64_t i = 0; i < d.k_chunks; ++i) {
      const int64_t t = even_part(p.T, d.k_chunks, i);
      const int64_t bytes = slice_bytes(r0, std::min<int64_t>(p.R, p.Sr - r0), t);
      all_slices += bytes;
      largest = std::max(largest, bytes);
    }
  d.stream_resident = all_slices <= d.stream_partition_bytes;
  d.stream_slot = d.stream_resident ? all_slices : largest;
  if (!d.stream_resident && 2 * d.stream_slot > d.stream_partition_bytes)
    too_small(stream_key, fmt::format("two stream slices of T={} rows x {}", os ? tile_rows : p.T, p.R), 2 * d.stream_slot,
              d.stream_partition_bytes);
  // Output blocks: T x C accumulators per column fold (WS, IS), R x C results per fold (OS).
  const int64_t out_rows = os ? p.R : p.T, all_outputs = (os ? p.Sr : p.T) * p.Sc * acc;
  d.output_resident = all_outputs <= d.output_partition_bytes;
  d.output_slot = d.output_resident ? all_outputs : out_rows * int64_t(p.C) * acc;
  if (!d.output_resident && 2 * d.output_slot > d.output_partition_bytes)
    too_small("sram.ofmap_kib", fmt::format("two {} blocks of {} rows x {}", os ? "output" : "accumulator", out_rows, p.C),
              2 * d.output_slot, d.output_partition_bytes);
  return d;
}

LayerDmaPlan make_dma_plan(const ArchSpec& a, const FoldPlan& p, const std::string& layer) {
  return lay_out_dma_program(p, choose_dma_buffers(a, p, layer));
}

std::vector<int64_t> stream_passes(const ArchSpec& a, const FoldPlan& p, const std::string& layer) {
  auto buffers = [&](int64_t rows) -> std::optional<DmaBuffers> {
    try {
      return choose_dma_buffers(a, with_stream(p, rows), layer, rows < p.T);
    } catch (const InputError&) {
      return std::nullopt;
    }
  };
  // The most stream rows a pass can take (double-buffered slices; `resident`: all its slices held).
  auto most_rows = [&](bool resident) {
    int64_t lo = 0, hi = p.T + 1;  // rows lo fit (or lo = 0), rows hi do not
    while (hi - lo > 1) {
      const int64_t mid = lo + (hi - lo) / 2;
      const std::optional<DmaBuffers> d = buffers(mid);
      (d && (!resident || d->stream_resident) ? lo : hi) = mid;
    }
    return lo;
  };
  auto spread = [&](int64_t most) {
    const int64_t n = (p.T + most - 1) / most;
    std::vector<int64_t> rows;
    for (int64_t i = 0; i < n; ++i) rows.push_back(even_part(p.T, n, i));
    return rows;
  };
  const std::optional<DmaBuffers> whole = buffers(p.T);
  if (whole && whole->stream_resident) return {p.T};
  // OS streams the reduction: cutting it would leave partial sums, so it runs whole or not at all.
  if (!roles(p.dataflow).passes_split_outputs) {
    if (!whole) choose_dma_buffers(a, p, layer);  // throws: names what does not fit
    return {p.T};
  }
  const int64_t streaming = whole ? p.T : most_rows(false);
  if (streaming == 0)  // throws: names what does not fit even for one row
    choose_dma_buffers(a, with_stream(p, 1), layer, true);
  // Fewest passes, each streaming its slices anew for every column fold, or more passes that each
  // hold all of theirs (every pass re-reads the stationary operand): whichever moves fewer bytes.
  const int64_t resident = most_rows(true);
  const double stream_bytes = double(p.T) * double(p.Sr), stationary_bytes = double(p.Sr) * double(p.Sc);
  const std::vector<int64_t> fewest = spread(streaming);
  if (resident == 0) return fewest;
  const std::vector<int64_t> holding = spread(resident);
  const double fewest_bytes = double(p.col_folds) * stream_bytes + double(fewest.size()) * stationary_bytes;
  const double holding_bytes = stream_bytes + double(holding.size()) * stationary_bytes;
  return holding_bytes < fewest_bytes ? holding : fewest;
}

namespace {

ClusterShare widest_share(const ArchSpec& a, int64_t M, int64_t N, int64_t K) {
  ClusterShare widest = cluster_share(a, M, N, K, 0);
  for (int k = 1; k < a.clusters; ++k) {
    const ClusterShare c = cluster_share(a, M, N, K, k);
    if (c.M * c.N > widest.M * widest.N) widest = c;
  }
  return widest;
}

}  // namespace

ClusterShare whole_share(const ArchSpec& a, int64_t M, int64_t N, int64_t K) {
  ClusterShare s;
  s.M = M;
  s.N = N;
  s.K = K;
  s.split = roles(a.dataflow).Sc;
  return s;
}

std::vector<int64_t> layer_passes(const ArchSpec& a, int64_t M, int64_t N, int64_t K, const std::string& layer,
                                  bool sparse, bool whole_layer) {
  if (a.memory != MemoryMode::Hierarchy) return {GemmDims{M, N, K}[roles(a.dataflow).T]};
  const ClusterShare w = whole_layer ? whole_share(a, M, N, K) : widest_share(a, M, N, K);
  FoldPlan whole = make_fold_plan(a.dataflow, a.rows, a.cols, w.M, w.N, w.K, a.precision.pack);
  whole.sparse_2_4 = sparse;
  std::vector<int64_t> passes = stream_passes(a, whole, layer);
  if (roles(a.dataflow).T != Dim::K) return passes;
  // OS streams K, which a fold plan counts in PE words of `pack` values: the passes are returned
  // in the layer's own values (the last word of the layer may be part padding).
  int64_t left = w.K;
  for (int64_t& rows : passes) left -= rows = std::min(left, rows * whole.pack);
  if (left != 0) throw std::logic_error(fmt::format("layer {}: stream passes cover K but for {} values", layer, left));
  return passes;
}

}  // namespace cstsim
