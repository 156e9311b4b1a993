#include "models/array/sampled_source.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "core/interval.h"
#include "models/array/array_dataflow.h"
#include "models/base/stall_causes.h"

namespace cstsim {

namespace {

// sum += now - before, the figures that add up.
void add_stats(HierarchyLayerStats& sum, const HierarchyLayerStats& now, const HierarchyLayerStats& before) {
  sum.shared += now.shared - before.shared;
  sum.dma_requests += now.dma_requests - before.dma_requests;
  sum.dma_pieces += now.dma_pieces - before.dma_pieces;
  sum.spad_conflict_cycles += now.spad_conflict_cycles - before.spad_conflict_cycles;
}

// The half-width of an interval whose own part and shared parts (SampleReport) are independent.
double combined(double own, const std::map<uint64_t, double>& shared) {
  double v = own * own;
  for (const auto& [key, ci] : shared) v += ci * ci;
  return std::sqrt(v);
}

}  // namespace

void SampleReport::set_interval(double own, uint64_t key, double shared) {
  own_ci95 = own;
  shared_ci95.clear();
  if (shared > 0) shared_ci95[key] = shared;
  ci95_cycles = combined(own_ci95, shared_ci95);
}

void SampleReport::add_own(double ci95) {
  own_ci95 = std::hypot(own_ci95, ci95);
  ci95_cycles = combined(own_ci95, shared_ci95);
}

SampleReport& SampleReport::operator+=(const SampleReport& o) {
  // Passes are independent strata but for the repeats' shared means: their own intervals add in
  // quadrature, the parts one key's passes share linearly.
  own_ci95 = std::hypot(own_ci95, o.own_ci95);
  for (const auto& [key, ci] : o.shared_ci95) shared_ci95[key] += ci;
  ci95_cycles = combined(own_ci95, shared_ci95);
  const int64_t skipped = folds - detailed_folds, other_skipped = o.folds - o.detailed_folds;
  if (skipped + other_skipped > 0)
    mean_stall = (mean_stall * double(skipped) + o.mean_stall * double(other_skipped)) / double(skipped + other_skipped);
  folds += o.folds;
  detailed_folds += o.detailed_folds;
  measured_folds += o.measured_folds;
  windows += o.windows;
  repeats += o.repeats;
  degenerate = degenerate || o.degenerate;
  return *this;
}

int64_t SampledSource::first_phase(const FoldPlan& plan) {
  // The first column fold's row folds load the stream slices the later column folds find
  // resident: a phase of its own, simulated whole when it is at most an eighth of the pass.
  const int64_t period = plan.row_folds * plan.k_chunks, F = int64_t(plan.folds.size());
  return period <= F / 8 ? period : 0;
}

int SampledSource::check_folds(const FoldPlan& plan, const SamplingParams& params) {
  // A quarter of a short pass, at least 8 folds; 16 of a long one (its fill and the start of its
  // stream: a rate 1 % off shows as a few cycles by then); and its first phase.
  const int64_t F = int64_t(plan.folds.size());
  const int64_t c = std::max<int64_t>({8, std::min<int64_t>(F / 4, params.check), first_phase(plan)});
  return int(std::min<int64_t>(F - 1, c));
}

SampledSource::SampledSource(std::unique_ptr<HierarchySource> inner, const FoldPlan& plan, int64_t start,
                             const SamplingParams& params, const RepeatCheck* repeat, Check check)
    : inner_(std::move(inner)), plan_(plan), params_(params), start_(start), repeat_(repeat) {
  const int F = int(plan.folds.size());
  role_.assign(size_t(F), Role::Detail);
  window_of_.assign(size_t(F), -1);
  warmup_of_.assign(size_t(F), -1);
  cooldown_of_.assign(size_t(F), -1);
  timed_.resize(size_t(F));
  pending_answer_.assign(size_t(F), -1);
  full_check_ = check_folds(plan, params);
  check_ = repeat_ && check == Check::Short ? 1 : full_check_;
  if (repeat_ && int(repeat_->starts.size()) < check_) throw std::logic_error("sampled source: a repeat check too long");
  // The control variate: the same pass's fold starts with ideal memory.
  const LayerTiming ideal = compute_layer_timing(plan, FoldPipeline::Overlapped, start, nullptr);
  ideal_start_.resize(size_t(F));
  for (int g = 0; g < F; ++g) ideal_start_[size_t(g)] = ideal.folds[size_t(g)].start;
  report_.folds = F;
  // Folds this short with ideal memory need a longer warm-up: the memory's backlog builds in cycles.
  const double fold_cycles = double(ideal_start_.back() - ideal_start_.front()) / std::max(1, F - 1);
  params_.warmup = params.warmup_for(fold_cycles);
  sampled_ = F >= params_.min_folds(params_.warmup) && fold_cycles >= params.min_period;
  if (fold_cycles < params.min_period) repeat_ = nullptr;  // nor a repeat
  // The head covers the first column fold's row folds when they are few (first_phase); a unit
  // covers whole column folds' row folds when they are few, so every phase of a pattern that
  // repeats with the row fold is in each window's mean; about `share` of the body is in windows,
  // at least min_windows of them and at most half of it. A pass with room for fewer is simulated
  // whole: it saves less than 2x, and 4 or 5 windows of a short pass left intervals of 2-5 % and
  // errors past 1 % on the random hierarchies (tests/sim/test_sampled.cpp).
  const int64_t period = plan.row_folds * plan.k_chunks;
  const int head = int(std::max<int64_t>({params_.head, repeat_ ? full_check_ : 0, first_phase(plan)}));
  const int tail = params_.tail + params_.warmup;
  // A column fold of fewer than twice max_unit row folds is a unit whole: units of max_unit at
  // phases spread over it see some of its phases once more than others, and a column fold's first
  // folds stall most (on 128x128 WS passes of 19-23 row folds, with the refresh phase
  // stratified: layers 1.6-2.5 % low, two totals past 1 % of 200 random hierarchies; whole, none:
  // docs/sampling.md). Twice max_unit (half units alternating halves measured 0.5 % low on the
  // decode step's 32-fold GEMVs) and longer: max_unit, phases spread.
  int64_t unit = params_.max_unit;
  if (period <= params_.max_unit)
    unit = period * ((8 + period - 1) / period);
  else if (period < 2 * params_.max_unit)
    unit = period;
  // After its unit a window simulates the folds the DMA would be fetching for meanwhile (as far
  // as its requests in flight reach), unmeasured: without them the unit's last folds have the
  // memory to themselves, as no stream's do (measured: 5 cycles a window low, 0.15 % a pass, on
  // a 1 x 11008 x 4096 bf16 GEMV; with one fold of cool-down within 0.01 %).
  const int64_t cool = params_.cooldown < 0 ? inner_->reach_folds() : params_.cooldown;
  const int64_t len = params_.warmup + unit + cool;
  // A unit shorter than the column fold's row folds starts at phases of it spread evenly.
  const std::vector<int64_t> starts =
      window_starts(head, F - tail - head, len, params_.share, params_.min_windows, params_.windows,
                    params_.seed * 0x9E3779B97F4A7C15ull + uint64_t(F), unit % period == 0 ? 0 : period, params_.warmup);
  const int64_t n = int64_t(starts.size());
  sampled_ = sampled_ && n >= params_.min_windows;
  if (sampled_) {
    std::fill(role_.begin() + head, role_.end() - tail, Role::Skipped);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t at = starts[size_t(i)];
      for (int64_t g = at; g < at + len; ++g) {
        const bool measured = g >= at + params_.warmup && g < at + params_.warmup + unit;
        role_[size_t(g)] = measured ? Role::Measured : Role::Detail;
        if (g >= at + params_.warmup + unit)
          cooldown_of_[size_t(g)] = int(i);
        else
          (measured ? window_of_ : warmup_of_)[size_t(g)] = int(i);
      }
    }
    window_sum_.assign(size_t(n), 0);
    window_n_.assign(size_t(n), 0);
    warm_sum_.assign(size_t(n), 0);
    warm_n_.assign(size_t(n), 0);
    cool_sum_.assign(size_t(n), 0);
    cool_n_.assign(size_t(n), 0);
    report_.windows = int(n);
    refresh_phase0_ = double((params_.seed * 0xBF58476D1CE4E5B9ull + uint64_t(F) * 0x9E3779B97F4A7C15ull) >> 11) * 0x1.0p-53;
  }
  if (repeat_ && check == Check::None) {  // the first occurrence's folds again, none simulated
    replayed_ = accepted_ = true;
    in_window_ = sampled_ = false;
    check_ = 0;
    report_.windows = 0;
    window_sum_.clear(), window_n_.clear(), warm_sum_.clear(), warm_n_.clear(), cool_sum_.clear(), cool_n_.clear();
    std::fill(role_.begin(), role_.end(), Role::Skipped);
    std::fill(window_of_.begin(), window_of_.end(), -1);
    std::fill(warmup_of_.begin(), warmup_of_.end(), -1);
    std::fill(cooldown_of_.begin(), cooldown_of_.end(), -1);
  }
  std::vector<uint8_t> skipped(size_t(F), 0);
  for (int g = 0; g < F; ++g) {
    skipped[size_t(g)] = role_[size_t(g)] == Role::Skipped;
    if (skipped[size_t(g)] && g < F - params_.tail - params_.warmup && !replayed_) last_skipped_ = g;
  }
  // The body's last skipped span, after the last window: it takes the settlement.
  for (settle_from_ = last_skipped_; settle_from_ > 0 && role_[size_t(settle_from_ - 1)] == Role::Skipped;) --settle_from_;
  inner_->skip_folds(skipped);
}

