#include "plan/rs_plan.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

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
  RsMapping& m = out.mapping;
  m.place = place_rs({s.R, s.H, s.U}, lim.rows, lim.cols);
  m.q = std::min(s.C, lim.ifmap_spad / s.S);
  while (m.q > 1 && lim.filter_spad / (m.q * s.S) < 1) --m.q;
  m.p = std::min({s.M, lim.psum_spad, lim.filter_spad / (m.q * s.S)});
  const int64_t replicas = m.place.down * m.place.across;
  m.t = std::min(replicas, ceil_div(s.M, m.p));
  m.r = std::max<int64_t>(1, std::min(replicas / m.t, ceil_div(s.C, m.q)));

  // Images and filters in the global buffer: the fewest DRAM words (ifmaps are read again for
  // every block of m filters, filters for every strip and block of n images), then more images.
  const int64_t strip_rows = distinct_rows(s.U, m.place.width, m.place.height);
  const int64_t psum_row = m.place.width * s.F();
  const int64_t block = m.p * m.t;
  int64_t best = -1;
  for (int64_t n = 1; n <= s.N; ++n) {
    const int64_t ifmap_words = n * m.q * m.r * strip_rows * s.W;
    for (int64_t k = ceil_div(s.M, block); k >= 1; --k) {
      const int64_t filters = std::min(s.M, k * block);
      const int64_t psum_words = n * filters * psum_row;
      if (ifmap_words + psum_words > lim.glb_words) continue;
      const int64_t dram = ceil_div(s.M, filters) * s.N * s.C * s.H * s.W +
                           s.M * s.C * s.R * s.S * ceil_div(s.N, n) * m.place.strips;
      if (best < 0 || dram <= best) {
        best = dram;
        m.n = n;
        m.m = filters;
        m.glb_ifmap_words = ifmap_words;
        m.glb_psum_words = psum_words;
      }
      break;  // the largest k that fits is the best for this n
    }
  }
  if (best < 0)
    out.why_not = fmt::format("the global buffer's {} words hold neither one image's ifmap rows ({} words) and the "
                              "psums of {} filters ({} words) of a pass",
                              lim.glb_words, m.q * m.r * strip_rows * s.W, std::min(s.M, block),
                              std::min(s.M, block) * psum_row);
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
