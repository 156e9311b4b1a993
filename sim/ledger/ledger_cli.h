#pragma once
// `cstsim ledger`: the analytical roofline ledger of seeds 002 and 003 (FLOPs, minimum
// bytes, arithmetic intensity, machine balance, time lower bound). Formulas: sim/ledger/README.md.
#include <string>
#include <vector>

namespace cstsim {
// args are the words after "ledger". Prints to stdout; returns 0, or 2 on bad usage
// after one line "error: ledger: ..." on stderr.
int ledger_command(const std::vector<std::string>& args);
}  // namespace cstsim
