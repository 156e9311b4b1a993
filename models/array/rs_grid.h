#pragma once
// Row stationary's register-level reference: every PE of a pass holds its filter rows, its
// sliding ifmap window and its psums as real values in its scratchpads; the filter, ifmap and
// psum networks carry words one cycle at a time (multicast where several PEs need a word); a
// column's psums add up through its PEs one hop a cycle and leave over the psum output network
// into the global buffer, from which a later channel block reads them back. A controller starts
// passes and steps from what it observes (words delivered, PEs done, output FIFOs drained),
// never from rs_timing.h, which must agree with it on every event.
#include <cstdint>
#include <vector>

#include "core/num_type.h"
#include "models/array/array_events.h"
#include "models/array/rs_memory.h"
#include "models/array/rs_timing.h"
#include "plan/rs_plan.h"

namespace cstsim {

// The types of a layer's values: what the PEs multiply (`operand`, which picks the arithmetic of
// models/array/grid_arith.h), what the ifmap and filters are stored as (exact in it), the psums'.
struct RsTypes {
  NumType operand = NumType::Int16, ifmap = NumType::Int16, filter = NumType::Int16;
  NumType accumulator = NumType::Int32;
};

// One convolution's operands: ifmap [group][image][channel][H][W] and filters
// [group][filter][channel][R][S]; integers wrap at the accumulator's width, floats accumulate in
// fp32 one rounding per MAC.
struct RsData {
  RsShape shape;
  NumType operand = NumType::Int16, accumulator = NumType::Int32;
  std::vector<float> ifmap, filters;
  float x(int64_t g, int64_t i, int64_t c, int64_t h, int64_t w) const {
    const RsShape& s = shape;
    return ifmap[size_t((((g * s.N + i) * s.C + c) * s.H + h) * s.W + w)];
  }
  float w(int64_t g, int64_t m, int64_t c, int64_t r, int64_t q) const {
    const RsShape& s = shape;
    return filters[size_t((((g * s.M + m) * s.C + c) * s.R + r) * s.S + q)];
  }
  // Index of ofmap value (g, image, filter, row, column) in a result.
  size_t out_index(int64_t g, int64_t i, int64_t m, int64_t e, int64_t f) const {
    const RsShape& s = shape;
    return size_t((((g * s.N + i) * s.M + m) * s.E() + e) * s.F() + f);
  }
};

// Random values of their types (core/num_type.h random_value). `ifmap_density` < 1: the ifmap is
// zero exactly where FoldPlan::is_placed_zero puts its zeros (RsLayerPlan::gating_density) and
// nonzero elsewhere.
RsData make_random_rs_data(const RsShape& shape, uint64_t seed, const RsTypes& types = {}, double ifmap_density = 1.0);

// The plain convolution of integers, wrapping at the accumulator's width: [group][image][filter][E][F].
std::vector<double> reference_conv(const RsData& data);

// The convolution in the grid's order, for any type (floats round once per MAC in fp32): pass by
// pass, each PE of a column sums its channels' taps (channel, then tap) into a psum that starts at
// +0 (the chain's bottom PE at the buffer's psum from earlier passes), and the column adds its PEs'
// psums bottom to top (channel sets, then filter rows) onto +0.
std::vector<double> reference_rs(const RsLayerPlan& plan, const RsData& data);

// Floats: the largest |got - exact| over the outputs, relative to each output's sum of |x w| (the
// exact sum in fp64; models/array/gemm_data.h max_relative_error for GEMMs); 0 for integers.
double rs_max_relative_error(const std::vector<double>& got, const RsData& data);

struct RsRegisterRun {
  std::vector<ArrayEvent> events;
  int64_t end_cycle = 0;
  RsCounts counts;
  int64_t gated = 0;  // MACs of PEs whose ifmap value was zero, counted as they ran
  std::vector<double> result;
};

// Steps the grid through every pass of `plan` from `start`; `memory` (nullptr: ideal) is the
// grid's own source, asked as each pass could start. end_cycle includes its drain.
RsRegisterRun run_rs_register_level(const RsLayerPlan& plan, int64_t start, const RsData& data,
                                    RsMemory* memory = nullptr);

}  // namespace cstsim
