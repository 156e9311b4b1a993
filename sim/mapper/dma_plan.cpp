#include "sim/mapper/dma_plan.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/input_error.h"

namespace cstsim {

namespace {

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

}  // namespace

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
  // Every cluster's region is as large as the whole layer's blocks, padding included.
  const FoldPlan whole = make_fold_plan(a.dataflow, a.rows, a.cols, M, N, K);
  ArchSpec roomy = a;  // footprint only: partitions large enough never to refuse
  roomy.ifmap_sram_kib = roomy.filter_sram_kib = roomy.ofmap_sram_kib = int64_t(1) << 40;
  const uint64_t region = align_up(make_dma_plan(roomy, whole, "").hbm_footprint, 4096);
  s.hbm_base = uint64_t(k) * region;
  return s;
}

LayerDmaPlan make_dma_plan(const ArchSpec& a, const FoldPlan& p, const std::string& layer, uint64_t hbm_base) {
  const int64_t elem = (a.operand_bits + 7) / 8, acc = (a.accumulator_bits + 7) / 8;
  const bool ws = p.dataflow == Dataflow::WS;
  LayerDmaPlan d;
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
  auto padded = [](int64_t bytes) { return int64_t(align_up(uint64_t(bytes), kBlockAlign)); };
  d.stationary_slot = padded(int64_t(p.R) * p.C * elem);
  if (d.fifo_tiles * d.stationary_slot > d.stationary_partition_bytes)
    too_small(stationary_key, fmt::format("a FIFO of {} stationary tiles of {}x{}", d.fifo_tiles, p.R, p.C),
              d.fifo_tiles * d.stationary_slot, d.stationary_partition_bytes);
  int64_t all_slices = 0;  // every slice of the layer, padded
  for (int64_t r0 = 0; r0 < p.Sr; r0 += p.R) all_slices += padded(p.T * std::min<int64_t>(p.R, p.Sr - r0) * elem);
  d.stream_resident = all_slices <= d.stream_partition_bytes;
  d.stream_slot = d.stream_resident ? all_slices : padded(p.T * int64_t(p.R) * elem);
  if (!d.stream_resident && 2 * d.stream_slot > d.stream_partition_bytes)
    too_small(stream_key, fmt::format("two stream slices of T={} rows x {}", p.T, p.R), 2 * d.stream_slot,
              d.stream_partition_bytes);
  d.output_resident = p.T * p.Sc * acc <= d.output_partition_bytes;
  d.output_slot = d.output_resident ? p.T * p.Sc * acc : p.T * int64_t(p.C) * acc;
  if (!d.output_resident && 2 * d.output_slot > d.output_partition_bytes)
    too_small("sram.ofmap_kib", fmt::format("two accumulator blocks of T={} rows x {}", p.T, p.C),
              2 * d.output_slot, d.output_partition_bytes);

  // HBM layout: stream operand, stationary operand, outputs. Each block is
  // stored contiguously from a kBlockAlign boundary and moved whole, padding
  // included, so HBM, DMA and scratchpad count the same bytes.
  uint64_t next_addr = hbm_base;
  auto place = [&](int64_t bytes) {
    const uint64_t at = next_addr;
    next_addr += align_up(uint64_t(bytes), kBlockAlign);
    return at;
  };
  const size_t F = p.folds.size();
  d.stationary_read.assign(F, -1);
  d.stream_read.assign(F, -1);
  d.writeback_after.assign(F, -1);
  d.output_wait.assign(F, -1);
  std::vector<uint64_t> slice_addr(size_t(p.row_folds)), tile_addr(F), out_addr(size_t(p.col_folds));
  for (size_t g = 0; g < F; ++g)
    if (p.folds[g].col0 == 0) slice_addr[size_t(p.folds[g].row0 / p.R)] = place(p.T * p.folds[g].rows_used * elem);
  for (size_t g = 0; g < F; ++g) tile_addr[g] = place(int64_t(p.folds[g].rows_used) * p.folds[g].cols_used * elem);
  for (size_t g = 0; g < F; ++g)
    if (p.folds[g].row0 == 0) out_addr[size_t(p.folds[g].col0 / p.C)] = place(p.T * p.folds[g].cols_used * elem);
  std::vector<int> slice_of_row(size_t(p.row_folds), -1);
  std::vector<int> writes_of_col;
  for (size_t g = 0; g < F; ++g) {
    const Fold& f = p.folds[g];
    const int64_t row_fold = f.row0 / p.R, col_fold = f.col0 / p.C;
    const bool new_slice = !d.stream_resident || slice_of_row[size_t(row_fold)] < 0;
    if (new_slice) {
      slice_of_row[size_t(row_fold)] = int(d.reads.size());
      d.reads.push_back({Operand::Stream, false, slice_addr[size_t(row_fold)], padded(p.T * f.rows_used * elem),
                         int(g)});
    }
    d.stream_read[g] = slice_of_row[size_t(row_fold)];
    d.stationary_read[g] = int(d.reads.size());
    d.reads.push_back({Operand::Stationary, false, tile_addr[g], padded(int64_t(f.rows_used) * f.cols_used * elem),
                       int(g)});
    const bool last_of_col = g + 1 == F || p.folds[g + 1].col0 != f.col0;
    if (last_of_col) {
      d.writeback_after[g] = int(d.writes.size());
      writes_of_col.push_back(int(d.writes.size()));
      d.writes.push_back({Operand::Output, true, out_addr[size_t(col_fold)], padded(p.T * f.cols_used * elem),
                          int(g)});
    }
    const bool first_of_col = f.row0 == 0;
    if (first_of_col && !d.output_resident && col_fold >= 2) d.output_wait[g] = writes_of_col[size_t(col_fold - 2)];
  }
  d.hbm_footprint = next_addr;
  return d;
}

