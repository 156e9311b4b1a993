// Register-level WS and IS arrays. Both hold a stationary tile S (Sr x Sc) in
// double-buffered weight banks and push a stream X (T x Sr) through it:
// X[t][i] enters row i at S+t+i and moves right one PE per cycle; partial sums
// move down one PE per cycle and leave the bottom of column j.
//   WS: S = B (K x N), X = A (M x K), Y = X*S = C
//   IS: S = A^T (K x M), X = B^T (N x K), Y = X*S = C^T
// K runs in PE words of L = pack values (core/precision.h): every register, bank entry and
// edge link holds L lanes, and a PE adds its L products to the partial sum in lane order.
// 2:4 weights (WS): the banks hold the kept values, L per PE, each with the lane of its
// activation; a row's link carries the four activations of every group its words touch
// (X = 4 ceil(L/2) lanes), and each PE picks the ones its weights were kept for.
#include <cstring>
#include <deque>
#include <unordered_map>

#include <fmt/format.h>

#include "models/array/fold_timing.h"
#include "models/array/grid_arith.h"
#include "models/array/register_array.h"
#include "models/memory/tile_source.h"
#include "plan/dataflow.h"

namespace cstsim {
namespace {

template <class Arith>
class StationaryGrid final : public RegisterArray {
  using Reg = typename Arith::Reg;
  using Acc = typename Arith::Acc;

 public:
  StationaryGrid(const FoldPlan& plan, FoldPipeline pipeline, int64_t start, const GemmData& data)
      : RegisterArray(plan, pipeline, start),
        data_(data),
        ws_(roles(plan.dataflow).tile_is_filter),  // the roles row, not the name: B held (WS) or A (IS)
        L_(plan.pack),
        X_(data.sparse_2_4 ? 4 * ((plan.pack + 1) / 2) : plan.pack),
        cells_(size_t(R_) * C_),
        x_(cells_ * X_, Reg(0)), xtag_(cells_, -1), ptag_(cells_, -1), xbank_(cells_, 0), xcols_(cells_, 0),
        pcols_(cells_, 0),
        p_(cells_, Arith::zero()), edge_x_(size_t(R_) * X_, Reg(0)), edge_tag_(R_, -1), edge_bank_(R_, 0),
        edge_cols_(R_, 0), c_(size_t(plan.M * plan.N), Arith::zero()), fold_values_(plan.folds.size()),
        loaded_(plan.folds.size(), 0), rows_done_(plan.folds.size(), 0),
        row0_free_at_(start), load_start_(plan.folds.size(), -1) {
    if (data.sparse_2_4 && !ws_) throw std::invalid_argument("2:4 weights need the WS grid");
    for (int b = 0; b < 2; ++b) {
      w_[b].assign(cells_ * L_, Reg(0));
      wreal_[b].assign(cells_, 0);
      sel_[b].assign(data.sparse_2_4 ? cells_ * L_ : 0, 0);
    }
    for (size_t g = 0; g < plan.folds.size(); ++g) {  // the K values fold g's rows hold (the last may pad)
      const Fold& f = plan.folds[g];
      fold_values_[g] = std::min<int64_t>(plan.k_values, (f.row0 + f.rows_used) * L_) - f.row0 * L_;
    }
  }

  void corrupt(int row, int col) override { Arith::flip_low_bit(p_[size_t(row) * C_ + col]); }

  bool pe_registers(int row, int col, PeRegisters& out) const override {
    const size_t at = size_t(row) * C_ + col;
    out.x = &x_[at * X_];
    out.w[0] = &w_[0][at * L_];
    out.w[1] = &w_[1][at * L_];
    for (int b = 0; b < 2; ++b) out.sel[b] = sel_[b].empty() ? nullptr : &sel_[b][at * L_];
    out.x_tag = xtag_[at];
    out.x_bank = xbank_[at];
    std::memcpy(&out.sum, &p_[at], sizeof out.sum);
    out.sum_tag = ptag_[at];
    return true;
  }

