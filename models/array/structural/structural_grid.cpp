#include "models/array/structural/structural_grid.h"

#include <fmt/format.h>

#include "models/array/grid_arith.h"
#include "models/array/register_array.h"

namespace cstsim::structural {

using sc_core::sc_signal;
using sc_core::sc_vector;

ClockedGrid::ClockedGrid(const sc_core::sc_module_name& name, int rows, int cols, sc_core::sc_time period)
    : sc_core::sc_module(name), R_(rows), C_(cols), half_(period / 2.0) {
  SC_METHOD(fall);
  sensitive << fall_;
  dont_initialize();
}

void ClockedGrid::fall() { clk_.write(false); }

// One rising edge, in delta cycles at the caller's time: the edge words and the clock update
// together, the PEs latch in the next delta, and their registers are readable in the one after.
// The clock falls half a period later (what a VCD shows); a second edge in the same time step
// lowers it first.
void ClockedGrid::edge() {
  if (clk_.read()) {
    clk_.write(false);
    sc_core::wait(sc_core::SC_ZERO_TIME);
  }
  clk_.write(true);
  sc_core::wait(sc_core::SC_ZERO_TIME);
  sc_core::wait(sc_core::SC_ZERO_TIME);
  fall_.notify(half_);
}

void ClockedGrid::clock_edge(int64_t cycle) {
  if (cycle == fault_cycle_) pe(fault_row_, fault_col_).flip_once = true;
  edge();
}

void ClockedGrid::reset() {
  rst_.write(true);
  edge();
  rst_.write(false);
}

void ClockedGrid::plant_fault(int64_t cycle, int row, int col) {
  fault_cycle_ = cycle;
  fault_row_ = row;
  fault_col_ = col;
}

void ClockedGrid::mismatch(int64_t c, int row, int col, const std::string& signal, int64_t reg, int64_t got) const {
  throw StructuralMismatch(fmt::format("structural check: cycle {}, PE({},{}) signal {}: register grid {:#x}, "
                                       "structural PE {:#x} ({})",
                                       c, row, col, signal, reg, got, pe_name(row, col, signal.c_str())));
}

std::string ClockedGrid::pe_name(int row, int col, const char* signal) const {
  return fmt::format("{}.pe_{}_{}.{}", name(), row, col, signal);
}

void ClockedGrid::trace_common(sc_core::sc_trace_file* tf) const {
  sc_core::sc_trace(tf, clk_, fmt::format("{}.clk", name()));
  sc_core::sc_trace(tf, rst_, fmt::format("{}.rst", name()));
}

StructuralGrid::StructuralGrid(const sc_core::sc_module_name& name, int rows, int cols, int lanes,
                               sc_core::sc_time period)
    : ClockedGrid(name, rows, cols, period), L_(lanes) {}

void StructuralGrid::begin(const RegisterArray& reg, const GemmData& data) {
  const FoldPlan& p = reg.plan();
  if (!runs(p.dataflow) || p.R != R_ || p.C != C_ || p.pack != L_)
    throw std::invalid_argument(fmt::format("structural grid {}: built for {}x{} PEs of {} lanes, asked to run a {} "
                                            "{}x{} array of {} lanes", name(), R_, C_, L_, to_string(p.dataflow), p.R,
                                            p.C, p.pack));
  if (data.sparse_2_4 && !takes_2_4())
    throw std::invalid_argument(fmt::format("structural grid {} was built for dense weights, not 2:4 ones", name()));
  reg_ = &reg;
  data_ = &data;
  arith_ = pe_arith(data.operand);
  for (int i = 0; i < R_; ++i)
    for (int j = 0; j < C_; ++j) pe(i, j).arith = arith_;
  load_start_.assign(p.folds.size(), -1);
  stream_start_.assign(p.folds.size(), -1);
  events_seen_ = 0;
  result_.assign(size_t(data.M * data.N), 0);
  result_cycle_.assign(result_.size(), -1);
  reset();
  ++passes_;
}

void StructuralGrid::follow_events() {
  const std::vector<ArrayEvent>& ev = reg_->events();
  for (; events_seen_ < ev.size(); ++events_seen_) {
    const ArrayEvent& e = ev[events_seen_];
    if (e.kind == EventKind::FoldStart) load_start_[size_t(e.fold)] = e.cycle;
    if (e.kind == EventKind::FirstInput) stream_start_[size_t(e.fold)] = e.cycle;
  }
}

void StructuralGrid::cycle() {
  const int64_t c = reg_->now() - 1;  // the cycle the register grid just stepped
  follow_events();
  drive(c);
  clock_edge(c);
  compare(c);
  ++cycles_;
  if (reg_->done()) check_results();
}

void StructuralGrid::output(int64_t c, int row, int col, size_t index, uint32_t value, bool add) {
  result_[index] = add ? add_bits(arith_, result_[index], value) : value;
  result_cycle_[index] = c;
  (void)row, (void)col;
}

void StructuralGrid::check_results() const {
  const std::vector<double> want = reg_->result();
  const int bits = bits_of(data_->accumulator);
  for (size_t i = 0; i < want.size(); ++i) {
    const double got = with_grid_arith(data_->operand, [&](auto arith) {
      using A = decltype(arith);
      typename A::Acc v;
      std::memcpy(&v, &result_[i], sizeof v);
      return A::value(v, bits);
    });
    if (got != want[i] && !(got != got && want[i] != want[i]))
      throw StructuralMismatch(fmt::format(
          "structural check: output C[{}][{}] (last left the array at cycle {}): register grid {}, structural grid {}",
          int64_t(i) / data_->N, int64_t(i) % data_->N, result_cycle_[i], want[i], got));
  }
}

namespace {

// Traces the signals of `v` from `first`, `n` of them, as <base> or <base>_<q>.
template <class Vec>
void trace_lanes(sc_core::sc_trace_file* tf, const Vec& v, size_t first, int n, const std::string& base) {
  for (int q = 0; q < n; ++q)
    sc_core::sc_trace(tf, v[first + size_t(q)], n > 1 ? fmt::format("{}_{}", base, q) : base);
}

// WS and IS; `sparse`: WS PEs that also take 2:4 weights (X = 4 ceil(L / 2) x lanes, selects).
class StationaryGrid final : public StructuralGrid {
 public:
  StationaryGrid(const sc_core::sc_module_name& name, int R, int C, int L, bool sparse, sc_core::sc_time period)
      : StructuralGrid(name, R, C, L, period), X_(sparse ? 4 * ((L + 1) / 2) : L),
        pes_("pe", size_t(R) * C, [L, X = X_](const char* n, size_t) { return new StationaryPe(n, L, X); }),
        x_("x", size_t(R) * C * X_), xtag_("xtag", size_t(R) * C), xbank_("xbank", size_t(R) * C),
        psum_("psum", size_t(R) * C), ptag_("ptag", size_t(R) * C), w0_("w0", size_t(R) * C * L),
        w1_("w1", size_t(R) * C * L), s0_("s0", sparse ? size_t(R) * C * L : 0),
        s1_("s1", sparse ? size_t(R) * C * L : 0), edge_x_("edge_x", size_t(R) * X_),
        edge_xtag_("edge_xtag", size_t(R)), edge_xbank_("edge_xbank", size_t(R)), edge_w_("edge_w", size_t(C) * L),
        edge_s_("edge_s", sparse ? size_t(C) * L : 0) {
    zero_.write(0);
    const size_t X = size_t(X_);
    for (int i = 0; i < R; ++i)
      for (int j = 0; j < C; ++j) {
        const size_t at = size_t(i) * C + j;
        StationaryPe& p = pes_[at];
        p.clk(clk_);
        p.rst(rst_);
        p.load(load_);
        p.load_bank(load_bank_);
        for (size_t q = 0; q < X; ++q) {
          p.x_in[q](j == 0 ? edge_x_[size_t(i) * X + q] : x_[(at - 1) * X + q]);
          p.x_out[q](x_[at * X + q]);
        }
        for (int q = 0; q < L; ++q) {
          p.w0_in[q](i == 0 ? edge_w_[size_t(j) * L + q] : w0_[(at - C) * L + q]);
          p.w1_in[q](i == 0 ? edge_w_[size_t(j) * L + q] : w1_[(at - C) * L + q]);
          p.w0_out[q](w0_[at * L + q]);
          p.w1_out[q](w1_[at * L + q]);
          if (!sparse) continue;
          p.s0_in[q](i == 0 ? edge_s_[size_t(j) * L + q] : s0_[(at - C) * L + q]);
          p.s1_in[q](i == 0 ? edge_s_[size_t(j) * L + q] : s1_[(at - C) * L + q]);
          p.s0_out[q](s0_[at * L + q]);
          p.s1_out[q](s1_[at * L + q]);
        }
        sc_signal<int32_t>& xtag_from = j == 0 ? edge_xtag_[size_t(i)] : xtag_[at - 1];
        p.xtag_in(xtag_from);
        p.xbank_in(j == 0 ? edge_xbank_[size_t(i)] : xbank_[at - 1]);
        // Row 0 starts each psum at zero, tagged with the token that enters it.
        p.psum_in(i == 0 ? zero_ : psum_[at - C]);
        p.ptag_in(i == 0 ? xtag_from : ptag_[at - C]);
        p.xtag_out(xtag_[at]);
        p.xbank_out(xbank_[at]);
        p.psum_out(psum_[at]);
        p.ptag_out(ptag_[at]);
      }
  }

