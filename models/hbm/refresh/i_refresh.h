#pragma once
// IRefreshPolicy: when a pseudo-channel refreshes and which command it needs for it, one
// instance per PC (as DRAMSys has a refresh manager per rank or bank and Ramulator 2 a
// refresh plugin per controller). The contract with the controller (controller.cpp):
//  - tick(now) once per stepped cycle counts what has fallen due; next_due() is the next cycle
//    tick() would change something (the controller sleeps until then at the latest);
//  - next_step(pc) names the refresh command the PC needs now, if any: PREA/REF for the whole
//    PC (bank -1) or PRE/REFpb for one bank. The controller issues it as soon as the timing
//    rules allow, before any request of the PC; holds_pc() says whether the PC serves nothing
//    else meanwhile (all-bank), withheld_bank() which bank the scheduler must leave alone;
//  - issued(cmd, bank) after the controller issued a REF or REFpb.
// Only tick, next_step and issued change what next_due, owes and withheld_bank return, so the
// controller keeps those three at hand between calls (it asks for a step only while one is owed).
// Both shipped refreshing policies start with every row refreshed at cycle 0 and keep the
// run's clock (start_at), so a run split into passes refreshes as one run would.
//
// A policy also knows its spec-level rules: the timings it needs (check), the share of
// bank time it costs at steady state (expected_share) and how many refreshes the protocol
// checker may find owed at once (max_owed). Implementations live in impl/ and register
// under the name the HBM file uses (controller.refresh: per_bank).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/registry.h"
#include "models/hbm/bank.h"
#include "models/hbm/hbm_spec.h"
#include "models/hbm/hbm_types.h"

namespace cstsim::hbm {

// What a policy may read of its pseudo-channel when it chooses a bank.
struct PcView {
  const PcBanks& banks;
  const std::vector<int>& queued;       // per bank: bursts in the scheduler's window
  const std::vector<Cycle>& last_use;   // per bank: cycle of its last RD/WR, -1 never
  const std::vector<int>& hits_served;  // per bank: column accesses since its ACT
  int columns = 0;                      // bursts per row: a row with that many hits is used up
};

struct RefreshStep {
  Cmd cmd = Cmd::REF;
  int bank = -1;  // bank_group x banks_per_group + bank, or -1 for the whole PC
};

class IRefreshPolicy {
 public:
  virtual ~IRefreshPolicy() = default;
  virtual const char* name() const = 0;

  // ---- spec level (no state) ----
  // Empty when `spec` suits the policy, else what is wrong with timing.tREFI.
  virtual std::string check(const HbmSpec& spec) const = 0;
  virtual double expected_share(const HbmSpec& spec) const = 0;  // of bank time, steady state
  virtual int max_owed() const = 0;                               // 0: no refresh obligation

  // ---- one pseudo-channel ----
  virtual void configure(const HbmSpec& spec) = 0;  // once, before anything else
  virtual void start_at(Cycle s) = 0;  // the pass joins the run at s: it owes what falls due from s on
  virtual void tick(Cycle now) = 0;
  virtual Cycle next_due() const = 0;  // kNever when tick() would change nothing
  virtual bool owes() const = 0;       // a refresh is due and not yet issued: next_step may name one
  virtual std::optional<RefreshStep> next_step(const PcView& pc) = 0;
  virtual bool holds_pc() const = 0;
  virtual int withheld_bank() const = 0;  // -1: none
  virtual void issued(Cmd cmd, int bank) = 0;

  // ---- an idle stretch skipped at once (sampled mode: ChannelController::skip_idle) ----
  // The schedule repeats every period() cycles (0: it does not, and is never skipped), with
  // commands_per_period() refresh commands (REF, or REFpb when per_bank()) in each; shift moves
  // it on by dt, a multiple of the period, as if the pseudo-channel had been idle and refreshed
  // each as it fell due.
  virtual Cycle period() const { return 0; }
  virtual int commands_per_period() const { return 0; }
  virtual bool per_bank() const { return false; }
  virtual void shift(Cycle /*dt*/) {}
  // Sampled mode, idle and nothing owed: the schedule's due times from now on `offset` (-period()
  // / 2 <= offset < period() / 2) later than the run's own (a sampled window's refresh phase is a stratum:
  // ChannelController::set_refresh_offset). What the move brings to or before cycle `after` is
  // owed at once (no refresh is lost: the protocol checker's count holds).
  virtual void set_offset(Cycle /*offset*/, Cycle /*after*/) {}
};

// Registry (core/registry.h): CSTSIM_REGISTER(IRefreshPolicy, Class, "name") in impl/.
// make_refresh_policy throws std::invalid_argument "unknown refresh policy 'x' (known: a, b)".
std::unique_ptr<IRefreshPolicy> make_refresh_policy(const std::string& name);
const IRefreshPolicy& refresh_policy(const std::string& name);  // for the spec-level rules
std::vector<std::string> refresh_policy_names();

}  // namespace cstsim::hbm
