#include "sim/mapper/mapper.h"
#include "sim/mapper/flash_plan.h"
#include "sim/mapper/vector_plan.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>

#include <fmt/format.h>

#include "core/input_error.h"
#include "sim/mapper/dma_plan.h"
#include "sim/mapper/pipeline.h"
#include "sim/mapper/program_order.h"
#include "sim/mapper/prefetch.h"
#include "sim/mapper/rocc_map.h"
#include "sim/mapper/rs_map.h"

namespace cstsim {

namespace {

// One channel of the raw ifmap rows a pass over output pixels [m0, m1) of a convolution
// reads, in values: the input rows those output rows see (stride apart, a window's span tall),
// every column.
int64_t raw_channel_values(const ConvShape& c, int64_t m0, int64_t m1) {
  const int64_t out_w = c.out_w();
  const int64_t y0 = m0 / out_w, y1 = (m1 - 1) / out_w;
  const int64_t rows = std::min(c.ifmap_h, y1 * c.stride + c.span_h()) - y0 * c.stride;
  return std::max<int64_t>(0, rows) * c.ifmap_w;  // none: the pass's pixels see only padding
}

// The raw input rows output pixels [m0, m1) of a convolution see, every channel (NHWC), as the
// pass's block in HBM from its first input row; and, for groups of `group` pixels from m0 (the
// folds' pixels), the total and the largest aligned run a group reads.
struct RawRuns {
  int64_t all = 0, largest = 0;
  bool some_empty = false;  // a group's pixels see only padding: nothing to read, keep im2col
};
RawRuns describe_raw_rows(const ArchSpec& a, const ConvShape& c, int64_t m0, int64_t m1, int64_t group,
                          DmaBuffers& raw) {
  const int bits = a.precision.value_bits();  // an input row is whole bytes (use_raw_ifmap)
  raw.raw_row_bytes = c.ifmap_w * c.channels * bits / 8;
  raw.raw_out_w = c.out_w();
  raw.raw_stride = c.stride;
  raw.raw_filter_h = c.span_h();
  raw.raw_ifmap_h = c.ifmap_h;
  raw.raw_m0 = m0;
  const auto [first, last] = raw.raw_rows_of(m0, m1);
  raw.raw_first_row = first;
  raw.raw_rows = last - first;
  raw.raw_channels = c.channels;
  raw.raw_block_channels = c.channels;
  raw.raw_channel_values = raw.raw_rows * c.ifmap_w;
  raw.raw_value_bits = bits;
  RawRuns runs;
  for (int64_t f0 = m0; f0 < m1; f0 += group) {
    const auto [from, to] = raw.raw_run_of(f0, std::min(m1, f0 + group));
    runs.all += to - from;
    runs.largest = std::max(runs.largest, to - from);
    runs.some_empty = runs.some_empty || to <= from;
  }
  return runs;
}

// The im2col rows of output pixels [m0, m1): what a fold-by-fold raw read must beat. Whole input
// rows per fold re-read halo rows and, with a stride, the rows the filter skips, so a 1x1 layer
// (its im2col rows are the ifmap) or a strided one can move more raw bytes than im2col bytes.
int64_t im2col_bytes(const ArchSpec& a, const ConvShape& c, int64_t m0, int64_t m1) {
  return (m1 - m0) * a.precision.bytes_of_words(false, a.precision.words(c.filter_h * c.filter_w * c.channels));
}

// OS convolutions: a row fold's rows are output pixels [m0, m1) (all of them: OS splits the
// filters between clusters and never runs in passes), and its stream slice their im2col rows.
// Read instead the raw input rows those pixels see, per row fold, and lower on chip;
// neighbouring row folds share rows of halo, which the plan's re-read factor shows. Two slots
// alternate unless every row fold's rows fit; too big, or no fewer bytes: im2col slices.
void use_raw_rows_per_fold(const ArchSpec& a, const ConvShape& c, int64_t m0, int64_t m1, DmaBuffers& d) {
  DmaBuffers raw = d;
  const RawRuns runs = describe_raw_rows(a, c, m0, m1, a.rows, raw);
  if (runs.some_empty || runs.all >= im2col_bytes(a, c, m0, m1)) return;
  raw.stream_resident = runs.all <= d.stream_partition_bytes;
  raw.stream_slot = raw.stream_resident ? runs.all : runs.largest;
  if (!raw.stream_resident && 2 * runs.largest > d.stream_partition_bytes) return;
  raw.raw_rows_for = DmaBuffers::RawRows::StreamPerRowFold;
  d = raw;
}

// IS convolutions: a column fold's columns are output pixels (the cluster's [m0, m1)), and its
// row folds' stationary tiles their im2col rows, R reduction elements at a time. Read instead,
// once per column fold, the raw input rows its pixels see and lower each of its tiles from
// them on chip: the tile FIFO's fifo_tiles slots hold those runs. Too big, or no fewer bytes:
// im2col tiles.
void use_raw_rows_per_column_fold(const ArchSpec& a, const ConvShape& c, int64_t m0, int64_t m1, DmaBuffers& d) {
  DmaBuffers raw = d;
  const RawRuns runs = describe_raw_rows(a, c, m0, m1, a.cols, raw);
  if (runs.some_empty || runs.all >= im2col_bytes(a, c, m0, m1)) return;
  if (int64_t(d.fifo_tiles) * runs.largest > d.stationary_partition_bytes) return;
  raw.stationary_slot = runs.largest;
  raw.raw_rows_for = DmaBuffers::RawRows::TilesPerColumnFold;
  d = raw;
}

// WS convolutions stream the ifmap: read it raw (with its halo), in blocks of as many
// channels as the array has rows, and lower it on chip, when the raw rows fit the stream
// partition; otherwise the pass keeps its im2col slices.
// `share`: the cluster's part of the layer; [m0, m1): the pass's rows of the stream dimension.
void use_raw_ifmap(const ArchSpec& a, const Layer& l, const ClusterShare& share, int64_t m0, int64_t m1,
                   DmaBuffers& d) {
  // 2:4 streams read groups, not rows, and input rows that would end inside a byte (int4 values,
  // an odd number of them) stay im2col rows. Packed words (core/precision.h) run along
  // im2col's K, tap-major and channel-minor; the lowering on chip builds them from the raw rows.
  const int pack = a.precision.pack, bits = a.precision.value_bits();
  if (!l.conv || l.conv->ifmap_w * l.conv->channels * bits % 8 != 0 || (a.skip_2_4 && l.weights_2_4)) return;
  const DataflowRoles& r = roles(a.dataflow);
  // Where the folds run over output pixels (OS: rows; IS: columns), the raw rows they see.
  const int64_t pixels0 = share.split == Dim::M ? share.offset : 0;
  // OS K chunks read a chunk of each row fold's im2col rows at a time: no raw rows for them.
  if (r.stationary_outputs) {
    if (d.k_chunks == 1) use_raw_rows_per_fold(a, *l.conv, pixels0, pixels0 + share.M, d);
    return;
  }
  if (!r.tile_is_filter && r.Sc == Dim::M)
    return use_raw_rows_per_column_fold(a, *l.conv, pixels0, pixels0 + share.M, d);
  // WS: the streamed operand is the ifmap and the folds' rows are reduction rows: a fold's
  // rows k pick the channels it needs.
  if (!r.tile_is_filter || r.Sr != Dim::K) return;
  // Blocks of as many channels as the array's rows take in one fold (rows x pack).
  const int64_t C = l.conv->channels, bc = std::min<int64_t>(C, int64_t(a.rows) * pack);
  // Several blocks: a word must not straddle two, so C must be a multiple of pack (a word is then
  // `pack` channels of one tap).
  if (bc < C && C % pack != 0) return;
  const int64_t per_channel = raw_channel_values(*l.conv, m0, m1);
  if (per_channel == 0) return;  // nothing to read raw: the pass's windows lie in the padding
  if (per_channel * bc * bits % 8 != 0) return;
  DmaBuffers raw = d;
  raw.raw_channel_values = per_channel;
  raw.raw_value_bits = bits;
  int64_t padded = 0;  // the blocks as lay_out_dma_program stores them
  for (int64_t c0 = 0; c0 < C; c0 += bc) padded += padded_block(raw.raw_block_bytes(std::min(bc, C - c0)));
  if (padded > d.stream_partition_bytes) return;
  d = raw;
  d.raw_channels = C;
  d.raw_block_channels = bc;
  d.stream_resident = true;
  d.stream_slot = padded;
}

// The folds of a cluster's share over one pass of `rows` stream rows (values; OS: of K).
// `sparse`: the layer's 2:4 weights, kept half only (share.K counts it).
FoldPlan fold_plan_of(const ArchSpec& a, const ClusterShare& share, int64_t rows, bool sparse) {
  FoldPlan whole = make_fold_plan(a.dataflow, a.rows, a.cols, std::max<int64_t>(1, share.M),
                                  std::max<int64_t>(1, share.N), std::max<int64_t>(1, share.K), a.precision.pack);
  whole.sparse_2_4 = sparse;
  // with_stream counts a K stream in PE words
  return with_stream(whole, roles(a.dataflow).T == Dim::K ? (rows + whole.pack - 1) / whole.pack : rows);
}

// An operator graph's dtype for a matrix where it is exact in the operand and not the run's type.
std::optional<NumType> graph_type(const Precision& p, const std::string& dtype, NumType run_type) {
  const std::optional<NumType> t = dtype.empty() ? std::nullopt : num_type_named(dtype);
  if (!t || *t == run_type || !holds_exactly(p.operand, *t)) return std::nullopt;
  return t;
}

// The layer's passes: every repeat (sim/workload/workload.h) makes the passes of one GEMM, one
// repeat after another; pass_rows lists them all.
LayerPlan plan_layer(const ArchSpec& a, const Layer& l) {
  LayerPlan lp;
  lp.name = l.name;
  lp.dims = {l.M, l.N, l.K};
  lp.repeats = l.repeats;
  // 2:4 weights in PEs that skip: the array reduces over the kept half of K.
  lp.sparse_2_4 = a.skip_2_4 && l.weights_2_4;
  const int64_t K = lp.sparse_2_4 ? l.K / 2 : l.K;
  // Heads (repeats) spread over the clusters when there are at least as many: a cluster then
  // streams whole heads (its KV cache rows among them), where a share of every head's columns
  // would leave clusters idle on narrow GEMMs (decode's context: one column fold of 128).
  lp.repeats_across_clusters = a.clusters > 1 && l.repeats >= a.clusters && a.dataflow != Dataflow::RS;
  const bool across = lp.repeats_across_clusters;
  const int64_t slots = across ? (l.repeats + a.clusters - 1) / a.clusters : l.repeats;
  const std::vector<int64_t> one = layer_passes(a, l.M, l.N, K, l.name, lp.sparse_2_4, across);
  for (int64_t r = 0; r < slots; ++r) lp.pass_rows.insert(lp.pass_rows.end(), one.begin(), one.end());
  if (l.conv)
    lp.raw_ifmap_bytes = (l.repeats * l.conv->ifmap_h * l.conv->ifmap_w * l.conv->channels * a.precision.value_bits() + 7) / 8;
  const Dim stream = roles(a.dataflow).T;  // every cluster streams the whole T, so all make the same passes
  const bool hierarchy = a.memory == MemoryMode::Hierarchy;
  for (int k = 0; k < a.clusters; ++k) {
    ClusterLayerPlan c;
    c.share = across ? whole_share(a, l.M, l.N, K) : cluster_share(a, l.M, l.N, K, k);
    for (int64_t slot = 0; slot < slots; ++slot) {
      const int64_t r = across ? slot * a.clusters + k : slot;
      int64_t first_row = 0;  // of the pass, along the stream dimension
      for (int64_t rows : one) {
        PassPlan p;
        p.repeat = std::min(r, l.repeats - 1);
        p.sparse_2_4 = lp.sparse_2_4;
        p.input_density = a.zero_gating ? l.input_density : 1.0;
        p.a_word_bits = a.precision.word_bits(false);
        p.b_word_bits = a.precision.word_bits(true);
        p.a_type = graph_type(a.precision, l.dtypes[0], a.precision.activation_type());
        p.b_type = graph_type(a.precision, l.dtypes[1], a.precision.weight_type());
        p.dims = {c.share.M, c.share.N, c.share.K};
        p.dims[stream] = c.share.empty() || r >= l.repeats ? 0 : rows;  // a slot past the last repeat idles
        if (hierarchy && !p.idle() && a.dataflow != Dataflow::RS) {  // RS: its own passes (rs_map.h)
          const FoldPlan folds = fold_plan_of(a, c.share, rows, lp.sparse_2_4);
          p.has_dma = true;
          p.dma = choose_dma_buffers(a, folds, l.name, one.size() > 1);
          use_raw_ifmap(a, l, c.share, first_row, first_row + rows, p.dma);
        }
        c.passes.push_back(p);
        first_row += rows;
      }
    }
    lp.clusters.push_back(std::move(c));
  }
  return lp;
}

// Places the layer's A, B and C in HBM from `next` (a kTensorAlign boundary, advanced past them),
// A (B) where an earlier layer wrote its C when that is its input_from (weight_from), and gives
// every pass its share's place in them; then counts the bytes the passes' programs move.
//
// Tiled, a matrix's pieces lie one after another: one per cluster if the clusters split a
// dimension of it (B and C under WS and OS, A and C under IS), else one the clusters share (they
// all stream it); and one per pass if the passes split a dimension of it, else one every pass
// re-reads (WS's weights B keep their address, A's and C's rows move on). Row-major, a pass's
// share is the sub-matrix at its rows and columns of the whole tensor. A layer's repeats use their
// own pieces of each matrix (Layer::pieces), one after another.
constexpr uint64_t kTensorAlign = 4096;

void place_tensors(const ArchSpec& a, const Layer& l, const std::vector<LayerPlan>& earlier, LayerPlan& lp,
                   uint64_t& next) {
  const DataflowRoles& r = roles(a.dataflow);
  auto has = [](Matrix x, Dim d) {
    return x == Matrix::A ? d != Dim::N : x == Matrix::B ? d != Dim::M : d != Dim::K;
  };
  const size_t per_repeat = lp.passes_per_repeat();
  auto piece_of = [&](int x, const PassPlan& pass) { return l.pieces[size_t(x)].of(pass.repeat); };
  std::array<int64_t, kMatrices> tiled{}, extent{};
  // (cluster, pass of a repeat, piece) -> offset
  std::array<std::map<std::array<int64_t, 3>, int64_t>, kMatrices> piece;
  std::map<std::pair<int, int>, std::array<int64_t, kMatrices>> offset_of;
  bool row_major = false;
  for (int k = 0; k < int(lp.clusters.size()); ++k)
    for (int p = 0; p < int(lp.clusters[size_t(k)].passes.size()); ++p) {
      const PassPlan& pass = lp.clusters[size_t(k)].passes[size_t(p)];
      if (!pass.has_dma) continue;
      if (pass.dma.lays_row_major()) {
        row_major = true;
        continue;
      }
      const LayerDmaPlan alone =
          lay_out_dma_program(fold_plan_of(a, lp.clusters[size_t(k)].share, lp.pass_rows[size_t(p)], lp.sparse_2_4), pass.dma);
      std::array<int64_t, kMatrices>& at = offset_of[{k, p}];
      for (int x = 0; x < kMatrices; ++x) {
        const std::array<int64_t, 3> key = {!lp.repeats_across_clusters && has(Matrix(x), r.Sc) ? k : 0,
                                            has(Matrix(x), r.T) ? int64_t(size_t(p) % per_repeat) : 0,
                                            piece_of(x, pass)};
        auto [it, fresh] = piece[size_t(x)].emplace(key, tiled[size_t(x)]);
        if (fresh) tiled[size_t(x)] += alone.placed[size_t(x)];
        at[size_t(x)] = it->second;
      }
    }
  // Row-major: A is M rows of K (in words), B K (in words) rows of N words, C M rows of N values.
  const int64_t k_words = a.precision.words(l.K);
  const std::array<int64_t, kMatrices> pitch = {padded_block(a.precision.bytes_of_words(false, k_words)),
                                                padded_block(a.precision.bytes_of_words(true, l.N)),
                                                padded_block((l.N * a.precision.value_bits() + 7) / 8)};
  const std::array<int64_t, kMatrices> rows = {l.M, k_words, l.M};
  for (int x = 0; x < kMatrices; ++x)
    extent[size_t(x)] = std::max(tiled[size_t(x)], row_major ? l.pieces[size_t(x)].count(l.repeats) *
                                                                   rows[size_t(x)] * pitch[size_t(x)]
                                                             : 0);
  auto align = [](uint64_t v) { return (v + kTensorAlign - 1) / kTensorAlign * kTensorAlign; };
  // A and B where their producers wrote their outputs, the rest after everything placed so far.
  const std::array<int, kMatrices> from = {lp.input_from, lp.weight_from, -1};
  for (int x = 0; x < kMatrices; ++x) {
    TensorPlace& t = lp.tensors[size_t(x)];
    t.bytes = extent[size_t(x)];
    const std::pair<int, int> same = x < 2 ? lp.same_as[size_t(x)] : std::make_pair(-1, 0);
    if (from[size_t(x)] >= 0 || same.first >= 0) {
      t.addr = from[size_t(x)] >= 0 ? earlier[size_t(from[size_t(x)])].tensors[size_t(Matrix::C)].addr
                                    : earlier[size_t(same.first)].tensors[size_t(same.second)].addr;
      next = std::max(next, align(t.addr + uint64_t(t.bytes)));
    } else {
      t.addr = next;
      next = align(next + uint64_t(t.bytes));
    }
  }

  for (int k = 0; k < int(lp.clusters.size()); ++k) {
    ClusterLayerPlan& c = lp.clusters[size_t(k)];
    int64_t first_row = 0;
    for (int p = 0; p < int(c.passes.size()); ++p) {
      PassPlan& pass = c.passes[size_t(p)];
      const int64_t pass_rows = lp.pass_rows[size_t(p)];
      if (size_t(p) % per_repeat == 0) first_row = 0;  // a repeat starts its GEMM
      if (pass.has_dma) {
        DmaBuffers& d = pass.dma;
        d.hbm_placed = true;
        // The share's first element in the layer's GEMM: the cluster's offset along the split
        // dimension, the pass's along the stream.
        GemmDims origin{0, 0, 0};
        origin[c.share.split] += c.share.offset;
        origin[r.T] += first_row;
        const std::array<std::pair<int64_t, int64_t>, kMatrices> corner = {
            std::make_pair(origin.M, origin.K), std::make_pair(origin.K, origin.N), std::make_pair(origin.M, origin.N)};
        for (int x = 0; x < kMatrices; ++x) {
          MatrixPlace& m = d.hbm[size_t(x)];
          m.base = lp.tensors[size_t(x)].addr;
          if (d.lays_row_major()) {
            m.base += uint64_t(piece_of(x, pass) * rows[size_t(x)] * pitch[size_t(x)]);
            m.pitch = pitch[size_t(x)];
            m.row0 = corner[size_t(x)].first;
            m.col0 = corner[size_t(x)].second;
          } else {
            m.base += uint64_t(offset_of.at({k, p})[size_t(x)]);
          }
        }
        const LayerDmaPlan program = lay_out_dma_program(fold_plan_of(a, c.share, pass_rows, lp.sparse_2_4), d);
        lp.hbm_read_bytes += program.read_bytes();
        const Operand ifmap = r.tile_is_filter ? Operand::Stream : Operand::Stationary;
        for (const DmaTransfer& t : program.reads)
          if (t.operand == ifmap) lp.ifmap_read_bytes += t.bytes;
        lp.hbm_write_bytes += program.write_bytes();
      }
      first_row += pass_rows;
    }
  }
}

// An operator graph's layer stores and moves A (and its outputs) and B at their dtypes' widths
// where they differ from the run's (precision.activation / .weight, else the operand); the array
// computes in the operand type either way.
ArchSpec with_tensor_width(const ArchSpec& a, const Layer& l) {
  ArchSpec s = a;
  if (l.dtype_bits > 0 && l.dtype_bits != a.precision.value_bits()) s.precision.stored_a_bits = l.dtype_bits;
  if (l.b_dtype_bits > 0 && l.b_dtype_bits != a.precision.weight_bits()) s.precision.stored_b_bits = l.b_dtype_bits;
  return s;
}

constexpr int64_t kMaxFoldsPerPass = int64_t(1) << 24;

// The array models hold a pass's folds (their places and timing) in memory: a layer with more
// folds in one pass than kMaxFoldsPerPass is refused here, before any is made, with the count.
void check_fold_count(const ArchSpec& a, const Workload& w, const Layer& l) {
  if (a.dataflow == Dataflow::RS) return;  // row stationary maps its own passes (rs_map.h)
  const bool sparse = a.skip_2_4 && l.weights_2_4;
  const ClusterShare share = cluster_share(a, l.M, l.N, sparse ? l.K / 2 : l.K, 0);  // cluster 0's is the largest
  const auto [row_folds, col_folds] =
      fold_grid(a.dataflow, a.rows, a.cols, std::max<int64_t>(1, share.M), std::max<int64_t>(1, share.N),
                std::max<int64_t>(1, share.K), a.precision.pack);
  if (row_folds > kMaxFoldsPerPass / col_folds)
    throw InputError(w.source, l.source_line, l.name,
                     fmt::format("{} x {} = {} folds on the {}x{} array ({}); at most {} are simulated per pass "
                                 "(each is held in memory): use a larger array or split the layer",
                                 row_folds, col_folds, row_folds * col_folds, a.rows, a.cols,
                                 to_string(a.dataflow), kMaxFoldsPerPass));
}

// A plan holds every pass of a layer, in every cluster (about 1 KiB each in the plan, 2 KiB in a
// run): a layer's repeats (attention's batch x heads, a convolution's images x groups, a batched
// matmul's batch) times its passes per repeat are capped here, before any is made. 2^18 passes
// plan in about 0.1 s and 150 MB and run in about a second (configs/README.md, "Size limits");
// 2^20 took 8.8 s and 1.6 GB to run.
constexpr int64_t kMaxPassesPerLayer = int64_t(1) << 18;

void check_pass_count(const ArchSpec& a, const Workload& w, const Layer& l) {
  const bool sparse = a.skip_2_4 && l.weights_2_4;
  const int64_t per_repeat = int64_t(layer_passes(a, l.M, l.N, sparse ? l.K / 2 : l.K, l.name, sparse).size());
  const int64_t per_cluster = std::max<int64_t>(1, per_repeat) * std::max<int64_t>(1, a.clusters);
  if (l.repeats > kMaxPassesPerLayer / per_cluster)
    throw InputError(w.source, l.source_line, l.name,
                     fmt::format("{} repeats x {} pass{} x {} cluster{} = {} passes; at most {} (2^18) a layer are "
                                 "planned (repeats: attention's batch x heads, a convolution's images x groups, a batched "
                                 "matmul's batch)",
                                 l.repeats, per_repeat, per_repeat == 1 ? "" : "es", a.clusters, a.clusters == 1 ? "" : "s",
                                 l.repeats > INT64_MAX / per_cluster ? std::string("over 2^63") : std::to_string(l.repeats * per_cluster),
                                 kMaxPassesPerLayer));
}

}  // namespace

Plan make_plan(const ArchSpec& a, const Workload& w) {
  Plan plan;
  plan.dataflow = a.dataflow;
  plan.rows = a.rows;
  plan.cols = a.cols;
  plan.pack = a.precision.pack;
  // chips > 1: w is one chip's share (split_tensor_parallel), which every chip runs.
  const int split = w.tensor_parallel * w.data_parallel * w.pipeline_parallel;
  if (split != a.chips) throw std::logic_error(fmt::format("a workload split over {} chips planned for {}", split, a.chips));
  plan.chips = a.chips;
  uint64_t next = 0;  // the run's tensors in HBM, layer by layer
  plan.layers.reserve(w.layers.size());  // no second copy of the layers while the vector grows
  for (size_t i = 0; i < w.layers.size(); ++i) {
    const ArchSpec la = with_tensor_width(a, w.layers[i]);
    check_fold_count(la, w, w.layers[i]);
    check_pass_count(la, w, w.layers[i]);
    plan.layers.push_back(plan_layer(la, w.layers[i]));
    plan.layers.back().held_bytes = w.layers[i].held_bytes;
    plan.layers.back().chip_cut = w.layers[i].chip_cut;
    if (a.dataflow == Dataflow::RS) {  // one pass plan runs the whole layer in its processing passes
      LayerPlan& lp = plan.layers.back();
      lp.rs = map_rs_layer(la, w, i);
      for (ClusterLayerPlan& c : lp.clusters) c.passes.resize(1);
    }
    if (a.rocc.on) plan.layers.back().rocc = std::make_shared<const RoccLayerPlan>(map_rocc_layer(la, w.layers[i]));
    if (a.memory != MemoryMode::Hierarchy) continue;
    LayerPlan& lp = plan.layers.back();
    lp.input_from = input_producer(w, i);
    lp.weight_from = w.layers[i].weight_layer;
    for (int x = 0; x < 2; ++x) lp.same_as[size_t(x)] = {w.layers[i].same_as[size_t(x)].layer, w.layers[i].same_as[size_t(x)].matrix};
    lp.tensor_names = w.layers[i].tensors;
    if (lp.rs)
      place_rs_tensors(la, w, i, plan.layers, lp, next, kTensorAlign);
    else
      place_tensors(la, w.layers[i], plan.layers, lp, next);
  }
  std::vector<Placed<VectorKernelPlan>> vector = plan_vector_kernels(a, w, plan.layers, next);
  std::vector<Placed<FlashKernelPlan>> flash = plan_flash_kernels(a, w, plan.layers, vector, next);
  plan.program = order_program(w, layer_steps(plan.layers), std::move(vector), std::move(flash), w.collectives);
  plan_pipeline(a, plan);  // first: prefetch leaves room for the outputs kept on chip
  plan_prefetch(a, plan);
  return plan;
}

const PassPlan& widest_pass(const LayerPlan& layer) {
  const ClusterLayerPlan* widest = &layer.clusters.front();
  for (const ClusterLayerPlan& c : layer.clusters)
    if (c.share.M * c.share.N > widest->share.M * widest->share.N) widest = &c;
  return widest->passes.front();
}

}  // namespace cstsim