  bool runs(Dataflow d) const override { return d == Dataflow::WS || d == Dataflow::IS; }
  bool takes_2_4() const override { return X_ > L_; }

  void trace(sc_core::sc_trace_file* tf) const override {
    trace_common(tf);
    sc_core::sc_trace(tf, load_, fmt::format("{}.load", name()));
    sc_core::sc_trace(tf, load_bank_, fmt::format("{}.load_bank", name()));
    for (int i = 0; i < R_; ++i)
      for (int j = 0; j < C_; ++j) {
        const size_t at = size_t(i) * C_ + j;
        trace_lanes(tf, x_, at * X_, X_, pe_name(i, j, "x"));
        sc_core::sc_trace(tf, xtag_[at], pe_name(i, j, "xtag"));
        sc_core::sc_trace(tf, xbank_[at], pe_name(i, j, "xbank"));
        sc_core::sc_trace(tf, psum_[at], pe_name(i, j, "psum"));
        sc_core::sc_trace(tf, ptag_[at], pe_name(i, j, "ptag"));
        trace_lanes(tf, w0_, at * L_, L_, pe_name(i, j, "w0"));
        trace_lanes(tf, w1_, at * L_, L_, pe_name(i, j, "w1"));
        if (!takes_2_4()) continue;
        trace_lanes(tf, s0_, at * L_, L_, pe_name(i, j, "s0"));
        trace_lanes(tf, s1_, at * L_, L_, pe_name(i, j, "s1"));
      }
  }