double spread_ci95(const std::vector<double>& block_means, int64_t block, double folds) {
  if (block_means.size() < 2 || folds <= 0) return 0;
  // A block's sum varies by block x sd; `folds` of them as folds / block independent blocks.
  const double sd = std::sqrt(mean_variance(block_means).second);
  return t95(int(block_means.size()) - 1) * sd * std::sqrt(double(block) * folds);
}

double SampledSource::mean_ci95(const std::vector<double>& means, double skipped) {
  if (means.size() < 2) return 0;
  const auto [mean, var] = mean_variance(means);
  return t95(int(means.size()) - 1) * std::sqrt(var / double(means.size())) * skipped;
}

std::vector<double> SampledSource::window_means() const {
  // A pass simulated whole: its folds after the check, as one window.
  if (!sampled_) return rest_n_ > 0 ? std::vector<double>{rest_sum_ / double(rest_n_)} : std::vector<double>{};
  std::vector<double> means;
  for (size_t i = 0; i < window_n_.size(); ++i)
    if (window_n_[i] > 0) means.push_back(window_sum_[i] / window_n_[i]);
  return means;
}

RepeatCheck SampledSource::as_repeat(const std::vector<int64_t>& load_starts) const {
  RepeatCheck r;
  // A pass simulated whole keeps every fold's start: its repeats follow it fold by fold. Timed
  // at the mean extra from their check on, a 256x256 array's attention heads (17 folds, the last
  // one column) came out 127 cycles a head short: the mean put the folds before the last one off
  // their real pattern, and the last fold's drain depends on the one before it.
  const int kept = sampled_ ? full_check_ : int(load_starts.size());
  for (int g = 0; g < kept; ++g) r.starts.push_back(load_starts[size_t(g)] - start_);
  r.mean = sampled_ ? report_.mean_stall : rest_n_ > 0 ? rest_sum_ / double(rest_n_) : 0.0;
  if (!sampled_) r.blocks = rest_blocks_;
  r.windows = int(window_means().size());
  return r;
}

