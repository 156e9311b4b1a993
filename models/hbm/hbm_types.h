#pragma once
// Vocabulary shared by every HBM class: cycles, commands, rule scopes and a decoded address.
// All cycles in models/hbm are HBM command-clock cycles (one tCK), counted from 0.
#include <cstdint>
#include <string>

namespace cstsim::hbm {

using Cycle = int64_t;
inline constexpr Cycle kNever = INT64_MAX / 4;  // "no such cycle"; room left for adding gaps

// The commands the controller issues. ACT/PRE/PREA/REF/REFpb go on the channel's row command
// bus, RD/WR on its column command bus (HBM has separate row and column buses).
// REF is the all-bank refresh (REFab); REFPB the per-bank refresh of one bank (HBM3 REFpb,
// HBM2 "single-bank refresh" REFSB), printed "REFpb".
enum class Cmd : uint8_t { ACT, PRE, PREA, RD, WR, REF, REFPB };
inline constexpr int kNumCmds = 7;
inline constexpr Cmd kAllCmds[kNumCmds] = {Cmd::ACT, Cmd::PRE, Cmd::PREA, Cmd::RD, Cmd::WR, Cmd::REF, Cmd::REFPB};

inline int index(Cmd c) { return static_cast<int>(c); }
inline uint32_t bit(Cmd c) { return 1u << index(c); }
const char* cmd_name(Cmd c);
inline bool is_column(Cmd c) { return c == Cmd::RD || c == Cmd::WR; }
inline bool is_row(Cmd c) { return !is_column(c); }
// PREA and REF address a whole pseudo-channel: bank group and bank are ignored.
inline bool is_pc_wide(Cmd c) { return c == Cmd::PREA || c == Cmd::REF; }
inline bool is_refresh(Cmd c) { return c == Cmd::REF || c == Cmd::REFPB; }

// The level a timing rule applies at: both commands in the same bank, same bank group,
// same pseudo-channel or same channel.
enum class Scope : uint8_t { Bank, BankGroup, PseudoChannel, Channel };
inline constexpr int kNumScopes = 4;
const char* scope_name(Scope s);

// A decoded location. `column` counts bursts (burst_bytes each) within the row.
struct Address {
  int channel = 0;
  int pc = 0;          // pseudo-channel within the channel
  int bank_group = 0;  // within the pseudo-channel
  int bank = 0;        // within the bank group
  int64_t row = 0;
  int64_t column = 0;
  bool operator==(const Address& o) const {
    return channel == o.channel && pc == o.pc && bank_group == o.bank_group && bank == o.bank && row == o.row &&
           column == o.column;
  }
};
std::string to_string(const Address& a);

}  // namespace cstsim::hbm
