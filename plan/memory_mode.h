#pragma once
// What feeds the array, one vocabulary for the front (the arch file's `memory:`), the
// mapper and the models. Names as the YAML spells them.
#include <optional>
#include <string>
#include <vector>

namespace cstsim {

// "ideal": operands are always on chip in time. "channel" / "hbm": the stationary
// operand comes from DRAM through one bandwidth-limited channel or one HBM stack
// into a FIFO of tiles, TPU v1 style. "hierarchy": every operand moves
// HBM -> mesh NoC -> DMA -> banked scratchpad, and the outputs back.
enum class MemoryMode { Ideal, Channel, Hbm, Hierarchy };

const char* to_string(MemoryMode m);
// Every mode by name, in enum order, and the inverse of to_string.
const std::vector<std::string>& memory_mode_names();
std::optional<MemoryMode> memory_mode_named(const std::string& name);

// Whether the mode has an HBM stack (and so reads the hbm.* keys and an HBM file).
inline bool has_hbm(MemoryMode m) { return m == MemoryMode::Hbm || m == MemoryMode::Hierarchy; }

}  // namespace cstsim
