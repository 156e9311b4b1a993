#include "models/array/rs_grid.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <cstring>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "models/array/gemm_data.h"
#include "models/array/grid_arith.h"
#include "models/array/register_array.h"

namespace cstsim {

RsData make_random_rs_data(const RsShape& s, uint64_t seed, const RsTypes& types, double ifmap_density) {
  RsData d;
  d.shape = s;
  d.operand = types.operand;
  d.accumulator = types.accumulator;
  std::mt19937_64 rng(seed);
  d.ifmap.resize(size_t(s.groups * s.N * s.C * s.H * s.W));
  d.filters.resize(size_t(s.groups * s.M * s.C * s.R * s.S));
  for (float& v : d.ifmap) v = random_value(types.ifmap, rng);
  for (float& v : d.filters) v = random_value(types.filter, rng);
  place_zeros(d.ifmap, ifmap_density, types.ifmap, rng);
  return d;
}

std::vector<double> reference_conv(const RsData& d) {
  const RsShape& s = d.shape;
  std::vector<double> out(size_t(s.groups * s.N * s.M * s.E() * s.F()));
  const int bits = bits_of(d.accumulator);
  for (int64_t g = 0; g < s.groups; ++g)
    for (int64_t i = 0; i < s.N; ++i)
      for (int64_t m = 0; m < s.M; ++m)
        for (int64_t e = 0; e < s.E(); ++e)
          for (int64_t f = 0; f < s.F(); ++f) {
            IntArith::Acc acc = IntArith::zero();
            for (int64_t c = 0; c < s.C; ++c)
              for (int64_t r = 0; r < s.R; ++r)
                for (int64_t q = 0; q < s.S; ++q)
                  acc = IntArith::mac(acc, IntArith::reg(d.x(g, i, c, s.U * e + r, s.U * f + q)),
                                      IntArith::reg(d.w(g, m, c, r, q)));
            out[d.out_index(g, i, m, e, f)] = IntArith::value(acc, bits);
          }
  return out;
}

double rs_max_relative_error(const std::vector<double>& got, const RsData& d) {
  if (!is_float(d.operand)) return 0;
  const RsShape& s = d.shape;
  double worst = 0;
  for (int64_t g = 0; g < s.groups; ++g)
    for (int64_t i = 0; i < s.N; ++i)
      for (int64_t m = 0; m < s.M; ++m)
        for (int64_t e = 0; e < s.E(); ++e)
          for (int64_t f = 0; f < s.F(); ++f) {
            double exact = 0, magnitude = 0;  // each product of two floats is exact in a double
            for (int64_t c = 0; c < s.C; ++c)
              for (int64_t r = 0; r < s.R; ++r)
                for (int64_t q = 0; q < s.S; ++q) {
                  const double term = double(d.x(g, i, c, s.U * e + r, s.U * f + q)) * double(d.w(g, m, c, r, q));
                  exact += term;
                  magnitude += std::fabs(term);
                }
            if (magnitude > 0)
              worst = std::max(worst, std::fabs(got[d.out_index(g, i, m, e, f)] - exact) / magnitude);
          }
  return worst;
}

namespace {

template <class A>
std::vector<double> reference_in_grid_order(const RsLayerPlan& plan, const RsData& d) {
  using Acc = typename A::Acc;
  const RsShape& s = plan.shape;
  const RsMapping& m = plan.mapping;
  std::vector<Acc> glb(size_t(s.groups * s.N * s.M * s.E() * s.F()), A::zero());
  for (const RsPass& p : plan.passes) {
    const int64_t r_sets = (p.channels + m.q - 1) / m.q;
    for (int64_t i = p.image0; i < p.image0 + p.images; ++i)
      for (int64_t f = 0; f < s.F(); ++f)
        for (int64_t filter = p.filter0; filter < p.filter0 + p.filters; ++filter)
          for (int64_t x = 0; x < p.rows; ++x) {
            const size_t out = d.out_index(p.group, i, filter, p.row0 + x, f);
            Acc column = A::zero();
            for (int64_t ri = 0; ri < r_sets; ++ri)
              for (int64_t y = 0; y < p.filter_rows; ++y) {
                Acc pe = (ri == 0 && y == 0 && !p.first_reduction) ? glb[out] : A::zero();
                const int64_t h = s.U * (p.row0 + x) + p.filter_row0 + y;
                for (int64_t ch = 0; ch < rs_share(p.channels, m.q, ri); ++ch) {
                  const int64_t c = p.channel0 + ri * m.q + ch;
                  for (int64_t q = 0; q < s.S; ++q)
                    pe = A::mac(pe, A::reg(d.x(p.group, i, c, h, s.U * f + q)),
                                A::reg(d.w(p.group, filter, c, p.filter_row0 + y, q)));
                }
                column = A::add(column, pe);
              }
            glb[out] = column;
          }
  }
  std::vector<double> result(glb.size());
  for (size_t k = 0; k < glb.size(); ++k) result[k] = A::value(glb[k], bits_of(d.accumulator));
  return result;
}


// The grid in the arithmetic `A` of the PEs' operand type (models/array/grid_arith.h).
template <class A>
struct RsGridOf {
using Reg = typename A::Reg;
using Acc = typename A::Acc;

struct IfmapWord {
  int64_t step, channel, col;  // channel within the pass
  Reg value;
  std::vector<int> to;         // PEs it is multicast to
};

struct Pe {
  int64_t ri = 0, ti = 0, y = 0, x = 0;  // its set (channels, filters), filter row, ofmap row
  int64_t q_share = 0, p_share = 0;
  std::vector<Reg> filter;  // [k][c][s], p_max x q_max x S
  std::vector<Reg> window;  // [c][s]: the ifmap values of the current step's window
  std::deque<IfmapWord> fifo;
  std::vector<Acc> psum;    // p_max accumulators
};

// A step's psums on their way up the columns and out.
struct Token {
  int64_t pass = 0, step = 0;
  bool last_step = false;   // of its pass
  int64_t created = 0;      // cycle the bottom PEs' psums left them
  int64_t added = 1;        // chain positions summed so far
  int64_t positions = 1;    // PEs a column adds up through
  int64_t rows = 1, t_sets = 1, p_max = 1;
  std::vector<std::vector<Acc>> chain;  // per column: each position's p_max psums, bottom first
  std::vector<Acc> sums;    // filter-major, then column: the order the output network sends them
  int64_t sent = 0;         // psums out so far
};

class RsGrid final : public RsGridView {
 public:
  RsGrid(const RsLayerPlan& plan, int64_t start, const RsData& data, RsMemory* memory)
      : plan_(plan), d_(data), s_(plan.shape), memory_(memory), now_(start) {
    glb_.assign(size_t(s_.groups * s_.N * s_.M * s_.E() * s_.F()), A::zero());
    written_.resize(plan.passes.size());
  }

