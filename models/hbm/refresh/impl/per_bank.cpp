// per_bank: REFpb number k (k = 0, 1, ...) is due at tREFI + floor(k x tREFI / B), B = banks
// per pseudo-channel: one bank every tREFI / B from tREFI on, so each bank is refreshed once
// per tREFI and, by any cycle, per-bank has refreshed no more rows than all-bank (REFpbs
// from cycle tREFI / B on would refresh rows that are not due yet, and a run shorter than
// tREFI would pay for per-bank refresh and not for all-bank).
//
// The REFpbs go in rounds of B: a round refreshes every bank exactly once, then the next
// round starts. Which bank of the round goes next is chosen when one is owed, among the idle
// banks (nothing in the window), best first:
//  1. a bank with no row in use: closed, or its row read or written to every column since it
//     opened; the most recently used first (never used: in rotating order). A stream has just
//     finished it and moves on through the other banks, so it needs a new row there anyway (the
//     refresh's PRE costs no activation) and comes back last (tRFCpb passes meanwhile);
//  2. an open row still being read, the least recently used first (the likeliest abandoned).
// Refreshing the bank a slow stream is in the middle of (idle only between its requests)
// would cost it an activation and tRFCpb. With no idle bank the REFpb waits (the window
// changes only at steps, and the controller asks again at each) while at most B / 2 are owed
// (a round then ends at most tREFI / 2 after its last due time); beyond that the least loaded
// bank of the round is taken anyway. The chosen bank is withheld from the scheduler, closed
// with PRE if open and refreshed with REFpb, which holds that bank alone for tRFCpb while the
// other banks keep working. The protocol checker allows two owed (max_owed).
#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "models/hbm/refresh/i_refresh.h"

namespace cstsim::hbm {
namespace {

class PerBankRefresh final : public IRefreshPolicy {
 public:
  const char* name() const override { return "per_bank"; }
  std::string check(const HbmSpec& s) const override {
    if (s.timing.at("tREFI") <= s.timing.at("tRFCpb"))
      return fmt::format("must be longer than tRFCpb ({} cycles)", s.timing.at("tRFCpb"));
    if (s.timing.at("tREFI") < s.org.banks_per_pc())
      return fmt::format("per_bank refresh needs at least one cycle per bank ({} banks per pseudo-channel)",
                         s.org.banks_per_pc());
    return "";
  }
  double expected_share(const HbmSpec& s) const override { return double(s.t("tRFCpb")) / double(s.t("tREFI")); }
  int max_owed() const override { return 2; }

  void configure(const HbmSpec& s) override {
    tREFI_ = s.t("tREFI");
    banks_ = s.org.banks_per_pc();
    remaining_.assign(size_t(banks_), 1);
    left_ = banks_;
    due_ = due_of(0);
  }
  void start_at(Cycle s) override {
    k_ = std::max<int64_t>(0, (s - tREFI_) * banks_ / tREFI_);
    while (due_of(k_) < s) ++k_;
    while (k_ > 0 && due_of(k_ - 1) >= s) --k_;
    due_ = due_of(k_);
  }
  void tick(Cycle now) override {
    while (now >= due_) {
      ++owed_;
      due_ = due_of(++k_);
    }
  }
  Cycle next_due() const override { return due_; }
  bool owes() const override { return owed_ > 0 || target_ >= 0; }
  std::optional<RefreshStep> next_step(const PcView& pc) override {
    if (owed_ > 0 && target_ < 0) choose_bank(pc);
    if (target_ < 0) return std::nullopt;
    return RefreshStep{pc.banks[target_].is_open() ? Cmd::PRE : Cmd::REFPB, target_};
  }
  // due_of(k + B) = due_of(k) + tREFI: a round of B REFpbs per tREFI.
  Cycle period() const override { return tREFI_; }
  int commands_per_period() const override { return banks_; }
  bool per_bank() const override { return true; }
  void shift(Cycle dt) override {
    k_ += dt / tREFI_ * banks_;
    due_ = due_of(k_);
  }
  void set_offset(Cycle offset, Cycle after) override {
    offset_ = offset;
    due_ = due_of(k_);
    tick(after);
  }
  bool holds_pc() const override { return false; }
  int withheld_bank() const override { return target_; }
  void issued(Cmd cmd, int bank) override {
    if (cmd != Cmd::REFPB) return;
    remaining_[size_t(bank)] = 0;
    if (--left_ == 0) {
      std::fill(remaining_.begin(), remaining_.end(), 1);
      left_ = banks_;
    }
    --owed_;
    target_ = -1;
  }

 private:
  Cycle due_of(int64_t k) const { return offset_ + tREFI_ + k * tREFI_ / banks_; }
  int max_postponed() const { return banks_ / 2 > 1 ? banks_ / 2 : 1; }

  void choose_bank(const PcView& pc) {
    const int n = banks_;
    auto rank = [&](int b) {  // smaller is better
      const Cycle used = pc.last_use[size_t(b)], turn = (b - rotation_ + n) % n;
      if (!pc.banks[b].is_open() || pc.hits_served[size_t(b)] >= pc.columns)
        return std::tuple<int, Cycle, Cycle>{0, -used, turn};
      return std::tuple<int, Cycle, Cycle>{1, used, turn};
    };
    int best = -1;
    for (int b = 0; b < n; ++b) {
      if (!remaining_[size_t(b)] || pc.queued[size_t(b)] > 0) continue;
      if (best < 0 || rank(b) < rank(best)) best = b;
    }
    if (best < 0 && owed_ > max_postponed())
      for (int b = 0; b < n; ++b) {
        if (!remaining_[size_t(b)]) continue;
        if (best < 0 || pc.queued[size_t(b)] < pc.queued[size_t(best)] ||
            (pc.queued[size_t(b)] == pc.queued[size_t(best)] && pc.last_use[size_t(b)] > pc.last_use[size_t(best)]))
          best = b;
      }
    if (best < 0) return;
    target_ = best;
    rotation_ = (best + 1) % n;
  }

  Cycle tREFI_ = 0;
  int banks_ = 1;
  Cycle due_ = 0;
  Cycle offset_ = 0;  // set_offset
  int64_t k_ = 0;  // the next REFpb's number (those before it have fallen due)
  int owed_ = 0;   // due and not yet issued
  std::vector<char> remaining_;  // per bank: not refreshed this round yet
  int left_ = 0;
  int target_ = -1;
  int rotation_ = 0;  // where the search among never-used banks starts
};

}  // namespace

CSTSIM_REGISTER(IRefreshPolicy, PerBankRefresh, "per_bank")

}  // namespace cstsim::hbm