  std::vector<double> result() const override {
    std::vector<double> out(c_.size());
    for (size_t i = 0; i < c_.size(); ++i) out[i] = Arith::value(c_[i], bits_of(data_.accumulator));
    return out;
  }

  void step() override {
    activity_ = {};
    control();
    feed_edges();
    advance_grid();
    push_weights();
    observe();
    ++now_;
  }

 private:
  // Lane q of word sr of the stationary / streamed operand: K value sr*L+q, zero past K.
  Reg stationary(int64_t sr, int64_t sc, int q) const {
    const int64_t k = sr * L_ + q;
    if (k >= data_.K) return Reg(0);
    return Arith::reg(ws_ ? data_.B[size_t(k * data_.N + sc)] : data_.A[size_t(sc * data_.K + k)]);
  }
  Reg streamed(int64_t t, int64_t sr, int q) const {
    const int64_t k = data_.sparse_2_4 ? 4 * (sr * L_ / 2) + q : sr * L_ + q;  // 2:4: the groups' activations
    if (k >= data_.K) return Reg(0);
    return Arith::reg(ws_ ? data_.A[size_t(t * data_.K + k)] : data_.B[size_t(k * data_.N + t)]);
  }
  // 2:4: lane q of word sr in column sc holds kept value c = sr*L+q; its activation is lane
  // 4 (group - first group of the word) + place of the row's link.
  std::pair<Reg, uint8_t> kept_weight(int64_t sr, int64_t sc, int q) const {
    const int64_t c = sr * L_ + q;
    if (c >= plan_.k_values) return {Reg(0), 0};
    const int64_t g = c / 2;
    const int place = data_.kept_place(g, sc, int(c % 2));
    return {Arith::reg(data_.B[size_t((4 * g + place) * data_.N + sc)]), uint8_t(4 * (g - sr * L_ / 2) + place)};
  }
  void accumulate(int64_t t, int64_t sc, Acc v) {
    Acc& c = ws_ ? c_[size_t(t * data_.N + sc)] : c_[size_t(sc * data_.N + t)];
    c = Arith::add(c, v);
  }

  // Start of cycle: decide, from observed state, whether a weight load or a stream begins.
  void control() {
    if (!loading_ && load_fold_ < fold_count()) {
      const int g = load_fold_;
      bool can = scalesim() ? slot_open(g) : !bank_busy_[g & 1];
      if (tiles_) can = can && now_ >= tiles_->poll(g, load_start_, now_);
      if (can) {
        load_start_[size_t(g)] = now_;
        if (tiles_) tiles_->fold_started(g, load_start_);
        loading_ = true;
        pushes_done_ = 0;
        // SCALE-Sim shifts all R rows in; the overlapped pipeline only the used ones.
        pushes_total_ = scalesim() ? R_ : plan_.folds[g].rows_used;
        bank_busy_[g & 1] = true;
        bank_user_[g & 1] = g;
        residency_.emplace_back(now_, int64_t(plan_.folds[g].rows_used) * plan_.folds[g].cols_used);
        emit(now_, EventKind::FoldStart, g);
      }
    }
    if (next_stream_ < fold_count() && loaded_[next_stream_] && now_ >= row0_free_at_) {
      const int g = next_stream_++;
      streams_.push_back({g, now_});
      row0_free_at_ = now_ + T_;  // row 0's feeder is busy for T cycles
      emit(now_, EventKind::FirstInput, g);
    }
  }

