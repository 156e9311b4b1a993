#include "models/array/structural/rs_structural_grid.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

namespace cstsim::structural {

using sc_core::sc_signal;
using sc_core::sc_vector;

namespace {

uint32_t word_at(const void* words, size_t i) {
  uint32_t w;
  std::memcpy(&w, static_cast<const char*>(words) + 4 * i, 4);
  return w;
}

// Traces the words of `v` from `first`, `n` of them, as <base>_<i>.
template <class Vec>
void trace_words(sc_core::sc_trace_file* tf, const Vec& v, size_t first, size_t n, const std::string& base) {
  for (size_t i = 0; i < n; ++i) sc_core::sc_trace(tf, v[first + i], fmt::format("{}_{}", base, i));
}

}  // namespace

RsStructuralGrid::RsStructuralGrid(const sc_core::sc_module_name& name, int R, int C, const RsPeSizes& sizes,
                                   sc_core::sc_time period)
    : ClockedGrid(name, R, C, period), sizes_(sizes),
      pes_("pe", size_t(R) * C,
           [R, C, sizes](const char*, size_t k) {
             const std::string n = fmt::format("pe_{}_{}", rs_path_row(R, int(k)), rs_path_col(R, int(k)));
             return new RsPe(n.c_str(), R, C, int(k), sizes.psum, sizes.ifmap);
           }),
      fb_valid_("fb_valid", kRsBusLanes), fb_dest_("fb_dest", kRsBusLanes), fb_addr_("fb_addr", kRsBusLanes),
      fb_data_("fb_data", kRsBusLanes), pb_valid_("pb_valid", kRsBusLanes), pb_dest_("pb_dest", kRsBusLanes),
      pb_k_("pb_k", kRsBusLanes), pb_data_("pb_data", kRsBusLanes), link_valid_("link_valid", size_t(R) * C * 2),
      link_tag_("link_tag", size_t(R) * C * 2), link_("link", size_t(R) * C * 2 * sizes.psum),
      none_valid_("none_valid", 2), none_tag_("none_tag", 2), none_("none", size_t(2 * sizes.psum)) {
  const size_t W = size_t(sizes.psum);
  for (int q = 0; q < 2; ++q) none_tag_[size_t(q)].write(-1);
  for (size_t k = 0; k < pes_.size(); ++k) {
    RsPe& p = pes_[k];
    p.clk(clk_);
    p.rst(rst_);
    p.cfg_load(cfg_load_);
    p.cfg(cfg_);
    p.step_start(step_start_);
    p.step_col(step_col_);
    p.step_tag(step_tag_);
    for (int n = 0; n < kRsBusLanes; ++n) {
      p.fb_valid[n](fb_valid_[n]);
      p.fb_dest[n](fb_dest_[n]);
      p.fb_addr[n](fb_addr_[n]);
      p.fb_data[n](fb_data_[n]);
      p.pb_valid[n](pb_valid_[n]);
      p.pb_dest[n](pb_dest_[n]);
      p.pb_k[n](pb_k_[n]);
      p.pb_data[n](pb_data_[n]);
    }
    p.ib_valid(ib_valid_);
    p.ib_set(ib_set_);
    p.ib_row(ib_row_);
    p.ib_data(ib_data_);
    // The link from the PE before on the path (the first PE's is tied off).
    for (size_t b = 0; b < 2; ++b) {
      p.link_valid_in[b](k == 0 ? none_valid_[b] : link_valid_[(k - 1) * 2 + b]);
      p.link_tag_in[b](k == 0 ? none_tag_[b] : link_tag_[(k - 1) * 2 + b]);
      p.link_valid[b](link_valid_[k * 2 + b]);
      p.link_tag[b](link_tag_[k * 2 + b]);
      for (size_t w = 0; w < W; ++w) {
        p.link_in[b * W + w](k == 0 ? none_[b * W + w] : link_[((k - 1) * 2 + b) * W + w]);
        p.link[b * W + w](link_[(k * 2 + b) * W + w]);
      }
    }
  }
}

int RsStructuralGrid::path(const RsPeConfig& c, int chain, int pos) const {
  return rs_path_index(c, R_, C_, chain, pos);
}

void RsStructuralGrid::begin(const RsLayerPlan& plan, const RsData& data) {
  const RsMapping& m = plan.mapping;
  if (m.p > sizes_.psum || m.q * plan.shape.S > sizes_.ifmap || m.p * m.q * plan.shape.S > sizes_.filter)
    throw std::invalid_argument(fmt::format("structural grid {}: PEs of {}/{}/{} scratchpad words, asked to run p {} "
                                            "q {} S {}", name(), sizes_.filter, sizes_.ifmap, sizes_.psum, m.p, m.q,
                                            plan.shape.S));
  plan_ = &plan;
  data_ = &data;
  arith_ = pe_arith(data.operand);
  gating_ = plan.gating_density < 1;
  for (RsPe& p : pes_) p.arith = arith_;
  glb_.assign(size_t(plan.shape.groups * plan.shape.N * plan.shape.M * plan.shape.E() * plan.shape.F()), 0);
  pass_ = started_ = -1;
  tags_ = 0;
  flights_.clear();
  out_.clear();
  last_ = {};
  psum_out_words_ = 0;
  events_seen_ = 0;
  reset();
  passes_ += int64_t(plan.passes.size());
}

void RsStructuralGrid::fail(int64_t c, const std::string& what) const {
  throw StructuralMismatch(fmt::format("structural check: cycle {}: {} ({})", c, what, name()));
}

size_t RsStructuralGrid::glb_index(int64_t pass, int64_t step, int64_t w) const {
  const RsPass& p = plan_->passes[size_t(pass)];
  const int64_t F = plan_->shape.F();
  return data_->out_index(p.group, p.image0 + step / F, p.filter0 + w / p.rows, p.row0 + w % p.rows, step % F);
}

// The pass's configuration and its filter words in the filter network's order: channel set,
// filter set, filter row, filter, channel, tap.
void RsStructuralGrid::start_pass(int64_t index) {
  const RsPass& p = plan_->passes[size_t(index)];
  const RsMapping& m = plan_->mapping;
  const RsShape& s = plan_->shape;
  RsPeConfig c;
  c.rows = int32_t(p.rows);
  c.filter_rows = int32_t(p.filter_rows);
  c.channels = int32_t(p.channels);
  c.filters = int32_t(p.filters);
  c.q = int32_t(m.q);
  c.p = int32_t(m.p);
  c.r_sets = int32_t((p.channels + m.q - 1) / m.q);
  c.t_sets = int32_t((p.filters + m.p - 1) / m.p);
  c.S = int32_t(s.S);
  c.U = int32_t(s.U);
  c.first_reduction = p.first_reduction;
  if (path(c, 0, 0) < 0)
    throw std::invalid_argument(fmt::format("structural grid {}: pass {} needs {} PEs, the grid has {}", name(), index,
                                            int64_t(c.chains()) * c.chain(), R_ * C_));
  pass_ = index;
  started_ = -1;
  config_ = c;
  filters_.clear();
  filters_sent_ = 0;
  for (int ri = 0; ri < c.r_sets; ++ri)
    for (int ti = 0; ti < c.t_sets; ++ti)
      for (int y = 0; y < c.filter_rows; ++y)
        for (int k = 0; k < rs_share(c.filters, c.p, ti); ++k)
          for (int ch = 0; ch < rs_share(c.channels, c.q, ri); ++ch)
            for (int q = 0; q < c.S; ++q) {
              const float w = data_->w(p.group, p.filter0 + ti * c.p + k, p.channel0 + ri * c.q + ch,
                                       p.filter_row0 + y, q);
              filters_.push_back({(ri * c.t_sets + ti) * c.filter_rows + y, (k * c.q_max() + ch) * c.S + q,
                                  to_word(arith_, w)});
            }
  std::set<int64_t> rows;
  for (int y = 0; y < c.filter_rows; ++y)
    for (int x = 0; x < c.rows; ++x) rows.insert(int64_t(c.U) * x + y);
  ifmap_rows_.assign(rows.begin(), rows.end());
  ifmap_step_ = ifmap_channel_ = ifmap_s_ = 0;
  ifmap_row_ = 0;
  psums_in_ = 0;
}

// The words of cycle c on every bus, as many as the register grid's networks carried.
void RsStructuralGrid::drive(int64_t c, const RsGridView& g, bool new_pass) {
  const RsCounts& now = g.counts();
  cfg_load_.write(new_pass);
  if (new_pass) cfg_.write(config_);
  const RsPeConfig& k = config_;
  const RsPass* p = pass_ >= 0 ? &plan_->passes[size_t(pass_)] : nullptr;
  const int64_t F = plan_->shape.F(), S = plan_->shape.S, U = plan_->shape.U;

  const int64_t filters = now.filter_words - last_.filter_words;
  if (filters > kRsBusLanes || filters_sent_ + size_t(filters) > filters_.size())
    fail(c, fmt::format("the register grid sent {} filter words, the pass has {} left", filters,
                        filters_.size() - filters_sent_));
  for (int n = 0; n < kRsBusLanes; ++n) {
    const bool valid = n < filters;
    fb_valid_[n].write(valid);
    if (!valid) continue;
    const FilterWord& w = filters_[filters_sent_++];
    fb_dest_[n].write(w.dest);
    fb_addr_[n].write(w.addr);
    fb_data_[n].write(w.value);
  }

  // Ifmap words go step, channel, strip row, column; an image's first column takes all S
  // columns of the window, the others the U that are new.
  const int64_t ifmap = now.ifmap_words - last_.ifmap_words;
  if (ifmap > 1 || (ifmap == 1 && (!p || ifmap_step_ >= F * p->images)))
    fail(c, fmt::format("the register grid sent {} ifmap words on a one-word network", ifmap));
  ib_valid_.write(ifmap == 1);
  if (ifmap == 1) {
    const int64_t row = ifmap_rows_[ifmap_row_], f = ifmap_step_ % F;
    ib_set_.write(int32_t(ifmap_channel_ / k.q));
    ib_row_.write(int32_t(row));
    ib_data_.write(to_word(arith_, data_->x(p->group, p->image0 + ifmap_step_ / F, p->channel0 + ifmap_channel_,
                                            U * p->row0 + p->filter_row0 + row, U * f + ifmap_s_)));
    auto first_new = [&](int64_t j) { return j % F == 0 ? 0 : std::max<int64_t>(0, S - U); };
    if (++ifmap_s_ == S) {
      if (++ifmap_row_ == ifmap_rows_.size()) {
        ifmap_row_ = 0;
        if (++ifmap_channel_ == p->channels) ifmap_channel_ = 0, ++ifmap_step_;
      }
      ifmap_s_ = first_new(ifmap_step_);
    }
  }

  // Psums back from the driver's buffer: step by step, filter-major, to the chains' bottom PEs.
  const int64_t psums = now.psum_in_words - last_.psum_in_words;
  if (psums > kRsBusLanes) fail(c, fmt::format("the register grid sent {} psums back in one cycle", psums));
  for (int n = 0; n < kRsBusLanes; ++n) {
    const bool valid = n < psums;
    pb_valid_[n].write(valid);
    if (!valid) continue;
    const int64_t per_step = int64_t(k.filters) * k.rows;
    const int64_t j = psums_in_ / per_step, w = psums_in_ % per_step;
    ++psums_in_;
    const int64_t filter = w / k.rows, x = w % k.rows;
    pb_dest_[n].write(int32_t(filter / k.p * k.rows + x));
    pb_k_[n].write(int32_t(filter % k.p));
    pb_data_[n].write(glb_[glb_index(pass_, j, w)]);
  }

  // A step starts: every PE of the pass slides its window and starts its MACs.
  const bool step = pass_ >= 0 && g.pass() == pass_ && g.started() != started_;
  step_start_.write(step);
  if (step) {
    if (g.started() != started_ + 1) fail(c, fmt::format("the register grid started step {} after {}", g.started(),
                                                         started_));
    started_ = g.started();
    step_col_.write(int32_t(started_ % F));
    step_tag_.write(tags_);
    flights_.push_back({pass_, started_, tags_, config_});
    ++tags_;
  }
}

void RsStructuralGrid::cycle(const RsGridView& g) {
  const int64_t c = g.cycle();
  const std::vector<ArrayEvent>& ev = g.events();
  bool new_pass = false;
  for (size_t i = events_seen_; i < ev.size(); ++i)
    if (ev[i].kind == EventKind::FoldStart && ev[i].cycle == c) {
      start_pass(ev[i].fold);
      new_pass = true;
    }
  drive(c, g, new_pass);
  clock_edge(c);
  compare(c, g);
  last_ = g.counts();
  events_seen_ = ev.size();
  ++cycles_;
}

void RsStructuralGrid::compare(int64_t c, const RsGridView& g) {
  if (pass_ >= 0 && g.pass() == pass_) compare_pes(c, g);
  compare_chains(c, g);
  collect_tops(c);
  std::vector<std::pair<int64_t, int64_t>> rows_out;
  send_out(c, g, rows_out);
  // The output rows (a step's last psum out) the register grid ended this cycle.
  std::vector<std::pair<int64_t, int64_t>> reg_rows;
  for (size_t i = events_seen_; i < g.events().size(); ++i) {
    const ArrayEvent& e = g.events()[i];
    if (e.kind == EventKind::OutputRow) reg_rows.push_back({e.fold, e.index});
  }
  if (reg_rows != rows_out)
    fail(c, fmt::format("the register grid put out {} step(s){}, the structural grid {}{}", reg_rows.size(),
                        reg_rows.empty() ? "" : fmt::format(" (pass {} step {})", reg_rows[0].first, reg_rows[0].second),
                        rows_out.size(),
                        rows_out.empty() ? "" : fmt::format(" (pass {} step {})", rows_out[0].first, rows_out[0].second)));
  int64_t macs = 0, zeros = 0;
  for (const RsPe& p : pes_) macs += p.macs, zeros += p.zero_macs;
  if (macs != g.counts().macs) fail(c, fmt::format("register grid {} MACs, structural PEs {}", g.counts().macs, macs));
  if (gating_ && zeros != g.gated())
    fail(c, fmt::format("register grid {} MACs on zero ifmap values, structural PEs {}", g.gated(), zeros));
  if (psum_out_words_ != g.counts().psum_out_words)
    fail(c, fmt::format("register grid {} psums out, structural grid {}", g.counts().psum_out_words, psum_out_words_));
}

// Every PE of the pass against its register twin.
void RsStructuralGrid::compare_pes(int64_t c, const RsGridView& g) {
  const RsPeConfig& k = config_;
  const size_t S = size_t(k.S), filter_words = size_t(k.p_max()) * k.q_max() * S, window_words = k.q_max() * S;
  for (int ri = 0; ri < k.r_sets; ++ri)
    for (int ti = 0; ti < k.t_sets; ++ti)
      for (int y = 0; y < k.filter_rows; ++y)
        for (int x = 0; x < k.rows; ++x) {
          const int i = path(k, ti * k.rows + x, ri * k.filter_rows + y);
          const RsPe& p = at(i);
          const int row = rs_path_row(R_, i), col = rs_path_col(R_, i);
          const RsPeWords r = g.pe(ri, ti, y, x);
          expect(c, row, col, "fifo", r.fifo, p.fifo_count);
          if (p.dropped) mismatch(c, row, col, "fifo_dropped", 0, p.dropped);
          for (size_t w = 0; w < size_t(k.p_max()); ++w)
            if (word_at(r.psum, w) != p.psum[w])
              mismatch(c, row, col, fmt::format("psum_{}", w), word_at(r.psum, w), p.psum[w]);
          for (size_t w = 0; w < window_words; ++w)
            if (word_at(r.window, w) != p.window[w])
              mismatch(c, row, col, fmt::format("window_{}", w), word_at(r.window, w), p.window[w]);
          for (size_t w = 0; w < filter_words; ++w)
            if (word_at(r.filter, w) != p.filter[w])
              mismatch(c, row, col, fmt::format("filter_{}", w), word_at(r.filter, w), p.filter[w]);
        }
}

// The chain positions that added this cycle: the register grid's running column sums against
// the links those PEs drive.
void RsStructuralGrid::compare_chains(int64_t c, const RsGridView& g) {
  const size_t W = size_t(sizes_.psum);
  for (size_t i = 0; i < g.tokens(); ++i) {
    const RsTokenWords t = g.token(i);
    if (t.added < 1 || c != t.created + t.added - 1) continue;
    const auto f = std::find_if(flights_.begin(), flights_.end(),
                                [&](const Flight& x) { return x.pass == t.pass && x.step == t.step; });
    if (f == flights_.end()) fail(c, fmt::format("pass {} step {}'s psums climb no structural chain", t.pass, t.step));
    const RsPeConfig& k = f->config;
    const int b = f->tag & 1;
    for (int ti = 0; ti < k.t_sets; ++ti)
      for (int x = 0; x < k.rows; ++x) {
        const int at = path(k, ti * k.rows + x, int(t.added - 1));
        const int row = rs_path_row(R_, at), col = rs_path_col(R_, at);
        const size_t l = size_t(at) * 2 + size_t(b);
        expect(c, row, col, b ? "link_valid_1" : "link_valid_0", 1, link_valid_[l].read());
        expect(c, row, col, b ? "link_tag_1" : "link_tag_0", f->tag, link_tag_[l].read());
        for (int q = 0; q < rs_share(k.filters, k.p, ti); ++q) {
          const uint32_t want = word_at(t.sums, size_t((ti * k.p + q) * k.rows + x)), got = link_[l * W + size_t(q)].read();
          if (want != got) mismatch(c, row, col, fmt::format("link_{}_{}", b, q), want, got);
        }
      }
  }
}

// Steps whose sums reached the top of every chain this cycle join the output network's queue.
void RsStructuralGrid::collect_tops(int64_t c) {
  const size_t W = size_t(sizes_.psum);
  while (!flights_.empty()) {
    const Flight& f = flights_.front();
    const RsPeConfig& k = f.config;
    const size_t b = size_t(f.tag & 1);
    int arrived = 0;
    for (int chain = 0; chain < k.chains(); ++chain) {
      const size_t l = size_t(path(k, chain, k.chain() - 1)) * 2 + b;
      arrived += link_valid_[l].read() && link_tag_[l].read() == f.tag;
    }
    if (arrived == 0) return;
    if (arrived != k.chains())
      fail(c, fmt::format("pass {} step {}'s psums reached the top of {} of {} chains", f.pass, f.step, arrived,
                          k.chains()));
    Out o{f.pass, f.step, std::vector<uint32_t>(size_t(k.filters) * k.rows, 0), 0};
    for (int filter = 0; filter < k.filters; ++filter)
      for (int x = 0; x < k.rows; ++x) {
        const size_t at = size_t(path(k, filter / k.p * k.rows + x, k.chain() - 1));
        o.sums[size_t(filter) * k.rows + x] = link_[(at * 2 + b) * W + size_t(filter % k.p)].read();
      }
    out_.push_back(std::move(o));
    flights_.pop_front();
  }
}

// The psum output network: the head step's sums into the buffer, 4 a cycle, one step a cycle
// at most; each word checked against the register grid's buffer.
void RsStructuralGrid::send_out(int64_t c, const RsGridView& g, std::vector<std::pair<int64_t, int64_t>>& rows_out) {
  if (out_.empty()) return;
  Out& head = out_.front();
  for (int n = 0; n < kRsBusLanes && head.sent < int64_t(head.sums.size()); ++n, ++head.sent) {
    const size_t index = glb_index(head.pass, head.step, head.sent);
    glb_[index] = head.sums[size_t(head.sent)];
    ++psum_out_words_;
    if (g.glb(index) != glb_[index])
      fail(c, fmt::format("pass {} step {} psum {} into the global buffer: register grid {:#x}, structural grid {:#x}",
                          head.pass, head.step, head.sent, g.glb(index), glb_[index]));
  }
  if (head.sent < int64_t(head.sums.size())) return;
  rows_out.push_back({head.pass, head.step});
  out_.pop_front();
}

void RsStructuralGrid::finish() const {
  if (!flights_.empty() || !out_.empty())
    throw StructuralMismatch(fmt::format("structural check: the register grid ended with {} step(s) of the structural "
                                         "grid still on their way out ({})", flights_.size() + out_.size(), name()));
}

void RsStructuralGrid::trace(sc_core::sc_trace_file* tf) const {
  trace_common(tf);
  const std::string n = name();
  sc_core::sc_trace(tf, cfg_load_, n + ".cfg_load");
  sc_core::sc_trace(tf, cfg_, n + ".cfg");
  sc_core::sc_trace(tf, step_start_, n + ".step_start");
  sc_core::sc_trace(tf, step_col_, n + ".step_col");
  sc_core::sc_trace(tf, step_tag_, n + ".step_tag");
  trace_words(tf, fb_valid_, 0, kRsBusLanes, n + ".fb_valid");
  trace_words(tf, fb_dest_, 0, kRsBusLanes, n + ".fb_dest");
  trace_words(tf, fb_addr_, 0, kRsBusLanes, n + ".fb_addr");
  trace_words(tf, fb_data_, 0, kRsBusLanes, n + ".fb_data");
  sc_core::sc_trace(tf, ib_valid_, n + ".ib_valid");
  sc_core::sc_trace(tf, ib_set_, n + ".ib_set");
  sc_core::sc_trace(tf, ib_row_, n + ".ib_row");
  sc_core::sc_trace(tf, ib_data_, n + ".ib_data");
  trace_words(tf, pb_valid_, 0, kRsBusLanes, n + ".pb_valid");
  trace_words(tf, pb_dest_, 0, kRsBusLanes, n + ".pb_dest");
  trace_words(tf, pb_k_, 0, kRsBusLanes, n + ".pb_k");
  trace_words(tf, pb_data_, 0, kRsBusLanes, n + ".pb_data");
  const size_t W = size_t(sizes_.psum);
  for (size_t k = 0; k < pes_.size(); ++k) {
    const int row = rs_path_row(R_, int(k)), col = rs_path_col(R_, int(k));
    const RsPe& p = pes_[k];
    for (size_t b = 0; b < 2; ++b) {
      sc_core::sc_trace(tf, link_valid_[k * 2 + b], pe_name(row, col, b ? "link_valid_1" : "link_valid_0"));
      sc_core::sc_trace(tf, link_tag_[k * 2 + b], pe_name(row, col, b ? "link_tag_1" : "link_tag_0"));
      trace_words(tf, link_, (k * 2 + b) * W, W, pe_name(row, col, b ? "link_1" : "link_0"));
    }
    // The PE's own registers (its filter scratchpad, an SRAM, is left out).
    trace_words(tf, p.psum, 0, p.psum.size(), pe_name(row, col, "psum"));
    trace_words(tf, p.window, 0, p.window.size(), pe_name(row, col, "window"));
    sc_core::sc_trace(tf, p.fifo_count, pe_name(row, col, "fifo"));
    sc_core::sc_trace(tf, p.mac, pe_name(row, col, "mac"));
    sc_core::sc_trace(tf, p.computing, pe_name(row, col, "computing"));
  }
}

}  // namespace cstsim::structural
