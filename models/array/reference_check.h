#pragma once
// The --verify checker: what the register-level grid did against what the closed
// form says and the plain integer GEMM gives. Plain C++ (no kernel), so tests can
// run it on a grid stepped by hand.
#include <cstdint>
#include <string>
#include <vector>

#include "models/array/array_events.h"
#include "models/array/array_stats.h"
#include "models/array/gemm_data.h"
#include "models/array/register_array.h"

namespace cstsim {

// The K values one partial sum gathers before it is added to the output (gemm_data.h): a row
// fold's R words under WS and IS, all of K under OS.
int64_t accumulation_chunk(const FoldPlan& plan);

// Every way the grid differs, in this order: the first event off the closed form's
// cycle; the layer's end (`grid_end`, memory drain included, against `timing_end`);
// the first output value off the reference GEMM (bit for bit, in the grid's order); SRAM words per edge; MACs.
// Empty when it matches.
std::vector<std::string> reference_problems(const RegisterArray& grid, const std::vector<ArrayEvent>& expected,
                                            int64_t grid_end, int64_t timing_end, const ArrayLayerStats& stats,
                                            const GemmData& data);

}  // namespace cstsim
