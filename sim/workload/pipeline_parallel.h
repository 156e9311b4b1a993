#pragma once
// Pipeline parallelism as a workload transform: the chips are stages, each a contiguous run of the
// workload's layers (cut only between layers, so that the stages' MACs are as even as the layers
// allow), and the samples flow through them as micro-batches (1/m of the samples each: the
// data-parallel share by m, data_parallel.h). Stage s runs micro-batch k once it has received k's
// activations from stage s-1, then sends its own to stage s+1 and goes on with k+1: GPipe's
// forward schedule (Huang et al., "GPipe", NeurIPS 2019), whose idle share on P stages of equal
// time is (P-1)/(m+P-1), the bubble.
//
// What a stage sends is every tensor made in it or before it that a later stage reads (a block's
// output, and the residual stream where a cut falls inside a block), at its width. A stage's
// workload is its layers and ops once per micro-batch ("<name>.mb<k>"), weights shared by the
// copies; a layer whose input came over the link reads it from HBM as a tensor of its own (the
// receive's write into HBM is not modelled). Inference only.
#include <vector>

#include "sim/workload/workload.h"

namespace cstsim {

// The stages' workloads, stage s for chip s; their sends (CollectiveKernelPlan op "send", id =
// s * micro_batches + k) are in both ends' collectives. Throws InputError when there are fewer
// layers than stages or the samples do not make `micro_batches` shares.
std::vector<Workload> split_pipeline(const Workload& w, int stages, int micro_batches, int value_bits);

}  // namespace cstsim
