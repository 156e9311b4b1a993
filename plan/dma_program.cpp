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

LayerDmaPlan lay_out_dma_program(const FoldPlan& plan, const DmaBuffers& buffers) {
  const FoldPlan chunked = plan.k_chunks == buffers.k_chunks ? FoldPlan() : with_k_chunks(plan, buffers.k_chunks);
  const FoldPlan& p = plan.k_chunks == buffers.k_chunks ? plan : chunked;
  LayerDmaPlan d;
  static_cast<DmaBuffers&>(d) = buffers;
  const bool os = roles(p.dataflow).stationary_outputs;
  d.tile_frees = os ? FoldPoint::LastInput : FoldPoint::LoadDone;
  auto padded = padded_block;
  const bool is = !roles(p.dataflow).tile_is_filter;
  const Matrix stream_of = stream_matrix(p.dataflow), tile_of = tile_matrix(p.dataflow);
  const bool rm = buffers.lays_row_major();
  const std::array<int64_t, kMatrices> own_pitch = {padded(buffers.words_bytes(Matrix::A, p.K)),
                                                    padded(buffers.words_bytes(Matrix::B, p.N)),
                                                    padded(buffers.output_bytes(p.N))};
  // A pass the mapper did not place (a layer alone: tests, `cstsim plan` of one pass) lies from
  // address 0: tiled, its blocks one after another; row-major, A, B and C one after another.
  std::array<MatrixPlace, kMatrices> at = buffers.hbm;
  const bool alone = !buffers.hbm_placed;
  if (alone && rm) {
    at[size_t(Matrix::B)].base = uint64_t(p.M * own_pitch[0]);
    at[size_t(Matrix::C)].base = at[size_t(Matrix::B)].base + uint64_t(p.K * own_pitch[1]);
  }
  std::array<uint64_t, kMatrices> next_addr{};  // tiled: where each matrix's next block goes
  for (int x = 0; x < kMatrices; ++x) next_addr[size_t(x)] = at[size_t(x)].base;
  auto place = [&](Matrix x, int64_t bytes) {
    uint64_t& next = next_addr[alone ? 0 : size_t(x)];
    const uint64_t where = next;
    next += uint64_t(padded_block(bytes));
    d.placed[size_t(x)] += padded_block(bytes);
    return where;
  };
  const size_t F = p.folds.size();
  d.stationary_read.assign(F, -1);
  d.stream_read.assign(F, -1);
  d.writeback_after.assign(F, -1);
  d.output_wait.assign(F, -1);
  // Bytes of fold g's tile (WS, IS: r x c; OS: the column fold's T x c block of B, or the
  // t x c of its K chunk) and of its outputs' block (WS, IS: the column fold's T x c; OS: its
  // own r x c). A stream slice is t rows of r (t = T but for OS K chunks).
  const bool chunks = os && p.k_chunks > 1;
  auto tile_bytes = [&](const Fold& f) {
    const int64_t words = (os ? f.t : int64_t(f.rows_used)) * f.cols_used;
    return buffers.words_bytes(tile_of, words) + p.index_bytes(words);  // 2:4: the kept values' places too
  };
  auto slice_bytes = [&](const Fold& f) { return buffers.words_bytes(stream_of, f.t * p.stream_words(f.row0, f.rows_used)); };
  auto output_bytes = [&](const Fold& f) { return buffers.output_bytes((os ? int64_t(f.rows_used) : p.T) * f.cols_used); };
  auto first_of_col = [&](const Fold& f) { return f.row0 == 0 && f.chunk == 0; };
  // A stream slice per row fold (and K chunk); a fold's index among its column fold's folds.
  auto slice_index = [&](const Fold& f) { return size_t(f.row0 / p.R * p.k_chunks + f.chunk); };
  std::vector<uint64_t> slice_addr(size_t(p.row_folds * p.k_chunks)), tile_addr(F), out_addr(F);
  using RawRows = DmaBuffers::RawRows;
  const bool os_raw = buffers.raw_rows_for == RawRows::StreamPerRowFold;    // OS: each row fold's raw input rows
  const bool is_raw = buffers.raw_rows_for == RawRows::TilesPerColumnFold;  // IS: each column fold's
  const bool raw = buffers.raw_channels > 0 && buffers.raw_rows_for == RawRows::None;  // WS: blocks serve every row fold
  const int64_t C = buffers.raw_channels, bc = buffers.raw_block_channels;
  const int64_t blocks = raw ? (C + bc - 1) / bc : 0;
  auto raw_bytes = [&](int64_t b) { return buffers.raw_block_bytes(std::min(bc, C - b * bc)); };
  std::vector<uint64_t> raw_addr(static_cast<size_t>(blocks), 0);
  for (int64_t b = 0; b < blocks; ++b) raw_addr[size_t(b)] = place(Matrix::A, raw_bytes(b));
  std::vector<int> raw_read(static_cast<size_t>(blocks), -1);
  // The pass's raw rows, one NHWC block (a kBlockAlign boundary starts it, so its runs move whole bursts).
  const uint64_t raw_rows_base = os_raw || is_raw ? place(Matrix::A, buffers.raw_rows * buffers.raw_row_bytes) : 0;
  // Tiled, every block where it is placed; row-major, blocks of the matrices' rows, each row
  // padded (`block` turns a transfer into the strided rows it covers).
  if (!rm) {
    for (size_t g = 0; g < F && !raw && !os_raw; ++g)
      if (p.folds[g].col0 == 0) slice_addr[slice_index(p.folds[g])] = place(stream_of, slice_bytes(p.folds[g]));
    // OS: a column fold's block of B, or its K chunks: the first row fold's folds place them,
    // the later row folds read them again from there.
    for (size_t g = 0; g < F; ++g) {
      const Fold& f = p.folds[g];
      if (!os && !is_raw) tile_addr[g] = place(tile_of, tile_bytes(f));
      else if (os && f.row0 == 0 && (chunks || f.chunk == 0)) tile_addr[g] = place(tile_of, tile_bytes(f));
      else if (chunks) tile_addr[g] = tile_addr[g - size_t(f.row0 / p.R * p.k_chunks)];
    }
    for (size_t g = 0; g < F; ++g)
      if ((os && p.folds[g].drains) || (!os && first_of_col(p.folds[g])))
        out_addr[g] = place(Matrix::C, output_bytes(p.folds[g]));
  }
  // Matrix x, rows [row0, row0 + rows), columns [col0, col0 + cols) of the pass's share.
  auto block = [&](DmaTransfer& t, Matrix x, int64_t row0, int64_t rows, int64_t col0, int64_t cols) {
    if (!rm) return;
    const MatrixPlace& m = at[size_t(x)];
    const int64_t pitch = m.pitch > 0 ? m.pitch : own_pitch[size_t(x)];
    const int64_t a = int64_t(kBlockAlign);
    const int64_t c0 = m.col0 + col0;
    // Byte offsets of columns: words of A and B, values of C (which may pack below a byte).
    auto bytes_to = [&](int64_t col) { return x == Matrix::C ? buffers.output_bytes(col) : buffers.words_bytes(x, col); };
    const int64_t start = x == Matrix::C ? buffers.output_bytes(c0) : buffers.byte_of_word(x, c0);
    const int64_t from = start / a * a, to = padded(std::min(bytes_to(c0 + cols), pitch));
    t.hbm_addr = m.base + uint64_t((m.row0 + row0) * pitch + from);
    t.rows = rows;
    t.row_bytes = to - from;
    t.pitch = pitch;
    t.bytes = rows * t.row_bytes;
  };
  // Each operand's block of fold f, by the roles table (plan/dataflow.h): A is M x K, B K x N, C M x N.
  auto slice_block = [&](DmaTransfer& t, const Fold& f) {
    if (os) block(t, Matrix::A, f.row0, f.rows_used, f.k0, f.t);     // A rows m (Sr), K (or its chunk)
    else if (is) block(t, Matrix::B, f.row0, f.rows_used, 0, p.T);   // B rows k (Sr), all N
    else block(t, Matrix::A, 0, p.T, f.row0, f.rows_used);           // WS: all M rows of A, columns k (Sr)
  };
  auto tile_block = [&](DmaTransfer& t, const Fold& f) {
    if (os) block(t, Matrix::B, f.k0, f.t, f.col0, f.cols_used);      // B: K rows (or a chunk's), columns n (Sc)
    else if (is) block(t, Matrix::A, f.col0, f.cols_used, f.row0, f.rows_used);  // A rows m (Sc), columns k (Sr)
    else block(t, Matrix::B, f.row0, f.rows_used, f.col0, f.cols_used);          // WS: B rows k, columns n
  };
  auto output_block = [&](DmaTransfer& t, const Fold& f) {
    if (os) block(t, Matrix::C, f.row0, f.rows_used, f.col0, f.cols_used);
    else if (is) block(t, Matrix::C, f.col0, f.cols_used, 0, p.T);    // C rows m (Sc), all N
    else block(t, Matrix::C, 0, p.T, f.col0, f.cols_used);            // WS: all M rows, columns n (Sc)
  };
  std::vector<int> slice_of_row(size_t(p.row_folds * p.k_chunks), -1);
  std::vector<int> last_of_col_fold;  // OS: per column fold, its last fold
  std::vector<int> writes;            // per write: the fold after which it goes
  int tile = -1, col_first = 0, col_fold_index = -1;
  for (size_t g = 0; g < F; ++g) {
    const Fold& f = p.folds[g];
    const size_t row_fold = slice_index(f);
    if (first_of_col(f)) {
      col_first = int(g);
      ++col_fold_index;
    }
    const bool new_slice = !raw && (!d.stream_resident || slice_of_row[row_fold] < 0);
    if (raw) {
      // The blocks of the channels its rows reduce over (a row's word: `pack` channels of one
      // tap, C a multiple of pack); it waits for the last one read.
      int latest = -1;
      for (int64_t k = f.row0; k < f.row0 + f.rows_used; ++k) {
        const int64_t b = (k * p.pack % C) / bc;
        if (raw_read[size_t(b)] < 0) {
          raw_read[size_t(b)] = int(d.reads.size());
          d.reads.push_back({Operand::Stream, false, raw_addr[size_t(b)], padded(raw_bytes(b)), int(g)});
        }
        latest = std::max(latest, raw_read[size_t(b)]);
      }
      d.stream_read[g] = latest;
    } else if (new_slice) {
      DmaTransfer t{Operand::Stream, false, slice_addr[row_fold], padded(slice_bytes(f)), int(g)};
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
      slice_of_row[row_fold] = int(d.reads.size());
      d.reads.push_back(t);
    }
    if (!raw) d.stream_read[g] = slice_of_row[row_fold];
    // One stationary read per fold, or per column fold: OS's block of B (whole, not in K
    // chunks), IS's raw input rows.
    const bool per_column_fold = (os && !chunks) || is_raw;
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
    if (os ? f.drains : last_of_col) {
      const int first = os ? int(g) : col_first;
      d.writeback_after[g] = int(d.writes.size());
      DmaTransfer t{Operand::Output, true, out_addr[size_t(first)], padded(output_bytes(f)), int(g), -1,
                    FoldPoint::LoadDone, first};
      output_block(t, f);
      d.writes.push_back(t);
      writes.push_back(int(g));
    }
    // Two output slots alternate unless all outputs stay: the block this fold starts
    // (WS, IS: at a column fold's first fold; OS: every fold, at the K chunk that drains into
    // it) reuses the one two before.
    const int block = os ? int(d.writes.size()) - 1 : col_fold_index;
    if (!d.output_resident && block >= 2 && (os ? f.drains : first_of_col(f))) d.output_wait[g] = block - 2;
  }
  for (const auto* list : {&d.reads, &d.writes})
    for (const DmaTransfer& t : *list)
      if (t.bytes > 0) d.hbm_end = std::max(d.hbm_end, t.addr_at(t.bytes - 1) + 1);
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
          {"hbm_end", d.hbm_end}};
}

}  // namespace cstsim
