#pragma once
// `cstsim import onnx`: an ONNX model as an operator graph (configs/README.md, "Operator graphs").
// The model's shapes are inferred by ONNX's own shape inference (Debian's libonnx); the shape
// arithmetic exporters write is folded into constants (onnx_fold.h) and the decomposed forms of
// LayerNorm, RMSNorm and erf-GELU fused back into one op each; its initializers become weight
// tensors, its other inputs activations. Image tensors (those that flow
// through Conv and the pools, NCHW in ONNX) are written NHWC, their convolution weights
// [Fh, Fw, C/groups, F], as the graph reader takes them; layouts are not modelled (transposes,
// reshapes and flattens are views). An op with no counterpart is listed by type and node name and
// nothing is written. Its own library (cstsim_onnx) so that only it compiles against ONNX.
#include <cstdint>
#include <map>
#include <string>

namespace cstsim {

struct OnnxImport {
  std::string yaml;  // the operator graph
  int nodes = 0, ops = 0, tensors = 0;
  std::map<int, std::string> origin;  // a line of `yaml` -> the ONNX node (or tensor) written there
  // The ONNX node (or tensor) written at `line` of yaml; "" for another line.
  std::string origin_of(int line) const {
    auto it = origin.find(line);
    return it == origin.end() ? std::string() : it->second;
  }
};

struct OnnxImportOptions {
  // Values for the model's symbolic dimensions (dim_param), e.g. {"batch", 1}; one left unbound
  // is an error naming it.
  std::map<std::string, int64_t> dims;
  // The dtype written for floating-point tensors (fp32, fp16, bf16 in the model): every one
  // (`dtype`), the weights, or the activations; empty: the model's own.
  std::string dtype, weight_dtype, activation_dtype;
  // ONNX's shape inference runs in a child process under these limits: CPU seconds (a busy
  // machine does not use them up) and address space (0: none).
  double cpu_seconds = 120;
  int64_t memory_bytes = int64_t(8) << 30;
};

// Throws InputError (file, key: the node or tensor, message).
OnnxImport import_onnx(const std::string& path, const OnnxImportOptions& options);

}  // namespace cstsim
