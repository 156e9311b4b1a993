// Register-level OS array. PE(i,j) accumulates C[m0+i][n0+j]: A[m][k] enters
// row i at S+k+i and moves right, B[k][n] enters column j at S+k+j and moves
// down, so they meet in PE(i,j) at S+k+i+j. The operand marked last (k = K-1)
// makes the PE put its sum on column j's result bus in that same cycle and
// restart from zero. Results of a column arrive one per cycle, row by row.
// A fold that is one K chunk of its tile (FoldPlan::with_k_chunks) streams k in [k0, k0 + t)
// and tags it fold*T + k; only the last chunk carries k = K-1, so the sums stay in the PEs from
// one chunk to the next, and a chunk that does not drain ends when PE(r-1, c-1) has its last pair.
// k counts PE words of L = pack values (core/precision.h): A and B registers hold L lanes
// each, and a PE adds its L products to its sum in lane order.
#include <cstring>
#include <deque>
#include <unordered_map>

#include <fmt/format.h>

#include "models/array/fold_timing.h"
#include "models/array/grid_arith.h"
#include "models/array/register_array.h"
#include "models/memory/tile_source.h"

namespace cstsim {
namespace {

template <class Arith>
class OutputStationaryGrid final : public RegisterArray {
  using Reg = typename Arith::Reg;
  using Acc = typename Arith::Acc;

 public:
  OutputStationaryGrid(const FoldPlan& plan, FoldPipeline pipeline, int64_t start,
                       const GemmData& data)
      : RegisterArray(plan, pipeline, start),
        data_(data),
        L_(plan.pack),
        cells_(size_t(R_) * C_),
        a_(cells_ * L_, Reg(0)), atag_(cells_, -1), b_(cells_ * L_, Reg(0)), btag_(cells_, -1), alast_(cells_, 0),
        acc_(cells_, Arith::zero()),
        edge_a_(size_t(R_) * L_, Reg(0)), edge_atag_(R_, -1), edge_b_(size_t(C_) * L_, Reg(0)), edge_btag_(C_, -1),
        edge_alast_(R_, 0), c_(size_t(plan.M * plan.N), Arith::zero()),
        bus_cycle_(C_, -1), wave_reached_(plan.folds.size(), 0),
        rows_done_(plan.folds.size(), 0),
        start_of_(plan.folds.size(), -1),
        row0_free_at_(start) {}

  void corrupt(int row, int col) override { Arith::flip_low_bit(acc_[size_t(row) * C_ + col]); }

  bool pe_registers(int row, int col, PeRegisters& out) const override {
    const size_t at = size_t(row) * C_ + col;
    out.x = &a_[at * L_];
    out.y = &b_[at * L_];
    out.x_tag = atag_[at];
    out.x_last = alast_[at];
    out.y_tag = btag_[at];
    std::memcpy(&out.sum, &acc_[at], sizeof out.sum);
    out.out_valid = false;
    if (alast_[at]) {  // observe() kept the sum it put out, unless its column is unused
      const Fold& f = plan_.folds[size_t(atag_[at] / T_)];
      out.out_valid = col < f.cols_used;
      if (out.out_valid) std::memcpy(&out.out, &c_[size_t((f.row0 + row) * data_.N + f.col0 + col)], sizeof out.out);
    }
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
    observe();
    ++now_;
  }

 private:

  void control() {
    if (next_stream_ >= fold_count()) return;
    const int g = next_stream_;
    bool can;
    if (scalesim()) {
      can = slot_open(g);
    } else {
      // Edge ports free, and the previous fold's first wave has entered all its
      // rows, so our results reach every column bus after all of its results.
      can = g == 0 || (now_ >= row0_free_at_ && wave_reached_[g - 1]);
      // With memory, the fold's data must be in (asked only once the array could start it).
      if (can && tiles_) can = now_ >= tiles_->poll(g, start_of_, now_);
    }
    if (!can) return;
    start_of_[size_t(g)] = now_;
    if (tiles_) tiles_->fold_started(g, start_of_);
    streams_.push_back({g, now_});
    wave_pending_.push_back(g);
    row0_free_at_ = now_ + plan_.folds[size_t(g)].t;
    if (!plan_.folds[size_t(g)].drains) chunks_pending_.push_back(g);
    ++next_stream_;
    emit(now_, EventKind::FoldStart, g);
    emit(now_, EventKind::FirstInput, g);
  }

