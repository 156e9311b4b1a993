#include "models/hbm/timing_engine.h"

#include <algorithm>

namespace cstsim::hbm {

TimingEngine::TimingEngine(const Organization& org, std::vector<ResolvedRule> rules)
    : org_(org), rules_(std::move(rules)) {
  instances_[int(Scope::Channel)] = org.channels;
  instances_[int(Scope::PseudoChannel)] = org.pcs();
  instances_[int(Scope::BankGroup)] = org.pcs() * org.bank_groups;
  instances_[int(Scope::Bank)] = org.pcs() * org.banks_per_pc();
  for (int s = 0; s < kNumScopes; ++s) {
    next_[s].assign(size_t(instances_[s]) * kNumCmds, 0);
    last_[s].assign(size_t(instances_[s]) * kNumCmds, -1);
  }
  rule_next_.resize(rules_.size());
  windows_.resize(rules_.size());
  before_cmds_.resize(rules_.size());
  for (size_t r = 0; r < rules_.size(); ++r) {
    const ResolvedRule& rule = rules_[r];
    const int n = instances_[int(rule.scope)];
    for (Cmd c : kAllCmds)
      if (rule.before & bit(c)) before_cmds_[r].push_back(index(c));
    if (rule.window > 0) {
      rule_next_[r].assign(size_t(n), 0);
      windows_[r].assign(size_t(n), Window{std::vector<Cycle>(size_t(rule.window)), 0, 0});
      for (Cmd c : kAllCmds)
        if (rule.after & bit(c)) windowed_after_[index(c)].push_back(r);
      continue;
    }
    for (Cmd a : kAllCmds) {
      if (!(rule.after & bit(a))) continue;
      std::vector<Bound>& bounds = bounds_[index(a)];
      for (int b : before_cmds_[r]) {
        auto same = std::find_if(bounds.begin(), bounds.end(),
                                 [&](const Bound& x) { return x.scope == int(rule.scope) && x.before == b; });
        if (same == bounds.end())
          bounds.push_back({int(rule.scope), b, rule.gap});
        else
          same->gap = std::max(same->gap, rule.gap);
      }
    }
  }
}

TimingEngine::TimingEngine(const HbmSpec& spec) : TimingEngine(spec.org, resolve_rules(spec.rules(), spec.timing)) {}

Cycle TimingEngine::earliest(Cmd cmd, const Address& addr) const {
  Cycle e = 0;
  for (int s = 0; s < kNumScopes; ++s)
    e = std::max(e, next_[s][size_t(instance(Scope(s), addr)) * kNumCmds + size_t(index(cmd))]);
  return e;
}

void TimingEngine::record(Cmd cmd, const Address& addr, Cycle cycle) {
  int instances[kNumScopes];  // addr's instance at every scope, once
  Cycle* rows[kNumScopes];    // and its row of next_ there
  for (int s = 0; s < kNumScopes; ++s) {
    instances[s] = instance(Scope(s), addr);
    rows[s] = &next_[s][size_t(instances[s]) * kNumCmds];
    Cycle& last = last_[s][size_t(instances[s]) * kNumCmds + size_t(index(cmd))];
    last = std::max(last, cycle);
  }
  for (const Bound& b : bounds_[index(cmd)]) {
    Cycle& next = rows[b.scope][b.before];
    next = std::max(next, cycle + b.gap);
  }
  for (size_t r : windowed_after_[index(cmd)]) {
    const ResolvedRule& rule = rules_[r];
    const int inst = instances[int(rule.scope)];
    Window& w = windows_[r][size_t(inst)];
    w.times[size_t(w.next)] = cycle;
    w.next = (w.next + 1) % rule.window;
    w.count = std::min(w.count + 1, rule.window);
    if (w.count < rule.window) continue;
    const Cycle allowed = w.times[size_t(w.next)] + rule.gap;  // the oldest of the last `window`
    Cycle& mine = rule_next_[r][size_t(inst)];
    mine = std::max(mine, allowed);
    Cycle* row = &next_[int(rule.scope)][size_t(inst) * kNumCmds];
    for (int b : before_cmds_[r]) row[b] = std::max(row[b], allowed);
  }
}

const ResolvedRule* TimingEngine::binding_rule(Cmd cmd, const Address& addr) const {
  const ResolvedRule* best = nullptr;
  Cycle best_cycle = 0;
  for (size_t r = 0; r < rules_.size(); ++r) {
    const ResolvedRule& rule = rules_[r];
    if (!(rule.before & bit(cmd))) continue;
    const size_t inst = size_t(instance(rule.scope, addr));
    Cycle c = 0;
    if (rule.window > 0) {
      c = rule_next_[r][inst];
    } else {
      Cycle latest = -1;  // of its `after` commands here
      for (Cmd a : kAllCmds)
        if (rule.after & bit(a)) latest = std::max(latest, last_[int(rule.scope)][inst * kNumCmds + size_t(index(a))]);
      if (latest >= 0) c = latest + rule.gap;
    }
    if (c > best_cycle) {
      best_cycle = c;
      best = &rules_[r];
    }
  }
  return best;
}

}  // namespace cstsim::hbm
