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
#include "plan/plan.h"

namespace cstsim {

// The K values one partial sum gathers before it is added to the output (gemm_data.h): a row
// fold's R words under WS and IS, all of K under OS.
int64_t accumulation_chunk(const FoldPlan& plan);

// The operands of a pass's register grid: random values of the pass's stored types (its layer's,
// else the arch's) from `seed`. A layer cut across chips by columns or rows (`cut`, `chips` > 1):
// the whole pass is that GEMM with N (or K) times `chips`, and chip `chip` takes its share of it
// (chip_share); chip -1: the whole. Every chip draws the same whole, so the shares are of one GEMM.
GemmData pass_operands(const FoldPlan& plan, const PassPlan& pass, Precision types, uint64_t seed, const ChipCut& cut,
                       int chip, int chips);
bool cut_for_check(const ChipCut& cut, int chips);  // by columns or rows across chips > 1

// Every way the grid differs, in this order: the first event off the closed form's
// cycle; the layer's end (`grid_end`, memory drain included, against `timing_end`);
// the first output value off the reference GEMM (bit for bit, in the grid's order); SRAM words per edge; MACs.
// Empty when it matches.
std::vector<std::string> reference_problems(const RegisterArray& grid, const std::vector<ArrayEvent>& expected,
                                            int64_t grid_end, int64_t timing_end, const ArrayLayerStats& stats,
                                            const GemmData& data);

}  // namespace cstsim
