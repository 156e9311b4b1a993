#pragma once
// TimingEngine: the one engine that applies a standard's rule table (timing_table.h) to a
// stack. It keeps, per level instance (every bank, bank group, pseudo-channel and channel),
// the next cycle each command is allowed, plus the recent history a window rule (tFAW) needs.
//   earliest(cmd, addr)        -> first cycle every timing rule allows cmd at addr
//   record(cmd, addr, cycle)   -> cmd was issued; push the next-allowed cycles forward
// It knows timing only: whether the bank is open is the bank state machine's business.
// Both the controller and the independent ProtocolChecker own one.
#include <algorithm>
#include <string>
#include <vector>

#include "models/hbm/hbm_spec.h"
#include "models/hbm/timing_table.h"

namespace cstsim::hbm {

class TimingEngine {
 public:
  TimingEngine(const Organization& org, std::vector<ResolvedRule> rules);
  explicit TimingEngine(const HbmSpec& spec);

  Cycle earliest(Cmd cmd, const Address& addr) const;
  // The part of earliest() one scope contributes (earliest = max over the four scopes).
  Cycle earliest_at(Scope scope, Cmd cmd, const Address& addr) const {
    return next_[int(scope)][size_t(instance(scope, addr)) * kNumCmds + size_t(index(cmd))];
  }
  // The same for every command at once: indexed by index(cmd).
  const Cycle* next_at(Scope scope, const Address& addr) const {
    return &next_[int(scope)][size_t(instance(scope, addr)) * kNumCmds];
  }
  // The part below the channel (max over bank, bank group and pseudo-channel): the controller's
  // per-bank readiness, the channel's shared buses added on top.
  Cycle earliest_in_pc(Cmd cmd, const Address& addr) const {
    return std::max({earliest_at(Scope::Bank, cmd, addr), earliest_at(Scope::BankGroup, cmd, addr),
                     earliest_at(Scope::PseudoChannel, cmd, addr)});
  }
  void record(Cmd cmd, const Address& addr, Cycle cycle);
  // The rule that sets earliest(cmd, addr) (the first one in table order when several tie),
  // or nullptr when no rule constrains cmd yet.
  const ResolvedRule* binding_rule(Cmd cmd, const Address& addr) const;

  const std::vector<ResolvedRule>& rules() const { return rules_; }
  const Organization& org() const { return org_; }
  // Instance number of addr at a scope (banks, bank groups, PCs, channels numbered stack-wide).
  int instance(Scope scope, const Address& a) const {
    const int pc = a.channel * org_.pseudo_channels + a.pc;
    switch (scope) {
      case Scope::Channel: return a.channel;
      case Scope::PseudoChannel: return pc;
      case Scope::BankGroup: return pc * org_.bank_groups + a.bank_group;
      case Scope::Bank: return (pc * org_.bank_groups + a.bank_group) * org_.banks_per_group + a.bank;
    }
    return 0;
  }

 private:
  struct Window {              // one window rule x one instance: the last `window` issue cycles
    std::vector<Cycle> times;  // ring buffer
    int next = 0;
    int count = 0;
  };
  Organization org_;
  std::vector<ResolvedRule> rules_;
  int instances_[kNumScopes] = {};
  // next_[scope][instance * kNumCmds + cmd]: max over all rules of that scope.
  std::vector<Cycle> next_[kNumScopes];
  // last_[scope][instance * kNumCmds + cmd]: the latest cycle cmd was issued there (-1 never).
  // A plain rule's own next-allowed cycle (binding_rule) is its gap past the latest of its
  // `after` commands, so record() keeps only this and the merged bounds below.
  std::vector<Cycle> last_[kNumScopes];
  // Per `after` command, the plain rules merged: per scope and `before` command, the largest gap.
  struct Bound {
    int scope;
    int before;  // command index
    Cycle gap;
  };
  std::vector<Bound> bounds_[kNumCmds];
  // Window rules (tFAW) keep their history and their own next-allowed cycle per instance.
  std::vector<std::vector<Cycle>> rule_next_;  // per rule; empty for plain rules
  std::vector<std::vector<Window>> windows_;   // per rule; empty for plain rules
  std::vector<size_t> windowed_after_[kNumCmds];  // window rules that mention each command as `after`
  std::vector<std::vector<int>> before_cmds_;  // per rule: the command indices of its `before` mask
};

}  // namespace cstsim::hbm