  RsRegisterRun run(RsGridProbe* probe) {
    static_assert(sizeof(Reg) == 4 && sizeof(Acc) == 4, "the structural mode reads 32-bit words");
    while (!finished()) {
      step();
      if (probe) probe->stepped(*this);
    }
    RsRegisterRun out;
    out.events = std::move(events_);
    out.end_cycle = last_gon_;
    if (memory_ && !seen_.empty()) out.end_cycle = std::max(out.end_cycle, memory_->drain(seen_.back()));
    out.counts = counts_;
    out.gated = gated_;
    out.result.resize(glb_.size());
    const int bits = bits_of(d_.accumulator);
    for (size_t i = 0; i < glb_.size(); ++i) out.result[i] = A::value(glb_[i], bits);
    return out;
  }

  int64_t cycle() const override { return now_ - 1; }
  int64_t pass() const override { return pass_ ? int64_t(pi_) : -1; }
  int64_t started() const override { return started_; }
  const RsCounts& counts() const override { return counts_; }
  int64_t gated() const override { return gated_; }
  const std::vector<ArrayEvent>& events() const override { return events_; }
  RsPeWords pe(int64_t ri, int64_t ti, int64_t y, int64_t x) const override {
    const Pe& pe = pes_[size_t(pe_index(ri, ti, y, x))];
    return {pe.filter.data(), pe.window.data(), pe.psum.data(), int64_t(pe.fifo.size())};
  }
  size_t tokens() const override { return tokens_.size(); }
  RsTokenWords token(size_t i) const override {
    const Token& t = tokens_[i];
    return {t.pass, t.step, t.created, t.added, t.positions, t.sums.data()};
  }
  uint32_t glb(size_t index) const override {
    uint32_t w;
    std::memcpy(&w, &glb_[index], 4);
    return w;
  }

