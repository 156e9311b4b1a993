#include "plan/rs_plan.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "plan/fold_plan.h"

namespace cstsim {

namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Distinct ifmap rows a set of `rows` ofmap rows x `filter_rows` filter rows reads: PE (y, x)
// reads row U x + y, so the diagonals overlap when U <= filter_rows.
int64_t distinct_rows(int64_t U, int64_t rows, int64_t filter_rows) {
  return U <= filter_rows ? U * (rows - 1) + filter_rows : rows * filter_rows;
}

}  // namespace

RsPlanResult plan_rs(const RsShape& s, const RsLimits& lim) {
  RsPlanResult out;
  if (s.S > lim.ifmap_spad) {
    out.why_not = fmt::format("a filter row of {} values does not fit the ifmap scratchpad of {} words (row stationary "
                              "slides a window of S values)", s.S, lim.ifmap_spad);
    return out;
  }
  if (s.S > lim.filter_spad) {
    out.why_not = fmt::format("a filter row of {} values does not fit the filter scratchpad of {} words", s.S,
                              lim.filter_spad);
    return out;
  }
  if (lim.psum_spad < 1) {
    out.why_not = "the psum scratchpad holds no psum";
    return out;
  }
  const int64_t F = s.F();
  const RsPlacement widest = place_rs({s.R, s.H, s.U}, lim.rows, lim.cols);
  // Strip-mined sets may take narrower strips, several side by side; other placements are fixed.
  const int64_t narrowest = widest.strips > 1 ? 1 : widest.width;
  struct Candidate {
    RsMapping mapping;
    double energy = 0;  // DRAM and global-buffer words at 200 : 6 (Sze et al., Proc. IEEE 2017, Fig. 22)
    double cycles = 0;  // the passes' steps at the pace of their slowest part
  };
  int64_t smallest_need = -1;  // bits of the smallest pass group, for the message
  int64_t smallest_filters = -1;  // bits of the fewest filters a pass can hold, for the message
  // Every mapping, in a fixed order, to `visit` (twice below: no list of them is kept).
  bool fewer_sets = false;  // also mappings that replicate fewer filter sets than fit (t), see below
  auto enumerate = [&](auto&& visit) {
    for (int64_t width = widest.width; width >= narrowest; --width) {
      const RsPlacement place = widest.strips > 1 ? place_rs({s.R, s.H, s.U}, lim.rows, lim.cols, width) : widest;
      const int64_t replicas = place.down * place.across;
      const int64_t strip_rows = distinct_rows(s.U, place.width, place.height);
      const int64_t reductions_per_q = ceil_div(s.R, place.height);
      const int64_t window_reads = s.S + (F - 1) * std::min(s.U, s.S);  // ifmap values a PE row takes per image
      for (int64_t q = std::min(s.C, lim.ifmap_spad / s.S); q >= 1; --q) {
        if (q * s.S > lim.filter_spad) continue;
        for (int64_t p = std::min({s.M, lim.psum_spad, lim.filter_spad / (q * s.S)}); p >= 1; --p)
          for (int64_t r = 1; r <= std::min(replicas, ceil_div(s.C, q)); ++r) {
            int64_t t = std::min(replicas / r, ceil_div(s.M, p));
            if (lim.glb_filter_bits > 0) {  // a pass's p t filters (at most M) must fit the filter partition
              const int64_t filter_bits = std::min(s.C, q * r) * std::min(s.R, place.height) * s.S * lim.weight_bits;
              const int64_t most = lim.glb_filter_bits / filter_bits;
              if (smallest_filters < 0 || p * filter_bits < smallest_filters) smallest_filters = p * filter_bits;
              if (most < p) continue;
              if (most < s.M) t = std::min(t, most / p);
            }
            if (t < 1) continue;
            const int64_t most_t = t, reductions = ceil_div(s.C, q * r) * reductions_per_q;
            for (int64_t n = 1; n <= s.N; ++n) {
              const int64_t ifmap_values = n * q * r * strip_rows * s.W;
              const int64_t psum_row = place.width * F;
              const bool apart = lim.glb_ifmap_bits > 0;
              if (apart && ifmap_values * lim.ifmap_bits > lim.glb_ifmap_bits) continue;
              const int64_t room = apart ? lim.glb_psum_bits : lim.glb_bits - ifmap_values * lim.ifmap_bits;
              t = most_t;
              // Second search only: fewer filter sets than the array holds, when the psums of all
              // of them do not fit (a wide GEMM on a large array: every set's psum row is long).
              if (fewer_sets && n * std::min(s.M, p * t) * psum_row * lim.psum_bits > room)
                t = std::min(t, room / std::max<int64_t>(1, n * p * psum_row * lim.psum_bits));
              if (t < 1) continue;
              const int64_t block = p * t;
              const int64_t one_block = n * std::min(s.M, block) * psum_row * lim.psum_bits;
              if (smallest_need < 0 || ifmap_values * lim.ifmap_bits + one_block < smallest_need)
                smallest_need = ifmap_values * lim.ifmap_bits + one_block;
              if (room < one_block) continue;
              const int64_t k = std::min(ceil_div(s.M, block), room / (n * block * psum_row * lim.psum_bits));
              const int64_t filters = std::min(s.M, std::max<int64_t>(1, k) * block);
              // Words over a group (layer / groups), from the pass loop (make_rs_layer_plan).
              const double images = double(s.N), strips = double(place.strips), wide = double(place.strips * place.width);
              const double ifmap_dram = double(ceil_div(s.M, filters)) * images * s.C * strips * strip_rows * s.W;
              const double filter_words = double(s.M) * s.C * s.R * s.S * strips * double(ceil_div(s.N, n));
              const double ifmap_glb = images * s.C * strips * strip_rows * window_reads * double(ceil_div(s.M, block));
              const double psums = images * s.M * wide * F * double(2 * reductions - 1);
              const double passes = double(ceil_div(s.M, filters)) * strips * double(ceil_div(s.N, n)) *
                                    double(reductions) * double(ceil_div(filters, block));
              // A step takes its MACs, or longer where a network cannot keep up: the psums out (and
              // back in) 4 a cycle, the new ifmap values one a cycle.
              const double step = std::max({double(q * s.S * p), std::ceil(double(block * place.width) / 4),
                                            double(q * r * strip_rows * std::min(s.U, s.S))});
              Candidate c;
              c.energy = 200 * (ifmap_dram + filter_words) + 6 * (ifmap_glb + filter_words + psums);
              c.cycles = passes * double(n * F) * step;
              RsMapping& m = c.mapping;
              m.place = place;
              m.n = n;
              m.p = p;
              m.q = q;
              m.r = r;
              m.t = t;
              m.m = filters;
              m.glb_ifmap_values = ifmap_values;
              m.glb_psum_values = n * filters * psum_row;
              visit(c);
            }
          }
      }
    }
  };
  // Throughput first: of the mappings within 5 % of the fewest cycles, the least energy. Only
  // when none fits, a second search also replicates fewer filter sets than the array holds.
  bool found = false;
  for (int search = 0; search < 2 && !found; ++search) {
    fewer_sets = search == 1;
    double fastest = -1;
    enumerate([&](const Candidate& c) { fastest = fastest < 0 ? c.cycles : std::min(fastest, c.cycles); });
    double least = 0;
    enumerate([&](const Candidate& c) {
      if (c.cycles > 1.05 * fastest || (found && c.energy >= least)) return;
      found = true;
      least = c.energy;
      out.mapping = c.mapping;
    });
  }
  if (!found && smallest_need < 0 && smallest_filters >= 0)
    out.why_not = fmt::format("a pass's filters take at least {} bytes, more than the filter partition's {} "
                              "(sram.filter_kib)", (smallest_filters + 7) / 8, lim.glb_filter_bits / 8);
  else if (!found)
    out.why_not = fmt::format("the global buffer's {} bytes do not hold one pass's ifmap rows and psums (at least {} "
                              "bytes)", lim.glb_bits / 8, (smallest_need + 7) / 8);
  return out;
}

