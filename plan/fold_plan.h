#pragma once
// How one GEMM layer is cut into folds on an R x C array.
//
// Every dataflow is described as: a stationary operand tile of Sr x Sc held
// in the PEs, and a stream of T vectors pushed through it (roles() in dataflow.h).
// Folds are visited with row folds inner and column folds outer (SCALE-Sim's order).
#include <cstdint>
#include <utility>
#include <vector>

#include "plan/dataflow.h"

namespace cstsim {

struct Fold {
  int index = 0;       // position in visiting order
  int64_t row0 = 0;    // first Sr index mapped to PE row 0
  int64_t col0 = 0;    // first Sc index mapped to PE column 0
  int rows_used = 0;   // r <= R
  int cols_used = 0;   // c <= C
  // The stream steps it pushes through: [k0, k0 + t) of the plan's T. All of T, except when an
  // OS output tile's reduction is cut into K chunks (with_k_chunks): then its chunks are
  // consecutive folds of the same tile, the PEs keep their sums from one to the next, and only
  // the last one drains the results.
  int64_t k0 = 0, t = 0;
  int chunk = 0;        // which K chunk of its output tile (0: the first)
  bool drains = true;   // its results leave the array when it ends
};

struct FoldPlan {
  Dataflow dataflow = Dataflow::WS;
  int R = 0, C = 0;
  // K counts PE words: `pack` operands side by side along the reduction (core/precision.h), so
  // every fold, stream and tile below is in words; k_values is the GEMM's own K.
  int64_t M = 0, N = 0, K = 0;
  int pack = 1;
  int64_t k_values = 0;
  // 2:4-compressed weights (PassPlan::sparse_2_4): k_values is the kept half of the GEMM's K.
  bool sparse_2_4 = false;
  int64_t nominal_k() const { return sparse_2_4 ? 2 * k_values : k_values; }
  // Words of the streamed operand a row fold over rows [row0, row0 + rows) reads: its rows, or
  // with 2:4 weights the four activations of every group those kept values come from (WS;
  // models/array/README.md), in words of `pack`.
  int64_t stream_words(int64_t row0, int64_t rows) const;
  // Bytes of the 2-bit places of `words` words of kept weights (0 without 2:4).
  int64_t index_bytes(int64_t words) const { return sparse_2_4 ? index_bytes_2_4(words, pack) : 0; }
  static int64_t index_bytes_2_4(int64_t words, int pack) { return (words * pack * 2 + 7) / 8; }
  // Zero gating (arch sparsity.zero_gating): the fraction of A's values that are nonzero
  // (Layer::input_density). zero_inputs() of its M x nominal_k() values are zero, placed by
  // is_placed_zero; each meets the N columns of B, so zero_inputs() * N MAC lanes are gated.
  double input_density = 1.0;
  int64_t zero_inputs() const { return zero_count(M * nominal_k(), input_density); }
  // Of `values` values at `density`, floor(values * (1 - density)) are zero, spread evenly:
  // value e (row-major) is zero where floor((e + 1) z / values) > floor(e z / values).
  static int64_t zero_count(int64_t values, double density);
  static bool is_placed_zero(int64_t e, int64_t values, int64_t zeros) {
    using Wide = __int128;
    return Wide(e + 1) * zeros / values > Wide(e) * zeros / values;
  }
  int64_t Sr = 0, Sc = 0, T = 0;
  int64_t row_folds = 0, col_folds = 0;
  int64_t k_chunks = 1;  // K chunks per OS output tile (with_k_chunks); 1: every fold streams all of T
  std::vector<Fold> folds;
  // fold_pipeline: scalesim: the stall cycles SCALE-Sim's memory adds before fold slot g's start
  // (ScaleSimMemory::stalls_before_fold), then one more entry: all it adds to the layer. Empty: none.
  std::vector<int64_t> scalesim_stalls;

  int64_t fold_count() const { return row_folds * col_folds * k_chunks; }  // = folds.size() until cleared
  // Sum over folds of r*c / (F*R*C): SCALE-Sim's mapping efficiency.
  double mapping_efficiency() const;
};

// The fold grid make_fold_plan would build (row folds, column folds), without building it: for
// bounds checked before any fold is made. K in values; `pack` of them make a word.
std::pair<int64_t, int64_t> fold_grid(Dataflow dataflow, int R, int C, int64_t M, int64_t N, int64_t K, int pack = 1);

// K in values; `pack` of them make a word.
FoldPlan make_fold_plan(Dataflow dataflow, int R, int C, int64_t M, int64_t N, int64_t K, int pack = 1);

// The same layer with its stream cut to `t` vectors (one stream pass of it).
FoldPlan with_stream(const FoldPlan& whole, int64_t t);

// Part i of `total` cut into `parts` as evenly as can be: total / parts, the first total % parts
// one more (stream passes, K chunks).
inline int64_t even_part(int64_t total, int64_t parts, int64_t i) { return total / parts + (i < total % parts ? 1 : 0); }

// OS: every output tile's reduction cut into `n` K chunks of T/n words (the first T % n one
// more), each a fold of its own, visited one after another (column folds outer, row folds, then
// chunks). So a stationary block of B the filter partition cannot hold streams through it a
// chunk at a time; partial sums stay in the PEs. n = 1: `whole` unchanged.
FoldPlan with_k_chunks(const FoldPlan& whole, int64_t n);

}  // namespace cstsim
