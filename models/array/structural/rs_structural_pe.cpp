#include "models/array/structural/rs_structural_pe.h"

#include <algorithm>

#include "plan/rs_plan.h"

namespace cstsim::structural {

bool RsPeConfig::operator==(const RsPeConfig& o) const {
  return rows == o.rows && filter_rows == o.filter_rows && r_sets == o.r_sets && t_sets == o.t_sets &&
         channels == o.channels && filters == o.filters && q == o.q && p == o.p && S == o.S && U == o.U &&
         first_reduction == o.first_reduction;
}

std::ostream& operator<<(std::ostream& os, const RsPeConfig& c) {
  return os << "{rows " << c.rows << ", filter rows " << c.filter_rows << ", sets " << c.r_sets << "x" << c.t_sets
            << ", q " << c.q << ", p " << c.p << "}";
}

void sc_trace(sc_core::sc_trace_file* tf, const RsPeConfig& c, const std::string& name) {
  sc_core::sc_trace(tf, c.rows, name + ".rows");
  sc_core::sc_trace(tf, c.filter_rows, name + ".filter_rows");
  sc_core::sc_trace(tf, c.r_sets, name + ".r_sets");
  sc_core::sc_trace(tf, c.t_sets, name + ".t_sets");
  sc_core::sc_trace(tf, c.first_reduction, name + ".first_reduction");
}

namespace {

// Chains stacked in one column (0: they follow each other along the path instead).
int chains_per_column(const RsPeConfig& c, int rows, int cols) {
  const int P = c.chain();
  if (P > rows) return 0;
  const int per = rows / P;
  return (c.chains() + per - 1) / per <= cols ? per : 0;
}

bool fits(const RsPeConfig& c, int rows, int cols) {
  return c.chain() > 0 && int64_t(c.chains()) * c.chain() <= int64_t(rows) * cols;
}

}  // namespace

int rs_path_index(const RsPeConfig& c, int rows, int cols, int chain, int pos) {
  if (!fits(c, rows, cols)) return -1;
  const int per = chains_per_column(c, rows, cols);
  return per ? (chain / per) * rows + (chain % per) * c.chain() + pos : chain * c.chain() + pos;
}

RsPlace rs_place(const RsPeConfig& c, int rows, int cols, int k) {
  RsPlace p;
  if (!fits(c, rows, cols)) return p;
  const int P = c.chain(), per = chains_per_column(c, rows, cols);
  int chain = k / P, pos = k % P;
  if (per) {
    const int w = k % rows;
    if (w / P >= per) return p;  // above the column's last chain
    chain = (k / rows) * per + w / P;
    pos = w % P;
  }
  if (chain >= c.chains()) return p;
  p.active = true;
  p.chain = chain;
  p.pos = pos;
  p.ti = chain / c.rows;
  p.x = chain % c.rows;
  p.ri = pos / c.filter_rows;
  p.y = pos % c.filter_rows;
  return p;
}

RsPe::RsPe(const sc_core::sc_module_name& name, int rows, int cols, int index, int link_words, int ifmap_spad)
    : PeBase(name, 1), fb_valid("fb_valid", kRsBusLanes), fb_dest("fb_dest", kRsBusLanes),
      fb_addr("fb_addr", kRsBusLanes), fb_data("fb_data", kRsBusLanes), pb_valid("pb_valid", kRsBusLanes),
      pb_dest("pb_dest", kRsBusLanes), pb_k("pb_k", kRsBusLanes), pb_data("pb_data", kRsBusLanes),
      link_valid_in("link_valid_in", 2), link_tag_in("link_tag_in", 2), link_in("link_in", size_t(2 * link_words)),
      link_valid("link_valid", 2), link_tag("link_tag", 2), link("link", size_t(2 * link_words)),
      window(size_t(ifmap_spad), 0), psum(size_t(link_words), 0),
      psum_in(size_t(link_words), 0), fifo(size_t(ifmap_spad), 0), rows_(rows), cols_(cols), index_(index),
      W_(link_words) {
  for (auto& d : done_) d.assign(size_t(W_), 0);
  SC_METHOD(edge);
  sensitive << clk.pos();
  dont_initialize();
}

// A step's psums climb the chain on plane b: the bottom PE sends its own the edge after its
// last MAC; every other PE adds its own to the link from below when it carries the same step.
void RsPe::chain_plane(int b) {
  const size_t base = size_t(b) * W_;
  bool valid = false;
  if (launch_[b]) {
    launch_[b] = false;
    valid = true;
    for (int k = 0; k < W_; ++k) link[base + k].write(add_bits(arith, 0, done_[b][size_t(k)]));
  } else if (link_valid_in[b].read() && link_tag_in[b].read() == done_tag_[b] && !done_bottom_[b]) {
    valid = true;
    for (int k = 0; k < W_; ++k) link[base + k].write(add_bits(arith, link_in[base + k].read(), done_[b][size_t(k)]));
  }
  link_valid[b].write(valid);
  link_tag[b].write(valid ? done_tag_[b] : -1);
}

void RsPe::edge() {
  if (rst.read()) {
    std::fill(filter.begin(), filter.end(), 0u);
    std::fill(window.begin(), window.end(), 0u);
    std::fill(psum.begin(), psum.end(), 0u);
    std::fill(psum_in.begin(), psum_in.end(), 0u);
    fifo_head = fifo_count = mac = 0;
    computing = false;
    macs = zero_macs = dropped = 0;
    config = {};
    place = {};
    for (int b = 0; b < 2; ++b) {
      std::fill(done_[b].begin(), done_[b].end(), 0u);
      done_tag_[b] = -1, done_bottom_[b] = launch_[b] = false;
      link_valid[b].write(false);
      link_tag[b].write(-1);
    }
    for (auto& w : link) w.write(0);
    tag_ = -1;
    return;
  }
  // A new pass: its configuration, and scratchpads cleared (the chain planes keep the last
  // steps of the pass before, still climbing).
  if (cfg_load.read()) {
    config = cfg.read();
    place = rs_place(config, rows_, cols_, index_);
    filter.assign(size_t(config.p_max()) * config.q_max() * config.S, 0u);
    std::fill(window.begin(), window.end(), 0u);
    std::fill(psum.begin(), psum.end(), 0u);
    fifo_head = fifo_count = mac = 0;
    computing = false;
  }
  for (int b = 0; b < 2; ++b) chain_plane(b);

  const RsPeConfig& c = config;
  const int S = c.S, U = c.U, q_max = c.q_max(), p_max = c.p_max();
  const int q_share = int(rs_share(c.channels, c.q, place.ri)), p_share = int(rs_share(c.filters, c.p, place.ti));
  const int ring = int(fifo.size());
  if (place.active && step_start.read()) {
    // The window slides by U: the values it keeps move down, the new ones come from the FIFO.
    const int keep = step_col.read() == 0 ? 0 : std::max(0, S - U);
    for (int ch = 0; ch < q_share; ++ch) {
      for (int s = 0; s < keep; ++s) window[size_t(ch * S + s)] = window[size_t(ch * S + s + U)];
      for (int s = keep; s < S; ++s) {
        window[size_t(ch * S + s)] = fifo_count > 0 ? fifo[size_t(fifo_head)] : 0u;
        if (fifo_count > 0) fifo_head = (fifo_head + 1) % ring, --fifo_count;
      }
    }
    std::fill(psum.begin(), psum.end(), 0u);
    if (!c.first_reduction && place.pos == 0)
      for (int k = 0; k < p_share; ++k) psum[size_t(k)] = psum_in[size_t(k)];
    computing = true;
    mac = 0;
    tag_ = step_tag.read();
  }
  if (computing) {
    const int ch = mac / (S * p_max), s = mac / p_max % S, k = mac % p_max;
    if (ch < q_share && k < p_share) {
      const uint32_t x = window[size_t(ch * S + s)];
      psum[size_t(k)] = planted(mac_bits(arith, psum[size_t(k)], x, filter[size_t((k * q_max + ch) * S + s)]));
      ++macs;
      zero_macs += (arith == PeArith::Int ? x : x & 0x7fffffffu) == 0;
    }
    if (++mac == q_max * S * p_max) {  // the step's last MAC: its psums wait for the chain
      computing = false;
      const int b = tag_ & 1;
      std::copy(psum.begin(), psum.end(), done_[b].begin());
      done_tag_[b] = tag_;
      done_bottom_[b] = launch_[b] = place.pos == 0;
    }
  }
  // The networks' words of this cycle, for the PEs whose ID they name.
  if (!place.active) return;
  const int set_row = (place.ri * c.t_sets + place.ti) * c.filter_rows + place.y;
  for (int n = 0; n < kRsBusLanes; ++n)
    if (fb_valid[n].read() && fb_dest[n].read() == set_row) {
      const size_t addr = size_t(fb_addr[n].read());
      if (addr < filter.size()) filter[addr] = fb_data[n].read();
      else ++dropped;
    }
  if (ib_valid.read() && ib_set.read() == place.ri && ib_row.read() == U * place.x + place.y) {
    if (fifo_count == ring) {
      ++dropped;
    } else {
      fifo[size_t((fifo_head + fifo_count) % ring)] = ib_data.read();
      ++fifo_count;
    }
  }
  if (place.pos == 0)
    for (int n = 0; n < kRsBusLanes; ++n)
      if (pb_valid[n].read() && pb_dest[n].read() == place.chain) psum_in[size_t(pb_k[n].read())] = pb_data[n].read();
}

}  // namespace cstsim::structural