void SampledSource::time_fold(int j, const std::vector<int64_t>& load_starts) {
  const ArrayDataflow& df = array_dataflow(plan_.dataflow);
  FoldTiming& t = timed_[size_t(j)];
  t.start = load_starts[size_t(j)];
  const int64_t S = df.stream_start(plan_, j, t.start, j > 0 ? timed_[size_t(j - 1)].first_input : 0);
  df.stream_events(plan_, plan_.folds[size_t(j)], S, t);
  t.end = t.first_output + t.output_rows - 1;
}

double SampledSource::estimate() const {
  if (accepted_ && (window_n_.empty() || window_n_[0] == 0)) return repeat_->mean;
  if (accepted_)  // its first window pooled with the key's windows so far
    return (repeat_->mean * std::max(1, repeat_->windows) + window_sum_[0] / window_n_[0]) / (std::max(1, repeat_->windows) + 1);
  double sum = 0;
  int n = 0;
  for (size_t i = 0; i < window_n_.size(); ++i)
    if (window_n_[i] > 0) sum += window_sum_[i] / window_n_[i], ++n;
  // The first window comes right after the head, before any skipped fold.
  if (n == 0) throw std::logic_error("sampled source: a fold skipped before any window was measured");
  return sum / n;
}

void SampledSource::measure(int g, int64_t begin, int64_t ready, const std::vector<int64_t>& load_starts) {
  if (g == 0) return;
  // How much longer than with ideal memory this fold came after the one before it.
  const int64_t start = std::max(begin, ready);
  const int64_t stall = (start - load_starts[size_t(g - 1)]) - (ideal_start_[size_t(g)] - ideal_start_[size_t(g - 1)]);
  // The largest stall of a fold in a steady stream: not the head's fill nor a warm-up.
  const int F = int(role_.size());
  if (role_[size_t(g)] == Role::Measured || (g >= params_.head / 2 && g < params_.head) || g >= F - params_.tail)
    max_stall_ = std::max(max_stall_, stall);
  if (const int w = window_of_[size_t(g)]; w >= 0) {
    window_sum_[size_t(w)] += double(stall);
    ++window_n_[size_t(w)];
  } else if (const int e = warmup_of_[size_t(g)]; e >= 0) {
    warm_sum_[size_t(e)] += double(stall);
    ++warm_n_[size_t(e)];
  } else if (const int c = cooldown_of_[size_t(g)]; c >= 0) {
    cool_sum_[size_t(c)] += double(stall);
    ++cool_n_[size_t(c)];
  } else if (!sampled_ && g >= check_) {
    rest_sum_ += double(stall);
    if (++rest_n_ % kSpreadBlock == 0) {  // a block's mean, for how far a repeat's rest may differ
      rest_blocks_.push_back((rest_sum_ - rest_block_from_) / kSpreadBlock);
      rest_block_from_ = rest_sum_;
    }
  }
}

