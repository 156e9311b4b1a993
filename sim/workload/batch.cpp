#include "sim/workload/batch.h"

#include <climits>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "core/input_error.h"
#include "core/text.h"
#include "core/yaml_file.h"
#include "sim/workload/graph.h"

namespace cstsim {
namespace {

// The names an op reads (`in`: one name or a list).
std::vector<std::string> inputs_of(const YAML::Node& op) {
  std::vector<std::string> out;
  const YAML::Node in = op["in"];
  if (in.IsScalar()) out.push_back(std::string(text::trim(in.Scalar())));
  else if (in.IsSequence())
    for (const YAML::Node& t : in) out.push_back(std::string(text::trim(t.Scalar())));
  return out;
}

// shape[0] of a (validated) shape node, times `batch`.
void scale_leading(YAML::Node shape, int64_t batch, const std::string& path, const std::string& what) {
  const int64_t n = *text::parse_int(shape[0].Scalar());
  if (n > INT_MAX / batch)
    throw InputError(path, line_of(shape), "shape",
                     fmt::format("{}'s leading dimension {} times batch {} is past {}", what, n, batch, INT_MAX));
  shape[0] = std::to_string(n * batch);
}

// The graph of w.source with its batch dimension times `batch`: the YAML tree as read, changed in
// place, so a shape the ops refuse is reported at the line of the file it came from.
std::string batched_graph(const Workload& w, int64_t batch, const std::string& name) {
  const std::string& path = w.source;
  YAML::Node root = load_yaml_file(path);
  const YAML::Node tensors = root["tensors"], ops = root["ops"];
  // The batch: the leading dimension of every activation and KV cache the graph starts from.
  std::set<std::string> batched;
  if (tensors)
    for (YAML::Node t : tensors) {
      const std::string role = t["role"].Scalar(), tensor = std::string(text::trim(t["name"].Scalar()));
      if (role != "activation" && role != "kv_cache") continue;
      YAML::Node shape = t["shape"];
      if (shape.size() < 2)
        throw InputError(path, line_of(t), tensor,
                         fmt::format("the {} has one dimension, so no batch dimension (an activation's or KV cache's "
                                     "leading dimension is its batch, followed by its data's)",
                                     role == "activation" ? "activation" : "KV cache"));
      scale_leading(shape, batch, path, tensor);
      batched.insert(tensor);
    }
  if (batched.empty())
    throw InputError(path, tensors ? line_of(tensors) : line_of(ops), "tensors",
                     "the graph has no activation or KV cache among its inputs, so no batch dimension");
  // What carries the batch on: every op output of a batched input (ops may be written in any order).
  for (bool grew = true; grew;) {
    grew = false;
    for (const YAML::Node& op : ops) {
      const std::string out = std::string(text::trim(op["out"].Scalar()));
      if (batched.count(out)) continue;
      for (const std::string& in : inputs_of(op))
        if (batched.count(in)) {
          batched.insert(out);
          grew = true;
          break;
        }
    }
  }
  // A reshape of batched data keeps the batch leading: its target shape's leading dimension grows too.
  for (YAML::Node op : ops)
    if (op["op"].Scalar() == "reshape" && batched.count(inputs_of(op).front()))
      scale_leading(op["shape"], batch, path, "reshape " + op["name"].Scalar());
  root["name"] = name;
  // The ops must take the batched shapes (a weight joined to an activation along another axis does not).
  try {
    Workload check;
    read_graph(path, root, check);
  } catch (const InputError& e) {
    throw InputError(e.file(), e.line(), e.key(),
                     fmt::format("with its activations' and KV caches' batch dimension times {}: {}", batch,
                                 e.message()));
  }
  YAML::Emitter out;
  out << root;
  if (!out.good()) throw std::logic_error("batched graph of " + path + ": " + out.GetLastError());
  return fmt::format("# Derived by `cstsim sweep` from {}:\n# batch {}: the leading dimension of every activation "
                     "and KV cache input, and of the reshapes of them, times {};\n# every op, dtype and attribute as "
                     "written, weights unchanged.\n{}\n",
                     path, batch, batch, out.c_str());
}

std::string batched_layers(const Workload& w, int64_t batch, const std::string& name) {
  for (const Layer& l : w.layers)
    if (l.conv)  // b images stacked along M are exact in MACs, but the convolution's shape is gone
      throw InputError(w.source, l.source_line, l.name,
                       "a convolution row is one image, and a layer list has no way to hold it for several: its "
                       "im2col GEMM form would drop the convolution's shape, which row stationary and the raw-ifmap "
                       "reads use; write the network as an operator graph (conv2d on [N, H, W, C]) to batch it");
  std::string yaml = fmt::format("# Derived by `cstsim sweep` from {}:\n# batch {}, every layer's M times {}.\n",
                                 w.source, batch, batch);
  yaml += "name: " + nlohmann::json(name).dump() + "\nlayers:\n";
  std::map<std::string, int> seen;
  for (const Layer& l : w.layers) {
    if (l.M > INT_MAX / batch)
      throw InputError(w.source, l.source_line, l.name,
                       fmt::format("M {} times batch {} is past {}", l.M, batch, INT_MAX));
    std::string row = l.name;
    const int n = ++seen[l.name];  // the YAML reader wants unique names; SCALE-Sim CSVs may repeat them
    if (n > 1) row = fmt::format("{}~{}", l.name, n);
    yaml += fmt::format("  - {{name: {}, M: {}, N: {}, K: {}", nlohmann::json(row).dump(), l.M * batch, l.N, l.K);
    if (l.reads_previous) yaml += *l.reads_previous ? ", input: previous" : ", input: none";
    if (l.input_density < 1) yaml += fmt::format(", input_density: {}", l.input_density);
    yaml += "}\n";
  }
  return yaml;
}

// The batched workload runs what w runs, each layer and vector op `batch` times over or as it was.
void check_same_ops(const Workload& w, const Workload& b, int64_t batch) {
  auto fail = [&](const std::string& what) {
    throw std::logic_error(fmt::format("batch {} of {} changed its ops: {}", batch, w.source, what));
  };
  if (b.layers.size() != w.layers.size() || b.vector_steps.size() != w.vector_steps.size() ||
      b.flash.size() != w.flash.size())
    fail(fmt::format("{} layers, {} vector steps, {} flash kernels; were {}, {}, {}", b.layers.size(),
                     b.vector_steps.size(), b.flash.size(), w.layers.size(), w.vector_steps.size(), w.flash.size()));
  for (size_t i = 0; i < w.layers.size(); ++i) {
    const Layer &x = w.layers[i], &y = b.layers[i];
    if (y.macs() != x.macs() && y.macs() != batch * x.macs())
      fail(fmt::format("layer {} has {} MACs, was {}", x.name, y.macs(), x.macs()));
    if (y.N != x.N || y.K != x.K || y.dtype_bits != x.dtype_bits || y.b_dtype_bits != x.b_dtype_bits ||
        y.conv.has_value() != x.conv.has_value())
      fail("layer " + x.name + " changed its N, K, dtypes or convolution");
  }
  for (size_t i = 0; i < w.vector_steps.size(); ++i)
    if (b.vector_steps[i].op != w.vector_steps[i].op || b.vector_steps[i].kind != w.vector_steps[i].kind)
      fail("vector step " + w.vector_steps[i].op);
  for (size_t i = 0; i < w.flash.size(); ++i)
    if (b.flash[i].name != w.flash[i].name ||
        (b.flash[i].dense_macs() != w.flash[i].dense_macs() && b.flash[i].dense_macs() != batch * w.flash[i].dense_macs()))
      fail("flash attention " + w.flash[i].name);
}

}  // namespace

BatchedWorkload batched_workload(const Workload& w, int64_t batch, const std::string& name, const std::string& path) {
  BatchedWorkload out;
  out.yaml = w.is_graph ? batched_graph(w, batch, name) : batched_layers(w, batch, name);
  out.workload = read_workload_text(path, out.yaml);
  if (w.is_graph) check_same_ops(w, out.workload, batch);
  return out;
}

}  // namespace cstsim
