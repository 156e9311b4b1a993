#include "models/hbm/bank.h"

#include <fmt/format.h>

#include <stdexcept>

namespace cstsim::hbm {

std::string BankState::illegal(Cmd cmd, int64_t row) const {
  if (legal(cmd, row)) return {};
  switch (cmd) {
    case Cmd::ACT:
      if (is_open()) return fmt::format("ACT to an open bank (row {} is open)", open_row_);
      return {};
    case Cmd::PRE:
      if (!is_open()) return "PRE to a closed bank";
      return {};
    case Cmd::RD:
    case Cmd::WR:
      if (!is_open()) return fmt::format("{} to a closed bank", cmd_name(cmd));
      if (open_row_ != row) return fmt::format("{} to row {} while row {} is open", cmd_name(cmd), row, open_row_);
      return {};
    case Cmd::REFPB:
      if (is_open()) return fmt::format("REFpb to an open bank (row {} is open)", open_row_);
      return {};
    case Cmd::PREA:
    case Cmd::REF: return {};
  }
  return {};
}

void BankState::apply(Cmd cmd, int64_t row) {
  if (!legal(cmd, row)) throw std::logic_error("HBM bank state: " + illegal(cmd, row));
  if (cmd == Cmd::ACT) open_row_ = row;
  if (cmd == Cmd::PRE || cmd == Cmd::PREA) open_row_ = -1;
}

std::string PcBanks::illegal(Cmd cmd, const Address& a) const {
  if (cmd == Cmd::PREA) return {};
  if (cmd == Cmd::REF) return open_ > 0 ? fmt::format("REF with {} bank(s) open", open_) : std::string();
  return at(a).illegal(cmd, a.row);
}

void PcBanks::apply(Cmd cmd, const Address& a) {
  if (cmd == Cmd::REF) {  // every bank closed; a single bank's command is checked by its BankState
    if (open_ > 0) throw std::logic_error("HBM bank state: " + illegal(cmd, a));
    return;
  }
  if (cmd == Cmd::PREA) {
    for (BankState& b : banks_)
      if (b.is_open()) b.apply(Cmd::PRE, 0);
    open_ = 0;
  } else {
    BankState& b = at(a);
    const bool was_open = b.is_open();
    b.apply(cmd, a.row);
    open_ += int(b.is_open()) - int(was_open);
  }
}

}  // namespace cstsim::hbm
