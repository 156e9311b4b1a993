#pragma once
// What the vector unit runs: every operator-graph op that is not a GEMM (norms, softmax,
// activations, RoPE, residual adds, (de)quantization, gathers, KV-cache appends, pools), as
// the steps an unfused (eager) implementation runs. Each step is a kernel over a [rows x cols]
// view of its output (a row is the last dimension, along which reductions run): it reads its
// inputs from HBM and writes its result back. The mapper fuses steps (arch vector.fusion) by
// merging them into one kernel that reads only what comes from outside and writes only what
// is needed outside (sim/mapper/vector_plan.h), so unfused chains write and re-read their
// intermediates and fused ones do not. The decompositions are those of the seed-002 ledger
// (`cstsim ledger`): RMSNorm in 6 steps, LayerNorm in 6, RoPE in 4.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "plan/vector_kernel.h"  // VectorClass

namespace cstsim {

// A tensor a step reads or writes: row_bytes for each of the step's rows (a tile of r rows moves
// r x row_bytes), or once_bytes for the whole kernel (a norm's weight vector: read once, kept).
struct VectorAccess {
  std::string tensor;
  int64_t row_bytes = 0, once_bytes = 0;
};

struct VectorStep {
  std::string name;      // the graph op's name, or op.part for one of several steps
  std::string op, kind;  // the graph op it belongs to, and its kind
  std::string what;      // the step as a formula ("sq = x^2")
  int64_t rows = 0, cols = 0;
  std::array<int64_t, kVectorClasses> ops_per_row{};
  std::vector<VectorAccess> reads, writes;
  int line = 0;
  bool reduces = false;  // reduces along its rows (a norm, softmax, a per-row scale): a tile holds whole rows
  int before_layer = 0;  // runs after GEMM layers [0, before_layer), before the others
  int order = 0;         // among the vector steps and flash kernels between two layers: graph order
  int64_t read_bytes() const;
  int64_t written_bytes() const;
  int64_t ops() const;  // every class
};

// One graph op's tensors in the [rows x cols] view of its output.
struct VectorOpIo {
  std::string op, kind, out;
  int64_t rows = 0, cols = 0;
  int64_t element_bytes = 2;  // of its main input, and of its full-width intermediates
  int64_t out_row_bytes = 0;
  std::vector<VectorAccess> in;  // its inputs, in the op's order
  int64_t window = 1;            // pools: taps per output element
  int line = 0;
};

// The unfused steps of one op (empty for a view). Throws std::logic_error on an unknown kind.
std::vector<VectorStep> vector_steps(const VectorOpIo& io);

// Bytes of one row statistic (a norm's mean, a softmax's max and sum): fp32, the reductions'
// accumulator type.
inline constexpr int64_t kRowStatBytes = 4;

}  // namespace cstsim
