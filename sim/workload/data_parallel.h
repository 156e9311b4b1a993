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
// `key`: the arch key the shares come from, for the message (micro-batches use this split too).
Workload split_data_parallel(const Workload& forward, int d, const std::string& key = "parallel.data");

// `step`, a training step made from a data-parallel share, with an all-reduce of every weight's
// gradient right before the weight's AdamW step (the gradient's bytes, at its dtype).
Workload with_gradient_all_reduces(Workload step);

// How a run's workload is split over its chips (arch parallel.*): one of the degrees > 1.
struct ChipSplit {
  int tensor = 1, data = 1, pipeline = 1, micro_batches = 1;
  // The width of the partial sums a row-split layer's all-reduce adds: the accumulator's (int32
  // for integer operands, fp32 for floating ones), the sums --verify adds, not the output's.
  int partial_sum_bits = 32;
  int chips() const { return tensor * data * pipeline; }
};

// The workload each chip of a run executes (one for every chip, the same share, unless pipeline
// stages differ): `loaded` split by data before the training step (`train`, as with_training) is
// made, by tensor parallelism after; pipeline stages from the loaded workload (inference only).
std::vector<Workload> chip_workloads(const Workload& loaded, const std::string& train, int value_bits,
                                     const ChipSplit& split);
Workload chip_workload(const Workload& loaded, const std::string& train, int value_bits, const ChipSplit& split);

}  // namespace cstsim
