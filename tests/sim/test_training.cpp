// The training step (sim/workload/training.h): its GEMMs are exactly the forward's three times
// over, its recomputation trades MACs for held activations, AdamW moves the seed-003 bytes,
// and a run's M_peak shows what the step keeps.
#include <nlohmann/json.hpp>

#include "core/input_error.h"
#include "sim/workload/training.h"
#include "tests/sim/cli_fixture.h"

namespace {

using json = nlohmann::json;
using namespace cstsim;

// One small pre-norm transformer layer: 64 tokens, width 64, 4 heads, FFN 256, bf16.
const char* kLayer = R"(name: tiny-layer
tensors:
  - {name: x0, shape: [1, 64, 64], dtype: bf16, role: activation}
  - {name: n1, shape: [64], dtype: bf16, role: weight}
  - {name: wq, shape: [64, 64], dtype: bf16, role: weight}
  - {name: wk, shape: [64, 64], dtype: bf16, role: weight}
  - {name: wv, shape: [64, 64], dtype: bf16, role: weight}
  - {name: wo, shape: [64, 64], dtype: bf16, role: weight}
  - {name: n2, shape: [64], dtype: bf16, role: weight}
  - {name: w1, shape: [64, 256], dtype: bf16, role: weight}
  - {name: w2, shape: [256, 64], dtype: bf16, role: weight}
ops:
  - {name: norm1, op: layernorm, in: [x0, n1], out: h1}
  - {name: q_proj, op: matmul, in: [h1, wq], out: q}
  - {name: k_proj, op: matmul, in: [h1, wk], out: k}
  - {name: v_proj, op: matmul, in: [h1, wv], out: v}
  - {name: attn, op: attention, in: [q, k, v], out: ctx, heads: 4}
  - {name: o_proj, op: matmul, in: [ctx, wo], out: o}
  - {name: res1, op: add, in: [x0, o], out: x2}
  - {name: norm2, op: layernorm, in: [x2, n2], out: h2}
  - {name: ffn1, op: matmul, in: [h2, w1], out: f1}
  - {name: act, op: gelu, in: [f1], out: f1a}
  - {name: ffn2, op: matmul, in: [f1a, w2], out: f2}
  - {name: res2, op: add, in: [x2, f2], out: y}
)";

class Training : public Cli {
 protected:
  Workload load(const std::string& recompute) {
    return with_training(load_workload(file("layer.yaml", kLayer).string()), recompute, 16);
  }
  static int64_t macs(const Workload& w, size_t from, size_t to) {
    int64_t n = 0;
    for (size_t i = from; i < to; ++i) n += w.layers[i].macs();
    return n;
  }
};

// dX = dY.W^T and dW = X^T.dY per layer, in reverse order: the step's GEMM MACs are exactly 3x
// the forward's when nothing is recomputed.
TEST_F(Training, GemmMacsAreThreeTimesTheForward) {
  const Workload fwd = load_workload(file("layer.yaml", kLayer).string());
  const Workload step = load("none");
  ASSERT_TRUE(step.training);
  const size_t n = fwd.layers.size();
  EXPECT_EQ(step.layers.size(), 3 * n);
  EXPECT_EQ(macs(step, 0, step.layers.size()), 3 * macs(fwd, 0, n));
  EXPECT_EQ(step.training->forward_macs, macs(fwd, 0, n));
  EXPECT_EQ(step.training->backward_macs, 2 * macs(fwd, 0, n));
  EXPECT_EQ(step.training->recomputed_macs, 0);
  // The last forward layer's backward comes first: ffn2 (M 64, N 64, K 256).
  const Layer& dx = step.layers[n], &dw = step.layers[n + 1];
  EXPECT_EQ(dx.name, "ffn2.dX");
  EXPECT_EQ(std::make_tuple(dx.M, dx.N, dx.K), std::make_tuple(int64_t(64), int64_t(256), int64_t(64)));
  EXPECT_EQ(dw.name, "ffn2.dW");
  EXPECT_EQ(std::make_tuple(dw.M, dw.N, dw.K), std::make_tuple(int64_t(256), int64_t(64), int64_t(64)));
  // ffn2.dX reads the weight where the forward layer read it; ffn2.dW its kept input.
  EXPECT_EQ(dx.same_as[1].layer, int(n) - 1);
  EXPECT_EQ(dw.same_as[0].layer, int(n) - 1);
  // Attention's context layer (repeats = heads) has both operands' gradients: dProbs and dV.
  for (const Layer& l : step.layers)
    if (l.name == "attn.context.dW") EXPECT_EQ(l.repeats, 4);
}

