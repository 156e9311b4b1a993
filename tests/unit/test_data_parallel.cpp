// The data-parallel split (sim/workload/data_parallel.h): every chip a share of the samples with
// the weights whole, no collective for inference, one all-reduce of each weight's gradient before
// its optimizer step in a training step, and a clear refusal where samples cannot be kept whole.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/input_error.h"
#include "tests/unit/split_test_util.h"
#include "sim/workload/data_parallel.h"
#include "sim/workload/training.h"

namespace cstsim {
namespace {

using testing_util::kModels;
using testing_util::macs;

Workload chain(int64_t M) {
  Workload w;
  w.name = w.source = "chain";
  w.layers = {Layer::gemm("fc0", M, 128, 64), Layer::gemm("fc1", M, 64, 128)};
  w.layers[0].source_line = 2;
  return w;
}

TEST(DataParallel, EveryChipTakesItsRowsWithTheWeightsWhole) {
  const Workload whole = chain(256);
  for (int d : {2, 4, 8}) {
    const Workload share = chip_workload(whole, "", 8, ChipSplit{1, d});
    EXPECT_EQ(share.data_parallel, d);
    EXPECT_TRUE(share.collectives.empty());  // inference: the chips never meet
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(share.layers[i].M * d, whole.layers[i].M);
      EXPECT_EQ(share.layers[i].N, whole.layers[i].N);
      EXPECT_EQ(share.layers[i].K, whole.layers[i].K);
    }
    EXPECT_EQ(macs(share) * d, macs(whole));
  }
}

// Each weight's gradient (K x N at 8 bits) is all-reduced once, in the order the backward reaches
// it (fc1's first), right before its AdamW step; the step's MACs split evenly.
TEST(DataParallel, ATrainingStepAllReducesEachGradientBeforeItsOptimizerStep) {
  const Workload whole = chain(256);
  const Workload step = with_training(whole, "none", 8);
  const Workload share = chip_workload(whole, "none", 8, ChipSplit{1, 4});
  EXPECT_EQ(macs(share) * 4, macs(step));
  ASSERT_EQ(share.collectives.size(), 2u);
  const char* order[] = {"fc1", "fc0"};
  const int64_t bytes[] = {128 * 64, 64 * 128};
  for (size_t c = 0; c < 2; ++c) {
    const WorkloadCollective& k = share.collectives[c];
    EXPECT_EQ(k.op, "all_reduce");
    EXPECT_EQ(k.bytes, bytes[c]);
    const VectorStep* adamw = nullptr;
    for (const VectorStep& v : share.vector_steps)
      if (v.name == std::string(order[c]) + ".adamw") adamw = &v;
    ASSERT_NE(adamw, nullptr);
    EXPECT_EQ(k.before_layer, adamw->before_layer);  // after the weight's dW ...
    EXPECT_EQ(k.order, adamw->order);                 // ... and first among its kernels: before AdamW
    EXPECT_EQ(share.layers[size_t(k.before_layer) - 1].name, std::string(order[c]) + ".dW");
    EXPECT_EQ(adamw->rows * adamw->cols, bytes[c]);  // the optimizer updates the whole weight on every chip
  }
  EXPECT_EQ(share.layer_splits.size(), share.layers.size());
  EXPECT_EQ(share.whole_on_every_chip, (std::set<std::string>{"fc0.adamw", "fc1.adamw"}));  // T_serial's work
}

// Llama-2-7B decoding a batch of 8: attention splits by whole samples (repeats / d), the weight
// GEMMs by rows; a batch of 1 (the prefill) cannot keep its tokens together and is refused.
TEST(DataParallel, AttentionSplitsBySamplesOnly) {
  const Workload decode = load_workload(kModels + "llama2-7b-decode-b8-l4096.yaml");
  for (int d : {2, 4, 8}) {
    const Workload share = chip_workload(decode, "", 16, ChipSplit{1, d});
    EXPECT_EQ(macs(share) * d, macs(decode)) << d;
    for (size_t i = 0; i < decode.layers.size(); ++i)
      if (decode.layers[i].batch > 1) EXPECT_EQ(share.layers[i].repeats * d, decode.layers[i].repeats);
  }
  const Workload prefill = load_workload(kModels + "llama2-7b-prefill-s512.yaml");
  try {
    chip_workload(prefill, "", 16, ChipSplit{1, 2});
    FAIL() << "a batch of one split by data";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("b0.attn.scores: its 1 sample(s)"), std::string::npos) << e.what();
  }
  try {
    chip_workload(chain(250), "", 8, ChipSplit{1, 4});
    FAIL() << "250 rows split in 4";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("chain:2: fc0: its M rows (250) do not split into 4"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace cstsim
