#pragma once
// --verify across chips: the register grids of a tensor-parallel layer's chips, combined as the
// run combines them (columns side by side; rows' partial sums added by the all-reduce), against
// the one GEMM every chip took its share of (chip_share, gemm_data.h). Plain C++, no kernel.
#include <cstdint>
#include <string>
#include <vector>

#include "models/array/gemm_data.h"

namespace cstsim {

struct ChipsCombined {
  bool passed = true;
  std::string detail;               // the first difference, when it failed
  double max_relative_error = 0;    // floats: of the combined C against the fp64 GEMM (gemm_data.h)
};

// `parts[c]`: chip c's grid result (M x its N, row-major); `chunk`: the grids' accumulation chunk.
// Columns (`n_cut`): C is the parts side by side, bit for bit the reference GEMM of `whole`.
// Rows: each output is the chips' partial sums added in chip order, in the accumulator's type
// (integers wrap at its width, so any order gives the same sum): integers must equal the whole
// GEMM; floats, whose sum depends on its order, must equal the chips' reference partials added in
// that order, and their error against the fp64 GEMM is reported.
ChipsCombined check_chips_combined(const GemmData& whole, bool n_cut, int64_t chunk,
                                   const std::vector<const std::vector<double>*>& parts);

// The parts of a row split added as the check above adds them (chip order, accumulator type).
std::vector<double> add_partial_sums(NumType operand, NumType accumulator,
                                     const std::vector<const std::vector<double>*>& parts);

}  // namespace cstsim
