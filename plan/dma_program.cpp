#include "plan/dma_program.h"

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

namespace {

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

}  // namespace

LayerDmaPlan lay_out_dma_program(const FoldPlan& p, const DmaBuffers& buffers) {
  LayerDmaPlan d;
  static_cast<DmaBuffers&>(d) = buffers;
  const int64_t elem = buffers.element_bytes;
  auto padded = [](int64_t bytes) { return int64_t(align_up(uint64_t(bytes), kBlockAlign)); };
  uint64_t next_addr = buffers.hbm_base;
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

nlohmann::ordered_json to_json(const LayerDmaPlan& d) {
  auto bytes_of = [](const std::vector<DmaTransfer>& ts, Operand o) {
    int64_t b = 0;
    for (const DmaTransfer& t : ts) b += t.operand == o ? t.bytes : 0;
    return b;
  };
  return {{"stationary", {{"partition", d.stationary_partition}, {"slot_bytes", d.stationary_slot},
                          {"fifo_tiles", d.fifo_tiles}, {"hbm_read_bytes", bytes_of(d.reads, Operand::Stationary)}}},
          {"stream", {{"partition", d.stream_partition}, {"resident", d.stream_resident}, {"slot_bytes", d.stream_slot},
                      {"hbm_read_bytes", bytes_of(d.reads, Operand::Stream)}}},
          {"output", {{"partition", "ofmap"}, {"resident", d.output_resident}, {"slot_bytes", d.output_slot},
                      {"hbm_write_bytes", d.write_bytes()}}},
          {"passes", d.passes},
          {"reads", d.reads.size()},
          {"writes", d.writes.size()},
          {"hbm_footprint_bytes", d.hbm_footprint}};
}

}  // namespace cstsim