int64_t SampledSource::ready(int g, const std::vector<int64_t>& load_starts) {
  if (pending_answer_[size_t(g)] >= 0) return pending_answer_[size_t(g)];
  for (; timed_count_ < g; ++timed_count_) time_fold(timed_count_, load_starts);
  const int64_t begin = array_dataflow(plan_.dataflow).earliest_start(plan_, g, start_, timed_);
  if (repeat_ && g == check_ && !accepted_) {
    // The check: does the last of its folds start where the first occurrence's did, and at its
    // pace? Agreed: within 8 cycles or 0.5 % of the first occurrence's cycles, and over the
    // check's second half within 8 cycles or 1 % of its span. The first folds' starts move by
    // up to 2 % of a short pass with the state its fill meets (the rows, the refresh phase, the
    // previous pass's write-back) and make it up within a few folds, so they are not compared.
    // The pace is the median of the second half's fold-to-fold differences from the first
    // occurrence's, times their count: a refresh landing in one fold is a one-off, not a pace
    // (with the span's ends compared, one per-bank REF failed the 32-block decode step's
    // q_proj checks, and each failure re-simulated a sampled pass and the next layer's check).
    // The interval takes the late pace's gap as if it went on over the rest of the pass
    // (repeat_ci95).
    const std::vector<int64_t>& was = repeat_->starts;
    const int h0 = (g - 1) / 2;
    const int64_t gap = (load_starts[size_t(g - 1)] - start_) - was[size_t(g - 1)];
    const int64_t late = was[size_t(g - 1)] - was[size_t(h0)];
    check_gap_ = gap;
    std::vector<int64_t> apart;
    for (int i = h0; i < g - 1; ++i)
      apart.push_back((load_starts[size_t(i + 1)] - load_starts[size_t(i)]) - (was[size_t(i + 1)] - was[size_t(i)]));
    std::sort(apart.begin(), apart.end());
    const size_t m = apart.size();
    check_drift_ = m == 0 ? 0 : int64_t(std::llround(double(apart[(m - 1) / 2] + apart[m / 2]) / 2.0 * double(m)));
    check_late_ = g - 1 - h0;
    if (std::abs(double(gap)) <= std::max(8.0, 0.005 * double(repeat_->cycles)) &&
        std::abs(double(check_drift_)) <= std::max(8.0, 0.01 * double(late))) {
      accepted_ = true;
      int keep = g;
      // A sampled pass keeps its first window, right after the check: it joins the key's windows
      // (ArrayModule::run_pass), and the skipped folds take their mean.
      while (sampled_ && keep < int(role_.size()) && role_[size_t(keep)] != Role::Skipped) ++keep;
      std::fill(role_.begin() + keep, role_.end(), Role::Skipped);
      last_skipped_ = -1;  // nothing to settle: the skipped folds take the first occurrence's mean
      inner_->skip_from(keep);
    } else if (check_ < full_check_) {
      check_ = full_check_;  // a short check that disagreed: the full one decides
    }
  }
  int64_t answer = 0;
  if (role_[size_t(g)] == Role::Skipped) {
    if (in_window_) {
      inner_->end_window(g, load_starts);
      in_window_ = false;
      if (lead_n_ > 0) last_lead_ = lead_sum_ / lead_n_, lead_sum_ = 0, lead_n_ = 0;
      if (in_unit_) {
        add_stats(unit_sum_, inner_->stats(), unit_begin_);
        unit_bytes_ += moved_bytes() - unit_bytes_begin_;
        in_unit_ = false;
      }
    }
    if (replayed_ && g < int(repeat_->starts.size())) {  // where the first occurrence's fold started
      pending_answer_[size_t(g)] = start_ + repeat_->starts[size_t(g)];
      return pending_answer_[size_t(g)];
    }
    if (accepted_ && g < int(repeat_->starts.size())) {
      // A short check agreed: the folds its full check would have covered come after the one
      // before as the first occurrence's did. The key's mean is of the folds after them, whose
      // stream is steady: given to these it missed their fill (measured on the decode step's
      // attention heads: 33 folds, about 40 cycles a head low).
      const std::vector<int64_t>& was = repeat_->starts;
      pending_answer_[size_t(g)] = load_starts[size_t(g - 1)] + (was[size_t(g)] - was[size_t(g - 1)]);
      return pending_answer_[size_t(g)];
    }
    // The fold comes after the one before it as it would with ideal memory, plus the mean extra.
    double s = estimate();
    ++skipped_;
    if (g == settle_from_ && last_skipped_ >= 0) {
      // Every window is measured: settle what the skipped folds got before against the final
      // mean, and what the windows' warm-ups took less than a steady stream would have (their
      // memory began at rest, without the backlog a stream builds), and as much for the tail's
      // warm-up to come; spread over the last skipped span.
      const double mean = s;
      double owed = mean * double(skipped_ - 1) - used_sum_;
      double entries = 0;
      for (size_t i = 0; i < warm_sum_.size(); ++i) entries += mean * double(warm_n_[i]) - warm_sum_[i];
      if (!warm_sum_.empty()) entries += entries / double(warm_sum_.size());
      // The cool-downs, which took less than a stream's folds would have (none at the tail).
      for (size_t i = 0; i < cool_sum_.size(); ++i) entries += mean * double(cool_n_[i]) - cool_sum_[i];
      settle_ = (owed + entries) / double(last_skipped_ - settle_from_ + 1);
    }
    if (last_skipped_ >= 0 && g >= settle_from_ && g <= last_skipped_) s += settle_;
    const double whole = std::floor(carry_ + s);
    carry_ = carry_ + s - whole;
    used_sum_ += whole;
    const int64_t after = load_starts[size_t(g - 1)] + (ideal_start_[size_t(g)] - ideal_start_[size_t(g - 1)]);
    answer = after + int64_t(whole);
    // A fold cannot start before the array lets it: a settlement it cannot take goes into the interval.
    if (settle_ < 0 && g >= settle_from_ && g <= last_skipped_ && answer < begin)  // into the interval
      unabsorbed_ += std::min(-settle_, double(begin - answer));
  } else {
    in_window_ = true;
    const bool first = starts_window(g) && !in_unit_;
    const HierarchyLayerStats before = first ? inner_->stats() : HierarchyLayerStats{};
    const int64_t moved_bytes_before = first ? moved_bytes() : 0;
    // After a skipped span the memory is idle and the window's first reads, whose slots freed
    // during it, wait: a stream's data comes in as far ahead of the array as the last unit
    // measured (its lead: none where memory paces the array, a FIFO's worth where the array
    // paces it), so they go that long, and a fetch from rest (the pass's first fold's wait),
    // before the array could begin the window. Enqueued at the skipped folds' estimated points
    // instead, they met the idle memory with a full FIFO's lead wherever the exact run had none,
    // and that lead outlasted any warm-up (docs/sampling.md).
    // Its refresh phase is a stratum too: the run's own there is not known (the time before the
    // window is estimated), and left to the estimate's clock, 6 windows of a 704-fold pass all
    // began at a like phase and met one all-bank REF a unit where the exact run meets 1.6 on
    // average: 1.8 % low, within an interval of 0.24 % (docs/sampling.md).
    if (g > 0 && role_[size_t(g - 1)] == Role::Skipped) {
      const int w = warmup_of_[size_t(g)] >= 0 ? warmup_of_[size_t(g)] : window_of_[size_t(g)];
      const double phase = w < 0 ? -1 : std::fmod(refresh_phase0_ + double(w) / double(std::max(1, report_.windows)), 1.0);
      inner_->start_window(g, begin - int64_t(last_lead_) - std::max<int64_t>(0, first_latency_), phase);
    }
    answer = inner_->ready(g, load_starts);
    if (g == 0) first_latency_ = answer - begin;
    if (role_[size_t(g)] == Role::Measured) lead_sum_ += double(std::max<int64_t>(0, begin - answer)), ++lead_n_;
    measure(g, begin, answer, load_starts);
    // A window's figures: from the memory at rest before it (its first question) to at rest after
    // it (end_window): every transfer it enqueued is done, so its bytes are the program's.
    if (!in_unit_ && starts_window(g)) {
      unit_begin_ = before;
      unit_bytes_begin_ = moved_bytes_before;
      in_unit_ = true;
    }
    // The HBM's own figures over the unit alone, from its first fold's data in to its last one's:
    // the warm-up's rows, opened cold after the idle span, are not the stream's.
    const bool measured = role_[size_t(g)] == Role::Measured;
    if (measured && !in_hbm_unit_) {
      hbm_begin_ = inner_->stats().shared;
      in_hbm_unit_ = true;
    } else if (in_hbm_unit_ && (size_t(g) + 1 == role_.size() || role_[size_t(g) + 1] != Role::Measured)) {
      hbm_sum_ += inner_->stats().shared - hbm_begin_;
      in_hbm_unit_ = false;
    }
  }
  pending_answer_[size_t(g)] = answer;
  return answer;
}