RsLayerPlan make_rs_layer_plan(const RsShape& s, const RsMapping& m) {
  if (m.n < 1 || m.p < 1 || m.q < 1 || m.r < 1 || m.t < 1 || m.m < 1)
    throw std::invalid_argument("make_rs_layer_plan: mapping parameters must be positive");
  RsLayerPlan plan;
  plan.shape = s;
  plan.mapping = m;
  const int64_t E = s.E(), width = m.place.width, height = m.place.height;
  const int64_t reductions = ceil_div(s.C, m.q * m.r) * ceil_div(s.R, height);
  for (int64_t g = 0; g < s.groups; ++g)
    for (int64_t fb = 0; fb < s.M; fb += m.m) {
      const int64_t block_end = std::min(s.M, fb + m.m);
      for (int64_t e0 = 0; e0 < E; e0 += width)
        for (int64_t i0 = 0; i0 < s.N; i0 += m.n) {
          std::vector<int64_t> last_of_filters;  // per filter set of the block: its latest pass
          int64_t reduction = 0;
          for (int64_t c0 = 0; c0 < s.C; c0 += m.q * m.r)
            for (int64_t r0 = 0; r0 < s.R; r0 += height, ++reduction) {
              size_t slot = 0;
              for (int64_t f0 = fb; f0 < block_end; f0 += m.p * m.t, ++slot) {
                RsPass p;
                p.group = g;
                p.image0 = i0;
                p.images = std::min(m.n, s.N - i0);
                p.row0 = e0;
                p.rows = std::min(width, E - e0);
                p.filter_row0 = r0;
                p.filter_rows = std::min(height, s.R - r0);
                p.channel0 = c0;
                p.channels = std::min(m.q * m.r, s.C - c0);
                p.filter0 = f0;
                p.filters = std::min(m.p * m.t, block_end - f0);
                p.first_reduction = reduction == 0;
                p.last_reduction = reduction == reductions - 1;
                p.new_ifmap_block = f0 == fb;
                if (last_of_filters.size() <= slot) last_of_filters.resize(slot + 1, -1);
                p.producer = last_of_filters[slot];
                last_of_filters[slot] = int64_t(plan.passes.size());
                plan.passes.push_back(p);
              }
            }
        }
    }
  return plan;
}