  // The skew buffers: row i of a stream started at S gets X[t] at S+t+i.
  void feed_edges() {
    std::fill(edge_x_.begin(), edge_x_.end(), Reg(0));
    std::fill(edge_tag_.begin(), edge_tag_.end(), -1);
    std::fill(edge_cols_.begin(), edge_cols_.end(), 0);
    for (const Stream& s : streams_) {
      const Fold& f = plan_.folds[s.fold];
      const int64_t since = now_ - s.S;
      const int64_t lo = std::max<int64_t>(0, since - T_ + 1);
      const int64_t hi = std::min<int64_t>(f.rows_used - 1, since);
      for (int64_t i = lo; i <= hi; ++i) {
        const int64_t t = since - i;
        for (int q = 0; q < X_; ++q) edge_x_[size_t(i) * X_ + q] = streamed(t, f.row0 + i, q);
        edge_tag_[i] = int32_t(s.fold * T_ + t);
        edge_bank_[i] = uint8_t(s.fold & 1);
        edge_cols_[i] = uint16_t(f.cols_used);
        (ws_ ? counts_.ifmap_reads : counts_.filter_reads) += 1;
        ++activity_.in_rows;
      }
    }
    // A stream retires after its last injection; a later fold with fewer rows
    // can retire before an earlier one.
    for (auto it = streams_.begin(); it != streams_.end();) {
      const Stream& s = *it;
      const Fold& f = plan_.folds[s.fold];
      if (now_ < s.S + T_ - 1 + f.rows_used - 1) {
        ++it;
        continue;
      }
      emit(now_, EventKind::LastInput, s.fold);
      it = streams_.erase(it);
    }
  }

  // One clock edge for every PE. Rows bottom-up and columns right-to-left, so
  // each register reads its neighbour's value from before the edge.
  void advance_grid() {
    bool mixed = false;
    const size_t L = size_t(L_), X = size_t(X_);
    const bool sparse = data_.sparse_2_4;
    for (int i = R_ - 1; i >= 0; --i) {
      const size_t row = size_t(i) * C_;
      Reg* x = &x_[row * X];
      int32_t* xt = &xtag_[row];
      uint8_t* xb = &xbank_[row];
      uint16_t* xc = &xcols_[row];
      std::memmove(x + X, x, sizeof(Reg) * (C_ - 1) * X);
      std::memmove(xt + 1, xt, sizeof(int32_t) * (C_ - 1));
      std::memmove(xb + 1, xb, C_ - 1);
      std::memmove(xc + 1, xc, sizeof(uint16_t) * (C_ - 1));
      std::memcpy(x, &edge_x_[size_t(i) * X], sizeof(Reg) * X);
      xt[0] = edge_tag_[i];
      xb[0] = edge_bank_[i];
      xc[0] = edge_cols_[i];
      // A PE is active when it holds a token of a fold that maps its column.
      int64_t active = 0;
      for (int j = 0; j < C_; ++j) active += (xt[j] >= 0) & (j < int(xc[j]));
      activity_.active_pes += active;
      activity_.operand_hops += active - ((xt[0] >= 0) & (0 < int(xc[0])));  // column 0's came from the edge
      if (count_gated_)  // the A lanes of the active PEs: streamed (WS) or held (IS)
        for (int j = 0; j < C_; ++j)
          if ((xt[j] >= 0) & (j < int(xc[j]))) {
            const Reg* a = ws_ ? x + size_t(j) * X : (xb[j] ? &w_[1][row * L] : &w_[0][row * L]) + size_t(j) * L;
            for (size_t q = 0; q < L; ++q) gated_ += a[q] == Reg(0);
          }
      const Reg* w0 = &w_[0][row * L];
      const Reg* w1 = &w_[1][row * L];
      Acc* p = &p_[row];
      int32_t* pt = &ptag_[row];
      // Row 0 starts every partial sum from zero; the rows below add to the one from above.
      const Acc* above = i > 0 ? &p_[row - C_] : nullptr;
      if (L == 1 && !sparse) {
        for (int j = 0; j < C_; ++j)
          p[j] = Arith::mac(above ? above[j] : Arith::zero(), x[j], xb[j] ? w1[j] : w0[j]);
      } else {  // L lanes a PE; 2:4 weights pick their activation's lane (sel), dense lane q is x's q
        const uint8_t* s0 = sparse ? &sel_[0][row * L] : nullptr;
        const uint8_t* s1 = sparse ? &sel_[1][row * L] : nullptr;
        for (int j = 0; j < C_; ++j) {
          const Reg* w = (xb[j] ? w1 : w0) + size_t(j) * L;
          const uint8_t* sel = sparse ? (xb[j] ? s1 : s0) + size_t(j) * L : nullptr;
          const Reg* xj = x + size_t(j) * X;
          Acc sum = above ? above[j] : Arith::zero();
          for (size_t q = 0; q < L; ++q) sum = Arith::mac(sum, xj[sel ? sel[q] : q], w[q]);
          p[j] = sum;
        }
      }
      uint16_t* pc = &pcols_[row];
      if (i > 0) {
        const int32_t* above_tag = &ptag_[row - C_];
        int bad = 0;
        for (int j = 0; j < C_; ++j) bad |= (xt[j] >= 0) & (xt[j] != above_tag[j]);
        std::memcpy(pt, above_tag, sizeof(int32_t) * C_);
        std::memcpy(pc, &pcols_[row - C_], sizeof(uint16_t) * C_);
        mixed |= bad != 0;
      } else {
        std::memcpy(pt, xt, sizeof(int32_t) * C_);
        std::memcpy(pc, xc, sizeof(uint16_t) * C_);
      }
      // The live partial sums of mapped columns this row wrote; below row 0, each read from above.
      int64_t sums = 0;
      for (int j = 0; j < C_; ++j) sums += (pt[j] >= 0) & (j < int(pc[j]));
      activity_.psum_writes += sums;
      if (i > 0) activity_.psum_moves += sums;
    }
    pe_updates_ += int64_t(R_) * C_;
    if (mixed)
      throw ArrayHazard(fmt::format("cycle {}: a PE saw an input and a partial sum of different rows", now_));
  }