 protected:
  PeBase& pe(int row, int col) override { return pes_[size_t(row) * C_ + col]; }

  void drive(int64_t c) override {
    const FoldPlan& p = reg_->plan();
    ws_ = p.dataflow == Dataflow::WS;
    sparse_ = data_->sparse_2_4;
    const int lanes = sparse_ ? X_ : L_;  // a dense layer leaves a 2:4 PE's extra x lanes at zero
    std::vector<uint32_t> x(size_t(R_) * X_, 0);
    std::vector<int32_t> tag(size_t(R_), -1);
    std::vector<char> bank(size_t(R_), 0);
    // Row i of fold g's stream, started at S, takes word t = c - S - i (the skew buffers).
    for (size_t g = 0; g < p.folds.size(); ++g) {
      const int64_t S = stream_start_[g];
      if (S < 0 || c < S) continue;
      const Fold& f = p.folds[g];
      for (int i = 0; i < f.rows_used; ++i) {
        const int64_t t = c - S - i;
        if (t < 0 || t >= p.T) continue;
        for (int q = 0; q < lanes; ++q) x[size_t(i) * X_ + q] = streamed(t, f.row0 + i, q);
        tag[size_t(i)] = int32_t(int64_t(g) * p.T + t);
        bank[size_t(i)] = char(g & 1);
      }
    }
    for (int i = 0; i < R_; ++i) {
      for (int q = 0; q < X_; ++q) edge_x_[size_t(i) * X_ + q].write(x[size_t(i) * X_ + q]);
      edge_xtag_[size_t(i)].write(tag[size_t(i)]);
      edge_xbank_[size_t(i)].write(bank[size_t(i)]);
    }
    // The weight chain: fold g's load pushes one row a cycle from its start, the row that ends in
    // PE row k pushed k-th from last (all R rows under SCALE-Sim's pipeline, else the used ones).
    bool loading = false;
    for (size_t g = 0; g < p.folds.size() && !loading; ++g) {
      const int64_t Ls = load_start_[g];
      const Fold& f = p.folds[g];
      const int pushes = reg_->pipeline() == FoldPipeline::ScaleSim ? R_ : f.rows_used;
      if (Ls < 0 || c < Ls || c >= Ls + pushes) continue;
      loading = true;
      const int64_t k = pushes - 1 - (c - Ls);
      load_bank_.write(g & 1);
      for (int j = 0; j < C_; ++j)
        for (int q = 0; q < L_; ++q) {
          const bool real = k < f.rows_used && j < f.cols_used;
          const size_t at = size_t(j) * L_ + q;
          if (!sparse_) {
            edge_w_[at].write(real ? stationary(f.row0 + k, f.col0 + j, q) : 0u);
            if (takes_2_4()) edge_s_[at].write(q);  // dense lane q meets x lane q
            continue;
          }
          const auto [w, lane] = real ? kept(f.row0 + k, f.col0 + j, q) : std::pair<uint32_t, int32_t>(0u, 0);
          edge_w_[at].write(w);
          edge_s_[at].write(lane);
        }
    }
    load_.write(loading);
  }