// AdamW: one kernel per weight right after its dW, 15 operations per parameter, and the seed-003
// bytes: a bf16 gradient read plus fp32 master, m and v read and written (2 + 6 x 4 per parameter).
TEST_F(Training, AdamWMovesTheLedgersBytes) {
  const Workload step = load("none");
  const int64_t params = 4 * 64 * 64 + 2 * 64 * 256;
  EXPECT_EQ(step.training->parameters, params);
  int64_t ops = 0, bytes = 0, kernels = 0;
  for (const VectorStep& s : step.vector_steps)
    if (s.kind == "adamw") {
      ++kernels;
      ops += s.ops();
      bytes += s.read_bytes() + s.written_bytes();
      EXPECT_EQ(step.layers[size_t(s.before_layer) - 1].name, s.name.substr(0, s.name.size() - 6) + ".dW");
    }
  EXPECT_EQ(kernels, 6);
  EXPECT_EQ(ops, 15 * params);
  EXPECT_EQ(bytes, params * (2 + 6 * 4));
  EXPECT_EQ(step.training->optimizer_state_bytes, 12 * params);
}

// Recomputation trades MACs for held activations: selective re-runs the scores GEMM (its MACs
// exactly) and drops the probabilities; full keeps only the step's inputs and re-runs more.
TEST_F(Training, RecomputeTradesMacsForActivations) {
  const Workload none = load("none"), sel = load("selective"), full = load("full");
  const int64_t scores = 4 * 64 * 64 * 16;  // heads x Sq x Skv x d
  EXPECT_EQ(sel.training->recomputed_macs, scores);
  EXPECT_EQ(none.training->stored_activation_bytes - sel.training->stored_activation_bytes, 4 * 64 * 64 * 2);
  EXPECT_GT(full.training->recomputed_macs, sel.training->recomputed_macs);
  EXPECT_LT(full.training->stored_activation_bytes, sel.training->stored_activation_bytes);
  EXPECT_EQ(full.training->backward_macs, none.training->backward_macs);
  int copies = 0;
  for (const Layer& l : sel.layers) copies += l.name.find(".recompute.") != std::string::npos;
  EXPECT_EQ(copies, 1);
  EXPECT_THROW(with_training(none, "some", 16), InputError);
}

// A layer list's layers have no tensor names: `full` recomputes a layer's real producer (g1 for
// g2), and a layer that reads no earlier output (g3, input: none) keeps its input.
TEST_F(Training, FullRecomputesOnlyRealProducersOfALayerList) {
  const std::string w = file("list.yaml",
                             "name: list\nlayers:\n  - {name: g1, M: 8, N: 16, K: 8}\n  - {name: g2, M: 8, N: 8, K: 16}\n"
                             "  - {name: g3, M: 8, N: 8, K: 16, input: none}\n")
                            .string();
  const Workload full = with_training(load_workload(w), "full", 8);
  EXPECT_EQ(full.training->recomputed_macs, 8 * 16 * 8);  // g1 once, for g2's backward
  int copies = 0;
  for (const Layer& l : full.layers) copies += l.name == "g1.recompute.g2";
  EXPECT_EQ(copies, 1);
}

// A run of the step: M_peak of HBM holds the optimizer state and the kept activations, more
// than the forward's, and comes down as recomputation keeps less; the recomputed MACs run.
TEST_F(Training, MPeakFollowsWhatTheStepKeeps) {
  const std::string w = file("layer.yaml", kLayer).string();
  const std::string arch = small_hierarchy("a.yaml", "vector: {lanes: 64}\n").string();
  auto run = [&](const std::string& train, const std::string& name) {
    const Result r = cstsim("run --arch " + arch + " --workload " + w + " --set precision.operand=bf16" +
                            (train.empty() ? "" : " --train " + train) + " --out " + (dir_ / name).string());
    EXPECT_EQ(r.status, 0) << r.err;
    return std::make_pair(json::parse(slurp(dir_ / name / "summary.json")), json::parse(slurp(dir_ / name / "report.json")));
  };
  const auto fwd = run("", "fwd"), none = run("none", "none"), full = run("full", "full");
  auto peak = [](const json& report) { return report["total"]["Theta_CST"]["M_peak"]["by_level"]["hbm"]["value"].get<double>(); };
  const json& t = none.first["training"];
  // The optimizer state rides on top of the forward's tensors; the kept activations on top of that.
  EXPECT_GT(peak(none.second) - peak(fwd.second), t["optimizer_state_bytes"].get<double>());
  EXPECT_GE(peak(none.second), t["optimizer_state_bytes"].get<double>() + t["stored_activation_bytes"].get<double>());
  EXPECT_LT(peak(full.second), peak(none.second));
  EXPECT_EQ(none.first["total"]["macs"].get<int64_t>(), 3 * fwd.first["total"]["macs"].get<int64_t>());
  EXPECT_EQ(full.first["total"]["macs"].get<int64_t>(),
            3 * fwd.first["total"]["macs"].get<int64_t>() + full.first["training"]["macs"]["recomputed"].get<int64_t>());
  EXPECT_GT(full.first["total"]["cycles"].get<int64_t>(), none.first["total"]["cycles"].get<int64_t>());
  EXPECT_EQ(none.first["vector"]["kernels"].size(), fwd.first["vector"]["kernels"].size() + 6);  // + AdamW
}

}  // namespace
