#pragma once
// `cstsim serve --arch A --model M --requests R --out D`: an LLM serving run on the modelled chip
// (sim/serve/scheduler.h, step_pricer.h). Exit status: 0 ok, 2 bad input (one line, nothing
// written), 3 internal error.
#include <string>
#include <vector>

namespace cstsim {
int serve_command(const std::vector<std::string>& args);
}  // namespace cstsim
