// cstsim import onnx: models built here with ONNX's own classes (no downloads) import and run with
// the MACs of their hand-written operator graphs; an op with no counterpart is named, exit 2.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/onnx/onnx_model.h"
#include "tests/sim/cli_fixture.h"

namespace {

using Model = cstsim::testing_util::OnnxModel;

class OnnxImport : public Cli {
 protected:
  // Imports the model and returns the run's MACs (npu-128: operands on chip, a vector unit).
  int64_t imported_macs(const Model& m) {
    const fs::path model = m.save(dir_ / "model.onnx"), yaml = dir_ / "model.yaml";
    const Result imported = cstsim("import onnx " + model.string() + " --out " + yaml.string());
    EXPECT_EQ(imported.status, 0) << imported.err;
    EXPECT_NE(imported.out.find("wrote " + yaml.string()), std::string::npos) << imported.out;
    return macs(yaml);
  }
  int64_t macs(const fs::path& workload) {
    const fs::path out = dir_ / ("run-" + workload.stem().string());
    const Result r = cstsim("run -q --no-trace --arch " + src("configs/arch/npu-128.yaml") + " --workload " +
                            workload.string() + " --out " + out.string() + " --force");
    EXPECT_EQ(r.status, 0) << r.err << slurp(workload);
    if (r.status != 0) return -1;
    const nlohmann::json s = nlohmann::json::parse(slurp(out / "summary.json"));
    EXPECT_FALSE(s["workload"].contains("not_simulated"));
    return s["total"]["macs"].get<int64_t>();
  }
};

TEST_F(OnnxImport, TwoLayerMlpHasTheMacsOfItsGraph) {
  Model m;
  m.input("x", {8, 256});
  m.weight("w1", {256, 512});
  m.weight("b1", {512});
  m.weight("w2", {512, 128});
  m.weight("b2", {128});
  m.node("MatMul", {"x", "w1"}, "h");
  m.node("Add", {"h", "b1"}, "h1");
  m.node("Relu", {"h1"}, "h2");
  m.node("MatMul", {"h2", "w2"}, "y0");
  m.node("Add", {"b2", "y0"}, "y");  // the bias first: it still broadcasts
  m.output("y");
  const fs::path yaml = file("mlp.yaml",
                             "tensors:\n"
                             "  - {name: x, shape: [8, 256], dtype: fp16, role: activation}\n"
                             "  - {name: w1, shape: [256, 512], dtype: fp16, role: weight}\n"
                             "  - {name: b1, shape: [512], dtype: fp16, role: weight}\n"
                             "  - {name: w2, shape: [512, 128], dtype: fp16, role: weight}\n"
                             "  - {name: b2, shape: [128], dtype: fp16, role: weight}\n"
                             "ops:\n"
                             "  - {name: fc1, op: matmul, in: [x, w1], out: h}\n"
                             "  - {name: bias1, op: add, in: [h, b1], out: h1}\n"
                             "  - {name: act, op: relu, in: [h1], out: h2}\n"
                             "  - {name: fc2, op: matmul, in: [h2, w2], out: y0}\n"
                             "  - {name: bias2, op: add, in: [y0, b2], out: y}\n");
  const int64_t expected = 8 * 256 * 512 + 8 * 512 * 128;
  EXPECT_EQ(macs(yaml), expected);
  EXPECT_EQ(imported_macs(m), expected);
}

TEST_F(OnnxImport, ConvBlockIsWrittenNhwcAndHasTheMacsOfItsGraph) {
  Model m;
  m.input("img", {1, 16, 32, 32});  // NCHW
  m.weight("k1", {32, 16, 3, 3});
  m.weight("kb", {32});
  m.weight("k2", {32, 1, 3, 3});  // depthwise
  m.weight("fc", {32, 10});
  m.weight("fcb", {10});
  onnx::NodeProto* c1 = m.node("Conv", {"img", "k1", "kb"}, "c1");
  Model::ints(c1, "pads", {1, 1, 1, 1});
  m.node("Relu", {"c1"}, "r1");
  onnx::NodeProto* pool = m.node("MaxPool", {"r1"}, "p1");
  Model::ints(pool, "kernel_shape", {2, 2});
  Model::ints(pool, "strides", {2, 2});
  onnx::NodeProto* c2 = m.node("Conv", {"p1", "k2"}, "c2");
  Model::ints(c2, "pads", {1, 1, 1, 1});
  Model::integer(c2, "group", 32);
  m.node("GlobalAveragePool", {"c2"}, "g");
  m.node("Flatten", {"g"}, "f");
  m.node("Gemm", {"f", "fc", "fcb"}, "logits");
  m.output("logits");
  const fs::path yaml = file("conv.yaml",
                             "tensors:\n"
                             "  - {name: img, shape: [1, 32, 32, 16], dtype: fp16, role: activation}\n"
                             "  - {name: k1, shape: [3, 3, 16, 32], dtype: fp16, role: weight}\n"
                             "  - {name: k2, shape: [3, 3, 1, 32], dtype: fp16, role: weight}\n"
                             "  - {name: fc, shape: [32, 10], dtype: fp16, role: weight}\n"
                             "ops:\n"
                             "  - {name: c1, op: conv2d, in: [img, k1], out: c1, padding: 1}\n"
                             "  - {name: r1, op: relu, in: [c1], out: r1}\n"
                             "  - {name: p1, op: maxpool, in: [r1], out: p1, kernel: 2, stride: 2}\n"
                             "  - {name: c2, op: conv2d, in: [p1, k2], out: c2, padding: 1, groups: 32}\n"
                             "  - {name: g, op: avgpool, in: [c2], out: g, kernel: 16}\n"
                             "  - {name: f, op: reshape, in: [g], out: f, shape: [1, 32]}\n"
                             "  - {name: head, op: matmul, in: [f, fc], out: logits}\n");
  const int64_t expected = 32 * 32 * 32 * 16 * 9 + 16 * 16 * 32 * 9 + 32 * 10;
  EXPECT_EQ(macs(yaml), expected);
  EXPECT_EQ(imported_macs(m), expected);
  const std::string imported = slurp(dir_ / "model.yaml");
  EXPECT_NE(imported.find("name: img, shape: [1, 32, 32, 16]"), std::string::npos) << imported;  // NHWC
  EXPECT_NE(imported.find("name: k1, shape: [3, 3, 16, 32]"), std::string::npos) << imported;
}

// An attention block as exporters write it (reshapes, transposes, a scale, a softmax, batched
// MatMuls) has the MACs of the graph's attention op.
TEST_F(OnnxImport, AttentionBlockHasTheMacsOfTheAttentionOp) {
  const int64_t S = 64, D = 128, H = 4, d = 32;
  Model m;
  m.input("x", {1, S, D});
  for (const char* w : {"wq", "wk", "wv", "wo"}) m.weight(w, {D, D});
  m.shape_constant("heads", {1, S, H, d});
  m.shape_constant("merged", {1, S, D});
  m.scalar("sqrt_d");
  for (const char* p : {"q", "k", "v"}) {
    const std::string t = p;
    m.node("MatMul", {"x", "w" + t}, t);
    m.node("Reshape", {t, "heads"}, t + "4");
  }
  Model::ints(m.node("Transpose", {"q4"}, "qh"), "perm", {0, 2, 1, 3});
  Model::ints(m.node("Transpose", {"k4"}, "kt"), "perm", {0, 2, 3, 1});
  Model::ints(m.node("Transpose", {"v4"}, "vh"), "perm", {0, 2, 1, 3});
  m.node("MatMul", {"qh", "kt"}, "s");
  m.node("Div", {"s", "sqrt_d"}, "ss");
  Model::integer(m.node("Softmax", {"ss"}, "p"), "axis", -1);
  m.node("MatMul", {"p", "vh"}, "oh");
  Model::ints(m.node("Transpose", {"oh"}, "o4"), "perm", {0, 2, 1, 3});
  m.node("Reshape", {"o4", "merged"}, "o");
  m.node("MatMul", {"o", "wo"}, "y");
  m.output("y");
  const fs::path yaml = file("attn.yaml",
                             "tensors:\n"
                             "  - {name: x, shape: [1, 64, 128], dtype: fp16, role: activation}\n"
                             "  - {name: wq, shape: [128, 128], dtype: fp16, role: weight}\n"
                             "  - {name: wk, shape: [128, 128], dtype: fp16, role: weight}\n"
                             "  - {name: wv, shape: [128, 128], dtype: fp16, role: weight}\n"
                             "  - {name: wo, shape: [128, 128], dtype: fp16, role: weight}\n"
                             "ops:\n"
                             "  - {name: q, op: matmul, in: [x, wq], out: q}\n"
                             "  - {name: k, op: matmul, in: [x, wk], out: k}\n"
                             "  - {name: v, op: matmul, in: [x, wv], out: v}\n"
                             "  - {name: attn, op: attention, in: [q, k, v], out: o, heads: 4}\n"
                             "  - {name: out, op: matmul, in: [o, wo], out: y}\n");
  const int64_t expected = 4 * S * D * D + 2 * H * S * S * d;
  EXPECT_EQ(macs(yaml), expected);
  EXPECT_EQ(imported_macs(m), expected);
}

// A symbolic batch needs a value: without one the import names it; with --dim the MACs follow it.
TEST_F(OnnxImport, SymbolicDimensionsTakeTheirValueFromDim) {
  Model m;
  m.symbolic_input("x", "batch", {256});
  m.weight("w", {256, 64});
  m.node("MatMul", {"x", "w"}, "y");
  m.output("y");
  const fs::path model = m.save(dir_ / "sym.onnx"), yaml = dir_ / "sym.yaml";
  const Result unbound = cstsim("import onnx " + model.string() + " --out " + yaml.string());
  EXPECT_EQ(unbound.status, 2);
  EXPECT_NE(unbound.err.find("symbolic dimension batch (give each a value: --dim NAME=VALUE)"), std::string::npos)
      << unbound.err;
  EXPECT_FALSE(fs::exists(yaml));
  const Result stray = cstsim("import onnx " + model.string() + " --out " + yaml.string() + " --dim batch=3 --dim seq=8");
  EXPECT_EQ(stray.status, 2);
  EXPECT_NE(stray.err.find("--dim: the model has no symbolic dimension seq"), std::string::npos) << stray.err;
  EXPECT_FALSE(fs::exists(yaml));
  const Result bound = cstsim("import onnx " + model.string() + " --out " + yaml.string() + " --dim batch=3");
  ASSERT_EQ(bound.status, 0) << bound.err;
  EXPECT_EQ(macs(yaml), 3 * 256 * 64);
}

// Exporters' shape arithmetic (Shape, Gather, Unsqueeze, Concat feeding a Reshape) folds away:
// the reshape's target is computed from the input's shape, and the MatMul behind it runs.
TEST_F(OnnxImport, ShapeArithmeticFoldsIntoConstants) {
  Model m;
  m.input("x", {2, 16, 64});
  m.weight("w", {64, 32});
  m.shape_constant("zero", {0});
  m.shape_constant("minus_one", {-1});
  m.node("Shape", {"x"}, "s");
  Model::integer(m.node("Gather", {"s", "zero"}, "batch"), "axis", 0);
  Model::integer(m.node("Concat", {"batch", "minus_one"}, "target"), "axis", 0);
  m.node("Reshape", {"x", "target"}, "flat");  // [2, 1024]
  m.node("Reshape", {"flat", "back"}, "x2");
  m.shape_constant("back", {32, 64});
  m.node("MatMul", {"x2", "w"}, "y");
  m.output("y");
  EXPECT_EQ(imported_macs(m), 32 * 64 * 32);
  const std::string yaml = slurp(dir_ / "model.yaml");
  for (const char* folded : {"s_Shape", "batch_Gather", "target_Concat"})
    EXPECT_EQ(yaml.find(folded), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("shape: [2, 1024]"), std::string::npos) << yaml;
}

// LayerNorm as opset-13 exporters decompose it, RMSNorm as LLaMA code writes it and the exact
// GELU with erf: each becomes one op of the graph, with its weights.
TEST_F(OnnxImport, DecomposedNormsAndGeluFuseIntoOneOpEach) {
  Model m;
  m.input("x", {4, 64}, onnx::TensorProto::FLOAT);
  for (const char* w : {"gamma", "beta", "rms_w"}) m.weight(w, {64}, onnx::TensorProto::FLOAT);
  m.float_scalar("two", 2.0f);
  m.float_scalar("eps", 1e-5f);
  m.float_scalar("sqrt2", 1.4142135f);
  m.float_scalar("one", 1.0f);
  m.float_scalar("half", 0.5f);
  Model::ints(m.node("ReduceMean", {"x"}, "mu", "/ln/ReduceMean"), "axes", {-1});
  m.node("Sub", {"x", "mu"}, "xc", "/ln/Sub");
  m.node("Pow", {"xc", "two"}, "sq", "/ln/Pow");
  Model::ints(m.node("ReduceMean", {"sq"}, "var", "/ln/ReduceMean_1"), "axes", {-1});
  m.node("Add", {"var", "eps"}, "ve", "/ln/Add");
  m.node("Sqrt", {"ve"}, "sd", "/ln/Sqrt");
  m.node("Div", {"xc", "sd"}, "xn", "/ln/Div");
  m.node("Mul", {"xn", "gamma"}, "xg", "/ln/Mul");
  m.node("Add", {"xg", "beta"}, "ln", "/ln/Add_1");
  m.node("Pow", {"ln", "two"}, "r2", "/rms/Pow");
  Model::ints(m.node("ReduceMean", {"r2"}, "rm", "/rms/ReduceMean"), "axes", {-1});
  m.node("Add", {"rm", "eps"}, "re", "/rms/Add");
  m.node("Sqrt", {"re"}, "rs", "/rms/Sqrt");
  m.node("Reciprocal", {"rs"}, "rr", "/rms/Reciprocal");
  m.node("Mul", {"ln", "rr"}, "rn", "/rms/Mul");
  m.node("Mul", {"rn", "rms_w"}, "rms", "/rms/Mul_1");
  m.node("Div", {"rms", "sqrt2"}, "g0", "/act/Div");
  m.node("Erf", {"g0"}, "g1", "/act/Erf");
  m.node("Add", {"g1", "one"}, "g2", "/act/Add");
  m.node("Mul", {"rms", "g2"}, "g3", "/act/Mul");
  m.node("Mul", {"g3", "half"}, "y", "/act/Mul_1");
  m.output("y", onnx::TensorProto::FLOAT);
  const fs::path model = m.save(dir_ / "norms.onnx"), yaml = dir_ / "norms.yaml";
  const Result r = cstsim("import onnx " + model.string() + " --out " + yaml.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("3 ops on"), std::string::npos) << r.out;
  const std::string text = slurp(yaml);
  EXPECT_NE(text.find("{name: /ln, op: layernorm, in: [x, gamma, beta], out: ln}"), std::string::npos) << text;
  EXPECT_NE(text.find("{name: /rms, op: rmsnorm, in: [ln, rms_w], out: rms}"), std::string::npos) << text;
  EXPECT_NE(text.find("{name: /act, op: gelu, in: [rms], out: y}"), std::string::npos) << text;
}

// A pattern whose inner tensor is read outside it does not fuse (its parts stay, and Erf, which
// has no counterpart alone, is named).
TEST_F(OnnxImport, APatternReadFromOutsideDoesNotFuse) {
  Model m;
  m.input("x", {4, 64}, onnx::TensorProto::FLOAT);
  m.float_scalar("sqrt2", 1.4142135f);
  m.float_scalar("one", 1.0f);
  m.float_scalar("half", 0.5f);
  m.node("Div", {"x", "sqrt2"}, "g0");
  m.node("Erf", {"g0"}, "g1", "the_erf");
  m.node("Add", {"g1", "one"}, "g2");
  m.node("Mul", {"x", "g2"}, "g3");
  m.node("Mul", {"g3", "half"}, "g4");
  m.node("Add", {"g4", "g1"}, "y");  // erf's output read again
  m.output("y", onnx::TensorProto::FLOAT);
  const fs::path model = m.save(dir_ / "leak.onnx"), yaml = dir_ / "leak.yaml";
  const Result r = cstsim("import onnx " + model.string() + " --out " + yaml.string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("Erf (the_erf)"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(yaml));
}

// A causal mask built from constants (Trilu, Cast) folds into a constant laid over the scores by
// Where (an add); Clip is ReLU6; Split's parts are slices of their source.
TEST_F(OnnxImport, MasksClipsAndSplitsImport) {
  Model m;
  m.input("x", {1, 8, 48}, onnx::TensorProto::FLOAT);
  m.weight("ones", {8, 8}, onnx::TensorProto::FLOAT);
  m.float_scalar("ninf", -1e30f);
  m.float_scalar("zero", 0.0f);
  m.float_scalar("six", 6.0f);
  m.shape_constant("parts", {16, 16, 16});
  m.shape_constant("k1", {1});
  onnx::NodeProto* split = m.node("Split", {"x", "parts"}, "q", "split");
  split->add_output("k");
  split->add_output("v");
  Model::integer(split, "axis", 2);
  Model::ints(m.node("Transpose", {"k"}, "kt"), "perm", {0, 2, 1});
  m.node("MatMul", {"q", "kt"}, "s");  // [1, 8, 8]
  m.node("Trilu", {"ones", "k1"}, "upper");
  Model::integer(m.node("Cast", {"upper"}, "mask"), "to", onnx::TensorProto::BOOL);
  m.node("Where", {"mask", "ninf", "s"}, "masked", "mask_scores");
  m.node("Clip", {"masked", "zero", "six"}, "clipped", "relu6");
  m.node("MatMul", {"clipped", "v"}, "y");  // [1, 8, 16]
  m.output("y", onnx::TensorProto::FLOAT);
  EXPECT_EQ(imported_macs(m), 8 * 8 * 16 + 8 * 16 * 8);
  const std::string text = slurp(dir_ / "model.yaml");
  EXPECT_NE(text.find("{name: split.1, op: slice, in: [x], out: k, axis: 2, start: 16, size: 16}"), std::string::npos) << text;
  EXPECT_NE(text.find("{name: mask_scores, op: add, in: [s, mask], out: masked}"), std::string::npos) << text;
  EXPECT_NE(text.find("{name: mask, shape: [8, 8], dtype: int8, role: weight}"), std::string::npos) << text;
  EXPECT_NE(text.find("{name: relu6, op: clip, in: [masked], out: clipped, min: 0, max: 6}"), std::string::npos) << text;
}

// Constants computed by the million: folding stops computing values past its budget (2^25
// elements) and keeps the rest as constants of their shapes; the model still imports, the mask
// a weight of its shape.
TEST_F(OnnxImport, LargeComputedConstantsFoldToTheirShapes) {
  Model m;
  m.input("x", {2048, 2048}, onnx::TensorProto::FLOAT);
  m.shape_constant("dims", {2048, 2048});
  m.node("ConstantOfShape", {"dims"}, "c0");
  for (int k = 0; k < 12; ++k)
    m.node("Add", {"c" + std::to_string(k), "c" + std::to_string(k)}, "c" + std::to_string(k + 1));
  m.node("Add", {"x", "c12"}, "y", "masked");
  m.output("y", onnx::TensorProto::FLOAT);
  const fs::path model = m.save(dir_ / "big.onnx"), yaml = dir_ / "big.yaml";
  const Result r = cstsim("import onnx " + model.string() + " --out " + yaml.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(slurp(yaml).find("{name: c12, shape: [2048, 2048], dtype: fp32, role: weight}"), std::string::npos) << slurp(yaml);
  EXPECT_NE(slurp(yaml).find("{name: masked, op: add, in: [x, c12], out: y}"), std::string::npos) << slurp(yaml);
}

// --dtype writes every floating-point tensor in the dtype, --weight-dtype and --activation-dtype
// each kind; a name that is no dtype is refused.
TEST_F(OnnxImport, DtypeOptionsSetTheFloatTensorsWidths) {
  Model m;
  m.input("x", {8, 64}, onnx::TensorProto::FLOAT);
  m.weight("w", {64, 32}, onnx::TensorProto::FLOAT);
  m.node("MatMul", {"x", "w"}, "y");
  m.output("y", onnx::TensorProto::FLOAT);
  const fs::path model = m.save(dir_ / "d.onnx"), yaml = dir_ / "d.yaml";
  const Result all = cstsim("import onnx " + model.string() + " --out " + yaml.string() + " --dtype bf16");
  ASSERT_EQ(all.status, 0) << all.err;
  EXPECT_NE(slurp(yaml).find("{name: x, shape: [8, 64], dtype: bf16, role: activation}"), std::string::npos);
  EXPECT_NE(slurp(yaml).find("{name: w, shape: [64, 32], dtype: bf16, role: weight}"), std::string::npos);
  const Result split = cstsim("import onnx " + model.string() + " --out " + yaml.string() +
                              " --dtype bf16 --weight-dtype int4 --activation-dtype int8");
  ASSERT_EQ(split.status, 0) << split.err;
  EXPECT_NE(slurp(yaml).find("{name: x, shape: [8, 64], dtype: int8, role: activation}"), std::string::npos);
  EXPECT_NE(slurp(yaml).find("{name: w, shape: [64, 32], dtype: int4, role: weight}"), std::string::npos);
  const Result bad = cstsim("import onnx " + model.string() + " --out " + yaml.string() + " --dtype float32");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--dtype: 'float32' is not a dtype"), std::string::npos) << bad.err;
}

// fp32 operands on an int8 array with a banked scratchpad: the ports they need are the workload's
// doing, so the error names the workload's layer and the way out, not the arch's banks alone.
TEST_F(OnnxImport, WideOperandsOnTheHierarchyNameTheWorkload) {
  Model m;
  m.input("x", {128, 512}, onnx::TensorProto::FLOAT);
  m.weight("w", {512, 512}, onnx::TensorProto::FLOAT);
  m.node("MatMul", {"x", "w"}, "y", "proj");
  m.output("y", onnx::TensorProto::FLOAT);
  const fs::path model = m.save(dir_ / "wide.onnx"), yaml = dir_ / "wide.yaml";
  ASSERT_EQ(cstsim("import onnx " + model.string() + " --out " + yaml.string()).status, 0);
  const std::string run = "run -q --no-trace --arch " + src("configs/arch/npu-128-hbm3.yaml") + " --workload " +
                          yaml.string() + " --out " + (dir_ / "wide-run").string() + " --force";
  const Result wide = cstsim(run);
  EXPECT_EQ(wide.status, 2);
  EXPECT_NE(wide.err.find(yaml.string() + ":"), std::string::npos) << wide.err;
  EXPECT_NE(wide.err.find("proj: its 32-bit operands"), std::string::npos) << wide.err;
  EXPECT_NE(wide.err.find("cstsim import onnx --dtype int8"), std::string::npos) << wide.err;
  ASSERT_EQ(cstsim("import onnx " + model.string() + " --out " + yaml.string() + " --dtype int8").status, 0);
  EXPECT_EQ(cstsim(run).status, 0);
}

TEST_F(OnnxImport, OpsWithNoCounterpartAreNamedAndNothingIsWritten) {
  Model m;
  m.input("x", {4, 8});
  m.node("Erf", {"x"}, "e", "the_erf");
  m.node("Exp", {"e"}, "y", "the_exp");
  m.output("y");
  const fs::path model = m.save(dir_ / "bad.onnx"), yaml = dir_ / "bad.yaml";
  const Result r = cstsim("import onnx " + model.string() + " --out " + yaml.string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("2 ops with no counterpart in cstsim's graph: Erf (the_erf), Exp (the_exp)"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(yaml));
  const Result junk = cstsim("import onnx " + file("junk.onnx", "not a protobuf at all").string() + " --out " +
                             yaml.string());
  EXPECT_EQ(junk.status, 2) << junk.err;
  EXPECT_FALSE(fs::exists(yaml));
}

}  // namespace
