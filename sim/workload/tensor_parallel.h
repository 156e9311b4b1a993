#pragma once
// Tensor parallelism as a workload transform: every chip runs the same share of each layer and
// op, and the chips meet in collectives where the shares must be combined (Shoeybi et al.,
// "Megatron-LM", arXiv:1909.08053, 2019, §3: the MLP's first GEMM split by columns and its second
// by rows, attention split by heads, one all-reduce after each row split).
//
// The rules follow how each tensor lies across the chips - whole on every chip (replicated),
// split along its last dimension (columns), split along a leading one (rows: attention's heads), or
// as partial sums:
//   a GEMM of a weight      replicated A: columns (N / t), C in columns;
//                           A in columns: rows (K / t), C partial, then an all-reduce of C
//                           (C replicated); A in rows: an all-gather of A first;
//                           N (or K) not a multiple of t: every chip runs it whole (replicated);
//   attention's GEMMs       (B an activation) q, k, v split by heads: repeats / t; the scores lie
//                           in rows, the context in columns; flash attention: heads / t;
//   a vector op             any input split: rows / t, output split alike; a row reduction (norm,
//                           softmax, quantize) of columns needs them whole: an all-gather first;
//   convolutions            as GEMMs, filters (columns) or channels (rows) / t.
// An all-reduce moves the whole C's partial sums (repeats x M x N at the accumulator's width:
// int32 for int8 operands, as --verify adds them) and sits right after the layer, before any
// vector op; an all-gather moves the whole tensor (at its own width).
#include "sim/workload/workload.h"

namespace cstsim {

// One chip's share of `w` on `t` chips (t >= 2) with the collectives it needs. `output_bits`:
// the width of a layer's output where the workload gives none (an operator graph's dtype does);
// `partial_sum_bits`: the accumulator's width, what an all-reduce of partial sums moves. Throws InputError when a share cannot be even (heads, KV heads or a split op's rows not a
// multiple of t), or for what is not modelled (a training step).
Workload split_tensor_parallel(const Workload& w, int t, int output_bits, int partial_sum_bits);

// A training step made (training.h) from a tensor-parallel share `forward`, with the collectives
// its backward needs (Megatron-LM's f and g operators run backwards): a layer split by columns
// read a whole input, so its dX (dY's columns times W's) holds partial sums of the whole input's
// gradient - an all-reduce of partial_sum_bits-wide sums right after it; a row split's dX comes out split like its input and its
// forward all-reduce passes the gradient through whole; the weights' gradients are each chip's
// own. Layers run whole on every chip run their backward whole too. Throws InputError for what is
// not modelled: recompute full (it would repeat the forward's all-reduces), an all-gather's
// backward (a reduce-scatter).
Workload tensor_parallel_step(const Workload& forward, const std::string& recompute, int value_bits,
                              int partial_sum_bits);

}  // namespace cstsim
