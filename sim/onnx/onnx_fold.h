#pragma once
// Constant folding for `cstsim import onnx`: the shape arithmetic exporters write (Shape, Gather,
// Slice, Concat, Unsqueeze, Cast, Reshape, Expand, Where, Range, Trilu, ... on constants) is
// computed here, so that what reaches the converter is the model's real work on tensors of known
// shapes. Values are held only for small tensors (shape vectors, scalars, masks); a node whose
// inputs are all constant but too large to compute with (a transposed weight) still folds, into a
// constant of its inferred shape whose values are not held. Only sim/onnx includes this (ONNX's
// protobuf types).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace cstsim::onnx_fold {

using Shape = std::vector<int64_t>;

// The most elements of a tensor whose values folding computes (a 2048 x 2048 mask).
constexpr int64_t kMaxFoldElements = int64_t(1) << 22;

struct Value {
  int32_t type = 0;  // onnx::TensorProto::DataType
  Shape dims;
  bool known = false;     // `v` holds its values
  std::vector<double> v;  // row-major; integers exact to 2^53 (shapes, indices, masks)
  int64_t elements() const;
};

bool is_float(int32_t type);
bool is_integer(int32_t type);  // bool included

// A tensor's dims and type, and its values when it is an integer (or bool) tensor of at most
// kMaxFoldElements or a float one of at most `max_float` elements.
Value read(const onnx::TensorProto& t, int64_t max_float);
// A node's `value*` attribute as a tensor (Constant); nullopt when it has none this reads.
std::optional<Value> constant_value(const onnx::NodeProto& n);
// v as an initializer; values written only when held and, for floats, at most `max_float` of them.
void write(const Value& v, const std::string& name, int64_t max_float, onnx::TensorProto& t);

// Computes node n's outputs from constant inputs (`in`: one per input, null for an input left
// out or one that is not constant; `shape0`: input 0's inferred shape, which Shape and Size read).
// nullopt: n is not an op this computes, an input it needs has no held values, or the result
// would be larger than kMaxFoldElements. Throws std::invalid_argument for a malformed node.
std::optional<std::vector<Value>> evaluate(const onnx::NodeProto& n, const std::vector<const Value*>& in,
                                           const Shape* shape0);

}  // namespace cstsim::onnx_fold
