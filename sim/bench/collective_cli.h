#pragma once
// `cstsim collective`: one collective on a chip-to-chip interconnect (models/interconnect) with a
// link preset (configs/interconnect/*.yaml); prints its time, the bytes each chip sent, algbw and
// busbw (nccl-tests' definitions), and per directed link its bytes, busy time and energy.
#include <string>
#include <vector>

namespace cstsim {
// args are the words after "collective". Bad usage prints one line and returns 2.
int collective_command(const std::vector<std::string>& args);
}  // namespace cstsim