  void compare(int64_t c) override {
    const FoldPlan& p = reg_->plan();
    const bool ws = p.dataflow == Dataflow::WS;
    PeRegisters r;
    for (int i = 0; i < R_; ++i)
      for (int j = 0; j < C_; ++j) {
        if (!reg_->pe_registers(i, j, r)) throw std::invalid_argument("this register grid does not expose its PEs");
        const size_t at = size_t(i) * C_ + j;
        expect_lanes(c, i, j, "x", r.x, x_, at * X_, sparse_ ? X_ : L_);
        expect(c, i, j, "xtag", r.x_tag, xtag_[at].read());
        // The bank an empty slot names is a don't-care (the register grid leaves its edge's last).
        if (r.x_tag >= 0) expect(c, i, j, "xbank", r.x_bank, xbank_[at].read());
        expect(c, i, j, "psum", r.sum, psum_[at].read());
        expect(c, i, j, "ptag", r.sum_tag, ptag_[at].read());
        expect_lanes(c, i, j, "w0", r.w[0], w0_, at * L_);
        expect_lanes(c, i, j, "w1", r.w[1], w1_, at * L_);
        if (!sparse_) continue;
        for (int b = 0; b < 2; ++b)
          for (int q = 0; q < L_; ++q) {
            const int32_t got = (b ? s1_ : s0_)[at * L_ + size_t(q)].read();
            if (r.sel[b][q] != got) mismatch(c, i, j, fmt::format("s{}{}", b, L_ > 1 ? fmt::format("_{}", q) : ""),
                                             r.sel[b][q], got);
          }
      }
    // The psums leaving the bottom row: a fold's partial sum of output (t, col0 + j).
    for (int j = 0; j < C_; ++j) {
      const size_t at = size_t(R_ - 1) * C_ + j;
      const int32_t tag = ptag_[at].read();
      if (tag < 0) continue;
      const Fold& f = p.folds[size_t(tag / p.T)];
      if (j >= f.cols_used) continue;
      const int64_t t = tag % p.T, n = f.col0 + j;
      output(c, R_ - 1, j, size_t(ws ? t * data_->N + n : n * data_->N + t), psum_[at].read(), true);
    }
  }

