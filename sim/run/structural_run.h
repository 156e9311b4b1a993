#pragma once
// --verify=structural in `cstsim run`: its limits (checked with the other inputs), the structural
// grids elaborated beside the accelerator (models/array/structural/), and summary.json's
// verify.structural.
#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "models/array/structural/structural_pass.h"
#include "sim/config/arch_spec.h"
#include "sim/run/run.h"

namespace cstsim {

// The largest array side the structural mode elaborates (one sc_module and a dozen sc_signals per PE).
constexpr int kStructuralMaxSide = 16;
// Row stationary: the most psums a PE's chain link carries and ifmap words its window holds.
constexpr int64_t kStructuralMaxRsWords = 256;

// Throws InputError unless the structural mode can run this arch (array size, RS scratchpads).
void check_structural(const ArchSpec& arch, const RunOptions& o);

// The structural grids of every array, before sc_start (nullptr without --verify=structural);
// --vcd-pes: their signals traced to <dir>/pes.vcd.
std::unique_ptr<StructuralArrays> make_structural(const ArchSpec& arch, const RunOptions& o,
                                                  const std::filesystem::path& dir);

// {passed, cycles_compared, pes, passes[, vcd]}; closes the VCD file. A mismatch never gets
// here: it stops the run with exit 3.
nlohmann::ordered_json structural_summary(StructuralArrays& arrays, const RunOptions& o);

}  // namespace cstsim