 private:
  bool finished() const { return next_pass_ == plan_.passes.size() && !active_ && tokens_.empty(); }

  void step() {
    const int64_t c = now_;
    start_pass_if_free(c);
    if (active_) {
      start_step_if_ready();
      send_filters();
      send_ifmap(c);
      send_psums();
      compute(c);
    }
    move_tokens(c);
    ++now_;
  }

  // ---- passes ----
  void start_pass_if_free(int64_t c) {
    if (active_ || next_pass_ == plan_.passes.size()) return;
    if (pes_busy_until_ >= c) return;
    if (memory_) {  // asked once, as the pass could start
      if (asked_ != next_pass_) {
        ready_at_ = memory_->ready(next_pass_, seen_.empty() ? nullptr : &seen_.back());
        asked_ = next_pass_;
      }
      if (ready_at_ > c) return;
    }
    pi_ = next_pass_++;
    seen_.push_back({c, -1, -1, -1});
    active_ = true;
    pass_ = &plan_.passes[pi_];
    sh_ = rs_pass_shape(plan_, *pass_);
    const RsMapping& m = plan_.mapping;
    const int64_t r_sets = (pass_->channels + m.q - 1) / m.q, t_sets = (pass_->filters + m.p - 1) / m.p;
    pes_.clear();
    for (int64_t ri = 0; ri < r_sets; ++ri)
      for (int64_t ti = 0; ti < t_sets; ++ti)
        for (int64_t y = 0; y < pass_->filter_rows; ++y)
          for (int64_t x = 0; x < pass_->rows; ++x) {
            Pe pe;
            pe.ri = ri, pe.ti = ti, pe.y = y, pe.x = x;
            pe.q_share = rs_share(pass_->channels, m.q, ri);
            pe.p_share = rs_share(pass_->filters, m.p, ti);
            pe.filter.assign(size_t(sh_.p_max * sh_.q_max * s_.S), 0);
            pe.window.assign(size_t(sh_.q_max * s_.S), 0);
            pe.psum.assign(size_t(sh_.p_max), A::zero());
            pes_.push_back(std::move(pe));
          }
    r_sets_ = r_sets;
    t_sets_ = t_sets;
    build_filter_words();
    build_ifmap_words();
    filters_sent_ = 0;
    words_through_ = 0;
    ifmap_sent_ = 0;
    psum_in_sent_ = 0;
    psum_in_.assign(size_t(sh_.steps), {});
    started_ = -1;
    computing_ = false;
    written_[pi_].assign(size_t(sh_.steps), -1);
    emit(c, EventKind::FoldStart, 0);
  }

  int pe_index(int64_t ri, int64_t ti, int64_t y, int64_t x) const {
    return int(((ri * t_sets_ + ti) * pass_->filter_rows + y) * pass_->rows + x);
  }

  struct FilterWord {
    int64_t ri, ti, y, k, ch, s;
    Reg value;
  };
  void build_filter_words() {
    filter_words_.clear();
    for (int64_t ri = 0; ri < r_sets_; ++ri)
      for (int64_t ti = 0; ti < t_sets_; ++ti) {
        const Pe& pe = pes_[size_t(pe_index(ri, ti, 0, 0))];
        for (int64_t y = 0; y < pass_->filter_rows; ++y)
          for (int64_t k = 0; k < pe.p_share; ++k)
            for (int64_t ch = 0; ch < pe.q_share; ++ch)
              for (int64_t s = 0; s < s_.S; ++s) {
                const int64_t m = pass_->filter0 + ti * plan_.mapping.p + k;
                const int64_t cc = pass_->channel0 + ri * plan_.mapping.q + ch;
                filter_words_.push_back(
                    {ri, ti, y, k, ch, s, A::reg(d_.w(pass_->group, m, cc, pass_->filter_row0 + y, s))});
              }
      }
  }