 private:
  // Lane q of word sr (along K) of the stream's vector t, and of the stationary tile's column sc
  // (WS: A streams, B stays; IS: B streams, A stays); zero past K. 2:4: the stream's word sr
  // carries the four activations of each group its kept values come from.
  uint32_t streamed(int64_t t, int64_t sr, int q) const {
    const GemmData& d = *data_;
    const int64_t k = sparse_ ? 4 * (sr * L_ / 2) + q : sr * L_ + q;
    if (k >= d.K) return 0;
    return to_word(arith_, ws_ ? d.A[size_t(t * d.K + k)] : d.B[size_t(k * d.N + t)]);
  }
  uint32_t stationary(int64_t sr, int64_t sc, int q) const {
    const GemmData& d = *data_;
    const int64_t k = sr * L_ + q;
    if (k >= d.K) return 0;
    return to_word(arith_, ws_ ? d.B[size_t(k * d.N + sc)] : d.A[size_t(sc * d.K + k)]);
  }
  // 2:4 (WS): lane q of word sr in column sc is kept value v = sr L + q (of K / 2), of group v / 2,
  // at its place in the group; its select is that activation's lane in the word's x.
  std::pair<uint32_t, int32_t> kept(int64_t sr, int64_t sc, int q) const {
    const GemmData& d = *data_;
    const int64_t v = sr * L_ + q, g = v / 2;
    if (v >= d.K / 2) return {0u, 0};
    const int place = d.kept_place(g, sc, int(v % 2));
    return {to_word(arith_, d.B[size_t((4 * g + place) * d.N + sc)]), int32_t(4 * (g - sr * L_ / 2) + place)};
  }

  const int X_;  // x lanes: L, or 2:4's four activations per group
  bool ws_ = true, sparse_ = false;
  sc_vector<StationaryPe> pes_;
  sc_vector<sc_signal<uint32_t>> x_;
  sc_vector<sc_signal<int32_t>> xtag_;
  sc_vector<sc_signal<bool>> xbank_;
  sc_vector<sc_signal<uint32_t>> psum_;
  sc_vector<sc_signal<int32_t>> ptag_;
  sc_vector<sc_signal<uint32_t>> w0_, w1_;
  sc_vector<sc_signal<int32_t>> s0_, s1_;
  sc_vector<sc_signal<uint32_t>> edge_x_;
  sc_vector<sc_signal<int32_t>> edge_xtag_;
  sc_vector<sc_signal<bool>> edge_xbank_;
  sc_vector<sc_signal<uint32_t>> edge_w_;
  sc_vector<sc_signal<int32_t>> edge_s_;
  sc_signal<uint32_t> zero_{"zero"};
  sc_signal<bool> load_{"load"}, load_bank_{"load_bank"};
};

// OS.
class OsGrid final : public StructuralGrid {
 public:
  OsGrid(const sc_core::sc_module_name& name, int R, int C, int L, sc_core::sc_time period)
      : StructuralGrid(name, R, C, L, period),
        pes_("pe", size_t(R) * C, [L](const char* n, size_t) { return new OutputStationaryPe(n, L); }),
        a_("a", size_t(R) * C * L), b_("b", size_t(R) * C * L), atag_("atag", size_t(R) * C),
        btag_("btag", size_t(R) * C), alast_("alast", size_t(R) * C), acc_("acc", size_t(R) * C),
        res_("res", size_t(R) * C), res_valid_("res_valid", size_t(R) * C), edge_a_("edge_a", size_t(R) * L),
        edge_atag_("edge_atag", size_t(R)), edge_alast_("edge_alast", size_t(R)), edge_b_("edge_b", size_t(C) * L),
        edge_btag_("edge_btag", size_t(C)) {
    for (int i = 0; i < R; ++i)
      for (int j = 0; j < C; ++j) {
        const size_t at = size_t(i) * C + j;
        OutputStationaryPe& p = pes_[at];
        p.clk(clk_);
        p.rst(rst_);
        for (int q = 0; q < L; ++q) {
          p.a_in[q](j == 0 ? edge_a_[size_t(i) * L + q] : a_[(at - 1) * L + q]);
          p.b_in[q](i == 0 ? edge_b_[size_t(j) * L + q] : b_[(at - C) * L + q]);
          p.a_out[q](a_[at * L + q]);
          p.b_out[q](b_[at * L + q]);
        }
        p.atag_in(j == 0 ? edge_atag_[size_t(i)] : atag_[at - 1]);
        p.alast_in(j == 0 ? edge_alast_[size_t(i)] : alast_[at - 1]);
        p.btag_in(i == 0 ? edge_btag_[size_t(j)] : btag_[at - C]);
        p.atag_out(atag_[at]);
        p.btag_out(btag_[at]);
        p.alast_out(alast_[at]);
        p.acc_out(acc_[at]);
        p.res_out(res_[at]);
        p.res_valid(res_valid_[at]);
      }
  }

