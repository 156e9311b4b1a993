// The tensor-parallel split (sim/workload/tensor_parallel.h) on Llama-2-7B's block and on a GEMM
// chain: which way each layer splits, the share's MACs, and exactly the collectives and bytes
// Megatron-LM's scheme needs.
#include <gtest/gtest.h>

#include <string>

#include "core/input_error.h"
#include "tests/unit/split_test_util.h"
#include "models/array/gemm_data.h"
#include "models/array/register_array.h"
#include "plan/fold_plan.h"
#include "sim/workload/data_parallel.h"
#include "sim/workload/tensor_parallel.h"
#include "sim/workload/training.h"

namespace cstsim {
namespace {

using testing_util::kModels;
using testing_util::macs;

const std::string kLlama = kModels + "llama2-7b-prefill-s2048.yaml";

const Layer& layer(const Workload& w, const std::string& name) {
  for (const Layer& l : w.layers)
    if (l.name == name) return l;
  throw std::runtime_error("no layer " + name);
}

TEST(TensorParallel, LlamaBlockSplitsAsMegatron) {
  const Workload whole = load_workload(kLlama);
  for (int t : {2, 4, 8}) {
    const Workload share = split_tensor_parallel(whole, t, 16, 32);
    EXPECT_EQ(share.tensor_parallel, t);
    EXPECT_EQ(macs(share) * t, macs(whole)) << t;  // every GEMM split, none run whole
    // Q, K, V, gate, up by columns; o_proj and down by rows; attention by heads.
    for (const char* n : {"b0.q_proj", "b0.k_proj", "b0.v_proj", "b0.gate_proj", "b0.up_proj"}) {
      EXPECT_EQ(layer(share, n).N * t, layer(whole, n).N) << n;
      EXPECT_EQ(layer(share, n).K, layer(whole, n).K) << n;
    }
    for (const char* n : {"b0.o_proj", "b0.down_proj"}) {
      EXPECT_EQ(layer(share, n).K * t, layer(whole, n).K) << n;
      EXPECT_EQ(layer(share, n).N, layer(whole, n).N) << n;
    }
    for (const char* n : {"b0.attn.scores", "b0.attn.context"})
      EXPECT_EQ(layer(share, n).repeats * t, layer(whole, n).repeats) << n;
    // Two all-reduces of the whole [2048, 4096] output's fp32 partial sums (the bf16 output would be
    // half), right after the row splits; no gathers.
    ASSERT_EQ(share.collectives.size(), 2u) << t;
    const int64_t bytes = 2048LL * 4096 * 4;
    const char* after[] = {"b0.o_proj", "b0.down_proj"};
    for (size_t c = 0; c < 2; ++c) {
      const WorkloadCollective& k = share.collectives[c];
      EXPECT_EQ(k.op, "all_reduce");
      EXPECT_EQ(k.bytes, bytes);
      EXPECT_EQ(share.layers[size_t(k.before_layer) - 1].name, after[c]);
      EXPECT_EQ(k.order, -1);  // before the residual add that reads it
    }
    // The vector ops on split tensors (RoPE, softmax, SiLU, the gate's product) run a share of the
    // rows; the norms and residual adds (after the all-reduces) run whole.
    for (size_t j = 0; j < whole.vector_steps.size(); ++j) {
      const VectorStep& w = whole.vector_steps[j];
      const VectorStep& s = share.vector_steps[j];
      const bool split = w.op.find("rope") != std::string::npos || w.op.find("attn") != std::string::npos ||
                         w.op == "b0.act" || w.op == "b0.gate_mul";
      EXPECT_EQ(s.rows * (split ? t : 1), w.rows) << w.name << " t " << t;
    }
  }
}

TEST(TensorParallel, GemmChainAlternatesColumnsAndRows) {
  Workload w;
  w.name = w.source = "chain";
  for (int i = 0; i < 3; ++i) w.layers.push_back(Layer::gemm("fc" + std::to_string(i), 64, 512, 512));
  const Workload s = split_tensor_parallel(w, 4, 8, 32);
  EXPECT_EQ(s.layer_splits[0], "columns: N 128 of 512");
  EXPECT_EQ(s.layer_splits[1], "rows: K 128 of 512");
  EXPECT_EQ(s.layer_splits[2], "columns: N 128 of 512");
  ASSERT_EQ(s.collectives.size(), 1u);
  EXPECT_EQ(s.collectives[0].op, "all_reduce");
  EXPECT_EQ(s.collectives[0].bytes, 64 * 512 * 4);  // int32 partial sums (the int8 outputs would be a quarter)
  EXPECT_EQ(s.collectives[0].before_layer, 2);
  // A width no chip count divides runs whole on every chip: MACs then add up to more than the whole.
  w.layers[0].N = 510;
  const Workload odd = split_tensor_parallel(w, 4, 8, 32);
  EXPECT_EQ(odd.layer_splits[0], "whole on every chip");
  EXPECT_EQ(odd.layers[0].N, 510);
  EXPECT_EQ(odd.layer_splits[1], "columns: N 128 of 512");  // its input is whole: columns again
}

TEST(TensorParallel, HeadsThatDoNotDivideAreRefused) {
  const Workload whole = load_workload(kLlama);  // 32 heads
  Workload w = whole;
  for (Layer& l : w.layers)
    if (l.name == "b0.attn.scores" || l.name == "b0.attn.context") l.repeats = 30;  // 30 heads, t = 4
  EXPECT_THROW(split_tensor_parallel(w, 4, 16, 32), InputError);
}

// A column-split GEMM then a row-split one, as the split makes them, each chip's share run on a
// register-level array of its own: the column shares side by side are the first product, and the
// row shares' partial sums, added as the ring all-reduce adds them (chunk c from chip c + 1 on),
// are the second, exactly (int8 operands, int32 sums that wrap: no order can change them).
TEST(TensorParallel, SharesOnRegisterGridsAddUpToTheWholeGemm) {
  const int t = 4;
  Workload w;
  w.name = w.source = "pair";
  w.layers = {Layer::gemm("up", 24, 64, 40), Layer::gemm("down", 24, 40, 64)};
  const Workload share = split_tensor_parallel(w, t, 8, 32);
  ASSERT_EQ(share.collectives.size(), 1u);
  auto run_grid = [](const GemmData& d) {
    auto grid = make_register_array(make_fold_plan(Dataflow::WS, 8, 8, d.M, d.N, d.K), FoldPipeline::Overlapped, 0, d);
    while (!grid->done()) grid->step();
    return grid->result();
  };
  for (int which = 0; which < 2; ++which) {
    const Layer& whole = w.layers[size_t(which)];
    const Layer& part = share.layers[size_t(which)];
    const GemmData d = make_random_gemm(whole.M, whole.N, whole.K, 77 + which);
    std::vector<double> got(size_t(whole.M * whole.N), 0.0);
    for (int chip = 0; chip < t; ++chip) {
      GemmData mine = d;  // this chip's columns of B (up), or its K slice of A and B (down)
      mine.N = part.N, mine.K = part.K;
      mine.A.assign(size_t(part.M * part.K), 0), mine.B.assign(size_t(part.K * part.N), 0);
      const int64_t n0 = which == 0 ? chip * part.N : 0, k0 = which == 1 ? chip * part.K : 0;
      for (int64_t m = 0; m < part.M; ++m)
        for (int64_t k = 0; k < part.K; ++k) mine.A[size_t(m * part.K + k)] = d.A[size_t(m * d.K + k0 + k)];
      for (int64_t k = 0; k < part.K; ++k)
        for (int64_t n = 0; n < part.N; ++n) mine.B[size_t(k * part.N + n)] = d.B[size_t((k0 + k) * d.N + n0 + n)];
      const std::vector<double> c = run_grid(mine);
      for (int64_t m = 0; m < part.M; ++m)
        for (int64_t n = 0; n < part.N; ++n) {
          double& into = got[size_t(m * whole.N + n0 + n)];
          // int32 wrap of the sum, as the chips' adds do it
          into = double(int32_t(uint32_t(int64_t(into)) + uint32_t(int64_t(c[size_t(m * part.N + n)]))));
        }
    }
    EXPECT_EQ(got, reference_gemm(d)) << whole.name;
  }
}

}  // namespace
}  // namespace cstsim