  // The weight shift chain of the bank being loaded moves down one row; the
  // row pushed k-th from last ends up in PE row k.
  void push_weights() {
    if (!loading_) return;
    const int g = load_fold_;
    const Fold& f = plan_.folds[g];
    std::vector<Reg>& bank = w_[g & 1];
    std::vector<uint8_t>& sel = sel_[g & 1];
    std::vector<uint8_t>& real_words = wreal_[g & 1];
    int64_t& in_chain = wreal_count_[g & 1];
    if (pushes_done_ == 0) {  // the old tile is not moved
      std::fill(real_words.begin(), real_words.end(), 0);
      in_chain = 0;
    }
    for (int j = 0; j < C_; ++j) in_chain -= real_words[size_t(R_ - 1) * C_ + j];  // off the bottom row
    std::memmove(bank.data() + size_t(C_) * L_, bank.data(), sizeof(Reg) * size_t(R_ - 1) * C_ * L_);
    if (!sel.empty()) std::memmove(sel.data() + size_t(C_) * L_, sel.data(), size_t(R_ - 1) * C_ * L_);
    std::memmove(real_words.data() + C_, real_words.data(), size_t(R_ - 1) * C_);
    const int k = pushes_total_ - 1 - pushes_done_;
    for (int j = 0; j < C_; ++j) {
      const bool real = k < f.rows_used && j < f.cols_used;
      real_words[size_t(j)] = real;
      for (int q = 0; q < L_; ++q) {
        const size_t at = size_t(j) * L_ + q;
        if (sel.empty()) {
          bank[at] = real ? stationary(f.row0 + k, f.col0 + j, q) : Reg(0);
        } else {
          const auto [w, lane] = real ? kept_weight(f.row0 + k, f.col0 + j, q) : std::make_pair(Reg(0), uint8_t(0));
          bank[at] = w;
          sel[at] = lane;
        }
      }
    }
    if (k < f.rows_used) {
      (ws_ ? counts_.filter_reads : counts_.ifmap_reads) += f.cols_used;
      activity_.in_cols = f.cols_used;
    }
    // The chain writes the tile's words where they are now; all but row 0's moved down a row.
    int64_t entered = 0;
    for (int j = 0; j < C_; ++j) entered += real_words[size_t(j)];
    in_chain += entered;
    activity_.stationary_writes = in_chain;
    activity_.stationary_hops = in_chain - entered;
    if (++pushes_done_ == pushes_total_) {
      loading_ = false;
      loaded_[g] = 1;
      ++load_fold_;
    }
  }

