#pragma once
// A collective between the chips of a multi-chip run (arch chips > 1) as the split of the workload
// inserted it (sim/workload/tensor_parallel.h): between two layers, like a vector kernel, every chip
// waits for it. The interconnect runs it over its links (models/interconnect/chip_set.h).
#include <cstdint>
#include <string>

namespace cstsim {

// How a layer lies across the chips of a tensor-parallel run: whole on every chip, or each chip
// runs its share of N (columns), of K (rows: each holds partial sums of all of C) or of the
// layer's repeats (attention's heads). `whole`: that extent of the layer before the split.
struct ChipCut {
  enum class Dim { None, N, K, Repeats } dim = Dim::None;
  int64_t whole = 0;
};

struct CollectiveKernelPlan {
  std::string name;    // "<layer or op>.all_reduce" / ".all_gather" / ".send"
  // all_reduce | all_gather (every chip) | send (chip `from` to chip `to`: a pipeline stage's
  // activations; `from` goes on once they are off its link, `to` waits until they have arrived)
  std::string op;
  int from = -1, to = -1;
  // The run's index of this collective (ic::ChipSet's list) when chips run different plans
  // (pipeline stages); -1: its index in the plan's list.
  int id = -1;
  std::string tensor;  // what it reduces (the partial sums of a row-split GEMM) or gathers
  int64_t bytes = 0;   // the whole tensor, as every chip holds it afterwards
  // The width of one value in it, bits: an all-reduce adds values of this width (a row split's
  // partial sums are the accumulator's: int32 for int8 operands). 0: the run's value width.
  int element_bits = 0;
  int value_bits(int run_value_bits) const { return element_bits > 0 ? element_bits : run_value_bits; }
  int line = 0;          // the op's line in the workload file
  std::string why;       // which split needs it
};

}  // namespace cstsim
