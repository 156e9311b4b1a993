// Operator graphs (sim/workload/graph.h): shapes checked, ops ordered by their dependencies and
// lowered to layers with the MACs the published models have.
#include <gtest/gtest.h>

#include <string>

#include "core/input_error.h"
#include "sim/mapper/mapper.h"
#include "sim/workload/workload.h"
#include "tests/hierarchy_spec.h"
#include "tests/test_util.h"
#include "tests/unit/split_test_util.h"

using namespace cstsim;
using namespace cstsim::testing_util;

namespace {

const Layer& layer(const Workload& w, const std::string& name) {
  for (const Layer& l : w.layers)
    if (l.name == name) return l;
  throw std::runtime_error("no layer " + name);
}

const char* kTensors =
    "tensors:\n"
    "  - {name: x, shape: [2, 16, 64], dtype: int8, role: activation}\n"
    "  - {name: w, shape: [64, 32], dtype: int8, role: weight}\n";

}  // namespace

TEST(Graph, AWeightSharedByEveryRowFoldsTheBatchIntoM) {
  TempDir dir;
  const Workload w = load_workload(dir.write("g.yaml", std::string(kTensors) +
                                                           "ops:\n  - {name: mm, op: matmul, in: [x, w], out: y}\n"));
  ASSERT_TRUE(w.is_graph);
  ASSERT_EQ(w.layers.size(), 1u);
  const Layer& l = w.layers[0];
  EXPECT_EQ(l.M, 32);  // 2 x 16 rows
  EXPECT_EQ(l.N, 32);
  EXPECT_EQ(l.K, 64);
  EXPECT_EQ(l.repeats, 1);
  EXPECT_EQ(l.input_layer, -1);  // x lies in HBM from the start: no shape rule
}

TEST(Graph, ActivationTimesActivationRepeatsPerBatchAndReadsBothWhereTheyWereWritten) {
  TempDir dir;
  const Workload w = load_workload(dir.write(
      "g.yaml", std::string(kTensors) +
                    "  - {name: w2, shape: [64, 16], dtype: int8, role: weight}\n"
                    "ops:\n"
                    "  - {name: bmm, op: matmul, in: [a, b], out: c, transpose_b: true}\n"  // before its inputs
                    "  - {name: pa, op: matmul, in: [x, w], out: a}\n"
                    "  - {name: pb, op: matmul, in: [x, w], out: b}\n"));
  ASSERT_EQ(w.layers.size(), 3u);
  EXPECT_EQ(w.layers[2].name, "bmm");  // after what it reads
  const Layer& l = w.layers[2];
  EXPECT_EQ(l.repeats, 2);  // a [2, 16, 32] x b^T [2, 32, 16]
  EXPECT_EQ(l.M, 16);
  EXPECT_EQ(l.N, 16);
  EXPECT_EQ(l.K, 32);
  EXPECT_EQ(l.input_layer, 0);
  EXPECT_EQ(l.weight_layer, 1);
  // pb reads x and w where pa has them.
  EXPECT_EQ(w.layers[1].same_as[0].layer, 0);
  EXPECT_EQ(w.layers[1].same_as[1].layer, 0);
  EXPECT_EQ(w.layers[1].same_as[1].matrix, 1);
}

TEST(Graph, Conv2dPadsStridesDilatesAndGroups) {
  TempDir dir;
  const Workload w = load_workload(dir.write(
      "g.yaml",
      "tensors:\n"
      "  - {name: img, shape: [2, 56, 56, 32], dtype: int8, role: activation}\n"
      "  - {name: k, shape: [3, 3, 32, 64], dtype: int8, role: weight}\n"
      "  - {name: dw, shape: [3, 3, 1, 32], dtype: int8, role: weight}\n"
      "ops:\n"
      "  - {name: same, op: conv2d, in: [img, k], out: a, padding: 1}\n"
      "  - {name: strided, op: conv2d, in: [img, k], out: b, padding: 1, stride: 2}\n"
      "  - {name: dilated, op: conv2d, in: [img, k], out: c, dilation: 2}\n"
      "  - {name: depthwise, op: conv2d, in: [img, dw], out: d, padding: 1, groups: 32}\n"));
  const Layer& same = layer(w, "same");
  EXPECT_EQ(same.M, 56 * 56);  // padding 1 keeps 56
  EXPECT_EQ(same.K, 9 * 32);
  EXPECT_EQ(same.repeats, 2);  // two images share the filters
  EXPECT_EQ(same.pieces[1].of(1), 0);
  EXPECT_EQ(same.conv->ifmap_h, 58);
  EXPECT_EQ(layer(w, "strided").M, 28 * 28);       // floor((58 - 3) / 2) + 1
  EXPECT_EQ(layer(w, "dilated").M, 52 * 52);       // a 5 x 5 span, no padding
  const Layer& d = layer(w, "depthwise");
  EXPECT_EQ(d.N, 1);
  EXPECT_EQ(d.K, 9);
  EXPECT_EQ(d.repeats, 2 * 32);
  EXPECT_EQ(d.macs(), 2 * 56 * 56 * 32 * 9);  // a depthwise layer's MACs, not 32 x more
  EXPECT_EQ(d.pieces[1].of(33), 1);           // image 1, group 1: group 1's filter
}

