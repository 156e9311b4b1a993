#include "models/hbm/timing_table.h"

#include <fmt/format.h>

#include <cctype>
#include <stdexcept>

namespace cstsim::hbm {
namespace {

using C = Cmd;
using S = Scope;

// Row sources. JESD235/JESD238 themselves are not public; every row below is the one the open
// simulators encode (Ramulator 2 src/dram/impl/HBM2.cpp and python/ramulator/dram/hbm3.py,
// DRAMSys CheckerHBM2.cpp, gem5 DRAMInterface HBM_*), see models/hbm/README.md.
constexpr const char* kRam = "Ramulator2 HBM2.cpp / hbm3.py rows (JESD235C, JESD238)";
constexpr const char* kBus = "JESD235/JESD238: separate row and column command buses per channel, shared by its 2 PCs";
constexpr const char* kRtw = "gem5 HBM_2000_4H_1x64 tRTW, DRAMSys HBM2 tRTW (Ramulator derives nCL+nBL+2-nCWL)";

constexpr const char* kDsys = "DRAMSys CheckerHBM2.cpp (REFPB rows)";
constexpr const char* kRamPb = "Ramulator2 hbm2.py / hbm3.py per-bank refresh rows (REFsb / REFpb)";

const std::vector<std::string> kHbmTimingNames = {
    "tBL",  "tCL",    "tCWL",   "tRCD_RD", "tRCD_WR", "tRP",  "tRAS", "tRC",    "tWR",    "tRTP",  "tRRD_S",  "tRRD_L",
    "tFAW", "tCCD_S", "tCCD_L", "tWTR_S",  "tWTR_L",  "tRTW", "tRFC", "tRFCpb", "tRREFD", "tREFI", "tACT_BUS"};

// The rows HBM2 and HBM3 share. Read top to bottom like DRAMSys' checker comments.
// clang-format off
std::vector<TimingRule> hbm_common_rules() {
  return {
      // ---- Channel: the command buses shared by the channel's pseudo-channels ----
      {S::Channel, {C::ACT}, {C::ACT, C::PRE, C::PREA, C::REF, C::REFPB}, "tACT_BUS", 0,
       "Ramulator2 HBM2.cpp '2-cycle ACT command'; gem5 two_cycle_activate"},
      {S::Channel, {C::PRE, C::PREA, C::REF, C::REFPB}, {C::ACT, C::PRE, C::PREA, C::REF, C::REFPB}, "1", 0, kBus},
      {S::Channel, {C::RD, C::WR}, {C::RD, C::WR}, "1", 0, kBus},

      // ---- Pseudo-channel: data bus, column-to-column, activate rate, refresh ----
      {S::PseudoChannel, {C::RD}, {C::RD}, "tBL", 0, "data bus occupancy (Ramulator2)"},
      {S::PseudoChannel, {C::WR}, {C::WR}, "tBL", 0, "data bus occupancy (Ramulator2)"},
      {S::PseudoChannel, {C::RD}, {C::RD}, "tCCD_S", 0, kRam},
      {S::PseudoChannel, {C::WR}, {C::WR}, "tCCD_S", 0, kRam},
      {S::PseudoChannel, {C::RD}, {C::WR}, "tRTW", 0, kRtw},
      {S::PseudoChannel, {C::WR}, {C::RD}, "tCWL + tBL + tWTR_S", 0, kRam},
      {S::PseudoChannel, {C::ACT}, {C::ACT}, "tRRD_S", 0, kRam},
      // A per-bank refresh counts as an activate in the four-activate window (DRAMSys keeps REFPB
      // in last4Activates and checks tFAW before a REFPB; Ramulator2 hbm3.py does not count it).
      {S::PseudoChannel, {C::ACT, C::REFPB}, {C::ACT, C::REFPB}, "tFAW", 4,
       "Ramulator2 (ACT,ACT) tFAW; REFpb counted as in DRAMSys CheckerHBM2.cpp"},
      {S::PseudoChannel, {C::ACT}, {C::PREA}, "tRAS", 0, kRam},
      {S::PseudoChannel, {C::RD}, {C::PREA}, "tRTP", 0, kRam},
      {S::PseudoChannel, {C::WR}, {C::PREA}, "tCWL + tBL + tWR", 0, kRam},
      {S::PseudoChannel, {C::PREA}, {C::ACT}, "tRP", 0, kRam},
      {S::PseudoChannel, {C::PRE, C::PREA}, {C::REF}, "tRP", 0, kRam},
      {S::PseudoChannel, {C::ACT}, {C::REF}, "tRC", 0, kRam},
      {S::PseudoChannel, {C::REF}, {C::ACT, C::PRE, C::PREA, C::REF, C::REFPB}, "tRFC", 0,
       "Ramulator2 (REFab to ACT, PREA, REFpb); to PRE, REF: nothing but NOP/DES reaches a refreshing PC"},
      // Per-bank refresh of one bank while the others work (JESD235 REFSB, JESD238 REFpb).
      {S::PseudoChannel, {C::ACT}, {C::REFPB}, "tRRD_S", 0, kRamPb},
      {S::PseudoChannel, {C::REFPB}, {C::ACT}, "tRREFD", 0, kRamPb},
      {S::PseudoChannel, {C::REFPB}, {C::REFPB}, "tRREFD", 0, kRamPb},
      {S::PseudoChannel, {C::PREA}, {C::REFPB}, "tRP", 0, kDsys},
      {S::PseudoChannel, {C::REFPB}, {C::PREA, C::REF}, "tRFCpb", 0, kDsys},

      // ---- Bank group ----
      {S::BankGroup, {C::RD}, {C::RD}, "tCCD_L", 0, kRam},
      {S::BankGroup, {C::WR}, {C::WR}, "tCCD_L", 0, kRam},
      {S::BankGroup, {C::WR}, {C::RD}, "tCWL + tBL + tWTR_L", 0, kRam},
      {S::BankGroup, {C::ACT}, {C::ACT}, "tRRD_L", 0, kRam},
      {S::BankGroup, {C::ACT}, {C::REFPB}, "tRRD_L", 0, "DRAMSys CheckerHBM2.cpp; Ramulator2 2.0 HBM2.cpp (ACT,REFsb)"},

      // ---- Bank ----
      {S::Bank, {C::ACT}, {C::ACT}, "tRC", 0, kRam},
      {S::Bank, {C::ACT}, {C::RD}, "tRCD_RD", 0, kRam},
      {S::Bank, {C::ACT}, {C::WR}, "tRCD_WR", 0, kRam},
      {S::Bank, {C::ACT}, {C::PRE}, "tRAS", 0, kRam},
      {S::Bank, {C::PRE}, {C::ACT}, "tRP", 0, kRam},
      {S::Bank, {C::RD}, {C::PRE}, "tRTP", 0, kRam},
      {S::Bank, {C::WR}, {C::PRE}, "tCWL + tBL + tWR", 0, kRam},
      {S::Bank, {C::ACT}, {C::REFPB}, "tRC", 0, kRamPb},
      {S::Bank, {C::PRE}, {C::REFPB}, "tRP", 0, kRamPb},
      {S::Bank, {C::REFPB}, {C::ACT}, "tRFCpb", 0, kRamPb},
      {S::Bank, {C::REFPB}, {C::REFPB}, "tRFCpb", 0, kDsys},
  };
}
// clang-format on

Standard make_hbm2() { return {"HBM2", kHbmTimingNames, hbm_common_rules()}; }

Standard make_hbm3() {
  Standard s{"HBM3", kHbmTimingNames, hbm_common_rules()};
  s.timing_names.push_back("tPPD");
  // New in HBM3: PRE to PRE in the same pseudo-channel.
  s.rules.push_back({S::PseudoChannel, {C::PRE}, {C::PRE}, "tPPD", 0, "Ramulator2 hbm3.py (JESD238 tPPD)"});
  return s;
}

std::string cmd_list(const std::vector<Cmd>& cmds) {
  std::string out;
  for (Cmd c : cmds) out += (out.empty() ? "" : "|") + std::string(cmd_name(c));
  return out;
}

}  // namespace

const std::vector<Standard>& standards() {
  static const std::vector<Standard> all = {make_hbm2(), make_hbm3()};
  return all;
}

std::string standard_names() {
  std::string out;
  for (const Standard& s : standards()) out += (out.empty() ? "" : ", ") + s.name;
  return out;
}

const Standard& find_standard(const std::string& name) {
  for (const Standard& s : standards())
    if (s.name == name) return s;
  throw std::invalid_argument(fmt::format("unknown standard '{}' (known: {})", name, standard_names()));
}

Cycle eval_gap(const std::string& expr, const TimingValues& timing) {
  Cycle total = 0;
  int sign = +1;
  bool expect_term = true;
  size_t i = 0;
  auto fail = [&](const std::string& why) -> Cycle {
    throw std::invalid_argument(fmt::format("gap '{}': {}", expr, why));
  };
  while (i < expr.size()) {
    const char c = expr[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '+' || c == '-') {
      if (expect_term) fail("expected a timing name or a number");
      sign = c == '+' ? +1 : -1;
      expect_term = true;
      ++i;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      if (!expect_term) fail("expected + or -");
      Cycle v = 0;
      while (i < expr.size() && std::isdigit(static_cast<unsigned char>(expr[i]))) v = v * 10 + (expr[i++] - '0');
      total += sign * v;
      expect_term = false;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      if (!expect_term) fail("expected + or -");
      size_t j = i;
      while (j < expr.size() && (std::isalnum(static_cast<unsigned char>(expr[j])) || expr[j] == '_')) ++j;
      const std::string name = expr.substr(i, j - i);
      auto it = timing.find(name);
      if (it == timing.end()) fail("unknown timing '" + name + "'");
      total += sign * it->second;
      expect_term = false;
      i = j;
    } else {
      fail(fmt::format("unexpected character '{}'", c));
    }
  }
  if (expect_term) fail("incomplete expression");
  return total;
}

std::string rule_label(const TimingRule& rule) {
  std::string label =
      fmt::format("{} ({},{}) {}", scope_name(rule.scope), cmd_list(rule.after), cmd_list(rule.before), rule.gap);
  if (rule.window > 0) label += fmt::format(" window {}", rule.window);
  return label;
}

std::vector<ResolvedRule> resolve_rules(const Standard& standard, const TimingValues& timing) {
  std::vector<ResolvedRule> out;
  for (const TimingRule& r : standard.rules) {
    ResolvedRule rr;
    rr.scope = r.scope;
    rr.label = rule_label(r);
    if (r.after.empty() || r.before.empty())
      throw std::invalid_argument(fmt::format("{}: {}: empty command list", standard.name, rr.label));
    for (Cmd c : r.after) rr.after |= bit(c);
    for (Cmd c : r.before) rr.before |= bit(c);
    const bool finer_than_pc = r.scope == Scope::Bank || r.scope == Scope::BankGroup;
    if (finer_than_pc && ((rr.after | rr.before) & (bit(Cmd::PREA) | bit(Cmd::REF))))
      throw std::invalid_argument(fmt::format("{}: {}: PREA and REF address a whole pseudo-channel, not a {}",
                                              standard.name, rr.label, scope_name(r.scope)));
    rr.gap = eval_gap(r.gap, timing);
    if (rr.gap < 0)
      throw std::invalid_argument(
          fmt::format("{}: {}: gap is {} cycles, must not be negative", standard.name, rr.label, rr.gap));
    rr.window = r.window;
    out.push_back(std::move(rr));
  }
  return out;
}

}  // namespace cstsim::hbm
