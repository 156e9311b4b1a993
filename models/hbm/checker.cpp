#include "models/hbm/checker.h"

#include <stdexcept>

#include <fmt/format.h>

namespace cstsim::hbm {

ProtocolChecker::ProtocolChecker(const HbmSpec& spec)
    : ProtocolChecker(spec.org, resolve_rules(spec.rules(), spec.timing)) {}

ProtocolChecker::ProtocolChecker(const Organization& org, std::vector<ResolvedRule> rules)
    : org_(org),
      engine_(org, std::move(rules)),
      open_row_(size_t(org.pcs() * org.banks_per_pc()), -1),
      open_in_pc_(size_t(org.pcs()), 0),
      refreshes_(size_t(org.pcs()), 0),
      bank_refreshes_(size_t(org.pcs() * org.banks_per_pc()), 0) {}

void ProtocolChecker::expect_refresh(Cycle tREFI, int max_postponed, Cycle start) {
  tREFI_ = tREFI;
  max_postponed_ = max_postponed;
  owed_before_ = start / tREFI;
}

bool ProtocolChecker::in_stack(Cmd cmd, const Address& a) const {
  if (a.channel < 0 || a.channel >= org_.channels || a.pc < 0 || a.pc >= org_.pseudo_channels) return false;
  if (is_pc_wide(cmd)) return true;
  return a.bank_group >= 0 && a.bank_group < org_.bank_groups && a.bank >= 0 && a.bank < org_.banks_per_group &&
         a.row >= 0 && a.row < org_.rows && a.column >= 0 && a.column < org_.columns;
}

bool ProtocolChecker::state_ok(Cmd cmd, const Address& a) const {
  if (!in_stack(cmd, a)) return false;
  if (is_pc_wide(cmd)) return cmd != Cmd::REF || open_in_pc_[size_t(pc_index(a))] == 0;
  const int64_t open = open_row_[size_t(bank_index(a))];
  switch (cmd) {
    case Cmd::ACT:
    case Cmd::REFPB: return open < 0;
    case Cmd::PRE: return open >= 0;
    case Cmd::RD:
    case Cmd::WR: return open >= 0 && open == a.row;
    default: return true;
  }
}

std::string ProtocolChecker::state_problem(Cmd cmd, const Address& a) const {
  if (state_ok(cmd, a)) return {};
  if (!in_stack(cmd, a)) return "address outside the stack: " + to_string(a);
  if (is_pc_wide(cmd)) {
    if (cmd == Cmd::REF && open_in_pc_[size_t(pc_index(a))] > 0)
      return fmt::format("REF with {} bank(s) open", open_in_pc_[size_t(pc_index(a))]);
    return {};
  }
  const int64_t open = open_row_[size_t(bank_index(a))];
  switch (cmd) {
    case Cmd::ACT:
      if (open >= 0) return fmt::format("ACT to an open bank (row {} is open)", open);
      break;
    case Cmd::PRE:
      if (open < 0) return "PRE to a closed bank";
      break;
    case Cmd::REFPB:
      if (open >= 0) return fmt::format("REFpb to an open bank (row {} is open)", open);
      break;
    case Cmd::RD:
    case Cmd::WR:
      if (open < 0) return fmt::format("{} to a closed bank", cmd_name(cmd));
      if (open != a.row) return fmt::format("{} to row {} while row {} is open", cmd_name(cmd), a.row, open);
      break;
    default: break;
  }
  return {};
}

Cycle ProtocolChecker::earliest(Cmd cmd, const Address& addr) const {
  if (!state_problem(cmd, addr).empty()) return kNever;
  return std::max(engine_.earliest(cmd, addr), last_cycle_);
}

std::optional<Violation> ProtocolChecker::check(Cmd cmd, const Address& addr, Cycle cycle) const {
  if (cycle >= last_cycle_ && state_ok(cmd, addr) && cycle >= engine_.earliest(cmd, addr)) return std::nullopt;
  auto violation = [&](std::string what) { return Violation{cycle, cmd, addr, std::move(what)}; };
  if (cycle < last_cycle_)
    return violation(
        fmt::format("{} at {} is earlier than the previous command (cycle {})", cmd_name(cmd), cycle, last_cycle_));
  const std::string state = state_problem(cmd, addr);
  if (!state.empty()) return violation(fmt::format("{} at {}: {}", cmd_name(cmd), cycle, state));
  const Cycle e = engine_.earliest(cmd, addr);
  if (cycle < e) {
    const ResolvedRule* rule = engine_.binding_rule(cmd, addr);
    return violation(fmt::format("{} at {} < earliest {}: {}", cmd_name(cmd), cycle, e, rule ? rule->label : "?"));
  }
  return std::nullopt;
}

bool ProtocolChecker::record(Cmd cmd, const Address& addr, Cycle cycle) {
  auto v = check(cmd, addr, cycle);
  if (v) violations_.push_back(*v);
  ++commands_;
  last_cycle_ = std::max(last_cycle_, cycle);
  if (v && !in_stack(cmd, addr)) return false;  // (a command that passed the check is in the stack)
  engine_.record(cmd, addr, cycle);
  const size_t pc = size_t(pc_index(addr));
  if (cmd == Cmd::ACT || cmd == Cmd::PRE) {
    int64_t& open = open_row_[size_t(bank_index(addr))];
    const bool was_open = open >= 0;
    open = cmd == Cmd::ACT ? addr.row : -1;
    open_in_pc_[pc] += int(open >= 0) - int(was_open);
  } else if (cmd == Cmd::PREA) {
    const size_t first = pc * size_t(org_.banks_per_pc());
    for (size_t b = first; b < first + size_t(org_.banks_per_pc()); ++b) open_row_[b] = -1;
    open_in_pc_[pc] = 0;
  } else if (cmd == Cmd::REF) {
    ++refreshes_[pc];
  } else if (cmd == Cmd::REFPB) {
    ++bank_refreshes_[size_t(bank_index(addr))];
  }
  if (tREFI_ > 0 && cycle / tREFI_ > refresh_checked_) check_refresh(cycle);
  return !v;
}

void ProtocolChecker::idle_skip(int channel, int64_t periods) {
  for (int p = 0; p < org_.pseudo_channels; ++p) {
    Address a;
    a.channel = channel;
    a.pc = p;
    const size_t pc = size_t(pc_index(a)), first = pc * size_t(org_.banks_per_pc());
    for (size_t b = first; b < first + size_t(org_.banks_per_pc()); ++b) open_row_[b] = -1;
    open_in_pc_[pc] = 0;
    refreshes_[pc] += periods;  // one per bank per period, as one REF of the pseudo-channel counts
  }
}

// Refresh counts only grow and the obligation only grows with floor(cycle / tREFI), so a
// shortfall can only appear when that quotient does: checking then (and at finish) is enough.
void ProtocolChecker::check_refresh(Cycle cycle) {
  if (tREFI_ <= 0) return;
  refresh_checked_ = cycle / tREFI_;
  const int64_t owed = cycle / tREFI_ - owed_before_ - max_postponed_;
  const size_t banks = size_t(org_.banks_per_pc());
  for (size_t pc = 0; pc < refreshes_.size(); ++pc) {
    // The bank refreshed least often decides; report it once per pseudo-channel and shortfall.
    size_t worst = 0;
    for (size_t b = 1; b < banks; ++b)
      if (bank_refreshes_[pc * banks + b] < bank_refreshes_[pc * banks + worst]) worst = b;
    const int64_t have = refreshes_[pc] + bank_refreshes_[pc * banks + worst];
    if (have >= owed) continue;
    Address a;
    a.channel = int(pc) / org_.pseudo_channels;
    a.pc = int(pc) % org_.pseudo_channels;
    a.bank_group = int(worst) / org_.banks_per_group;
    a.bank = int(worst) % org_.banks_per_group;
    violations_.push_back(
        {cycle, Cmd::REF, a,
         fmt::format("ch{} pc{} bg{} ba{}: refreshed {} times by cycle {}, at least {} required (REF + REFpb; tREFI "
                     "{}, {} postponed)",
                     a.channel, a.pc, a.bank_group, a.bank, have, cycle, owed, tREFI_, max_postponed_)});
    for (size_t b = 0; b < banks; ++b)  // report each shortfall once
      bank_refreshes_[pc * banks + b] = std::max(bank_refreshes_[pc * banks + b], owed - refreshes_[pc]);
  }
}

void ProtocolChecker::finish(Cycle end_cycle) { check_refresh(end_cycle); }

void ProtocolWatch::finish() {
  check_.finish(last_);
  const auto& v = check_.violations();
  if (!v.empty())
    throw std::logic_error(
        fmt::format("HBM protocol checker: {} violation(s) in this layer; the first: {}", v.size(), v.front().what));
}

}  // namespace cstsim::hbm