void SampledSource::explain_stall(int g, int64_t from, int64_t to, std::map<std::string, int64_t>& causes) const {
  if (role_[size_t(g)] != Role::Skipped) {
    std::map<std::string, int64_t> own;
    inner_->explain_stall(g, from, to, own);
    for (const auto& [cause, n] : own) {
      causes[cause] += n;
      if (role_[size_t(g)] == Role::Measured) measured_causes_[cause] += n;
    }
    return;
  }
  // A skipped fold's wait, split as the measured folds' waits were.
  add(causes, split_like(measured_causes_, to - from, stall_cause()));
}

int64_t SampledSource::drain(const std::vector<int64_t>& load_starts) {
  const int64_t end = inner_->drain(load_starts);
  finish_report();
  return end;
}

void SampledSource::finish_report() {
  SampleReport& r = report_;
  for (Role x : role_) {
    r.detailed_folds += x != Role::Skipped;
    r.measured_folds += x == Role::Measured;
  }
  const std::vector<double> means = window_means();
  const double mean = mean_variance(means).first;
  r.mean_stall = mean;
  if (spdlog::should_log(spdlog::level::debug))
    spdlog::debug("sampled pass: {} folds, window means {:.1f}, largest steady extra {}", r.folds,
                  fmt::join(means, " "), max_stall_);
  // The tail's warm-up was settled in advance at the windows' mean deficit.
  std::vector<double> deficits;
  for (size_t i = 0; i < warm_n_.size(); ++i)
    if (warm_n_[i] > 0) deficits.push_back(mean * double(warm_n_[i] + cool_n_[i]) - warm_sum_[i] - cool_sum_[i]);
  r.ci95_cycles = std::hypot(window_ci95(means, double(r.folds - r.detailed_folds), r.measured_folds, double(max_stall_),
                                         &r.degenerate),
                             shortfall_ci95(deficits));
  r.set_interval(r.ci95_cycles + unabsorbed_);
}