  bool runs(Dataflow d) const override { return d == Dataflow::OS; }

  void trace(sc_core::sc_trace_file* tf) const override {
    trace_common(tf);
    for (int i = 0; i < R_; ++i)
      for (int j = 0; j < C_; ++j) {
        const size_t at = size_t(i) * C_ + j;
        trace_lanes(tf, a_, at * L_, L_, pe_name(i, j, "a"));
        sc_core::sc_trace(tf, atag_[at], pe_name(i, j, "atag"));
        sc_core::sc_trace(tf, alast_[at], pe_name(i, j, "alast"));
        trace_lanes(tf, b_, at * L_, L_, pe_name(i, j, "b"));
        sc_core::sc_trace(tf, btag_[at], pe_name(i, j, "btag"));
        sc_core::sc_trace(tf, acc_[at], pe_name(i, j, "acc"));
        sc_core::sc_trace(tf, res_[at], pe_name(i, j, "res"));
        sc_core::sc_trace(tf, res_valid_[at], pe_name(i, j, "res_valid"));
      }
  }

 protected:
  PeBase& pe(int row, int col) override { return pes_[size_t(row) * C_ + col]; }

  // Fold g's step k enters row i (A[row0 + i][k]) and column j (B[k][col0 + j]) at S + k + i and
  // S + k + j, so they meet in PE(i, j) at S + k + i + j.
  void drive(int64_t c) override {
    const FoldPlan& p = reg_->plan();
    std::vector<uint32_t> a(size_t(R_) * L_, 0), b(size_t(C_) * L_, 0);
    std::vector<int32_t> atag(size_t(R_), -1), btag(size_t(C_), -1);
    std::vector<char> alast(size_t(R_), 0);
    for (size_t g = 0; g < p.folds.size(); ++g) {
      const int64_t S = stream_start_[g];
      if (S < 0 || c < S) continue;
      const Fold& f = p.folds[g];
      // A K chunk (FoldPlan::with_k_chunks) streams steps [k0, k0 + t) of T.
      for (int i = 0; i < f.rows_used; ++i) {
        const int64_t k = f.k0 + c - S - i;
        if (k < f.k0 || k >= f.k0 + f.t) continue;
        for (int q = 0; q < L_; ++q) a[size_t(i) * L_ + q] = lane(true, f.row0 + i, k, q);
        atag[size_t(i)] = int32_t(int64_t(g) * p.T + k);
        alast[size_t(i)] = k == p.T - 1;
      }
      for (int j = 0; j < f.cols_used; ++j) {
        const int64_t k = f.k0 + c - S - j;
        if (k < f.k0 || k >= f.k0 + f.t) continue;
        for (int q = 0; q < L_; ++q) b[size_t(j) * L_ + q] = lane(false, f.col0 + j, k, q);
        btag[size_t(j)] = int32_t(int64_t(g) * p.T + k);
      }
    }
    for (int i = 0; i < R_; ++i) {
      for (int q = 0; q < L_; ++q) edge_a_[size_t(i) * L_ + q].write(a[size_t(i) * L_ + q]);
      edge_atag_[size_t(i)].write(atag[size_t(i)]);
      edge_alast_[size_t(i)].write(alast[size_t(i)] != 0);
    }
    for (int j = 0; j < C_; ++j) {
      for (int q = 0; q < L_; ++q) edge_b_[size_t(j) * L_ + q].write(b[size_t(j) * L_ + q]);
      edge_btag_[size_t(j)].write(btag[size_t(j)]);
    }
  }

