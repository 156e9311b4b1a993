#include "models/array/rs_timing.h"

#include <algorithm>

#include "core/arith.h"
#include "models/array/rs_memory.h"

namespace cstsim {

RsLayerTiming compute_rs_timing(const RsLayerPlan& plan, int64_t start, RsMemory* memory,
                                std::vector<RsStepTiming>* steps) {
  RsLayerTiming out;
  out.start = start;
  out.end = start;
  std::vector<std::vector<int64_t>> written(plan.passes.size());  // per pass, per step: its last psum out
  int64_t gon_last = start - 1;            // the psum output network's last busy cycle
  int64_t gon_before_last = start - 1;     // ... at the end of the step before the last
  int64_t next_start = start;
  for (size_t pi = 0; pi < plan.passes.size(); ++pi) {
    const RsPass& pass = plan.passes[pi];
    const RsPassShape sh = rs_pass_shape(plan, pass);
    const int fold = int(pi);
    const int64_t P = memory ? std::max(next_start, memory->ready(pi, pi ? &out.passes.back() : nullptr)) : next_start;
    out.events.push_back({P, EventKind::FoldStart, fold, 0});
    out.events.push_back({P, EventKind::FirstInput, fold, 0});
    const int64_t filters_in = P + ceil_div(sh.filter_words, kRsWideNetworkWords);
    const int64_t psum_cycles = ceil_div(sh.psum_words, kRsWideNetworkWords);
    std::vector<int64_t>& gon = written[pi];
    gon.resize(size_t(sh.steps));
    int64_t send_end = P - 1, psin_end = P - 1, cstart = P, cend = P - 1;
    for (int64_t j = 0; j < sh.steps; ++j) {
      const int64_t room = j == 0 ? P : cstart;  // step j's words may go once step j-1 has started
      const int64_t send_start = std::max(send_end + 1, room);
      send_end = send_start + sh.step_words(plan.shape, j) - 1;
      int64_t psin_start = -1;
      int64_t ready = std::max({j == 0 ? filters_in : cend + 1, send_end + 1, gon_before_last + 1});
      if (!pass.first_reduction) {
        const int64_t made = written[size_t(pass.producer)][size_t(j)] + 1;
        psin_start = std::max({psin_end + 1, room, made});
        psin_end = psin_start + psum_cycles - 1;
        ready = std::max(ready, psin_end + 1);
        out.counts.psum_in_words += sh.psum_words;
      }
      cstart = ready;
      cend = cstart + sh.step_cycles - 1;
      const int64_t gon_start = std::max(cend + sh.chain, gon_last + 1);
      const int64_t gon_end = gon_start + psum_cycles - 1;
      if (steps)
        steps->push_back({int64_t(pi), j, send_start, send_end, psin_start, pass.first_reduction ? -1 : psin_end,
                          cstart, cend, gon_start, gon_end});
      gon_before_last = gon_last;
      gon_last = gon_end;
      gon[size_t(j)] = gon_end;
      out.events.push_back({gon_end, EventKind::OutputRow, fold, j});
      out.counts.ifmap_words += sh.step_words(plan.shape, j);
      out.counts.psum_out_words += sh.psum_words;
    }
    out.events.push_back({send_end, EventKind::LastInput, fold, 0});
    out.events.push_back({gon_last, EventKind::FoldEnd, fold, 0});
    out.passes.push_back({P, cend, send_end, gon_last, rs_gated_macs(plan, pass)});
    out.gated += out.passes.back().gated;
    out.counts.filter_words += sh.filter_words;
    out.counts.macs += sh.macs;
    out.end = std::max(out.end, gon_last);
    next_start = cend + 1;
  }
  out.array_end = out.end;
  if (memory && !out.passes.empty()) {
    out.memory_end = memory->drain(out.passes.back());
    out.end = std::max(out.end, out.memory_end);
  }
  return out;
}

}  // namespace cstsim
