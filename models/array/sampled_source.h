#pragma once
// fidelity: sampled (docs/sampling.md). A stream pass through the full hierarchy is one stratum:
// its first folds (the fill, and the first column fold when it loads what the later ones find
// resident) and its last ones (the drain and write-back) are simulated in full, and of the body
// between them only windows: warm-up folds, whose memory refills the queues, a unit of measured
// folds (a column fold's row folds when there are at most 16, else 16, at phases of the column
// fold spread evenly over the windows), and a cool-down (the folds whose reads the DMA fetches
// meanwhile), one window in each of n >= 6 equal strata of the body (the first right after the
// head, the others at a seeded random place; a pass with room for fewer is simulated whole). A
// window's first reads go as far ahead of the array as the last unit's data came (its lead).
// Between windows the memory simulates nothing: the DMA program's transfers that
// serve only skipped folds never move (HierarchySource::skip_folds), and the HBM's clock, refresh
// included, runs on to the next window's first request.
//
// What is estimated is how much later than with ideal memory a fold starts after the one before
// it (the pass's own closed-form schedule with ideal memory is the control variate: zero extra
// wherever memory keeps up): the mean of the measured folds. A skipped fold's data is "ready" that
// much after the ideal increment, so the array's closed form times every fold, and the pass's
// cycles, from it. The reported 95 % interval is Student's t over the window means times the
// skipped folds; when the windows cannot tell (fewer than two, or every mean equal) it is the
// rule-of-three bound on how often the largest extra seen could have been missed, never zero.
// docs/sampling.md has the settlement, the counters and the repeats.
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/array/fold_timing.h"
#include "models/memory/hierarchy_source.h"

