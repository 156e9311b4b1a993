#pragma once
// An operator graph as a workload: named tensors (shape, dtype, role) and the ops that read
// and write them. The reader checks every op's shapes, orders the ops by their dependencies
// and lowers them onto the layers the array runs: matmul, conv2d and attention become GEMM
// layers (Layer::repeats for groups, images and heads; input_layer / weight_layer for the
// tensors an earlier op wrote); the other ops are listed with what they would move, for the
// vector unit. Schema and lowering rules: configs/README.md, "Operator graphs".
#include <cstdint>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "sim/workload/workload.h"

namespace cstsim {

// The most elements a graph tensor may have (2^48: its bytes stay far from int64's range in every
// product the models make of them).
constexpr int64_t kMaxGraphTensorElements = int64_t(1) << 48;

struct GraphTensor {
  std::string name;
  std::vector<int64_t> shape;
  std::string dtype;  // int4, int8, fp8 (= fp8_e4m3), fp8_e5m2, int16, fp16, bf16, int32, fp32
  int bits = 8;
  std::string role;  // weight | activation | kv_cache
  double density = 1.0;  // the fraction of its values that are nonzero (zero gating; Layer::input_density)
  int line = 0;
  int64_t elements() const;
  int64_t bytes() const { return (elements() * bits + 7) / 8; }
};

// Reads `tensors:` and `ops:` of a workload file's root map into w (its layers and vector ops).
// Throws InputError (file, line, key) on any bad input.
void read_graph(const std::string& path, const YAML::Node& root, Workload& w);

// A tensor dtype's width: an on-chip NumType (core/num_type.h) by name; 0 for any other name.
int dtype_bits(const std::string& dtype);

}  // namespace cstsim
