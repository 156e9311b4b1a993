#include "models/scalesim/scalesim_demand.h"

#include <algorithm>
#include <stdexcept>

namespace cstsim::scalesim {

LayerGeometry LayerGeometry::gemm(int64_t M, int64_t N, int64_t K) {
  LayerGeometry g;
  g.ifmap_h = M;
  g.ifmap_w = K;
  g.filter_w = K;
  g.filters = N;
  g.ofmap_h = M;
  return g;
}

OperandMatrices::OperandMatrices(const LayerGeometry& g)
    : g_(g), px_(g.ofmap_h * g.ofmap_w), window_(g.filter_h * g.filter_w * g.channels) {}

int64_t OperandMatrices::ifmap(int64_t pixel, int64_t tap) const {
  const int64_t in_row = pixel / g_.ofmap_w * g_.stride_h, in_col = pixel % g_.ofmap_w * g_.stride_w;
  const int64_t tap_row = tap / (g_.filter_w * g_.channels), rest = tap % (g_.filter_w * g_.channels);
  const int64_t tap_col = rest / g_.channels, channel = rest % g_.channels;
  if (tap_row + in_row >= g_.ifmap_h || tap_col + in_col >= g_.ifmap_w) return -1;
  return ((in_row + tap_row) * g_.ifmap_w + in_col + tap_col) * g_.channels + channel;
}

DemandStream::DemandStream(const OperandMatrices& m, Dataflow df, int rows, int cols)
    : m_(m), df_(df), R_(rows), C_(cols) {
  switch (df) {
    case Dataflow::WS:  // the filter stays: reduction down the rows, filters across
      Sr_ = m.window(), Sc_ = m.filters(), T_ = m.pixels();
      block_[kIfmap] = {int(R_), R_, T_, true};
      block_[kFilter] = {int(C_), 0, R_, false};
      block_[kOfmap] = {int(C_), 2 * R_ - 1, T_, true};
      break;
    case Dataflow::OS:  // outputs stay: pixels down the rows, filters across
      Sr_ = m.pixels(), Sc_ = m.filters(), T_ = m.window();
      block_[kIfmap] = {int(R_), 0, T_, true};
      block_[kFilter] = {int(C_), 0, T_, true};
      block_[kOfmap] = {int(C_), T_ - 1, R_, true};
      break;
    case Dataflow::IS:  // the ifmap stays: reduction down the rows, pixels across
      Sr_ = m.window(), Sc_ = m.pixels(), T_ = m.filters();
      block_[kIfmap] = {int(C_), 0, R_, false};
      block_[kFilter] = {int(R_), R_, T_, true};
      block_[kOfmap] = {int(C_), 2 * R_ - 1, T_, true};
      break;
    default:
      throw std::invalid_argument("SCALE-Sim's memory replay knows ws, os and is");
  }
  row_folds_ = (Sr_ + R_ - 1) / R_;
  col_folds_ = (Sc_ + C_ - 1) / C_;
  L_ = df == Dataflow::OS ? T_ + R_ + C_ - 2 : 2 * R_ + C_ + T_ - 2;
}

// Element `body_row` of port `port` in the fold's block before skewing. Blocks SCALE-Sim flips
// upside down (the stationary loads and OS's drain) read their rows from the bottom.
int64_t DemandStream::element(Operand o, int64_t fr, int64_t fc, int64_t x, int port) const {
  const int64_t down = fr * R_ + port, across = fc * C_ + port;  // the port's index in the operand
  const int64_t flipped = fr * R_ + (R_ - 1 - x);                 // a flipped block's row
  switch (df_) {
    case Dataflow::WS:
      if (o == kIfmap) return down < Sr_ ? m_.ifmap(x, down) : -1;
      if (o == kFilter) return flipped < Sr_ && across < Sc_ ? m_.filter(flipped, across) : -1;
      return across < Sc_ ? m_.ofmap(x, across) : -1;
    case Dataflow::OS:
      if (o == kIfmap) return down < Sr_ ? m_.ifmap(down, x) : -1;
      if (o == kFilter) return across < Sc_ ? m_.filter(x, across) : -1;
      return flipped < Sr_ && across < Sc_ ? m_.ofmap(flipped, across) : -1;
    default:  // IS
      if (o == kIfmap) return flipped < Sr_ && across < Sc_ ? m_.ifmap(across, flipped) : -1;
      if (o == kFilter) return down < Sr_ ? m_.filter(down, x) : -1;
      return across < Sc_ ? m_.ofmap(across, x) : -1;
  }
}

void DemandStream::fill(Operand o, int64_t row, int64_t* out) const {
  const Block& b = block_[o];
  const int64_t fold = row / L_, in_fold = row % L_;
  const int64_t fc = fold / row_folds_, fr = fold % row_folds_;
  for (int p = 0; p < b.ports; ++p) {
    const int64_t x = in_fold - b.pre - (b.skew ? p : 0);
    out[p] = x >= 0 && x < b.body ? element(o, fr, fc, x, p) : -1;
  }
}

int DemandStream::ofmap_writes(int64_t row) const {
  const Block& b = block_[kOfmap];
  const int64_t fold = row / L_, in_fold = row % L_;
  const int64_t fc = fold / row_folds_, fr = fold % row_folds_;
  // Ports p < cols hold filters (WS, OS) or pixels (IS) inside the layer; OS's flipped block
  // has rows only where fr R + (R - 1 - x) < Sr, i.e. x >= R - (Sr - fr R).
  const int64_t cols = std::min<int64_t>(b.ports, Sc_ - fc * C_);
  const int64_t x_lo = df_ == Dataflow::OS ? std::max<int64_t>(0, R_ - (Sr_ - fr * R_)) : 0;
  const int64_t x_hi = b.body;  // x in [x_lo, x_hi)
  const int64_t at = in_fold - b.pre;  // x = at - p (skewed) or at
  if (!b.skew) return at >= x_lo && at < x_hi && cols > 0 ? int(cols) : 0;
  // at - x_hi < p <= at - x_lo, and 0 <= p < cols
  const int64_t lo = std::max<int64_t>(0, at - x_hi + 1), hi = std::min<int64_t>(cols, at - x_lo + 1);
  return hi > lo ? int(hi - lo) : 0;
}

void DemandStream::prefetch_sequence(Operand o, const std::function<void(int64_t)>& visit) const {
  // The prefetch matrix: `rows` x `cols`, folds stacked; at(a, p) is its element.
  int64_t rows = 0;
  int64_t cols = 0;
  bool diagonal = true;
  std::function<int64_t(int64_t, int)> at;
  const bool ifmap = o == kIfmap;
  switch (df_) {
    case Dataflow::WS:
      if (ifmap) {
        rows = row_folds_ * T_, cols = R_;
        at = [&](int64_t a, int p) { const int64_t k = a / T_ * R_ + p; return k < Sr_ ? m_.ifmap(a % T_, k) : -1; };
      } else {
        rows = col_folds_ * Sr_, cols = C_, diagonal = false;
        at = [&](int64_t a, int p) { const int64_t f = a / Sr_ * C_ + p; return f < Sc_ ? m_.filter(a % Sr_, f) : -1; };
      }
      break;
    case Dataflow::OS:
      if (ifmap) {
        rows = row_folds_ * T_, cols = R_;
        at = [&](int64_t a, int p) { const int64_t px = a / T_ * R_ + p; return px < Sr_ ? m_.ifmap(px, a % T_) : -1; };
      } else {
        rows = col_folds_ * T_, cols = C_;
        at = [&](int64_t a, int p) { const int64_t f = a / T_ * C_ + p; return f < Sc_ ? m_.filter(a % T_, f) : -1; };
      }
      break;
    default:  // IS
      if (ifmap) {
        rows = col_folds_ * Sr_, cols = C_, diagonal = false;
        at = [&](int64_t a, int p) { const int64_t px = a / Sr_ * C_ + p; return px < Sc_ ? m_.ifmap(px, a % Sr_) : -1; };
      } else {
        rows = row_folds_ * T_, cols = R_;
        at = [&](int64_t a, int p) { const int64_t k = a / T_ * R_ + p; return k < Sr_ ? m_.filter(k, a % T_) : -1; };
      }
      break;
  }
  if (!diagonal) {
    for (int64_t a = 0; a < rows; ++a)
      for (int p = 0; p < cols; ++p) visit(at(a, p));
    return;
  }
  // Anti-diagonals in turn, each from its bottom row up (the order data enters a skewed edge).
  for (int64_t d = 0; d < rows + cols - 1; ++d)
    for (int64_t a = std::min(d, rows - 1); a >= std::max<int64_t>(0, d - cols + 1); --a) visit(at(a, int(d - a)));
}

}  // namespace cstsim::scalesim
