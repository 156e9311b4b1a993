#pragma once
// ProtocolChecker: an observer that knows nothing of the scheduler or the controller. It is
// told every command issued (record) and verifies it against
//  - the standard's timing rules (its own TimingEngine: next-allowed-cycle tables per bank,
//    bank group, pseudo-channel and channel, and the tFAW window),
//  - the row-buffer state it keeps itself (ACT needs a closed bank, RD/WR the open row,
//    REF every bank of the pseudo-channel closed, REFpb its own bank closed),
//  - time order, address ranges, and optionally the refresh obligation: every bank refreshed
//    (by a REF of its pseudo-channel or a REFpb to it) at least once per tREFI, at most
//    `max_postponed` refreshes behind.
// earliest(cmd, addr) answers "when could this go" the same way (kNever if the state forbids it).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/hbm/hbm_observer.h"
#include "models/hbm/hbm_spec.h"
#include "models/hbm/refresh/i_refresh.h"
#include "models/hbm/timing_engine.h"

namespace cstsim::hbm {

struct Violation {
  Cycle cycle = 0;
  Cmd cmd = Cmd::ACT;
  Address addr;
  std::string what;  // "RD at 105 < earliest 106: BankGroup (RD,RD) tCCD_L"
};

class ProtocolChecker {
 public:
  explicit ProtocolChecker(const HbmSpec& spec);
  ProtocolChecker(const Organization& org, std::vector<ResolvedRule> rules);

  Cycle earliest(Cmd cmd, const Address& addr) const;
  // The first problem with issuing cmd at cycle, without recording it.
  std::optional<Violation> check(Cmd cmd, const Address& addr, Cycle cycle) const;
  // Checks, keeps any violation, then records the command as issued (so checking goes on).
  // Returns true when the command was legal.
  bool record(Cmd cmd, const Address& addr, Cycle cycle);
  // Refresh obligation: by any cycle c each bank must have been refreshed at least
  // floor(c / tREFI) - floor(start / tREFI) - max_postponed times, a REF counting for every
  // bank of its pseudo-channel and a REFpb for its bank (`start`: the cycle the stack joined
  // the run, IRefreshPolicy::start_at). Checked whenever floor(c / tREFI) grows and at finish().
  void expect_refresh(Cycle tREFI, int max_postponed, Cycle start = 0);
  void finish(Cycle end_cycle);
  // A channel skipped `periods` refresh periods idle (HbmObserver::on_idle_skip): its rows are
  // closed and each of its pseudo-channels refreshed once per period over them.
  void idle_skip(int channel, int64_t periods);

  const std::vector<Violation>& violations() const { return violations_; }
  uint64_t commands() const { return commands_; }

 private:
  bool in_stack(Cmd cmd, const Address& addr) const;
  bool state_ok(Cmd cmd, const Address& addr) const;  // the fast test; state_problem says why not
  std::string state_problem(Cmd cmd, const Address& addr) const;
  void check_refresh(Cycle cycle);
  int pc_index(const Address& a) const { return a.channel * org_.pseudo_channels + a.pc; }
  int bank_index(const Address& a) const {
    return (pc_index(a) * org_.bank_groups + a.bank_group) * org_.banks_per_group + a.bank;
  }

  Organization org_;
  TimingEngine engine_;
  std::vector<int64_t> open_row_;   // per bank, -1 closed
  std::vector<int> open_in_pc_;     // per pseudo-channel
  std::vector<int64_t> refreshes_;  // per pseudo-channel: REFs
  std::vector<int64_t> bank_refreshes_;  // per bank: REFpbs
  int64_t refresh_checked_ = -1;         // floor(c / tREFI) of the last obligation check
  Cycle tREFI_ = 0;
  int max_postponed_ = 0;
  int64_t owed_before_ = 0;  // floor(start / tREFI): refreshes that were due before the stack started
  Cycle last_cycle_ = 0;
  uint64_t commands_ = 0;
  std::vector<Violation> violations_;
};

// The checker as it runs in production: an observer fed every command a device issues
// (device.add_observer(&watch)): timing rules, bank state and, with refresh on, the refresh
// obligation from `start`, the cycle the pass's stack joined the run. All-bank may owe one
// REF (the pending one); per-bank two: a bank's REFpb of round r is due up to tREFI / B
// before (r + 1) tREFI (refresh/impl/per_bank.cpp) and may be postponed by half a round.
class ProtocolWatch : public HbmObserver {
 public:
  ProtocolWatch(const HbmSpec& spec, Cycle start) : check_(spec) {
    if (const int owed = refresh_policy(spec.refresh).max_owed(); owed > 0)
      check_.expect_refresh(spec.t("tREFI"), owed, start);
  }
  void on_command(const CommandEvent& e) override {
    check_.record(e.cmd, e.addr, e.cycle);
    last_ = e.cycle;
  }
  void on_idle_skip(int channel, Cycle, int64_t periods) override { check_.idle_skip(channel, periods); }
  // Ends the check; throws std::logic_error naming the first violation and how many there were.
  void finish();

 private:
  ProtocolChecker check_;
  Cycle last_ = 0;
};

}  // namespace cstsim::hbm
