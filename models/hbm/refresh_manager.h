#pragma once
// Refresh bookkeeping of one pseudo-channel (the controller issues the commands).
//
// Both policies start from the same state: every row refreshed at cycle 0, so the first bank
// is due at tREFI. The schedule runs on the run's clock (a pass's stack joins it with
// start_at), so a run split into passes refreshes as one run would.
//
// all_bank: a REF is due every tREFI (at tREFI, 2 tREFI, ...; due times do not drift when a
// REF goes late). Once due, the pseudo-channel stops serving requests, closes its open rows
// with one PREA and issues REF as soon as the timing rules allow; REF then holds the
// pseudo-channel for tRFC (the rule table's REF rows).
//
// per_bank: REFpb number k (k = 0, 1, ...) is due at tREFI + floor(k x tREFI / B), B = banks
// per pseudo-channel: one bank every tREFI / B from tREFI on, so each bank is refreshed once
// per tREFI and, by any cycle, per-bank has refreshed no more rows than all-bank (REFpbs
// from cycle tREFI / B on would refresh rows that are not due yet, and a run shorter than
// tREFI would pay for per-bank refresh and not for all-bank).
// The REFpbs go in rounds of B: a round refreshes every bank exactly once (the set of banks
// not yet refreshed this round is `remaining`), then the next round starts. Which bank of the
// round goes next is the controller's choice (an idle one, so refresh hides behind traffic);
// a due REFpb may wait for an idle bank while at most `max_postponed()` are owed, after that
// the next one is forced onto a busy bank. The chosen bank is `target()`: the scheduler stops
// serving it, the controller closes it with PRE if open and issues REFpb, which holds that
// bank alone for tRFCpb while the other banks keep working.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/hbm/hbm_spec.h"

namespace cstsim::hbm {

class RefreshManager {
 public:
  RefreshManager(RefreshPolicy policy, Cycle tREFI, int banks)
      : policy_(policy), tREFI_(tREFI), banks_(banks), remaining_(size_t(banks), 1), left_(banks) {
    due_ = policy_ == RefreshPolicy::PerBank ? due_of(0) : tREFI_;
  }

  // A pass's memory system joins the run at cycle `s` (before its first tick): it owes the
  // refreshes due at s and after (those due before were the earlier passes').
  void start_at(Cycle s) {
    if (policy_ == RefreshPolicy::AllBank) {
      due_ = std::max<Cycle>(1, (s + tREFI_ - 1) / tREFI_) * tREFI_;
    } else if (policy_ == RefreshPolicy::PerBank) {
      k_ = std::max<int64_t>(0, (s - tREFI_) * banks_ / tREFI_);
      while (due_of(k_) < s) ++k_;
      while (k_ > 0 && due_of(k_ - 1) >= s) --k_;
      due_ = due_of(k_);
    }
  }

  RefreshPolicy policy() const { return policy_; }
  bool per_bank() const { return policy_ == RefreshPolicy::PerBank; }

  // Counts the refreshes that fall due by `now`.
  void tick(Cycle now) {
    if (policy_ == RefreshPolicy::AllBank) {
      if (!pending_ && now >= due_) pending_ = true;
    } else if (policy_ == RefreshPolicy::PerBank) {
      while (now >= due_) {
        ++owed_;
        due_ = due_of(++k_);
      }
    }
  }
  // Next cycle tick() would change something; kNever when refresh is off (all-bank: or pending).
  Cycle next_due() const {
    switch (policy_) {
      case RefreshPolicy::AllBank: return pending_ ? kNever : due_;
      case RefreshPolicy::PerBank: return due_;
      case RefreshPolicy::None: return kNever;
    }
    return kNever;
  }

  // ---- all-bank ----
  bool pending() const { return pending_; }
  // What the pending refresh needs next.
  Cmd next_command(int open_banks) const { return open_banks > 0 ? Cmd::PREA : Cmd::REF; }
  void on_ref_issued() {
    pending_ = false;
    due_ += tREFI_;
    ++count_;
  }

  // ---- per-bank ----
  int owed() const { return owed_; }  // REFpbs due and not yet issued
  // A due REFpb may wait for an idle bank while at most this many are owed (half a round, so a
  // round ends at most tREFI / 2 after its last due time); beyond that the next one is forced.
  int max_postponed() const { return banks_ / 2 > 1 ? banks_ / 2 : 1; }
  bool forced() const { return owed_ > max_postponed(); }
  bool in_round(int bank) const { return remaining_[size_t(bank)] != 0; }  // not refreshed this round yet
  int target() const { return target_; }  // bank (bank_group x banks_per_group + bank) or -1
  void set_target(int bank) { target_ = bank; }
  void on_refpb_issued(int bank) {
    remaining_[size_t(bank)] = 0;
    if (--left_ == 0) {
      std::fill(remaining_.begin(), remaining_.end(), 1);
      left_ = banks_;
    }
    --owed_;
    target_ = -1;
    ++count_;
  }

  uint64_t count() const { return count_; }  // REF or REFpb commands issued

 private:
  Cycle due_of(int64_t k) const { return tREFI_ + k * tREFI_ / banks_; }

  RefreshPolicy policy_;
  Cycle tREFI_;
  int banks_;
  Cycle due_ = 0;
  bool pending_ = false;  // all-bank
  int64_t k_ = 0;         // per-bank: the next REFpb's number (those before it have fallen due)
  int owed_ = 0;
  std::vector<char> remaining_;
  int left_;
  int target_ = -1;
  uint64_t count_ = 0;
};

}  // namespace cstsim::hbm
