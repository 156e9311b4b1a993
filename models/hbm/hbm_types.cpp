#include "models/hbm/hbm_types.h"

#include <fmt/format.h>

namespace cstsim::hbm {

const char* cmd_name(Cmd c) {
  switch (c) {
    case Cmd::ACT: return "ACT";
    case Cmd::PRE: return "PRE";
    case Cmd::PREA: return "PREA";
    case Cmd::RD: return "RD";
    case Cmd::WR: return "WR";
    case Cmd::REF: return "REF";
    case Cmd::REFPB: return "REFpb";
  }
  return "?";
}

const char* scope_name(Scope s) {
  switch (s) {
    case Scope::Bank: return "Bank";
    case Scope::BankGroup: return "BankGroup";
    case Scope::PseudoChannel: return "PseudoChannel";
    case Scope::Channel: return "Channel";
  }
  return "?";
}

std::string to_string(const Address& a) {
  return fmt::format("ch{} pc{} bg{} ba{} row {} col {}", a.channel, a.pc, a.bank_group, a.bank, a.row, a.column);
}

}  // namespace cstsim::hbm