namespace cstsim {

struct SamplingParams {
  int head = 8;          // folds simulated from the pass's start
  int tail = 8;          // folds simulated at its end (after their warm-up)
  int warmup = 16;       // simulated before each window's unit, not measured (the memory's
                         // backlog builds over a few fifo_tiles of folds) ...
  int64_t warmup_cycles = 2048;  // ... and at least this long with ideal memory (short folds)
  int cooldown = -1;     // simulated after each window's unit, not measured; -1: the DMA's reach
                         // (HierarchySource::reach_folds)
  // Folds closer than this with ideal memory are run exact, repeats included: a DMA request's
  // round trip is then several folds, and a fold's time a poor unit to sample (measured: 5-20 %
  // off on 16x16 and 64x64 arrays, within 1 % from 128 cycles a fold on the presets); so are
  // passes with room for fewer than min_windows windows.
  double min_period = 128;
  int max_unit = 16;     // measured folds per window (a column fold's row folds when fewer)
  int min_windows = 6;   // windows in the body: about `share` of it, at least min_windows (a pass with
  int windows = 24;      // room for fewer is simulated whole), at most `windows`
  double share = 0.08;
  int check = 16;        // folds a repeat of a long pass simulates (check_folds)
  uint64_t seed = 1;     // where in its stratum each window lies
  // The warm-up of a pass whose folds take `period` cycles apart with ideal memory.
  int warmup_for(double period) const {
    return std::max(warmup, int(std::ceil(double(warmup_cycles) / std::max(1.0, period))));
  }
  // Passes with fewer folds (warm-up `w`) run exact: the head, the tail and two windows would be
  // most of them anyway.
  int64_t min_folds(int w) const { return 4 * (head + tail + w) + 2 * max_unit; }
};

// A repeat: a pass with the same key (the array module's memo) as one simulated before. Its
// first folds are simulated as a check against the first occurrence's starts (SampledSource::
// ready says how close); if it agrees, the rest is not simulated (but a sampled pass's first
// window) and the pass is the first one's again; else it goes on as any pass.
struct RepeatCheck {
  // The reference occurrence's fold starts, from its pass's start: every fold's if it was
  // simulated whole, its check's if it was sampled.
  std::vector<int64_t> starts;
  // The extra cycles a fold in the body: the mean of every window the key's passes measured
  // (their first occurrence's, a re-sampled one's, each sampled repeat's first), or a pass
  // simulated whole's folds' after its check.
  double mean = 0;
  int64_t cycles = 0;           // the reference's cycles
  int windows = 0;              // the windows pooled in `mean`
  // A pass simulated whole: the mean extra cycles of each kSpreadBlock folds after its check. A
  // repeat's folds are its state's own draw, not the reference's: their spread says how far
  // (spread_ci95).
  std::vector<double> blocks;
};

inline constexpr int kSpreadBlock = 8;
// The 95 % half-width of how far the sum of `folds` folds may lie from the same count at their
// mean, from the spread of `block_means` (means of `block` folds each, independent): 0 below two.
double spread_ci95(const std::vector<double>& block_means, int64_t block, double folds);

// What a sampled pass reports (ArrayLayerResult::sampling, summary.json).
struct SampleReport {
  int64_t folds = 0;           // of the pass
  int64_t detailed_folds = 0;  // simulated (head, tail, windows with their warm-up)
  int64_t measured_folds = 0;  // of those, the windows' units
  int windows = 0;
  double mean_stall = 0;       // cycles a skipped fold waited for its data, estimated
  double ci95_cycles = 0;      // half-width of the pass's cycles' 95 % interval: own (+) shared
  bool degenerate = false;     // the windows could not tell apart: ci95 from the rule of three
  int64_t repeats = 0;         // passes that reused an earlier one's after their check agreed
  // The interval's parts: its own (independent of every other pass's), and per repeat key the
  // part that comes from the key's pooled mean, which every repeat of the key shares: those add
  // up linearly over the key's passes, the rest in quadrature.
  double own_ci95 = 0;
  std::map<uint64_t, double> shared_ci95;
  void set_interval(double own, uint64_t key = 0, double shared = 0);
  void add_own(double ci95);  // another independent part of its own, in quadrature
  SampleReport& operator+=(const SampleReport& o);
};

class SampledSource : public TileSource {
 public:
  // The pass must be its own, on one cluster (HierarchySource::skip_folds). With at least
  // params.min_folds() folds it is sampled; a shorter one is simulated whole (a first occurrence,
  // for its repeats) unless `repeat` agrees. `start`: the pass's first cycle, as the array's
  // timer has it.
  // How a repeat checks: its first check_folds() folds, its first fold only (a layer's later
  // heads, once its first head's check agreed), or not at all (Check::None: a repeat whose key's
  // last checks agreed, between the systematic checks; ArrayModule::make_source): then no fold is
  // simulated and the pass is its first occurrence's, fold by fold. Short folds (min_period) make
  // a source that simulates every fold.
  enum class Check : uint8_t { Full, Short, None };
  SampledSource(std::unique_ptr<HierarchySource> inner, const FoldPlan& plan, int64_t start,
                const SamplingParams& params, const RepeatCheck* repeat = nullptr, Check check = Check::Full);
  static int check_folds(const FoldPlan& plan, const SamplingParams& params);  // a repeat's check
  static int64_t first_phase(const FoldPlan& plan);  // folds of the first column fold, or 0
  bool sampled() const { return sampled_; }
  // The check agreed: the pass is its first occurrence's, at the key's pooled pace.
  bool repeated() const { return accepted_; }
  bool checked() const { return !replayed_; }  // a repeat that simulated its check
  std::vector<double> window_means() const;  // of the windows measured so far
  // Student's t 95 % half-width of the mean of `means` (independent windows) times `skipped`.
  static double mean_ci95(const std::vector<double>& means, double skipped);
  // Cycles the check's last fold started after the first occurrence's (before it), and what its
  // pace's gap over the check's second half would make over the rest of the pass: the repeat's
  // part of the interval.
  int64_t check_gap() const { return check_gap_; }
  double repeat_ci95() const {
    return std::abs(double(check_gap_)) + std::abs(double(check_drift_)) * double(report_.folds - check_) /
                                              double(std::max(1, check_late_));
  }
  // The fold starts from the pass's start (every fold's for a pass simulated whole, the first
  // check_folds() for a sampled one) and the extra cycles a fold (the windows' mean, or for a
  // pass simulated whole its folds' after the check's): a RepeatCheck.
  RepeatCheck as_repeat(const std::vector<int64_t>& load_starts) const;

  int fifo_tiles() const override { return inner_->fifo_tiles(); }
  int64_t ready(int g, const std::vector<int64_t>& load_starts) override;
  const std::vector<Fetch>& fetches() const override { return inner_->fetches(); }
  const char* stall_cause() const override { return inner_->stall_cause(); }
  void explain_stall(int g, int64_t from, int64_t to, std::map<std::string, int64_t>& causes) const override;
  void explain_drain(int64_t from, int64_t to, std::map<std::string, int64_t>& causes) const override {
    inner_->explain_drain(from, to, causes);
  }
  int64_t drain(const std::vector<int64_t>& load_starts) override;