  // End of cycle: collect psums leaving the bottom, free banks, close folds.
  void observe() {
    const size_t bottom = size_t(R_ - 1) * C_;
    for (int j = 0; j < C_; ++j) {
      const int32_t tag = ptag_[bottom + j];
      if (tag < 0) continue;
      const int g = int(tag / T_);
      const int64_t t = tag % T_;
      const Fold& f = plan_.folds[g];
      if (j >= f.cols_used) continue;  // an unused column: nothing to keep
      accumulate(t, f.col0 + j, p_[bottom + j]);
      counts_.ofmap_writes += 1;
      ++activity_.out;
      macs_ += fold_values_[size_t(g)];
      std::vector<int32_t>& cnt = row_counts_[g];
      if (cnt.empty()) cnt.assign(size_t(T_), 0);
      if (++cnt[size_t(t)] == f.cols_used) {
        emit(now_, EventKind::OutputRow, g, t);
        if (++rows_done_[g] == T_) {
          row_counts_.erase(g);
          fold_drained(g);
        }
      }
    }
    // A bank is free once its fold's last input has met its last used PE.
    for (int b = 0; b < 2; ++b) {
      const int u = bank_user_[b];
      if (!bank_busy_[b] || u < 0 || !loaded_[u]) continue;
      const Fold& f = plan_.folds[u];
      const size_t last_pe = size_t(f.rows_used - 1) * C_ + (f.cols_used - 1);
      if (xtag_[last_pe] == int32_t(u * T_ + T_ - 1)) {
        bank_busy_[b] = false;
        residency_.emplace_back(now_ + 1, -int64_t(f.rows_used) * f.cols_used);
      }
    }
    close_slot();
  }

  struct Stream {
    int fold;
    int64_t S;
  };

  const GemmData& data_;
  const bool ws_;
  const int L_;  // lanes per word
  const int X_;  // lanes per row link and x register: L, or 2:4's four activations per group
  const size_t cells_;
  std::vector<Reg> x_;  // cells x X
  std::vector<int32_t> xtag_, ptag_;
  std::vector<uint8_t> xbank_;
  std::vector<uint16_t> xcols_;  // mapped columns of the token's fold
  std::vector<uint16_t> pcols_;  // the same for the partial sum's token
  std::vector<Acc> p_;
  std::vector<Reg> w_[2];        // cells x L
  std::vector<uint8_t> sel_[2];  // 2:4: cells x L, the x lane of each kept weight (empty: dense)
  std::vector<uint8_t> wreal_[2];  // cells: the bank's register holds a word of the tile it loads
  int64_t wreal_count_[2] = {0, 0};  // how many: the words of the tile in the chain
  std::vector<Reg> edge_x_;      // R x X
  std::vector<int32_t> edge_tag_;
  std::vector<uint8_t> edge_bank_;
  std::vector<uint16_t> edge_cols_;
  std::vector<Acc> c_;                 // accumulated result, M x N
  std::vector<int64_t> fold_values_;   // K values (real MACs per output) of each fold
  // weight loader
  int load_fold_ = 0;
  bool loading_ = false;
  int pushes_done_ = 0, pushes_total_ = 0;
  std::vector<char> loaded_;
  bool bank_busy_[2] = {false, false};
  int bank_user_[2] = {-1, -1};
  // streams and outputs
  std::deque<Stream> streams_;
  int next_stream_ = 0;
  std::unordered_map<int, std::vector<int32_t>> row_counts_;
  std::vector<int64_t> rows_done_;
  int64_t row0_free_at_;
  std::vector<int64_t> load_start_;  // FoldStart of each fold, -1 until it happens
};

}  // namespace

std::unique_ptr<RegisterArray> make_stationary_grid(const FoldPlan& plan, FoldPipeline pipeline,
                                                    int64_t start, const GemmData& data) {
  return with_grid_arith(data.operand, [&](auto arith) -> std::unique_ptr<RegisterArray> {
    return std::make_unique<StationaryGrid<decltype(arith)>>(plan, pipeline, start, data);
  });
}

}  // namespace cstsim