std::vector<int64_t> stream_passes(const ArchSpec& a, const FoldPlan& p, const std::string& layer) {
  auto fits = [&](int64_t rows) {
    try {
      make_dma_plan(a, with_stream(p, rows), layer);
      return true;
    } catch (const InputError&) {
      return false;
    }
  };
  if (fits(p.T)) return {p.T};
  int64_t lo = 0, hi = p.T;  // fits(lo) (or lo = 0), !fits(hi)
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  if (lo == 0)  // throws: names what does not fit even for one row
    make_dma_plan(a, with_stream(p, 1), layer);
  const int64_t n = (p.T + lo - 1) / lo;
  std::vector<int64_t> rows;
  for (int64_t i = 0; i < n; ++i) rows.push_back(p.T / n + (i < p.T % n ? 1 : 0));
  return rows;
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

std::vector<int64_t> layer_passes(const ArchSpec& a, int64_t M, int64_t N, int64_t K, const std::string& layer) {
  if (a.memory != "hierarchy") return {GemmDims{M, N, K}[roles(a.dataflow).T]};
  const ClusterShare w = widest_share(a, M, N, K);
  return stream_passes(a, make_fold_plan(a.dataflow, a.rows, a.cols, w.M, w.N, w.K), layer);
}

LayerTraffic layer_traffic(const ArchSpec& a, int64_t M, int64_t N, int64_t K, const std::string& layer) {
  LayerTraffic t;
  const std::vector<int64_t> passes = layer_passes(a, M, N, K, layer);
  for (int k = 0; k < a.clusters; ++k) {
    const ClusterShare share = cluster_share(a, M, N, K, k);
    if (share.empty()) continue;
    const FoldPlan whole = make_fold_plan(a.dataflow, a.rows, a.cols, share.M, share.N, share.K);
    for (int64_t rows : passes) {
      const LayerDmaPlan d = make_dma_plan(a, with_stream(whole, rows), layer, share.hbm_base);
      t.read_bytes += d.read_bytes();
      t.write_bytes += d.write_bytes();
    }
  }
  return t;
}

LayerDmaPlan layer_program(const ArchSpec& a, int64_t M, int64_t N, int64_t K, const std::string& layer) {
  const ClusterShare widest = widest_share(a, M, N, K);
  const std::vector<int64_t> rows = layer_passes(a, M, N, K, layer);
  const FoldPlan whole = make_fold_plan(a.dataflow, a.rows, a.cols, widest.M, widest.N, widest.K);
  LayerDmaPlan d = make_dma_plan(a, with_stream(whole, rows.front()), layer, widest.hbm_base);
  d.passes = int(rows.size());
  return d;
}

std::string dma_plan_table(const std::vector<std::string>& layers, const std::vector<LayerDmaPlan>& plans) {
  std::string out = fmt::format("{:<14} {:>6} {:>7} {:>10} {:>10} {:>7} {:>12} {:>12} {:>12}\n", "layer", "passes",
                                "reads", "stream", "accums", "writes", "HBM read", "HBM write", "footprint");
  for (size_t i = 0; i < plans.size(); ++i) {
    const LayerDmaPlan& d = plans[i];
    out += fmt::format("{:<14} {:>6} {:>7} {:>10} {:>10} {:>7} {:>12} {:>12} {:>12}\n", layers[i].substr(0, 14),
                       d.passes, d.reads.size(), d.stream_resident ? "resident" : "2 slots", d.output_resident ? "resident" : "2 slots",
                       d.writes.size(), d.read_bytes(), d.write_bytes(), d.hbm_footprint);
  }
  return out;
}

}  // namespace cstsim