TEST(Graph, MaterializedAttentionIsTwoRepeatedGemmsAroundASoftmax) {
  TempDir dir;
  const Workload w = load_workload(dir.write(
      "g.yaml",
      "tensors:\n"
      "  - {name: q, shape: [2, 8, 256], dtype: bf16, role: activation}\n"
      "  - {name: kc, shape: [2, 100, 128], dtype: bf16, role: kv_cache}\n"
      "  - {name: vc, shape: [2, 100, 128], dtype: bf16, role: kv_cache}\n"
      "  - {name: kn, shape: [2, 8, 128], dtype: bf16, role: activation}\n"
      "ops:\n"
      "  - {name: ka, op: kv_append, in: [kc, kn], out: k}\n"
      "  - {name: va, op: kv_append, in: [vc, kn], out: v}\n"
      "  - {name: attn, op: attention, in: [q, k, v], out: o, heads: 4, kv_heads: 2}\n"));
  ASSERT_EQ(w.layers.size(), 0u + 2);
  const Layer &s = w.layers[0], &c = w.layers[1];
  EXPECT_EQ(s.name, "attn.scores");
  EXPECT_EQ(s.repeats, 8);  // batch 2 x 4 heads
  EXPECT_EQ(s.M, 8);
  EXPECT_EQ(s.N, 108);  // the cache's 100 tokens and the 8 appended
  EXPECT_EQ(s.K, 64);
  EXPECT_EQ(s.pieces[1].of(1), 0);  // heads 0 and 1 share KV head 0
  EXPECT_EQ(s.pieces[1].of(2), 1);
  EXPECT_EQ(c.name, "attn.context");
  EXPECT_EQ(c.K, 108);
  EXPECT_EQ(c.N, 64);
  EXPECT_EQ(c.input_layer, -1);  // the probabilities, which the vector unit wrote
  EXPECT_EQ(c.tensors[0], "attn.probs");
  ASSERT_EQ(w.vector_steps.size(), 2u + 1 + 4);  // two appends; the scale, softmax's four steps between the GEMMs
  EXPECT_EQ(w.vector_steps[0].kind, "kv_append");
  EXPECT_EQ(w.vector_steps[0].written_bytes(), 2 * 8 * 128 * 2);  // the new rows only
  EXPECT_EQ(w.vector_steps[0].writes[0].tensor, "kc");              // into the cache
  EXPECT_EQ(w.vector_steps[0].before_layer, 0);
  EXPECT_EQ(w.vector_steps[2].kind, "scale");
  EXPECT_EQ(w.vector_steps[2].reads[0].tensor, "attn.scores");
  const VectorStep& softmax_max = w.vector_steps[3];
  EXPECT_EQ(softmax_max.kind, "softmax");
  EXPECT_EQ(softmax_max.rows, 2 * 4 * 8);  // a row per batch, head and query
  EXPECT_EQ(softmax_max.cols, 108);
  EXPECT_EQ(softmax_max.reads[0].tensor, "attn.scaled");
  EXPECT_EQ(softmax_max.before_layer, 1);  // after the scores, before the context
  EXPECT_EQ(w.vector_steps.back().writes[0].tensor, "attn.probs");
  EXPECT_EQ(c.same_as[1].layer, -1);  // V is its own cache, not K's
}

TEST(Graph, BadGraphsNameTheLineAndKey) {
  TempDir dir;
  auto error = [&](const std::string& ops) {
    const std::string f = dir.write("bad.yaml", std::string(kTensors) + "ops:\n" + ops);
    return error_of([&] { load_workload(f); });
  };
  const std::string f = (dir.path / "bad.yaml").string();
  EXPECT_TRUE(is_error(error("  - {name: a, op: matmul, in: [x, nope], out: y}\n"), f, 5, "in"));
  EXPECT_TRUE(is_error(error("  - {name: a, op: conv3d, in: [x, w], out: y}\n"), f, 5, "op"));
  EXPECT_TRUE(is_error(error("  - {name: a, op: matmul, in: [x, w], out: y, stride: 2}\n"), f, 5, "stride"));
  EXPECT_TRUE(is_error(error("  - {name: a, op: matmul, in: [w, w], out: y}\n"), f, 5, "in"));  // K 32 vs 64
  EXPECT_TRUE(is_error(error("  - {name: a, op: matmul, in: [x, w], out: y}\n"
                             "  - {name: b, op: add, in: [y, z], out: z}\n"),
                       f, 6, "in"));  // reads its own output
  EXPECT_TRUE(is_error(error("  - {name: a, op: matmul, in: [x, w], out: x}\n"), f, 5, "out"));
  EXPECT_TRUE(is_error(error("  - {name: a, op: reshape, in: [x], out: y, shape: [32, 64]}\n"), f, 4, "ops"));  // views only
  EXPECT_TRUE(is_error(error("  - {name: a, op: attention, in: [x, x, x], out: y, heads: 4, tiling: tiled}\n"), f, 5,
                       "tiling"));
  const std::string both = dir.write("both.yaml", std::string(kTensors) +
                                                      "ops:\n  - {name: a, op: matmul, in: [x, w], out: y}\n"
                                                      "layers:\n  - {name: l, M: 1, N: 1, K: 1}\n");
  EXPECT_TRUE(is_error(error_of([&] { load_workload(both); }), both, 6, "layers"));
}