int64_t RsPassShape::step_words(const RsShape& s, int64_t j) const {
  const int64_t f = j % s.F();
  return ifmap_rows * (f == 0 ? s.S : std::min(s.U, s.S));
}

RsPassShape rs_pass_shape(const RsLayerPlan& plan, const RsPass& pass) {
  const RsShape& s = plan.shape;
  const RsMapping& m = plan.mapping;
  RsPassShape out;
  out.q_max = std::min(m.q, pass.channels);
  out.p_max = std::min(m.p, pass.filters);
  out.steps = pass.images * s.F();
  out.step_cycles = out.q_max * s.S * out.p_max;
  out.filter_words = pass.filters * pass.channels * pass.filter_rows * s.S;
  out.psum_words = pass.filters * pass.rows;
  const int64_t r_sets = ceil_div(pass.channels, m.q), t_sets = ceil_div(pass.filters, m.p);
  out.chain = r_sets * pass.filter_rows;
  out.active_pes = r_sets * t_sets * pass.filter_rows * pass.rows;
  out.ifmap_rows = pass.channels * distinct_rows(s.U, pass.rows, pass.filter_rows);
  out.macs = pass.filters * pass.channels * pass.filter_rows * s.S * pass.rows * s.F() * pass.images;
  return out;
}

int64_t rs_gated_macs(const RsLayerPlan& plan, const RsPass& pass) {
  if (plan.gating_density >= 1) return 0;
  const RsShape& s = plan.shape;
  const int64_t values = s.groups * s.N * s.C * s.H * s.W, zeros = FoldPlan::zero_count(values, plan.gating_density);
  if (zeros == 0) return 0;
  // PEs (y, x) that read ifmap row U x + y of the strip, and output columns whose window holds column w.
  std::vector<int64_t> readers(size_t(s.U * (pass.rows - 1) + pass.filter_rows), 0), cover(size_t(s.W), 0);
  for (int64_t y = 0; y < pass.filter_rows; ++y)
    for (int64_t x = 0; x < pass.rows; ++x) ++readers[size_t(s.U * x + y)];
  for (int64_t f = 0; f < s.F(); ++f)
    for (int64_t q = 0; q < s.S; ++q) ++cover[size_t(s.U * f + q)];
  int64_t uses = 0;
  for (int64_t i = pass.image0; i < pass.image0 + pass.images; ++i)
    for (int64_t c = pass.channel0; c < pass.channel0 + pass.channels; ++c)
      for (size_t rel = 0; rel < readers.size(); ++rel) {
        if (readers[rel] == 0) continue;
        const int64_t h = s.U * pass.row0 + pass.filter_row0 + int64_t(rel);
        const int64_t row = (((pass.group * s.N + i) * s.C + c) * s.H + h) * s.W;
        for (int64_t w = 0; w < s.W; ++w)
          if (cover[size_t(w)] && FoldPlan::is_placed_zero(row + w, values, zeros)) uses += readers[rel] * cover[size_t(w)];
      }
  return uses * pass.filters;
}

int64_t rlc_bits(int64_t values, double density, int bits) {
  if (values <= 0) return 0;
  const int64_t zeros = density >= 1 ? 0 : std::min(values, int64_t(std::floor((long double)values * (1.0L - density))));
  const int64_t nonzeros = values - zeros;
  // nonzeros + 1 gaps (before each nonzero, and after the last) share the zeros evenly.
  const int64_t gaps = nonzeros + 1, base = zeros / gaps, longer = zeros % gaps;
  int64_t pairs = nonzeros + (gaps - longer) * (base / 32) + longer * ((base + 1) / 32);
  const int64_t tail = base;  // the last gap is one of the shorter ones
  if (tail % 32 != 0) pairs += 1;  // trailing zeros: a pair of their own (a run and a zero)
  const int64_t per_word = 64 / (5 + bits);
  return (pairs + per_word - 1) / per_word * 64;
}

RsPassTraffic rs_pass_traffic(const RsLayerPlan& plan, const RsPass& pass) {
  const RsShape& s = plan.shape;
  RsPassTraffic t;
  t.filter_bits = pass.filters * pass.channels * pass.filter_rows * s.S * plan.weight_bits;
  auto fmap = [&](int64_t values, const RsCoding& c) {
    return c.rlc ? rlc_bits(values, c.density, plan.act_bits) : values * plan.act_bits;
  };
  if (pass.new_ifmap_block)
    t.ifmap_bits = fmap(pass.images * pass.channels * distinct_rows(s.U, pass.rows, pass.filter_rows) * s.W, plan.ifmap);
  if (pass.last_reduction) t.ofmap_bits = fmap(pass.images * pass.filters * pass.rows * s.F(), plan.ofmap);
  return t;
}

}  // namespace cstsim