namespace cstsim {
namespace {

// A training step on a tensor-parallel share of Llama-2-7B's block (Megatron-LM's backward): the
// step's MACs split evenly, and beside the forward's two all-reduces, one of each column split's
// input gradient right after its dX - q, k and v's (all of b0.h1's gradient) and gate and up's
// (b0.h2's), 2048 x 4096 fp32 partial sums each (ChipSplit's default, the accumulator of bf16
// operands) - in the order the backward reaches them. Full recomputation
// is refused.
TEST(TensorParallel, TrainingStepAllReducesTheColumnSplitsInputGradients) {
  const Workload whole = load_workload(kLlama);
  const Workload step = with_training(whole, "none", 16);
  for (int t : {2, 4}) {
    const Workload share = chip_workload(whole, "none", 16, ChipSplit{t});
    EXPECT_EQ(macs(share) * t, macs(step)) << t;
    std::vector<std::string> reduced;
    for (const WorkloadCollective& c : share.collectives) {
      EXPECT_EQ(c.op, "all_reduce");
      EXPECT_EQ(c.bytes, 2048LL * 4096 * 4);
      reduced.push_back(c.tensor + " after " + share.layers[size_t(c.before_layer) - 1].name);
    }
    EXPECT_EQ(reduced, (std::vector<std::string>{
                           "b0.o after b0.o_proj", "b0.f2 after b0.down_proj", "b0.h2.grad after b0.up_proj.dX",
                           "b0.h2.grad after b0.gate_proj.dX", "b0.h1.grad after b0.v_proj.dX",
                           "b0.h1.grad after b0.k_proj.dX", "b0.h1.grad after b0.q_proj.dX"}))
        << t;
  }
  EXPECT_THROW(chip_workload(whole, "full", 16, ChipSplit{2}), InputError);
}

}  // namespace
}  // namespace cstsim