  HierarchySource& inner() { return *inner_; }
  const HierarchySource& inner() const { return *inner_; }
  // After drain(): the estimate's report, and the simulated figures scaled to the whole pass
  // (bytes exact, from the program; the rest by the bytes simulated).
  const SampleReport& report() const { return report_; }
  HierarchyLayerStats stats() const;

 private:
  enum class Role : uint8_t { Skipped, Detail, Measured };
  bool starts_window(int g) const {  // a body window's first (warm-up) fold
    return warmup_of_[size_t(g)] >= 0 && (g == 0 || warmup_of_[size_t(g - 1)] != warmup_of_[size_t(g)]);
  }
  void time_fold(int j, const std::vector<int64_t>& load_starts);  // timed_[j] from its load start
  void measure(int g, int64_t begin, int64_t ready, const std::vector<int64_t>& load_starts);
  double estimate() const;  // a skipped fold's extra cycles: the windows' mean so far (or the repeat's)
  void finish_report();

  std::unique_ptr<HierarchySource> inner_;
  const FoldPlan& plan_;
  SamplingParams params_;
  std::vector<Role> role_;
  std::vector<int> window_of_;          // per fold: its window, -1 outside windows
  std::vector<int> warmup_of_;          // per fold: the window whose warm-up it is, -1 else
  std::vector<double> warm_sum_;        // per window: its warm-up folds' extra cycles (from rest)
  std::vector<int> warm_n_;
  std::vector<int> cooldown_of_;        // per fold: the window whose cool-down it is, -1 else
  std::vector<double> cool_sum_;        // per window: its cool-down folds' extra cycles
  std::vector<int> cool_n_;
  std::vector<FoldTiming> timed_;       // the folds timed so far, from their load starts
  std::vector<int64_t> ideal_start_;    // per fold: its start with ideal memory (the control variate)
  int timed_count_ = 0;
  int64_t start_ = 0;
  bool in_window_ = true;               // the memory is simulating (head, a window, the tail)
  std::vector<double> window_sum_;      // per window: its measured folds' stalls
  std::vector<int> window_n_;
  int64_t max_stall_ = 0;               // the largest stall of a simulated fold past the fill
  double used_sum_ = 0;                 // stalls given to skipped folds so far
  double carry_ = 0;                    // the fraction not yet given
  int64_t skipped_ = 0;                 // skipped folds so far
  int last_skipped_ = -1;               // the body's last skipped fold: the estimate is settled there
  int settle_from_ = -1;                // the body's last skipped span: [settle_from_, last_skipped_]
  double settle_ = 0;                   // a fold's share of the settlement there
  double unabsorbed_ = 0;               // what of it the folds could not take (into the interval)
  std::vector<int64_t> pending_answer_; // per fold: ready() asked again answers the same
  mutable std::map<std::string, int64_t> measured_causes_;
  // The memory's figures over the body's windows, each from rest to rest, and the program bytes
  // they moved: per byte, they stand for the skipped transfers'.
  HierarchyLayerStats unit_begin_, unit_sum_;
  int64_t unit_bytes_begin_ = 0, unit_bytes_ = 0;
  bool in_unit_ = false;
  SharedStats hbm_begin_, hbm_sum_;  // the units' HBM figures (activates and row hits per byte)
  bool in_hbm_unit_ = false;
  int64_t moved_bytes() const;  // program bytes the DMA has delivered and sent so far
  SampleReport report_;
  bool sampled_ = false;                // windows in the body (else every fold is simulated)
  const RepeatCheck* repeat_ = nullptr;
  int check_ = 0;                       // folds a repeat simulates before it compares
  double refresh_phase0_ = 0;           // window i's refresh phase: (this + i / windows) mod 1
  int full_check_ = 0;                  // check_folds(): after a short check that disagreed
  bool accepted_ = false;
  bool replayed_ = false;               // Check::None: accepted unchecked, every fold skipped
  int64_t check_gap_ = 0, check_drift_ = 0;
  int check_late_ = 0;                  // folds apart the drift was measured over
  double rest_sum_ = 0;                 // a whole pass: its folds' extra cycles after the check's
  int64_t rest_n_ = 0;
  std::vector<double> rest_blocks_;     // ... their means kSpreadBlock folds at a time
  double rest_block_from_ = 0;
  // How long before the array could begin a measured fold its data was in (its lead), summed
  // over the current unit; the last unit's mean; the pass's first fold's wait from rest.
  double lead_sum_ = 0;
  int lead_n_ = 0;
  double last_lead_ = 0;
  int64_t first_latency_ = 0;
};

}  // namespace cstsim
