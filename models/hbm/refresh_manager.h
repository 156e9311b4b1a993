#pragma once
// All-bank refresh of one pseudo-channel: a REF is due every tREFI (at tREFI, 2 tREFI, ...;
// due times do not drift when a REF goes late). Once due, the pseudo-channel stops serving
// requests, closes its open rows with one PREA and issues REF as soon as the timing rules
// allow; REF then holds the pseudo-channel for tRFC (the rule table's REF rows).
#include <cstdint>

#include "models/hbm/hbm_spec.h"

namespace cstsim::hbm {

class RefreshManager {
 public:
  RefreshManager(RefreshPolicy policy, Cycle tREFI, Cycle tRFC)
      : enabled_(policy == RefreshPolicy::AllBank), tREFI_(tREFI), tRFC_(tRFC), due_(tREFI) {}

  // Marks a refresh pending once `now` reaches the due cycle.
  void tick(Cycle now) {
    if (enabled_ && !pending_ && now >= due_) pending_ = true;
  }
  bool pending() const { return pending_; }
  // What the pending refresh needs next.
  Cmd next_command(int open_banks) const { return open_banks > 0 ? Cmd::PREA : Cmd::REF; }
  void on_ref_issued() {
    pending_ = false;
    due_ += tREFI_;
    ++count_;
  }
  // Next cycle tick() would change something; kNever when disabled or already pending.
  Cycle next_due() const { return enabled_ && !pending_ ? due_ : kNever; }

  uint64_t count() const { return count_; }
  Cycle busy_cycles() const { return Cycle(count_) * tRFC_; }

 private:
  bool enabled_;
  Cycle tREFI_, tRFC_;
  Cycle due_;
  bool pending_ = false;
  uint64_t count_ = 0;
};

}  // namespace cstsim::hbm