  // The pass's ifmap words in the order the network sends them: step, channel, row, column.
  void build_ifmap_words() {
    ifmap_words_.clear();
    const int64_t U = s_.U, F = s_.F();
    // Ifmap rows (relative to the strip's first) and the PEs (y, x) that read each.
    std::vector<std::vector<std::pair<int64_t, int64_t>>> readers;
    for (int64_t y = 0; y < pass_->filter_rows; ++y)
      for (int64_t x = 0; x < pass_->rows; ++x) {
        const size_t row = size_t(U * x + y);
        if (readers.size() <= row) readers.resize(row + 1);
        readers[row].push_back({y, x});
      }
    for (int64_t j = 0; j < sh_.steps; ++j) {
      const int64_t img = pass_->image0 + j / F, f = j % F;
      const int64_t first_new = f == 0 ? 0 : std::max<int64_t>(0, s_.S - U);
      for (int64_t cc = 0; cc < pass_->channels; ++cc) {
        const int64_t ri = cc / plan_.mapping.q;
        for (size_t row = 0; row < readers.size(); ++row) {
          if (readers[row].empty()) continue;
          for (int64_t s = first_new; s < s_.S; ++s) {
            IfmapWord w;
            w.step = j;
            w.channel = cc;
            w.col = U * f + s;
            const int64_t h = U * pass_->row0 + pass_->filter_row0 + int64_t(row);
            w.value = A::reg(d_.x(pass_->group, img, pass_->channel0 + cc, h, w.col));
            for (auto [y, x] : readers[row])
              for (int64_t ti = 0; ti < t_sets_; ++ti) w.to.push_back(pe_index(ri, ti, y, x));
            ifmap_words_.push_back(std::move(w));
          }
        }
      }
    }
  }

  // ---- networks ----
  void send_filters() {
    for (int64_t n = 0; n < kRsWideNetworkWords && filters_sent_ < filter_words_.size(); ++n) {
      const FilterWord& w = filter_words_[filters_sent_++];
      for (int64_t x = 0; x < pass_->rows; ++x) {
        Pe& pe = pes_[size_t(pe_index(w.ri, w.ti, w.y, x))];
        pe.filter[size_t((w.k * sh_.q_max + w.ch) * s_.S + w.s)] = w.value;
      }
      ++counts_.filter_words;
    }
  }

  void send_ifmap(int64_t c) {
    if (ifmap_sent_ == ifmap_words_.size()) return;
    const IfmapWord& w = ifmap_words_[ifmap_sent_];
    if (w.step > started_ + 1) return;  // the PEs' input FIFOs hold one step ahead
    for (int pe : w.to) pes_[size_t(pe)].fifo.push_back(w);
    if (ifmap_sent_ == 0) emit(c, EventKind::FirstInput, 0);
    ++ifmap_sent_;
    ++counts_.ifmap_words;
    if (ifmap_sent_ == ifmap_words_.size()) emit(c, EventKind::LastInput, 0);
  }

  // Psums of earlier channel blocks come back from the global buffer, step by step, once the
  // pass that made them has written them.
  void send_psums() {
    if (pass_->first_reduction) return;
    const int64_t per_step = sh_.psum_words;
    const int64_t j = psum_in_sent_ / per_step;
    if (j >= sh_.steps || j > started_ + 1) return;
    const int64_t made = written_[size_t(pass_->producer)][size_t(j)];
    if (made < 0) return;  // not yet written (writes come after this in a cycle)
    std::vector<Acc>& in = psum_in_[size_t(j)];
    if (in.empty()) in.resize(size_t(per_step));
    for (int64_t n = 0; n < kRsWideNetworkWords && psum_in_sent_ < (j + 1) * per_step; ++n) {
      const int64_t w = psum_in_sent_ % per_step;
      in[size_t(w)] = glb_[glb_index(j, w)];
      ++psum_in_sent_;
      ++counts_.psum_in_words;
    }
  }

  // Global-buffer place of psum w (column x filter order: filter-major per set, as the GON
  // sends) of step j of the current pass.
  size_t glb_index(int64_t j, int64_t w) const { return glb_index_of(*pass_, j, w); }
  size_t glb_index_of(const RsPass& pass, int64_t j, int64_t w) const {
    const int64_t F = s_.F();
    const int64_t filter = w / pass.rows, x = w % pass.rows;
    return d_.out_index(pass.group, pass.image0 + j / F, pass.filter0 + filter, pass.row0 + x, j % F);
  }

