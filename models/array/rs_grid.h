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

// One PE's scratchpads after the last cycle, for the structural mode (models/array/structural/
// rs_structural_grid.h): 32-bit words (grid_arith.h's Reg and Acc: an int32 or a float's bits),
// valid until the next cycle.
struct RsPeWords {
  const void* filter = nullptr;  // [k][c][s]: p_max x q_max x S
  const void* window = nullptr;  // [c][s]: q_max x S
  const void* psum = nullptr;    // p_max
  int64_t fifo = 0;              // ifmap words waiting in its input FIFO
};

// A step's psums on their way up the columns: after `added` chain positions (bottom first), the
// partial sums in the psum output network's order (filter within the pass, then column).
struct RsTokenWords {
  int64_t pass = 0, step = 0;
  int64_t created = 0;  // the cycle the bottom PEs' psums left them
  int64_t added = 0, positions = 0;
  const void* sums = nullptr;
};

// The grid after a cycle, as the structural mode compares it.
class RsGridView {
 public:
  virtual int64_t cycle() const = 0;    // the cycle just stepped
  virtual int64_t pass() const = 0;     // the pass on the PEs (-1: none yet)
  virtual int64_t started() const = 0;  // that pass's last started step (-1: none)
  virtual const RsCounts& counts() const = 0;
  virtual int64_t gated() const = 0;
  virtual const std::vector<ArrayEvent>& events() const = 0;
  // Logical PE (channel set, filter set, filter row, ofmap row) of the current pass.
  virtual RsPeWords pe(int64_t ri, int64_t ti, int64_t y, int64_t x) const = 0;
  virtual size_t tokens() const = 0;
  virtual RsTokenWords token(size_t i) const = 0;
  // The global buffer's psum or ofmap value at RsData::out_index, as a word.
  virtual uint32_t glb(size_t index) const = 0;

 protected:
  ~RsGridView() = default;
};

class RsGridProbe {
 public:
  virtual void stepped(const RsGridView& grid) = 0;  // after each cycle

 protected:
  ~RsGridProbe() = default;
};

// Steps the grid through every pass of `plan` from `start`; `memory` (nullptr: ideal) is the
// grid's own source, asked as each pass could start. end_cycle includes its drain. `probe`
// (--verify=structural) sees the grid after every cycle.
RsRegisterRun run_rs_register_level(const RsLayerPlan& plan, int64_t start, const RsData& data,
                                    RsMemory* memory = nullptr, RsGridProbe* probe = nullptr);

}  // namespace cstsim