int64_t SampledSource::moved_bytes() const {
  const HierarchyLayerStats s = inner_->stats();
  return s.dma_bytes_delivered + s.dma_bytes_sent;
}

HierarchyLayerStats SampledSource::stats() const {
  HierarchyLayerStats s = inner_->stats();
  const auto [sim_read, sim_write] = inner_->simulated_bytes();
  const int64_t skipped_read = inner_->dma_plan().read_bytes() - sim_read;
  const int64_t skipped_write = inner_->dma_plan().write_bytes() - sim_write;
  // Bytes are the program's: what the skipped transfers would have moved, exactly.
  SharedStats& h = s.shared;
  h.hbm_bytes_read += skipped_read;
  s.dma_bytes_delivered += skipped_read;
  s.spad_bytes_written += skipped_read;
  h.hbm_bytes_written += skipped_write;
  s.dma_bytes_sent += skipped_write;
  s.spad_bytes_read += skipped_write;
  // The rest at the units' rate per byte. Refreshes are not estimated: the stack's refresh ran
  // on through the skipped spans.
  const int64_t skipped = skipped_read + skipped_write;
  // v += counted x skipped / bytes: `counted` over `bytes` stands for the skipped bytes.
  auto add = [skipped](int64_t& v, int64_t counted, int64_t bytes) {
    if (bytes > 0) v += int64_t((__int128(counted) * skipped + bytes / 2) / bytes);
  };
  const int64_t hbm_bytes = hbm_sum_.hbm_bytes_read + hbm_sum_.hbm_bytes_written;
  add(h.hbm_activates, hbm_sum_.hbm_activates, hbm_bytes);
  add(h.hbm_bursts, hbm_sum_.hbm_bursts, hbm_bytes);
  add(h.hbm_row_hits, hbm_sum_.hbm_row_hits, hbm_bytes);
  add(h.noc_flit_hops, unit_sum_.shared.noc_flit_hops, unit_bytes_);
  add(h.noc_packets, unit_sum_.shared.noc_packets, unit_bytes_);
  add(s.dma_requests, unit_sum_.dma_requests, unit_bytes_);
  add(s.dma_pieces, unit_sum_.dma_pieces, unit_bytes_);
  add(s.spad_conflict_cycles, unit_sum_.spad_conflict_cycles, unit_bytes_);
  return s;
}

}  // namespace cstsim