  // ---- PEs ----
  void start_step_if_ready() {
    const int64_t j = started_ + 1;
    if (computing_ || j >= sh_.steps) return;
    // Everything counted below arrived in an earlier cycle: the networks send after this decision.
    if (filters_sent_ < filter_words_.size()) return;
    if (int64_t(ifmap_sent_) < words_through_ + sh_.step_words(s_, j)) return;
    if (!pass_->first_reduction && psum_in_sent_ < (j + 1) * sh_.psum_words) return;
    if (global_step_ >= 2 && gon_done_steps_ < global_step_ - 1) return;  // step j-2's psums still queued
    const int64_t F = s_.F(), U = s_.U, S = s_.S;
    const int64_t f = j % F;
    for (Pe& pe : pes_) {
      std::vector<Reg> next(pe.window.size(), 0);
      const int64_t keep = f == 0 ? 0 : std::max<int64_t>(0, S - U);
      for (int64_t ch = 0; ch < pe.q_share; ++ch) {
        for (int64_t s = 0; s < keep; ++s) next[size_t(ch * S + s)] = pe.window[size_t(ch * S + s + U)];
        for (int64_t s = keep; s < S; ++s) {
          if (pe.fifo.empty()) throw ArrayHazard("RS grid: a PE's window is missing an ifmap word");
          const IfmapWord w = pe.fifo.front();
          const int64_t cc = pe.ri * plan_.mapping.q + ch;
          if (w.step != j || w.channel != cc || w.col != U * f + s)
            throw ArrayHazard(fmt::format("RS grid: PE ({}, {}) got ifmap word (step {}, channel {}, column {}) "
                                          "instead of (step {}, channel {}, column {})",
                                          pe.y, pe.x, w.step, w.channel, w.col, j, cc, U * f + s));
          next[size_t(ch * S + s)] = w.value;
          pe.fifo.pop_front();
        }
      }
      pe.window = std::move(next);
      std::fill(pe.psum.begin(), pe.psum.end(), A::zero());
      if (!pass_->first_reduction && pe.ri == 0 && pe.y == 0)  // the chain's bottom PE starts from the buffer's psums
        for (int64_t k = 0; k < pe.p_share; ++k)
          pe.psum[size_t(k)] = psum_in_[size_t(j)][size_t((pe.ti * plan_.mapping.p + k) * pass_->rows + pe.x)];
    }
    if (!pass_->first_reduction) psum_in_[size_t(j)].clear();
    words_through_ += sh_.step_words(s_, j);
    started_ = j;
    computing_ = true;
    mac_ = 0;
    ++global_step_;
  }

  void compute(int64_t c) {
    if (!computing_) return;
    const int64_t S = s_.S, p = sh_.p_max;
    const int64_t ch = mac_ / (S * p), s = mac_ / p % S, k = mac_ % p;
    for (Pe& pe : pes_) {
      if (ch >= pe.q_share || k >= pe.p_share) continue;
      Acc& acc = pe.psum[size_t(k)];
      const Reg x = pe.window[size_t(ch * S + s)];
      acc = A::mac(acc, x, pe.filter[size_t((k * sh_.q_max + ch) * S + s)]);
      ++counts_.macs;
      gated_ += gating_ && x == 0;
    }
    if (++mac_ < sh_.step_cycles) return;
    // The step's last MAC: every PE's psums leave it for the local network.
    computing_ = false;
    pes_busy_until_ = c;
    seen_.back().compute_end = c;
    Token t;
    t.pass = int64_t(pi_);
    t.step = started_;
    t.created = c + 1;
    t.chain.resize(size_t(t_sets_ * pass_->rows));
    for (int64_t ti = 0; ti < t_sets_; ++ti)
      for (int64_t x = 0; x < pass_->rows; ++x) {
        std::vector<Acc>& column = t.chain[size_t(ti * pass_->rows + x)];
        for (int64_t ri = 0; ri < r_sets_; ++ri)
          for (int64_t y = 0; y < pass_->filter_rows; ++y)
            for (Acc v : pes_[size_t(pe_index(ri, ti, y, x))].psum) column.push_back(v);
      }
    t.sums.assign(size_t(sh_.psum_words), A::zero());
    t.positions = r_sets_ * pass_->filter_rows;
    t.rows = pass_->rows;
    t.t_sets = t_sets_;
    t.p_max = sh_.p_max;
    for (int64_t ti = 0; ti < t_sets_; ++ti)  // position 0 (the bottom PE) starts the sum
      for (int64_t x = 0; x < pass_->rows; ++x) add_position(t, ti, x, 0);
    t.last_step = started_ == sh_.steps - 1;
    tokens_.push_back(std::move(t));
    if (started_ == sh_.steps - 1) active_ = false;  // the next pass may start next cycle
  }