// The shipped models carry their published MACs (sources in each file).
TEST(Graph, ShippedModelsHaveTheirPublishedMacs) {
  const Workload resnet = load_workload(kModels + "resnet50-padded.yaml");
  EXPECT_NEAR(double(macs(resnet)), 4.09e9, 0.01 * 4.09e9);  // torchvision ResNet-50: 4.09 G
  const Workload mobilenet = load_workload(kModels + "mobilenetv2.yaml");
  EXPECT_NEAR(double(macs(mobilenet)), 300e6, 0.01 * 300e6);  // Sandler et al.: 300 M
  const Layer& dw = layer(mobilenet, "ir2_dw");  // 96 channels, 112 -> 56, stride 2
  EXPECT_EQ(dw.macs(), 56 * 56 * 96 * 9);
  const Workload bert = load_workload(kModels + "bert-base-s512.yaml");
  EXPECT_EQ(macs(bert), 12 * int64_t(4026531840));  // 4.03 G per layer at S = 512
  const Workload decode = load_workload(kModels + "llama2-7b-decode-b1-l4096.yaml");
  // 4 x 4096^2 + 3 x 4096 x 11008 per token, plus 2 x 4097 x 4096 for attention over the cache.
  EXPECT_EQ(macs(decode), 4 * 4096LL * 4096 + 3 * 4096LL * 11008 + 2 * 4097LL * 4096);
  const Workload prefill = load_workload(kModels + "llama2-7b-prefill-s2048.yaml");
  EXPECT_EQ(macs(prefill), 2048 * (4 * 4096LL * 4096 + 3 * 4096LL * 11008) + 2 * 2048LL * 2048 * 4096);
  for (int B : {8, 32, 64}) {
    const Workload d = load_workload(kModels + "llama2-7b-decode-b" + std::to_string(B) + "-l4096.yaml");
    EXPECT_EQ(macs(d), B * macs(decode));
  }
  const Workload step = load_workload(kModels + "llama2-7b-decode-step-b1-l4096.yaml");
  EXPECT_EQ(macs(step), 32 * macs(decode) + 4096LL * 32000);  // 32 blocks and the LM head
}

// The mapper places a repeat's pieces: heads that share a KV head read the same K, each head its
// own Q and scores; images of a convolution read the same filters.
TEST(Graph, RepeatsReadTheirOwnPiecesAndShareWhatTheyShare) {
  TempDir dir;
  const Workload w = load_workload(dir.write(
      "g.yaml",
      "tensors:\n"
      "  - {name: q, shape: [1, 64, 256], dtype: int8, role: activation}\n"
      "  - {name: k, shape: [1, 64, 128], dtype: int8, role: activation}\n"
      "ops:\n"
      "  - {name: attn, op: attention, in: [q, k, k], out: o, heads: 4, kv_heads: 2}\n"));
  const ArchSpec a = small_hierarchy("memory/hbm2-2000.yaml", config_path("noc/npu-mesh-4x4.yaml"), 1);
  const Plan plan = make_plan(a, w);
  const LayerPlan& s = plan.layers[0];
  ASSERT_EQ(s.repeats, 4);
  const std::vector<PassPlan>& passes = s.clusters[0].passes;
  ASSERT_EQ(passes.size(), 4 * s.passes_per_repeat());
  auto base = [&](size_t repeat, Matrix x) { return passes[repeat * s.passes_per_repeat()].dma.hbm[size_t(x)].base; };
  EXPECT_EQ(base(0, Matrix::B), base(1, Matrix::B));
  EXPECT_NE(base(1, Matrix::B), base(2, Matrix::B));
  EXPECT_EQ(base(2, Matrix::B), base(3, Matrix::B));
  for (size_t r = 1; r < 4; ++r) {
    EXPECT_GT(base(r, Matrix::A), base(r - 1, Matrix::A));
    EXPECT_GT(base(r, Matrix::C), base(r - 1, Matrix::C));
  }
  // The context reads V = k where the scores read K: the graph's tensor lies in HBM once. Its A is
  // the probabilities the softmax wrote, a tensor of their own.
  EXPECT_EQ(plan.layers[1].tensors[size_t(Matrix::B)].addr, s.tensors[size_t(Matrix::B)].addr);
  EXPECT_NE(plan.layers[1].tensors[size_t(Matrix::A)].addr, s.tensors[size_t(Matrix::C)].addr);
  EXPECT_EQ(plan.layers[1].input_from, -1);
}