  void feed_edges() {
    std::fill(edge_a_.begin(), edge_a_.end(), Reg(0));
    std::fill(edge_atag_.begin(), edge_atag_.end(), -1);
    std::fill(edge_alast_.begin(), edge_alast_.end(), 0);
    std::fill(edge_b_.begin(), edge_b_.end(), Reg(0));
    std::fill(edge_btag_.begin(), edge_btag_.end(), -1);
    for (const Stream& s : streams_) {
      const Fold& f = plan_.folds[s.fold];
      const int64_t since = now_ - s.S;
      const int64_t lo = std::max<int64_t>(0, since - f.t + 1);
      for (int64_t i = lo, hi = std::min<int64_t>(f.rows_used - 1, since); i <= hi; ++i) {
        const int64_t k = f.k0 + since - i;
        for (int q = 0; q < L_; ++q) edge_a_[size_t(i) * L_ + q] = lane(true, f.row0 + i, k, q);
        edge_atag_[i] = int32_t(s.fold * T_ + k);
        edge_alast_[i] = k == T_ - 1;
        counts_.ifmap_reads += 1;
        ++activity_.in_rows;
      }
      for (int64_t j = lo, hi = std::min<int64_t>(f.cols_used - 1, since); j <= hi; ++j) {
        const int64_t k = f.k0 + since - j;
        for (int q = 0; q < L_; ++q) edge_b_[size_t(j) * L_ + q] = lane(false, f.col0 + j, k, q);
        edge_btag_[j] = int32_t(s.fold * T_ + k);
        counts_.filter_reads += 1;
        ++activity_.in_cols;
      }
    }
    // A stream retires after its last injection; a later fold with fewer rows
    // can retire before an earlier one.
    for (auto it = streams_.begin(); it != streams_.end();) {
      const Stream& s = *it;
      const Fold& f = plan_.folds[s.fold];
      if (now_ < s.S + f.t - 1 + std::max(f.rows_used, f.cols_used) - 1) {
        ++it;
        continue;
      }
      emit(now_, EventKind::LastInput, s.fold);
      it = streams_.erase(it);
    }
  }

  // Lane q of word k of A's row m (a) or B's column n: K value k*L+q, zero past K.
  Reg lane(bool a, int64_t mn, int64_t k, int q) const {
    const int64_t kv = k * L_ + q;
    if (kv >= data_.K) return Reg(0);
    return Arith::reg(a ? data_.A[size_t(mn * data_.K + kv)] : data_.B[size_t(kv * data_.N + mn)]);
  }

  void advance_grid() {
    const size_t L = size_t(L_);
    for (int i = 0; i < R_; ++i) {  // A moves right
      const size_t row = size_t(i) * C_;
      std::memmove(&a_[(row + 1) * L], &a_[row * L], sizeof(Reg) * (C_ - 1) * L);
      std::memmove(&atag_[row + 1], &atag_[row], sizeof(int32_t) * (C_ - 1));
      std::memmove(&alast_[row + 1], &alast_[row], C_ - 1);
      std::memcpy(&a_[row * L], &edge_a_[size_t(i) * L], sizeof(Reg) * L);
      atag_[row] = edge_atag_[i];
      alast_[row] = edge_alast_[i];
    }
    // B moves down
    std::memmove(&b_[C_ * L], &b_[0], sizeof(Reg) * (cells_ - C_) * L);
    std::memmove(&btag_[C_], &btag_[0], sizeof(int32_t) * (cells_ - C_));
    std::memcpy(&b_[0], edge_b_.data(), sizeof(Reg) * C_ * L);
    std::memcpy(&btag_[0], edge_btag_.data(), sizeof(int32_t) * C_);
    int bad = 0;
    int64_t active = 0;
    if (L == 1) {  // one lane: a loop the compiler vectorizes
      for (size_t k = 0; k < cells_; ++k) acc_[k] = Arith::mac(acc_[k], a_[k], b_[k]);
    } else {
      for (size_t k = 0; k < cells_; ++k) {
        Acc sum = acc_[k];
        for (size_t q = 0; q < L; ++q) sum = Arith::mac(sum, a_[k * L + q], b_[k * L + q]);
        acc_[k] = sum;
      }
    }
    int64_t first_col = 0, first_row = 0;  // active PEs fed by the edges
    for (size_t k = 0; k < cells_; ++k) {
      const int both = (atag_[k] >= 0) & (btag_[k] >= 0);
      bad |= both & (atag_[k] != btag_[k]);
      active += both;
    }
    for (int i = 0; i < R_; ++i) first_col += atag_[size_t(i) * C_] >= 0 && btag_[size_t(i) * C_] >= 0;
    for (int j = 0; j < C_; ++j) first_row += atag_[size_t(j)] >= 0 && btag_[size_t(j)] >= 0;
    activity_.active_pes = active;
    // Every other active PE took A from its left neighbour and B from the one above.
    activity_.operand_hops = 2 * active - first_col - first_row;
    if (count_gated_)  // the A lanes of the active PEs
      for (size_t k = 0; k < cells_; ++k)
        if ((atag_[k] >= 0) & (btag_[k] >= 0))
          for (size_t q = 0; q < L; ++q) gated_ += a_[k * L + q] == Reg(0);
    pe_updates_ += int64_t(cells_);
    if (bad) throw ArrayHazard(fmt::format("cycle {}: a PE saw A and B operands of different steps", now_));
  }