  void add_position(Token& t, int64_t ti, int64_t x, int64_t pos) const {
    const std::vector<Acc>& column = t.chain[size_t(ti * t.rows + x)];
    for (int64_t k = 0; k < t.p_max; ++k) {
      const int64_t filter = ti * plan_.mapping.p + k;
      if (filter * t.rows + x >= int64_t(t.sums.size())) continue;  // the last set's spare places
      Acc& sum = t.sums[size_t(filter * t.rows + x)];
      sum = A::add(sum, column[size_t(pos * t.p_max + k)]);
    }
  }

  // ---- psums up the columns and out ----
  void move_tokens(int64_t c) {
    for (Token& t : tokens_)
      if (t.added < t.positions && c >= t.created + t.added) {
        for (int64_t ti = 0; ti < t.t_sets; ++ti)
          for (int64_t x = 0; x < t.rows; ++x) add_position(t, ti, x, t.added);
        ++t.added;
      }
    if (tokens_.empty()) return;
    Token& head = tokens_.front();
    if (head.added < head.positions || c < head.created) return;
    const RsPass& pass = plan_.passes[size_t(head.pass)];
    for (int64_t n = 0; n < kRsWideNetworkWords && head.sent < int64_t(head.sums.size()); ++n, ++head.sent) {
      glb_[glb_index_of(pass, head.step, head.sent)] = head.sums[size_t(head.sent)];
      ++counts_.psum_out_words;
    }
    if (head.sent < int64_t(head.sums.size())) return;
    written_[size_t(head.pass)][size_t(head.step)] = c;
    last_gon_ = c;
    ++gon_done_steps_;
    events_.push_back({c, EventKind::OutputRow, int(head.pass), head.step});
    if (head.last_step) events_.push_back({c, EventKind::FoldEnd, int(head.pass), 0});
    tokens_.pop_front();
  }

  void emit(int64_t c, EventKind kind, int64_t index) { events_.push_back({c, kind, int(pi_), index}); }

  const RsLayerPlan& plan_;
  const RsData& d_;
  const RsShape& s_;
  RsMemory* memory_;
  std::vector<RsPassTiming> seen_;  // the passes' starts and last MACs, as the grid saw them
  size_t asked_ = size_t(-1);
  int64_t ready_at_ = 0;
  int64_t now_;
  std::vector<Acc> glb_;                        // psums and ofmaps, [group][image][filter][E][F]
  std::vector<std::vector<int64_t>> written_;   // per pass, per step: the cycle its psums were all written
  size_t next_pass_ = 0, pi_ = 0;
  bool active_ = false;
  const RsPass* pass_ = nullptr;
  RsPassShape sh_;
  int64_t r_sets_ = 0, t_sets_ = 0;
  std::vector<Pe> pes_;
  std::vector<FilterWord> filter_words_;
  size_t filters_sent_ = 0;
  std::vector<IfmapWord> ifmap_words_;
  size_t ifmap_sent_ = 0;
  int64_t words_through_ = 0;  // ifmap words of the steps started so far
  int64_t psum_in_sent_ = 0;
  std::vector<std::vector<Acc>> psum_in_;
  int64_t started_ = -1, mac_ = 0;
  bool computing_ = false;
  int64_t pes_busy_until_ = -1;
  int64_t global_step_ = 0, gon_done_steps_ = 0, last_gon_ = -1;
  std::deque<Token> tokens_;
  RsCounts counts_;
  int64_t gated_ = 0;
  const bool gating_ = plan_.gating_density < 1;  // the PEs gate (and count) zero ifmap values
  std::vector<ArrayEvent> events_;
};
};  // RsGridOf

}  // namespace

std::vector<double> reference_rs(const RsLayerPlan& plan, const RsData& data) {
  return with_grid_arith(data.operand, [&](auto arith) { return reference_in_grid_order<decltype(arith)>(plan, data); });
}

RsRegisterRun run_rs_register_level(const RsLayerPlan& plan, int64_t start, const RsData& data, RsMemory* memory,
                                    RsGridProbe* probe) {
  return with_grid_arith(data.operand, [&](auto arith) {
    return typename RsGridOf<decltype(arith)>::RsGrid(plan, start, data, memory).run(probe);
  });
}

}  // namespace cstsim
