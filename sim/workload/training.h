#pragma once
// A training step as a workload transform: a forward pass's layers, then for each layer in
// reverse order its two gradient GEMMs, then AdamW on the vector unit.
//
// A layer computes C = A.B (M x K times K x N). Its backward computes
//   dX: dA = dC.B^T   a GEMM of M x N times N x K  (M, N' = K, K' = N)
//   dW: dB = A^T.dC   a GEMM of K x M times M x N  (M' = K, N, K' = M)
// each of M.N.K MACs, so a step's GEMM MACs are 3x the forward's (plus what it recomputes).
// dB is the weight's gradient, or, where B is an activation (attention's K and V), that
// activation's. dC comes from the backward of the layer that read C (the last such one if
// several did: the elementwise sum of several gradients is not modelled), or is the loss's
// gradient, a tensor of its own, for an output nobody reads. Transposes are not modelled (a
// matrix is read in the layout it lies in), nor are the backward passes of the vector ops
// (norms, softmax, activations): the step lists them under `training.not_simulated`.
//
// Activations the backward needs - each layer's A, and its B where B is an activation - are
// kept in HBM from the forward pass until that layer's backward is done, unless `recompute`
// says otherwise:
//   none       keep them all;
//   selective  keep all but attention's probabilities (the [batch, heads, Sq, Skv] operand of
//              the context GEMM): the scores GEMM runs again right before that backward
//              (Korthikanti et al., "Reducing Activation Recomputation in Large Transformer
//              Models", MLSys 2023: recompute the attention core);
//   full       keep nothing the step can make again: before each layer's backward, the layers
//              its operands come from run again from the step's inputs (Chen et al., "Training
//              Deep Nets with Sublinear Memory Cost", 2016, at its O(1)-memory end).
// Recomputed layers are copies of forward ones ("<name>.recompute.<for>"), counted apart.
//
// AdamW (Loshchilov & Hutter 2019) updates each weight as soon as its gradient is complete,
// right after its dW (the optimizer-in-backward schedule of fused training loops, e.g. PyTorch's
// post-accumulate-grad hooks or LOMO, Lv et al. 2023), so gradients are never all held at once:
// per element it reads the gradient (the layer's dtype) and the fp32 master weight, m and v,
// and writes the three back: 15 operations (5 adds, 8 multiplies, 2 special: sqrt and
// reciprocal), the seed-003 ledger's count and bytes. The optimizer state (fp32 master, m, v)
// is held in HBM through the step (Layer::held_bytes, which V_M and M_peak show).
#include "sim/workload/workload.h"

namespace cstsim {

enum class Recompute { None, Selective, Full };
const std::vector<std::string>& recompute_names();

// `value_bits`: the width of an element where a layer states none (the arch's operand type).
Workload training_step(const Workload& forward, Recompute recompute, int value_bits);

// The workload a run or a plan takes: as loaded, or (`recompute`: none | selective | full, from
// --train) its training step; another value is an input error of --train.
Workload with_training(Workload forward, const std::string& recompute, int value_bits);

}  // namespace cstsim
