#pragma once
// The row-buffer state machine of one bank, and of all banks of one pseudo-channel.
// Timing is not here (TimingEngine); this only knows which row is open and which command a
// request needs next under the open-page policy.
#include <cstdint>
#include <string>
#include <vector>

#include "models/hbm/hbm_types.h"

namespace cstsim::hbm {

class BankState {
 public:
  bool is_open() const { return open_row_ >= 0; }
  int64_t open_row() const { return open_row_; }
  // RD/WR when `row` is open (hit), ACT when the bank is closed (miss), PRE when another row
  // is open (conflict).
  Cmd next_command(int64_t row, bool is_write) const {
    if (open_row_ == row) return is_write ? Cmd::WR : Cmd::RD;
    return is_open() ? Cmd::PRE : Cmd::ACT;
  }
  bool legal(Cmd cmd, int64_t row) const {
    switch (cmd) {
      case Cmd::ACT:
      case Cmd::REFPB: return !is_open();
      case Cmd::PRE: return is_open();
      case Cmd::RD:
      case Cmd::WR: return is_open() && open_row_ == row;
      default: return true;  // PREA, REF: the pseudo-channel's business
    }
  }
  // Empty when legal, else why not ("ACT to an open bank (row 7)").
  std::string illegal(Cmd cmd, int64_t row) const;
  void apply(Cmd cmd, int64_t row);  // throws std::logic_error when illegal(cmd, row) is not empty

 private:
  int64_t open_row_ = -1;
};

// The banks of one pseudo-channel, indexed bank_group * banks_per_group + bank.
class PcBanks {
 public:
  PcBanks(int bank_groups, int banks_per_group)
      : banks_per_group_(banks_per_group), banks_(size_t(bank_groups * banks_per_group)) {}
  BankState& at(const Address& a) { return banks_[size_t(a.bank_group * banks_per_group_ + a.bank)]; }
  const BankState& at(const Address& a) const { return banks_[size_t(a.bank_group * banks_per_group_ + a.bank)]; }
  int flat(const Address& a) const { return a.bank_group * banks_per_group_ + a.bank; }
  int open_count() const { return open_; }
  int size() const { return int(banks_.size()); }
  const BankState& operator[](int i) const { return banks_[size_t(i)]; }
  // Empty when legal. PREA is always legal; REF needs every bank closed, REFpb its own bank.
  std::string illegal(Cmd cmd, const Address& a) const;
  void apply(Cmd cmd, const Address& a);  // throws std::logic_error when illegal

 private:
  int banks_per_group_;
  std::vector<BankState> banks_;
  int open_ = 0;
};

}  // namespace cstsim::hbm
