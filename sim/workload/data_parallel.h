#pragma once
// Data parallelism as a workload transform: every chip runs the whole model on its share of the
// samples, 1/d of the batch, with every weight whole on every chip:
//   a GEMM of a weight     M / d (its rows are the samples' tokens or pixels); a batched
//                          convolution: images / d (one image's pixels are not cut);
//   a GEMM of activations  (attention's) repeats / d: whole samples, so a sample's tokens never
//                          leave its chip; the batch must divide by d;
//   vector ops             rows / d;  flash attention  batch / d.
// Inference then needs no collective at all. A training step (sim/workload/training.h) is made
// from the share, and each weight's gradient, a sum over the chip's samples only, is all-reduced
// before that weight's optimizer step (gradient by gradient, as PyTorch's DistributedDataParallel
// overlaps its reduction with the rest of the backward, without its buckets; the mean's 1/d is a
// scale on the learning rate).
#include "sim/workload/workload.h"

namespace cstsim {

// One chip's share of `forward` on `d` chips (d >= 2). Throws InputError, with the op's file and
// line, where a share cannot be whole samples or even (a batch, M or rows not a multiple of d).
Workload split_data_parallel(const Workload& forward, int d);

// `step`, a training step made from a data-parallel share, with an all-reduce of every weight's
// gradient right before the weight's AdamW step (the gradient's bytes, at its dtype).
Workload with_gradient_all_reduces(Workload step);

// The workload one chip of a run on `tensor` x `data` chips executes: `loaded` split by data
// before the training step (`train`, as with_training) is made, by tensor parallelism after.
Workload chip_workload(const Workload& loaded, const std::string& train, int value_bits, int tensor, int data);

}  // namespace cstsim