  void compare(int64_t c) override {
    const FoldPlan& p = reg_->plan();
    PeRegisters r;
    for (int i = 0; i < R_; ++i)
      for (int j = 0; j < C_; ++j) {
        if (!reg_->pe_registers(i, j, r)) throw std::invalid_argument("this register grid does not expose its PEs");
        const size_t at = size_t(i) * C_ + j;
        expect_lanes(c, i, j, "a", r.x, a_, at * L_);
        expect(c, i, j, "atag", r.x_tag, atag_[at].read());
        expect(c, i, j, "alast", r.x_last, alast_[at].read());
        expect_lanes(c, i, j, "b", r.y, b_, at * L_);
        expect(c, i, j, "btag", r.y_tag, btag_[at].read());
        expect(c, i, j, "acc", r.sum, acc_[at].read());
        if (!res_valid_[at].read()) continue;
        // A result on column j's bus: output (row0 + i, col0 + j) of the fold A's token is of
        // (an unused column's is dropped, as the register grid drops it).
        const Fold& f = p.folds[size_t(atag_[at].read() / p.T)];
        if (j >= f.cols_used) continue;
        expect(c, i, j, "res_valid", r.out_valid, 1);
        expect(c, i, j, "res", r.out, res_[at].read());
        output(c, i, j, size_t((f.row0 + i) * data_->N + f.col0 + j), res_[at].read(), false);
      }
  }

 private:
  // Lane q of word k of A's row mn (a) or B's column mn; zero past K.
  uint32_t lane(bool a, int64_t mn, int64_t k, int q) const {
    const GemmData& d = *data_;
    const int64_t kv = k * L_ + q;
    if (kv >= d.K) return 0;
    return to_word(arith_, a ? d.A[size_t(mn * d.K + kv)] : d.B[size_t(kv * d.N + mn)]);
  }

  sc_vector<OutputStationaryPe> pes_;
  sc_vector<sc_signal<uint32_t>> a_, b_;
  sc_vector<sc_signal<int32_t>> atag_, btag_;
  sc_vector<sc_signal<bool>> alast_;
  sc_vector<sc_signal<uint32_t>> acc_, res_;
  sc_vector<sc_signal<bool>> res_valid_;
  sc_vector<sc_signal<uint32_t>> edge_a_;
  sc_vector<sc_signal<int32_t>> edge_atag_;
  sc_vector<sc_signal<bool>> edge_alast_;
  sc_vector<sc_signal<uint32_t>> edge_b_;
  sc_vector<sc_signal<int32_t>> edge_btag_;
};

}  // namespace

std::unique_ptr<StructuralGrid> make_structural_grid(const char* name, Dataflow dataflow, int rows, int cols,
                                                     int lanes, sc_core::sc_time period, bool sparse_2_4) {
  if (dataflow == Dataflow::OS) return std::make_unique<OsGrid>(name, rows, cols, lanes, period);
  if (dataflow == Dataflow::WS || dataflow == Dataflow::IS)
    return std::make_unique<StationaryGrid>(name, rows, cols, lanes, sparse_2_4 && dataflow == Dataflow::WS, period);
  throw std::invalid_argument(fmt::format("no structural PE for the {} dataflow", to_string(dataflow)));
}

}  // namespace cstsim::structural
