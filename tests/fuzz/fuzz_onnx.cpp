// The ONNX importer (`cstsim import onnx`) and the graph reader on what it writes. The corpus starts
// from models built here with ONNX's own classes (an MLP, a convolution block, attention, a symbolic
// batch), written into the corpus directory when it is empty; libFuzzer then mutates their bytes.
#include <filesystem>
#include <string>

#include "sim/onnx/onnx_import.h"
#include "sim/workload/workload.h"
#include "tests/fuzz/fuzz_util.h"
#include "tests/onnx/onnx_model.h"

namespace {

using cstsim::testing_util::OnnxModel;

void write_seeds(const std::filesystem::path& dir) {
  OnnxModel mlp;
  mlp.input("x", {8, 64});
  mlp.weight("w1", {64, 32});
  mlp.weight("b1", {32});
  mlp.node("Gemm", {"x", "w1", "b1"}, "h");
  mlp.node("Relu", {"h"}, "y");
  mlp.output("y");
  mlp.save(dir / "mlp.onnx");

  OnnxModel conv;
  conv.input("img", {1, 8, 16, 16});
  conv.weight("k", {16, 8, 3, 3});
  OnnxModel::ints(conv.node("Conv", {"img", "k"}, "c"), "pads", {1, 1, 1, 1});
  onnx::NodeProto* pool = conv.node("MaxPool", {"c"}, "p");
  OnnxModel::ints(pool, "kernel_shape", {2, 2});
  OnnxModel::ints(pool, "strides", {2, 2});
  conv.node("GlobalAveragePool", {"p"}, "g");
  conv.node("Flatten", {"g"}, "y");
  conv.output("y");
  conv.save(dir / "conv.onnx");

  OnnxModel attn;
  attn.input("x", {1, 16, 32});
  attn.weight("wq", {32, 32});
  attn.weight("wk", {32, 32});
  attn.shape_constant("kt_shape", {1, 32, 16});
  attn.node("MatMul", {"x", "wq"}, "q");
  attn.node("MatMul", {"x", "wk"}, "k");
  attn.node("Reshape", {"k", "kt_shape"}, "kt");
  attn.node("MatMul", {"q", "kt"}, "s");
  OnnxModel::integer(attn.node("Softmax", {"s"}, "y"), "axis", -1);
  attn.output("y");
  attn.save(dir / "attention.onnx");

  OnnxModel sym;
  sym.symbolic_input("x", "batch", {64});
  sym.weight("w", {64, 16});
  sym.node("MatMul", {"x", "w"}, "y");
  sym.output("y");
  sym.save(dir / "symbolic.onnx");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  for (int i = 1; i < *argc; ++i) {  // the first argument that is not a flag is the corpus
    const std::filesystem::path dir = (*argv)[i];
    if ((*argv)[i][0] == '-' || !std::filesystem::is_directory(dir)) continue;
    if (std::filesystem::is_empty(dir)) write_seeds(dir);
    break;
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = cstsim::fuzz::write_input("m.onnx", data, size);
  cstsim::fuzz::expect_clean([&] {
    cstsim::OnnxImportOptions options;
    options.dims = {{"batch", 2}};
    const cstsim::OnnxImport imported = cstsim::import_onnx(path, options);
    cstsim::fuzz::write_text("m.yaml", imported.yaml);
    cstsim::load_workload((cstsim::fuzz::scratch() / "m.yaml").string());
  });
  return 0;
}
