#include "plan/dma_program.h"

#include <algorithm>

namespace cstsim {

const char* to_string(Operand o) {
  switch (o) {
    case Operand::Stationary: return "stationary";
    case Operand::Stream: return "stream";
    case Operand::Output: return "output";
  }
  return "?";
}

int64_t LayerDmaPlan::read_bytes() const {
  int64_t b = 0;
  for (const DmaTransfer& t : reads) b += t.bytes;
  return b;
}

int64_t LayerDmaPlan::write_bytes() const {
  int64_t b = 0;
  for (const DmaTransfer& t : writes) b += t.bytes;
  return b;
}

LayerDmaPlan lay_out_dma_program(const FoldPlan& p, const DmaBuffers& buffers) {
  LayerDmaPlan d;
  static_cast<DmaBuffers&>(d) = buffers;
  const bool os = roles(p.dataflow).stationary_outputs;
  d.tile_frees = os ? FoldPoint::LastInput : FoldPoint::LoadDone;
  const int64_t elem = buffers.element_bytes;
  auto padded = padded_block;
  uint64_t next_addr = buffers.hbm_base;
  auto place = [&](int64_t bytes) {
    const uint64_t at = next_addr;
    next_addr += uint64_t(padded_block(bytes));
    return at;
  };
  const size_t F = p.folds.size();
  d.stationary_read.assign(F, -1);
  d.stream_read.assign(F, -1);
  d.writeback_after.assign(F, -1);
  d.output_wait.assign(F, -1);
  // Bytes of fold g's tile (WS, IS: r x c; OS: the column fold's T x c block of B)
  // and of its outputs' block (WS, IS: the column fold's T x c; OS: its own r x c).
  auto tile_bytes = [&](const Fold& f) { return (os ? p.T : int64_t(f.rows_used)) * f.cols_used * elem; };
  auto output_bytes = [&](const Fold& f) { return (os ? int64_t(f.rows_used) : p.T) * f.cols_used * elem; };
  auto first_of_col = [&](const Fold& f) { return f.row0 == 0; };
  std::vector<uint64_t> slice_addr(size_t(p.row_folds)), tile_addr(F), out_addr(F);
  using RawRows = DmaBuffers::RawRows;
  const bool os_raw = buffers.raw_rows_for == RawRows::StreamPerRowFold;    // OS: each row fold's raw input rows
  const bool is_raw = buffers.raw_rows_for == RawRows::TilesPerColumnFold;  // IS: each column fold's
  const bool raw = buffers.raw_channels > 0 && buffers.raw_rows_for == RawRows::None;  // WS: blocks serve every row fold
  const int64_t C = buffers.raw_channels, bc = buffers.raw_block_channels;
  const int64_t blocks = raw ? (C + bc - 1) / bc : 0;
  auto raw_bytes = [&](int64_t b) { return buffers.raw_channel_bytes * std::min(bc, C - b * bc); };
  std::vector<uint64_t> raw_addr(static_cast<size_t>(blocks), 0);
  for (int64_t b = 0; b < blocks; ++b) raw_addr[size_t(b)] = place(raw_bytes(b));
  std::vector<int> raw_read(static_cast<size_t>(blocks), -1);
  const uint64_t raw_rows_base = os_raw || is_raw ? place(buffers.raw_rows * buffers.raw_row_bytes) : 0;
  // Tiled, every block where it is placed; row-major, the pass's A, B, C, each row padded
  // (`block` turns a transfer into the strided rows it covers).
  const bool rm = buffers.row_major && !raw && !os_raw && !is_raw;
  const int64_t pitch_a = padded(p.K * elem), pitch_b = padded(p.N * elem), pitch_c = pitch_b;
  uint64_t base_a = 0, base_b = 0, base_c = 0;
  if (rm) {
    base_a = place(p.M * pitch_a);
    base_b = place(p.K * pitch_b);
    base_c = place(p.M * pitch_c);
  } else {
    for (size_t g = 0; g < F && !raw && !os_raw; ++g)
      if (p.folds[g].col0 == 0) slice_addr[size_t(p.folds[g].row0 / p.R)] = place(p.T * p.folds[g].rows_used * elem);
    for (size_t g = 0; g < F; ++g)
      if ((!os && !is_raw) || (os && first_of_col(p.folds[g]))) tile_addr[g] = place(tile_bytes(p.folds[g]));
    for (size_t g = 0; g < F; ++g)
      if (os || first_of_col(p.folds[g])) out_addr[g] = place(output_bytes(p.folds[g]));
  }
  // Matrix `which` (A, B, C), rows [row0, row0 + rows), columns [col0, col0 + cols).
  auto block = [&](DmaTransfer& t, char which, int64_t row0, int64_t rows, int64_t col0, int64_t cols) {
    if (!rm) return;
    const uint64_t base = which == 'A' ? base_a : which == 'B' ? base_b : base_c;
    const int64_t pitch = which == 'A' ? pitch_a : which == 'B' ? pitch_b : pitch_c;
    const int64_t a = int64_t(kBlockAlign);
    const int64_t from = col0 * elem / a * a, to = padded(std::min((col0 + cols) * elem, pitch));
    t.hbm_addr = base + uint64_t(row0 * pitch + from);
    t.rows = rows;
    t.row_bytes = to - from;
    t.pitch = pitch;
    t.bytes = rows * t.row_bytes;
  };
  // Each operand's block of fold f, by the roles table (plan/dataflow.h): A is M x K, B K x N, C M x N.
  const bool is = !roles(p.dataflow).tile_is_filter;
  auto slice_block = [&](DmaTransfer& t, const Fold& f) {
    if (os) block(t, 'A', f.row0, f.rows_used, 0, p.T);        // A rows m (Sr), all K
    else if (is) block(t, 'B', f.row0, f.rows_used, 0, p.T);   // B rows k (Sr), all N
    else block(t, 'A', 0, p.T, f.row0, f.rows_used);           // WS: all M rows of A, columns k (Sr)
  };
  auto tile_block = [&](DmaTransfer& t, const Fold& f) {
    if (os) block(t, 'B', 0, p.T, f.col0, f.cols_used);         // B: all K rows, columns n (Sc)
    else if (is) block(t, 'A', f.col0, f.cols_used, f.row0, f.rows_used);  // A rows m (Sc), columns k (Sr)
    else block(t, 'B', f.row0, f.rows_used, f.col0, f.cols_used);          // WS: B rows k, columns n
  };
  auto output_block = [&](DmaTransfer& t, const Fold& f) {
    if (os) block(t, 'C', f.row0, f.rows_used, f.col0, f.cols_used);
    else if (is) block(t, 'C', f.col0, f.cols_used, 0, p.T);    // C rows m (Sc), all N
    else block(t, 'C', 0, p.T, f.col0, f.cols_used);            // WS: all M rows, columns n (Sc)
  };
  std::vector<int> slice_of_row(size_t(p.row_folds), -1);
  std::vector<int> last_of_col_fold;  // OS: per column fold, its last fold
  std::vector<int> writes;            // per write: the fold after which it goes
  int tile = -1, col_first = 0, col_fold_index = -1;
  for (size_t g = 0; g < F; ++g) {
    const Fold& f = p.folds[g];
    const int64_t row_fold = f.row0 / p.R;
    if (first_of_col(f)) {
      col_first = int(g);
      ++col_fold_index;
    }
    const bool new_slice = !raw && (!d.stream_resident || slice_of_row[size_t(row_fold)] < 0);
    if (raw) {
      // The blocks of the channels its rows k reduce over; it waits for the last one read.
      int latest = -1;
      for (int64_t k = f.row0; k < f.row0 + f.rows_used; ++k) {
        const int64_t b = (k % C) / bc;
        if (raw_read[size_t(b)] < 0) {
          raw_read[size_t(b)] = int(d.reads.size());
          d.reads.push_back({Operand::Stream, false, raw_addr[size_t(b)], padded(raw_bytes(b)), int(g)});
        }
        latest = std::max(latest, raw_read[size_t(b)]);
      }
      d.stream_read[g] = latest;
    } else if (new_slice) {
      DmaTransfer t{Operand::Stream, false, slice_addr[size_t(row_fold)], padded(p.T * f.rows_used * elem), int(g)};
      slice_block(t, f);
      if (os_raw) {  // the raw rows its output pixels see instead of their im2col rows
        const auto [from, to] = buffers.raw_run_of(buffers.raw_m0 + f.row0, buffers.raw_m0 + f.row0 + f.rows_used);
        t.hbm_addr = raw_rows_base + uint64_t(from);
        t.bytes = to - from;
      }
      if (!d.stream_resident && g >= 2) {  // two slots alternate
        t.after_fold = int(g) - 2;
        t.after = FoldPoint::LastInput;
      }
      slice_of_row[size_t(row_fold)] = int(d.reads.size());
      d.reads.push_back(t);
    }
    if (!raw) d.stream_read[g] = slice_of_row[size_t(row_fold)];
    // One stationary read per fold, or per column fold: OS's block of B, IS's raw input rows.
    const bool per_column_fold = os || is_raw;
    if (!per_column_fold || first_of_col(f)) {
      DmaTransfer t{Operand::Stationary, false, tile_addr[g], padded(tile_bytes(f)), int(g)};
      tile_block(t, f);
      if (is_raw) {  // the raw rows its column fold's pixels see instead of the im2col tiles
        const auto [from, to] = buffers.raw_run_of(buffers.raw_m0 + f.col0, buffers.raw_m0 + f.col0 + f.cols_used);
        t.hbm_addr = raw_rows_base + uint64_t(from);
        t.bytes = to - from;
      }
      // A FIFO of fifo_tiles slots: this tile reuses the slot of the one fifo_tiles before it.
      if (!per_column_fold && int(g) >= d.fifo_tiles) t.after_fold = int(g) - d.fifo_tiles;
      if (per_column_fold && col_fold_index >= d.fifo_tiles)
        t.after_fold = last_of_col_fold[size_t(col_fold_index - d.fifo_tiles)];
      t.after = d.tile_frees;
      tile = int(d.reads.size());
      d.reads.push_back(t);
    }
    d.stationary_read[g] = tile;
    const bool last_of_col = g + 1 == F || p.folds[g + 1].col0 != f.col0;
    if (last_of_col) last_of_col_fold.push_back(int(g));
    if (os || last_of_col) {
      const int first = os ? int(g) : col_first;
      d.writeback_after[g] = int(d.writes.size());
      DmaTransfer t{Operand::Output, true, out_addr[size_t(first)], padded(output_bytes(f)), int(g), -1,
                    FoldPoint::LoadDone, first};
      output_block(t, f);
      d.writes.push_back(t);
      writes.push_back(int(g));
    }
    // Two output slots alternate unless all outputs stay: the block this fold starts
    // (WS, IS: at a column fold's first fold; OS: every fold) reuses the one two before.
    const int block = os ? int(g) : col_fold_index;
    if (!d.output_resident && block >= 2 && (os || first_of_col(f))) d.output_wait[g] = block - 2;
  }
  d.hbm_footprint = next_addr;
  return d;
}

nlohmann::ordered_json to_json(const LayerDmaPlan& d) {
  auto bytes_of = [](const std::vector<DmaTransfer>& ts, Operand o) {
    int64_t b = 0;
    for (const DmaTransfer& t : ts) b += t.operand == o ? t.bytes : 0;
    return b;
  };
  nlohmann::ordered_json stationary = {{"partition", d.stationary_partition}, {"slot_bytes", d.stationary_slot},
                                       {"fifo_tiles", d.fifo_tiles}};
  nlohmann::ordered_json stream = {{"partition", d.stream_partition}, {"resident", d.stream_resident},
                                   {"slot_bytes", d.stream_slot}};
  // How the ifmap reaches the array, in the section of the operand that carries it.
  (d.stationary_partition == "ifmap" ? stationary : stream)["lowering"] =
      d.raw_channels > 0 ? "raw ifmap from HBM, im2col on chip" : "im2col rows from HBM";
  stationary["hbm_read_bytes"] = bytes_of(d.reads, Operand::Stationary);
  stream["hbm_read_bytes"] = bytes_of(d.reads, Operand::Stream);
  return {{"stationary", stationary},
          {"stream", stream},
          {"output", {{"partition", "ofmap"}, {"resident", d.output_resident}, {"slot_bytes", d.output_slot},
                      {"hbm_write_bytes", d.write_bytes()}}},
          {"layout", d.row_major && d.raw_channels == 0 ? "row_major" : "tiled"},
          {"passes", d.passes},
          {"reads", d.reads.size()},
          {"writes", d.writes.size()},
          {"hbm_footprint_bytes", d.hbm_footprint}};
}

}  // namespace cstsim
