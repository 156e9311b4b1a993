#pragma once
// SCALE-Sim v2's view of a layer as addresses: its three operand matrices (which word of the
// ifmap, filter and ofmap each GEMM element is) and, per dataflow, the SRAM demand it makes
// cycle by cycle (one address or -1 per array edge port) and the order in which it prefetches
// operands from DRAM. Rebuilt from the rules of scalesim/compute/ (operand_matrix.py,
// systolic_compute_{ws,os,is}.py at 22f88b17) so that fold_pipeline: scalesim can replay its
// memory system (scalesim_memory.h); cstsim's own array never reads these.
#include <cstdint>
#include <functional>
#include <vector>

#include "plan/dataflow.h"

namespace cstsim::scalesim {

// A layer as SCALE-Sim's topology_utils.py holds it. A GEMM M x N x K is SCALE-Sim's conv of an
// M x K ifmap with N filters of 1 x K, one channel, stride 1.
struct LayerGeometry {
  int64_t ifmap_h = 1, ifmap_w = 1, filter_h = 1, filter_w = 1, channels = 1, filters = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t ofmap_h = 1, ofmap_w = 1;
  static LayerGeometry gemm(int64_t M, int64_t N, int64_t K);
};

// operand_matrix.py: ifmap is (ofmap pixels) x (window), filter (window) x (filters), ofmap
// (ofmap pixels) x (filters); addresses start at 0 in each (the cfg's offsets only separate
// them in SCALE-Sim's traces); -1 where a window reaches past the ifmap.
class OperandMatrices {
 public:
  explicit OperandMatrices(const LayerGeometry& g);
  int64_t pixels() const { return px_; }
  int64_t window() const { return window_; }
  int64_t filters() const { return g_.filters; }
  int64_t ifmap(int64_t pixel, int64_t tap) const;
  int64_t filter(int64_t tap, int64_t f) const { return f * window_ + tap; }
  int64_t ofmap(int64_t pixel, int64_t f) const { return pixel * g_.filters + f; }
  // Every address of the matrix is below this.
  int64_t ifmap_space() const { return g_.ifmap_h * g_.ifmap_w * g_.channels; }
  int64_t filter_space() const { return window_ * g_.filters; }

 private:
  LayerGeometry g_;
  int64_t px_, window_;
};

enum Operand { kIfmap = 0, kFilter = 1, kOfmap = 2 };

// The demand matrices of systolic_compute_*.py, a row (cycle) at a time: folds in SCALE-Sim's
// order (column folds outside, row folds inside), each fold_length() rows long.
class DemandStream {
 public:
  DemandStream(const OperandMatrices& m, Dataflow df, int rows, int cols);
  int64_t fold_length() const { return L_; }
  int64_t folds() const { return row_folds_ * col_folds_; }
  int64_t total_rows() const { return folds() * L_; }
  int ports(Operand o) const { return block_[o].ports; }
  int64_t address_space(Operand o) const {
    return o == kIfmap ? m_.ifmap_space() : o == kFilter ? m_.filter_space() : m_.pixels() * m_.filters();
  }
  // Addresses of demand row `row` for operand o into out[0, ports(o)).
  void fill(Operand o, int64_t row, int64_t* out) const;
  // How many of fill(kOfmap, row)'s addresses are not -1, in closed form (every ofmap element
  // inside the layer has an address, so the count is an interval of ports).
  int ofmap_writes(int64_t row) const;

  // The sequence in which read_buffer.py (USER bandwidth) prefetches operand o (ifmap or
  // filter) from DRAM, -1 included: its prefetch matrix, flattened row by row or, for the
  // operands SCALE-Sim skews, diagonal by diagonal.
  void prefetch_sequence(Operand o, const std::function<void(int64_t)>& visit) const;

 private:
  // One fold of one operand: `pre` rows of -1, then `body` rows, each port `p` delayed by p
  // rows when skewed (SCALE-Sim's skew_matrix).
  struct Block {
    int ports = 0;
    int64_t pre = 0, body = 0;
    bool skew = false;
  };
  int64_t element(Operand o, int64_t fold_row, int64_t fold_col, int64_t body_row, int port) const;

  const OperandMatrices& m_;
  Dataflow df_;
  int64_t R_, C_;  // the array's rows and columns (64 bits: 2 R - 1 must not wrap)
  int64_t Sr_, Sc_, T_;
  int64_t row_folds_, col_folds_, L_;
  Block block_[3];
};

}  // namespace cstsim::scalesim