  void observe() {
    for (int i = 0; i < R_; ++i) {
      const size_t row = size_t(i) * C_;
      const uint8_t* last = &alast_[row];
      const uint8_t* hit = static_cast<const uint8_t*>(std::memchr(last, 1, C_));
      while (hit) {
        const int j = int(hit - last);
        const int g = int(atag_[row + j] / T_);
        const Fold& f = plan_.folds[g];
        if (j < f.cols_used) collect(g, f, i, j, acc_[row + j]);
        acc_[row + j] = Arith::zero();
        hit = static_cast<const uint8_t*>(std::memchr(hit + 1, 1, size_t(C_ - j - 1)));
      }
    }
    while (!wave_pending_.empty()) {
      const int g = wave_pending_.front();
      const Fold& f = plan_.folds[g];
      if (atag_[size_t(f.rows_used - 1) * C_] != int32_t(g * T_ + f.k0)) break;
      wave_reached_[g] = 1;
      wave_pending_.pop_front();
    }
    // K chunks that keep their sums: each ends when its last pair meets in PE(r-1, c-1).
    for (auto it = chunks_pending_.begin(); it != chunks_pending_.end();) {
      const Fold& f = plan_.folds[size_t(*it)];
      const size_t corner = size_t(f.rows_used - 1) * C_ + size_t(f.cols_used - 1);
      if (atag_[corner] != int32_t(*it * T_ + f.k0 + f.t - 1) || btag_[corner] != atag_[corner]) {
        ++it;
        continue;
      }
      fold_drained(*it);
      it = chunks_pending_.erase(it);
    }
    close_slot();
  }

  void collect(int g, const Fold& f, int i, int j, Acc value) {
    if (bus_cycle_[j] == now_)
      throw ArrayHazard(fmt::format("cycle {}: two results on column {}'s bus", now_, j));
    bus_cycle_[j] = now_;
    c_[size_t((f.row0 + i) * data_.N + f.col0 + j)] = value;
    counts_.ofmap_writes += 1;
    ++activity_.out;
    macs_ += data_.K;
    std::vector<int32_t>& cnt = row_counts_[g];
    if (cnt.empty()) cnt.assign(size_t(f.rows_used), 0);
    if (++cnt[size_t(i)] == f.cols_used) {
      emit(now_, EventKind::OutputRow, g, i);
      if (++rows_done_[g] == f.rows_used) {
        row_counts_.erase(g);
        fold_drained(g);
      }
    }
  }

  struct Stream {
    int fold;
    int64_t S;
  };

  const GemmData& data_;
  const int L_;  // lanes per word
  const size_t cells_;
  std::vector<Reg> a_;  // cells x L
  std::vector<int32_t> atag_;
  std::vector<Reg> b_;  // cells x L
  std::vector<int32_t> btag_;
  std::vector<uint8_t> alast_;
  std::vector<Acc> acc_;
  std::vector<Reg> edge_a_;  // R x L
  std::vector<int32_t> edge_atag_;
  std::vector<Reg> edge_b_;  // C x L
  std::vector<int32_t> edge_btag_;
  std::vector<uint8_t> edge_alast_;
  std::vector<Acc> c_;  // the results, M x N
  std::vector<int64_t> bus_cycle_;
  std::vector<char> wave_reached_;
  std::deque<Stream> streams_;
  std::deque<int> wave_pending_;  // started folds whose first wave has not reached row r-1
  std::vector<int> chunks_pending_;  // started K chunks that do not drain, not yet ended
  int next_stream_ = 0;
  std::unordered_map<int, std::vector<int32_t>> row_counts_;
  std::vector<int64_t> rows_done_;
  std::vector<int64_t> start_of_;  // each started fold's stream start (what a tile source is told)
  int64_t row0_free_at_;
};

}  // namespace

std::unique_ptr<RegisterArray> make_output_stationary_grid(const FoldPlan& plan, FoldPipeline pipeline,
                                                           int64_t start, const GemmData& data) {
  return with_grid_arith(data.operand, [&](auto arith) -> std::unique_ptr<RegisterArray> {
    return std::make_unique<OutputStationaryGrid<decltype(arith)>>(plan, pipeline, start, data);
  });
}

}  // namespace cstsim
