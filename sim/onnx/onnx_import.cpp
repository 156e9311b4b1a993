#include "sim/onnx/onnx_import.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <climits>
#include <cstdint>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <yaml-cpp/yaml.h>

#include "core/input_error.h"
#include "core/input_file.h"
#include "core/sanitizer.h"
#include "core/text.h"
#include "sim/onnx/onnx_fold.h"
#include "sim/workload/graph.h"

namespace cstsim {
namespace {

// In the shape-inference child, a crash is the expected failure it exists to contain: it dies by
// its signal, without a core file, a message on the user's terminal or (in the sanitizer build) a
// report about libonnx's memory, which is not ours.
void quiet_crash() {
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(sig, SIG_DFL);
  const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null >= 0) ::dup2(null, STDERR_FILENO);
  if (null >= 0) sanitizer::reports_to(null);
}

// ONNX's shape inference (Debian's libonnx 1.12) is not safe on malformed models: libFuzzer found
// a Conv/MaxPool pair that makes convPoolShapeInference read wild memory (SIGSEGV). It runs in a
// child process, which sends the inferred model back through a pipe; a child that dies, or runs
// past its CPU or memory budget, makes the model an input error instead of taking cstsim down.
// The model it is given carries no weight values (Importer::fold strips them), so what crosses
// the pipe is small whatever the model's size. CPU time, not wall time: a loaded machine slows
// the child without using up its budget.
void infer_shapes_apart(onnx::ModelProto& model, const std::string& path, const OnnxImportOptions& limits) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("import onnx: cannot make a pipe");
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error("import onnx: cannot fork for shape inference");
  }
  if (child == 0) {
    ::close(fds[0]);
    quiet_crash();
    const rlim_t cpu = rlim_t(std::ceil(limits.cpu_seconds));
    const rlimit cpu_limit{cpu, cpu + 1};
    ::setrlimit(RLIMIT_CPU, &cpu_limit);
#ifndef CSTSIM_ASAN  // ASan reserves terabytes of shadow address space up front
    if (limits.memory_bytes > 0) {
      const rlimit as_limit{rlim_t(limits.memory_bytes), rlim_t(limits.memory_bytes)};
      ::setrlimit(RLIMIT_AS, &as_limit);
    }
#endif
    std::string reply;
    try {
      onnx::shape_inference::InferShapes(model);
      reply = "M" + model.SerializeAsString();
    } catch (const std::bad_alloc&) {
      reply = "A";
    } catch (const std::exception& e) {
      reply = std::string("E") + e.what();
    }
    for (size_t done = 0; done < reply.size();) {
      const ssize_t n = ::write(fds[1], reply.data() + done, reply.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) ::_exit(3);
      done += size_t(n);
    }
    ::_exit(0);  // no destructors, no atexit: the parent owns everything
  }
  ::close(fds[1]);
  std::string reply;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    reply.append(buf, size_t(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  const bool over_cpu = WIFSIGNALED(status) && (WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL);
  if (over_cpu)
    throw InputError(path, 0, "shape inference",
                     fmt::format("ONNX's shape inference used its CPU budget of {:g} s on this model (--time-limit)",
                                 limits.cpu_seconds));
  if (reply == "A")
    throw InputError(path, 0, "shape inference",
                     fmt::format("ONNX's shape inference ran out of its memory budget of {} MiB (--memory-limit)",
                                 limits.memory_bytes >> 20));
  if (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0) || reply.empty())
    throw InputError(path, 0, "shape inference", "ONNX's shape inference crashed on this model (a malformed model it does not check)");
  if (reply[0] == 'E') throw InputError(path, 0, "shape inference", reply.substr(1));
  if (!model.ParseFromString(reply.substr(1))) throw InputError(path, 0, "shape inference", "returned an unreadable model");
}

using Shape = std::vector<int64_t>;

struct Tensor {
  Shape shape;
  std::string dtype;
  bool known = false;
};

// ONNX element types the graph has a dtype for (int64 indices are taken as int32: gathers' ids).
std::string dtype_of(int32_t t) {
  switch (t) {
    case onnx::TensorProto::FLOAT: return "fp32";
    case onnx::TensorProto::FLOAT16: return "fp16";
    case onnx::TensorProto::BFLOAT16: return "bf16";
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::BOOL: return "int8";  // a mask: a byte a value, as exporters store it
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::UINT16: return "int16";
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::INT64: return "int32";
    default: return "";
  }
}

const onnx::AttributeProto* attribute(const onnx::NodeProto& n, const std::string& name) {
  for (const onnx::AttributeProto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}
int64_t int_attribute(const onnx::NodeProto& n, const std::string& name, int64_t fallback) {
  const onnx::AttributeProto* a = attribute(n, name);
  return a ? a->i() : fallback;
}
Shape ints_attribute(const onnx::NodeProto& n, const std::string& name) {
  const onnx::AttributeProto* a = attribute(n, name);
  return a ? Shape(a->ints().begin(), a->ints().end()) : Shape{};
}

// The op kinds whose 4-D tensors are images (NCHW in ONNX), and those that pass a layout through.
const std::set<std::string> kImageOps = {"Conv", "MaxPool", "AveragePool", "GlobalAveragePool", "BatchNormalization"};
// The ops this importer converts, with the inputs each reads by position (the output it reads is 0).
const std::map<std::string, int> kMinInputs = {
    {"MatMul", 2}, {"Gemm", 2}, {"Conv", 2}, {"Add", 2}, {"Sub", 2}, {"Mul", 2}, {"Div", 2},
    {"BatchNormalization", 3}, {"Gather", 2}, {"Constant", 0}, {"Relu", 1}, {"Gelu", 1}, {"Sigmoid", 1},
    {"Softmax", 1}, {"LayerNormalization", 1}, {"MaxPool", 1}, {"AveragePool", 1}, {"GlobalAveragePool", 1},
    {"Reshape", 1}, {"Flatten", 1}, {"Squeeze", 1}, {"Unsqueeze", 1}, {"Transpose", 1}, {"Identity", 1},
    {"Dropout", 1}, {"Concat", 1}, {"Clip", 1}, {"Where", 3}, {"Split", 1}, {"Slice", 1}, {"Cast", 1},
    {"RMSNormalization", 1}};

const std::set<std::string> kElementwise = {"Add", "Sub", "Mul", "Div", "Relu", "Gelu", "Sigmoid", "Identity", "Dropout", "Clip", "Cast"};

// Ops folded into a constant of the inferred shape when all their inputs are constant even if
// the values are too large to compute with (a weight transposed, sliced or cast): data movement
// and elementwise arithmetic, never a matrix product or a convolution (their MACs are the model's).
const std::set<std::string> kFoldWithoutValues = {
    "Identity", "Cast", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Slice", "Split", "Gather",
    "Concat", "Expand", "Tile", "Where", "Trilu", "Add", "Sub", "Mul", "Div", "Neg", "Sqrt", "Pow", "Reciprocal",
    "Equal", "Less", "Greater", "Not", "And", "Or", "Range", "ConstantOfShape", "Shape", "Size"};

// Elements folding computes in all, at most: a model that makes masks and shape tables by the
// million (or a malformed one) folds the rest into constants of known shape without values.
constexpr int64_t kFoldBudget = int64_t(1) << 25;

// Float values held for pattern matching (epsilons, 0.5, sqrt 2, a clip's bounds); larger float
// constants keep their shape and type only.
constexpr int64_t kHeldFloats = 64;

class Importer {
 public:
  Importer(std::string path, const OnnxImportOptions& options)
      : path_(std::move(path)), options_(options), dims_(options.dims) {}

  OnnxImport run() {
    onnx::ModelProto model;
    check_input_file(path_);
    {
      std::ifstream in(path_, std::ios::binary);
      if (!in) throw InputError(path_, 0, "", "cannot read the file");
      if (!model.ParseFromIstream(&in) || !model.has_graph())
        throw InputError(path_, 0, "", "not an ONNX model (no graph in its protobuf)");
    }
    check_names(model.graph());
    check_arity(model.graph());
    check_wiring(model.graph());
    model_nodes_ = model.graph().node_size();
    bind_dims(*model.mutable_graph());
    fold(model);
    const onnx::GraphProto& g = model.graph();
    for (const onnx::TensorProto& t : g.initializer()) {
      Tensor& x = tensors_[t.name()];
      x.shape.assign(t.dims().begin(), t.dims().end());
      check_dims(t.name(), x.shape);
      x.dtype = dtype_of(t.data_type());
      x.known = true;
      weights_.insert(t.name());
    }
    for (const auto* list : {&g.input(), &g.value_info(), &g.output()})
      for (const onnx::ValueInfoProto& v : *list) learn(v);
    const std::vector<onnx::NodeProto> nodes = fuse(g);
    find_images(nodes);
    check_supported(nodes);
    // Graph inputs that are not initializers: activations.
    for (const onnx::ValueInfoProto& v : g.input())
      if (!weights_.count(v.name())) inputs_.push_back(v.name());
    int index = 0;
    for (const onnx::NodeProto& n : nodes) convert(n, index++);
    return emit(g, model_nodes_);
  }

 private:
  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    throw InputError(path_, 0, key, message);
  }
  static std::string label(const onnx::NodeProto& n, int index) {
    return n.name().empty() ? fmt::format("node {}", index) : n.name();
  }

  // Names become YAML keys, table cells and JSON strings on one line: a control character or a
  // byte that is not UTF-8 is refused here, where the model is named, not after conversion. The
  // message names the node by position and never echoes the name itself.
  void check_names(const onnx::GraphProto& g) const {
    auto check = [&](const std::string& name, const std::string& what) {
      const auto bad = text::control_char(name) ? text::control_char(name) : text::invalid_utf8(name);
      if (bad)
        fail(what, fmt::format("its name holds {} (byte 0x{:02x} at offset {}): names must be UTF-8 text on one line",
                               text::control_char(name) ? "a control character" : "a byte that is not UTF-8",
                               static_cast<unsigned char>(name[*bad]), *bad));
    };
    check(g.name(), "graph");
    for (int i = 0; i < g.initializer_size(); ++i) check(g.initializer(i).name(), fmt::format("initializer {}", i));
    for (const auto* list : {&g.input(), &g.value_info(), &g.output()})
      for (int i = 0; i < list->size(); ++i)
        check(list->Get(i).name(), fmt::format("graph {} {}", list == &g.input() ? "input" : list == &g.output() ? "output" : "value_info", i));
    for (int i = 0; i < g.node_size(); ++i) {
      const onnx::NodeProto& n = g.node(i);
      const std::string node = fmt::format("node {} ({})", i, text::control_char(n.op_type()) || text::invalid_utf8(n.op_type()) ? "?" : n.op_type());
      check(n.op_type(), node + " op type");
      check(n.name(), node);
      for (int k = 0; k < n.input_size(); ++k) check(n.input(k), fmt::format("{} input {}", node, k));
      for (int k = 0; k < n.output_size(); ++k) check(n.output(k), fmt::format("{} output {}", node, k));
    }
  }

  // Each tensor written once, by a node that does not read it, after the nodes it reads: what the
  // graph reader holds an operator graph to (a model that breaks it would be written and then
  // refused by cstsim plan), checked before ONNX's shape inference walks the graph.
  void check_wiring(const onnx::GraphProto& g) const {
    std::set<std::string> given;
    for (const onnx::TensorProto& t : g.initializer()) given.insert(t.name());
    for (const onnx::ValueInfoProto& v : g.input()) given.insert(v.name());
    std::map<std::string, int> writer;
    for (int i = 0; i < g.node_size(); ++i) {
      const onnx::NodeProto& n = g.node(i);
      for (const std::string& out : n.output()) {
        if (out.empty()) continue;  // an optional output left out
        if (std::find(n.input().begin(), n.input().end(), out) != n.input().end())
          fail(label(n, i), fmt::format("{} writes {}, which it reads (a node's output is a new tensor)", n.op_type(), text::quoted(out)));
        if (given.count(out))
          fail(label(n, i), fmt::format("{} writes {}, an input or initializer of the graph", n.op_type(), text::quoted(out)));
        if (auto [it, fresh] = writer.emplace(out, i); !fresh)
          fail(label(n, i), fmt::format("{} writes {}, which {} writes too", n.op_type(), text::quoted(out),
                                        text::quoted(label(g.node(it->second), it->second))));
      }
    }
    // Kahn's order over the nodes: those never ready lie on a cycle or behind one.
    std::vector<int> waiting(size_t(g.node_size()), 0);
    std::vector<std::vector<int>> readers(size_t(g.node_size()));
    for (int i = 0; i < g.node_size(); ++i)
      for (const std::string& in : g.node(i).input())
        if (auto w = writer.find(in); w != writer.end()) {
          readers[size_t(w->second)].push_back(i);
          ++waiting[size_t(i)];
        }
    std::vector<int> ready;
    for (int i = 0; i < g.node_size(); ++i)
      if (waiting[size_t(i)] == 0) ready.push_back(i);
    for (size_t k = 0; k < ready.size(); ++k)
      for (int r : readers[size_t(ready[k])])
        if (--waiting[size_t(r)] == 0) ready.push_back(r);
    for (int i = 0; i < g.node_size(); ++i)
      if (waiting[size_t(i)] > 0)
        fail(label(g.node(i), i), fmt::format("{} depends on its own output (a cycle through its inputs)", g.node(i).op_type()));
  }

  // Sizes the graph can hold: every dimension from 1 to INT_MAX and at most
  // kMaxGraphTensorElements in all (a negative or zero dimension, or one past the reader's range,
  // would be written and refused later, or wrap in a product).
  void check_dims(const std::string& tensor, const Shape& s) const {
    int64_t n = 1;
    for (size_t k = 0; k < s.size(); ++k) {
      if (s[k] < 1)
        fail(tensor, fmt::format("dimension {} is {}: an empty or negative dimension is not modelled", k, s[k]));
      if (s[k] > INT_MAX) fail(tensor, fmt::format("dimension {} is {}; at most {}", k, s[k], INT_MAX));
      if (__builtin_mul_overflow(n, s[k], &n) || n > kMaxGraphTensorElements)
        fail(tensor, fmt::format("[{}] has more than 2^48 elements (the most a graph tensor holds)", fmt::join(s, ", ")));
    }
  }

  void learn(const onnx::ValueInfoProto& v) {
    if (!v.type().has_tensor_type()) return;
    const onnx::TypeProto_Tensor& t = v.type().tensor_type();
    Tensor& x = tensors_[v.name()];
    if (x.known) return;
    x.dtype = dtype_of(t.elem_type());
    if (!t.has_shape()) return;
    Shape s;
    for (const onnx::TensorShapeProto_Dimension& d : t.shape().dim()) {
      if (d.has_dim_value()) {
        s.push_back(d.dim_value());
      } else if (d.has_dim_param() && dims_.count(d.dim_param())) {
        used_.insert(d.dim_param());
        s.push_back(dims_.at(d.dim_param()));
      } else {
        unbound_.insert(d.has_dim_param() ? d.dim_param() : "?");
        return;
      }
    }
    check_dims(v.name(), s);
    x.shape = s;
    x.known = true;
  }

  // The values given for symbolic dimensions, written into the graph's inputs before shape
  // inference, so that every shape it infers is concrete (and Shape nodes fold).
  void bind_dims(onnx::GraphProto& g) {
    for (onnx::ValueInfoProto& v : *g.mutable_input()) {
      if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) continue;
      for (auto& d : *v.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim())
        if (d.has_dim_param() && dims_.count(d.dim_param())) {
          used_.insert(d.dim_param());
          d.set_dim_value(dims_.at(d.dim_param()));
        }
    }
  }

  // Shape inference, then every node whose inputs are constant (or a Shape of a tensor whose
  // shape is known) computed into a constant, until no node folds; then inference once more on
  // what is left. Constant nodes become initializers first, and every initializer loses its
  // values but for small ones (onnx_fold::write), which keeps the inference child's model small.
  void fold(onnx::ModelProto& model) {
    onnx::GraphProto& g = *model.mutable_graph();
    for (const onnx::TensorProto& t : g.initializer()) consts_[t.name()] = onnx_fold::read(t, kHeldFloats);
    google::protobuf::RepeatedPtrField<onnx::NodeProto> rest;
    for (const onnx::NodeProto& n : g.node()) {
      if (n.op_type() == "Constant" && n.output_size() == 1)
        if (std::optional<onnx_fold::Value> v = onnx_fold::constant_value(n)) {
          consts_[n.output(0)] = std::move(*v);
          continue;
        }
      *rest.Add() = n;
    }
    g.mutable_node()->Swap(&rest);
    g.clear_initializer();
    for (const auto& [name, v] : consts_) onnx_fold::write(v, name, kHeldFloats, *g.add_initializer());
    for (;;) {
      infer_shapes_apart(model, path_, options_);
      std::map<std::string, std::pair<int32_t, onnx_fold::Shape>> inferred;  // concrete shapes only
      for (const auto* list : {&g.input(), &g.value_info(), &g.output()})
        for (const onnx::ValueInfoProto& v : *list) {
          if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) continue;
          onnx_fold::Shape shape;
          bool concrete = true;
          for (const auto& d : v.type().tensor_type().shape().dim()) {
            concrete = concrete && d.has_dim_value();
            shape.push_back(d.dim_value());
          }
          if (concrete) inferred[v.name()] = {v.type().tensor_type().elem_type(), shape};
        }
      for (const auto& [name, v] : consts_) inferred[name] = {v.type, v.dims};
      bool folded = false;
      google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
      for (int i = 0; i < g.node_size(); ++i) {
        const onnx::NodeProto& n = g.node(i);
        std::vector<const onnx_fold::Value*> in;
        bool all_constant = true;
        for (const std::string& name : n.input()) {
          const auto it = name.empty() ? consts_.end() : consts_.find(name);
          all_constant = all_constant && (name.empty() || it != consts_.end());
          in.push_back(it == consts_.end() ? nullptr : &it->second);
        }
        std::optional<std::vector<onnx_fold::Value>> out;
        if (n.output_size() > 0 && (all_constant || n.op_type() == "Shape" || n.op_type() == "Size")) {
          const auto shape0 = n.input_size() > 0 ? inferred.find(n.input(0)) : inferred.end();
          try {
            if (computed_ < kFoldBudget || n.op_type() == "Shape" || n.op_type() == "Size")  // past it: shapes only
              out = onnx_fold::evaluate(n, in, shape0 == inferred.end() ? nullptr : &shape0->second.second);
          } catch (const std::logic_error& e) {  // a malformed node (invalid_argument), an index past a list
            fail(label(n, i), e.what());
          }
          if (out)
            for (const onnx_fold::Value& v : *out) computed_ += int64_t(v.v.size());
          if (!out && all_constant && kFoldWithoutValues.count(n.op_type())) {  // shape and type only
            std::vector<onnx_fold::Value> typed;
            for (const std::string& o : n.output())
              if (auto it = inferred.find(o); !o.empty() && it != inferred.end()) {
                onnx_fold::Value v;
                v.type = it->second.first;
                v.dims = it->second.second;
                typed.push_back(std::move(v));
              }
            if (int(typed.size()) == n.output_size()) out = std::move(typed);
          }
        }
        if (!out || int(out->size()) != n.output_size()) {
          *kept.Add() = n;
          continue;
        }
        for (int k = 0; k < n.output_size(); ++k) {
          onnx_fold::write((*out)[size_t(k)], n.output(k), kHeldFloats, *g.add_initializer());
          consts_[n.output(k)] = std::move((*out)[size_t(k)]);
        }
        folded = true;
      }
      g.mutable_node()->Swap(&kept);
      if (!folded) return;
    }
  }

  // The decomposed forms exporters write for LayerNorm, RMSNorm and the exact (erf) GELU, each
  // replaced by one node (LayerNormalization, RMSNormalization, Gelu) where its last node was.
  // A pattern fuses only when its inner tensors are read by nothing outside it.
  std::vector<onnx::NodeProto> fuse(const onnx::GraphProto& g) {
    std::vector<onnx::NodeProto> nodes(g.node().begin(), g.node().end());
    std::map<std::string, int> producer;
    std::map<std::string, std::vector<int>> readers;
    for (int i = 0; i < int(nodes.size()); ++i) {
      for (const std::string& o : nodes[size_t(i)].output()) producer[o] = i;
      for (const std::string& x : nodes[size_t(i)].input()) readers[x].push_back(i);
    }
    for (const onnx::ValueInfoProto& v : g.output()) readers[v.name()].push_back(-1);
    std::vector<bool> gone(nodes.size(), false);
    std::map<int, onnx::NodeProto> fused;  // by the index of the pattern's last node
    auto op_of = [&](int i) -> const std::string& { return nodes[size_t(i)].op_type(); };
    auto input = [&](int i, int k) { return k < nodes[size_t(i)].input_size() ? nodes[size_t(i)].input(k) : std::string(); };
    auto output = [&](int i) { return nodes[size_t(i)].output_size() > 0 ? nodes[size_t(i)].output(0) : std::string(); };
    auto made_by = [&](const std::string& t, const char* op) {
      const auto it = producer.find(t);
      return it == producer.end() || gone[size_t(it->second)] || op_of(it->second) != op ? -1 : it->second;
    };
    auto only_reader = [&](const std::string& t, const char* op) {
      const auto it = readers.find(t);
      if (it == readers.end() || it->second.size() != 1 || it->second[0] < 0) return -1;
      const int r = it->second[0];
      return gone[size_t(r)] || op_of(r) != op ? -1 : r;
    };
    auto read_by = [&](const std::string& t) { return readers.count(t) ? readers.at(t).size() : size_t(0); };
    auto scalar = [&](const std::string& t) -> std::optional<double> {
      const auto it = consts_.find(t);
      if (it == consts_.end() || !it->second.known || it->second.v.size() != 1) return std::nullopt;
      return it->second.v[0];
    };
    auto near = [&](const std::string& t, double want) {
      const std::optional<double> v = scalar(t);
      return v && std::fabs(*v - want) <= 1e-4 * std::fabs(want);
    };
    auto constant = [&](const std::string& t) { return consts_.count(t) > 0; };
    // Binary node i's input that is not t ("" if neither is t).
    auto other = [&](int i, const std::string& t) {
      return input(i, 0) == t ? input(i, 1) : input(i, 1) == t ? input(i, 0) : std::string();
    };
    // Its constant input ("" if none), with the other in `rest`.
    auto constant_of = [&](int i, std::string& rest) {
      for (int k : {1, 0})
        if (constant(input(i, k)) && !constant(input(i, 1 - k))) {
          rest = input(i, 1 - k);
          return input(i, k);
        }
      return std::string();
    };
    // A ReduceMean over the last axis that keeps it.
    auto mean_of_last = [&](int i) {
      if (i < 0 || int_attribute(nodes[size_t(i)], "keepdims", 1) != 1) return false;
      Shape axes = ints_attribute(nodes[size_t(i)], "axes");
      if (axes.empty() && consts_.count(input(i, 1)) && consts_.at(input(i, 1)).known)
        for (double a : consts_.at(input(i, 1)).v) axes.push_back(int64_t(a));
      const auto t = tensors_.find(input(i, 0));
      const int64_t rank = t == tensors_.end() || !t->second.known ? -1 : int64_t(t->second.shape.size());
      return axes.size() == 1 && rank > 0 && (axes[0] == -1 || axes[0] == rank - 1);
    };
    // Squares x: Pow(x, 2) or Mul(x, x).
    auto squares = [&](int i, const std::string& x) {
      return i >= 0 && input(i, 0) == x &&
             ((op_of(i) == "Pow" && near(input(i, 1), 2.0)) || (op_of(i) == "Mul" && input(i, 1) == x));
    };
    auto producer_any = [&](const std::string& t) {
      const auto it = producer.find(t);
      return it == producer.end() || gone[size_t(it->second)] ? -1 : it->second;
    };
    // One node in place of `parts`, named by their common name prefix (torch: "/ln1/...").
    auto replace = [&](std::vector<int> parts, const char* op, std::vector<std::string> in, const std::string& out,
                       const char* suffix) {
      std::string prefix = nodes[size_t(parts[0])].name();
      for (int i : parts) {
        const std::string& name = nodes[size_t(i)].name();
        size_t k = 0;
        while (k < prefix.size() && k < name.size() && prefix[k] == name[k]) ++k;
        prefix.resize(k);
      }
      while (!prefix.empty() && prefix.back() != '/') prefix.pop_back();
      while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
      onnx::NodeProto r;
      r.set_op_type(op);
      r.set_name(prefix.empty() ? nodes[size_t(parts[0])].name() + suffix : prefix);
      for (const std::string& t : in)
        if (!t.empty()) r.add_input(t);
      r.add_output(out);
      for (int i : parts) gone[size_t(i)] = true;
      fused[*std::max_element(parts.begin(), parts.end())] = r;
    };
    // An optional affine tail: y * gamma (+ beta), gamma and beta constants.
    auto affine = [&](std::vector<int>& parts, std::string& out, std::string& gamma, std::string& beta, bool with_beta) {
      std::string rest;
      if (const int m = only_reader(out, "Mul"); m >= 0 && !(gamma = constant_of(m, rest)).empty() && rest == out) {
        parts.push_back(m);
        out = output(m);
        if (const int b = only_reader(out, "Add"); with_beta && b >= 0 && !(beta = constant_of(b, rest)).empty() && rest == out) {
          parts.push_back(b);
          out = output(b);
        } else {
          beta.clear();
        }
      } else {
        gamma.clear();
      }
    };
    for (int d = 0; d < int(nodes.size()); ++d) {  // LayerNorm: (x - mean(x)) / sqrt(mean((x - mean)^2) + eps)
      if (gone[size_t(d)] || op_of(d) != "Div") continue;
      const int q = made_by(input(d, 1), "Sqrt");
      const int a = q < 0 ? -1 : made_by(input(q, 0), "Add");
      std::string var;
      if (a < 0 || constant_of(a, var).empty()) continue;
      const int rm2 = made_by(var, "ReduceMean");
      const int p = rm2 < 0 ? -1 : producer_any(input(rm2, 0));
      const int s = made_by(input(d, 0), "Sub");
      if (s < 0 || !squares(p, output(s)) || !mean_of_last(rm2)) continue;
      const std::string x = input(s, 0);
      const int rm1 = made_by(input(s, 1), "ReduceMean");
      if (rm1 < 0 || input(rm1, 0) != x || !mean_of_last(rm1)) continue;
      if (read_by(output(rm1)) != 1 || read_by(output(s)) != 2 || read_by(output(p)) != 1 || read_by(output(rm2)) != 1 ||
          read_by(output(a)) != 1 || read_by(output(q)) != 1)
        continue;
      std::vector<int> parts{rm1, s, p, rm2, a, q, d};
      std::string out = output(d), gamma, beta;
      affine(parts, out, gamma, beta, true);
      replace(parts, "LayerNormalization", {x, gamma, beta}, out, ".layernorm");
    }
    for (int q = 0; q < int(nodes.size()); ++q) {  // RMSNorm: x / sqrt(mean(x^2) + eps), or x * (1 / sqrt(...))
      if (gone[size_t(q)] || op_of(q) != "Sqrt") continue;
      const int a = made_by(input(q, 0), "Add");
      std::string ms;
      if (a < 0 || constant_of(a, ms).empty()) continue;
      const int rm = made_by(ms, "ReduceMean");
      const int p = rm < 0 ? -1 : producer_any(input(rm, 0));
      if (p < 0 || !mean_of_last(rm)) continue;
      const std::string x = input(p, 0);
      if (!squares(p, x) || read_by(output(p)) != 1 || read_by(output(rm)) != 1 || read_by(output(a)) != 1 ||
          read_by(output(q)) != 1)
        continue;
      std::vector<int> parts{p, rm, a, q};
      std::string out;
      if (const int d = only_reader(output(q), "Div"); d >= 0 && input(d, 0) == x && input(d, 1) == output(q)) {
        parts.push_back(d);
        out = output(d);
      } else {
        int r = only_reader(output(q), "Reciprocal");
        if (r < 0)
          if (const int one = only_reader(output(q), "Div"); one >= 0 && input(one, 1) == output(q) && near(input(one, 0), 1.0))
            r = one;
        const int m = r < 0 ? -1 : only_reader(output(r), "Mul");
        if (m < 0 || other(m, output(r)) != x) continue;
        parts.push_back(r);
        parts.push_back(m);
        out = output(m);
      }
      std::string weight, unused;
      affine(parts, out, weight, unused, false);
      replace(parts, "RMSNormalization", {x, weight}, out, ".rmsnorm");
    }
    for (int e = 0; e < int(nodes.size()); ++e) {  // GELU: x * 0.5 * (1 + erf(x / sqrt 2))
      if (gone[size_t(e)] || op_of(e) != "Erf") continue;
      const int pre = producer_any(input(e, 0));
      if (pre < 0 || read_by(output(pre)) != 1 || read_by(output(e)) != 1) continue;
      std::string x;  // x / sqrt 2, or x * (1 / sqrt 2)
      if (op_of(pre) == "Div" && near(input(pre, 1), std::sqrt(2.0))) x = input(pre, 0);
      else if (op_of(pre) != "Mul" || !near(constant_of(pre, x), std::sqrt(0.5))) continue;
      const int a = only_reader(output(e), "Add");
      if (a < 0 || !near(other(a, output(e)), 1.0)) continue;
      const int m = only_reader(output(a), "Mul");
      if (m < 0) continue;
      const std::string y = other(m, output(a));
      std::vector<int> parts{pre, e, a, m};
      std::string out = output(m);
      if (y == x) {  // (x * (1 + erf)) * 0.5
        const int h = only_reader(out, "Mul");
        if (h < 0 || !near(other(h, out), 0.5)) continue;
        parts.push_back(h);
        out = output(h);
      } else {  // (x * 0.5) * (1 + erf)
        const int h = made_by(y, "Mul");
        if (h < 0 || read_by(y) != 1 || other(h, x).empty() || !near(other(h, x), 0.5)) continue;
        parts.push_back(h);
      }
      replace(parts, "Gelu", {x}, out, ".gelu");
    }
    std::vector<onnx::NodeProto> result;
    for (int i = 0; i < int(nodes.size()); ++i) {
      if (auto f = fused.find(i); f != fused.end()) result.push_back(f->second);
      if (!gone[size_t(i)]) result.push_back(nodes[size_t(i)]);
    }
    return result;
  }

  // Every node this importer converts reads inputs and output 0 by position: too few is the
  // model's error (fuzz_onnx found a MatMul with one input, which protobuf aborts on).
  void check_arity(const onnx::GraphProto& g) const {
    for (int i = 0; i < g.node_size(); ++i) {
      const onnx::NodeProto& n = g.node(i);
      const auto m = kMinInputs.find(n.op_type());
      if (m == kMinInputs.end()) continue;  // check_supported lists it as having no counterpart
      const int need = m->second;
      if (n.input_size() < need || n.output_size() < 1)
        throw InputError(path_, 0, n.name().empty() ? fmt::format("node {}", i) : n.name(),
                         fmt::format("{} has {} inputs and {} outputs; it needs at least {} and 1", n.op_type(),
                                     n.input_size(), n.output_size(), need));
    }
  }

  // 4-D tensors in or out of a convolution or pool, and those joined to one by elementwise ops.
  void find_images(const std::vector<onnx::NodeProto>& nodes) {
    auto four_d = [&](const std::string& t) { return tensors_.count(t) && tensors_[t].shape.size() == 4; };
    for (bool grew = true; grew;) {
      grew = false;
      for (const onnx::NodeProto& n : nodes) {
        std::vector<std::string> io;
        if (kImageOps.count(n.op_type())) {
          io = {n.input(0), n.output(0)};
        } else if (kElementwise.count(n.op_type()) || n.op_type() == "Concat") {
          bool any = false;
          for (const std::string& t : n.input()) any = any || images_.count(t);
          for (const std::string& t : n.output()) any = any || images_.count(t);
          if (!any) continue;
          io.assign(n.input().begin(), n.input().end());
          io.insert(io.end(), n.output().begin(), n.output().end());
        }
        for (const std::string& t : io)
          if (four_d(t) && !weights_.count(t) && images_.insert(t).second) grew = true;
      }
    }
  }

  void check_supported(const std::vector<onnx::NodeProto>& nodes) {
    std::vector<std::string> missing;
    for (const onnx::NodeProto& n : nodes)
      if (!kMinInputs.count(n.op_type())) missing.push_back(fmt::format("{} ({})", n.op_type(), n.name()));
    if (!missing.empty())
      fail("node", fmt::format("{} op{} with no counterpart in cstsim's graph: {}", missing.size(),
                               missing.size() > 1 ? "s" : "", fmt::join(missing, ", ")));
    if (!unbound_.empty())
      fail("dim", fmt::format("symbolic dimension{} {} (give each a value: --dim NAME=VALUE)",
                              unbound_.size() > 1 ? "s" : "", fmt::join(unbound_, ", ")));
    for (const auto& [name, value] : dims_)  // a --dim the model has no use for would be ignored
      if (!used_.count(name)) fail("--dim", fmt::format("the model has no symbolic dimension {}", name));
  }

  // A tensor's shape as the graph takes it: images NHWC, convolution weights [Fh, Fw, C/g, F].
  const Shape& shape(const std::string& t) {
    auto it = tensors_.find(t);
    if (it == tensors_.end() || !it->second.known) fail(t, "its shape is not known after shape inference");
    return it->second.shape;
  }
  Shape graph_shape(const std::string& t) {
    Shape s = shape(t);
    if (s.empty()) s = {1};  // a scalar: one element
    // Only 4-D tensors are made images (find_images) or convolution weights (convert's Conv).
    if ((images_.count(t) || conv_weights_.count(t)) && s.size() != 4)
      throw std::logic_error(fmt::format("import onnx: {} is laid out as an image but has {} dimensions", t, s.size()));
    if (images_.count(t)) return {s[0], s[2], s[3], s[1]};
    if (conv_weights_.count(t)) return {s[2], s[3], s[1], s[0]};
    return s;
  }
  // The node's input k must have `rank` dimensions (ONNX allows more forms than the graph models).
  void need_rank(const std::string& node, const std::string& t, size_t rank, const std::string& what) {
    if (shape(t).size() != rank)
      fail(node, fmt::format("{}: {} has {} dimension{} [{}]", what, text::quoted(t), shape(t).size(),
                             shape(t).size() == 1 ? "" : "s", fmt::join(shape(t), ", ")));
  }
  // A pair attribute (strides, dilations) as the graph writes it: one value when both agree.
  static YAML::Node pair_or_one(const Shape& v) { return v[0] == v[1] ? YAML::Node(v[0]) : YAML::Node(v); }

  YAML::Node op(const std::string& name, const std::string& kind, std::vector<std::string> in, const std::string& out) {
    YAML::Node o;
    o["name"] = name;
    o["op"] = kind;
    for (const std::string& t : in) o["in"].push_back(t);
    o["out"] = out;
    o["in"].SetStyle(YAML::EmitterStyle::Flow);
    ops_.push_back(o);
    op_nodes_.push_back(node_);
    return ops_.back();
  }
  void view(const std::string& name, const std::string& in, const std::string& out) {
    YAML::Node o = op(name, "reshape", {in}, out);
    for (int64_t d : graph_shape(out)) o["shape"].push_back(d);
    o["shape"].SetStyle(YAML::EmitterStyle::Flow);
  }

  // A 2-D window's pads [top, left, bottom, right], strides and dilations [h, w]: two values
  // each (four pads), positive (pads from 0), symmetric pads; auto_pad only NOTSET or VALID (the
  // graph takes explicit padding).
  void check_window_attributes(const onnx::NodeProto& n, const std::string& name, const Shape& pads,
                               const Shape& strides, const Shape& dilations) {
    if (const onnx::AttributeProto* a = attribute(n, "auto_pad"); a && a->s() != "NOTSET" && a->s() != "VALID")
      fail(name, "auto_pad SAME_UPPER/SAME_LOWER is not modelled (give the pads)");
    if (!pads.empty() && pads.size() != 4) fail(name, fmt::format("{} pads for a 2-D window (4: top, left, bottom, right)", pads.size()));
    for (int64_t p : pads)
      if (p < 0 || p > INT_MAX) fail(name, fmt::format("a pad of {}", p));
    if (pads.size() == 4 && (pads[0] != pads[2] || pads[1] != pads[3]))
      fail(name, fmt::format("asymmetric padding {} is not modelled", fmt::join(pads, ", ")));
    for (const auto& [key, v] : {std::pair<const char*, const Shape&>{"strides", strides}, {"dilations", dilations}}) {
      if (!v.empty() && v.size() != 2) fail(name, fmt::format("{} {} for a 2-D window (2: h, w)", v.size(), key));
      for (int64_t x : v)
        if (x < 1 || x > INT_MAX) fail(name, fmt::format("{} holds {}", key, x));
    }
  }

  void convert(const onnx::NodeProto& n, int index) {
    const std::string& t = n.op_type();
    const std::string name = n.name().empty() ? fmt::format("{}_{}", t, index) : n.name();
    node_ = label(n, index);
    const std::string out = n.output_size() > 0 ? n.output(0) : "";
    auto with_bias = [&](const std::string& kind, std::vector<std::string> in, const std::string& bias) {
      if (bias.empty()) return op(name, kind, std::move(in), out);
      const std::string raw = out + ".nobias";
      tensors_[raw] = tensors_[out];
      if (images_.count(out)) images_.insert(raw);
      YAML::Node o = op(name, kind, std::move(in), raw);
      op(name + ".bias", "add", {raw, bias}, out);
      return o;
    };
    if (t == "Constant") return;
    if (t == "MatMul") {
      for (int k = 0; k < 2; ++k)
        if (shape(n.input(k)).size() < 2)
          fail(name, fmt::format("a MatMul of the vector {} is not modelled (both inputs need 2 or more dimensions)",
                                 text::quoted(n.input(k))));
      op(name, "matmul", {n.input(0), n.input(1)}, out);
    } else if (t == "Gemm") {
      need_rank(name, n.input(0), 2, "Gemm's A is a matrix");
      need_rank(name, n.input(1), 2, "Gemm's B is a matrix");
      YAML::Node o = with_bias("matmul", {n.input(0), n.input(1)}, n.input_size() > 2 ? n.input(2) : "");
      if (int_attribute(n, "transA", 0)) o["transpose_a"] = true;
      if (int_attribute(n, "transB", 0)) o["transpose_b"] = true;
    } else if (t == "Conv") {
      const size_t rank = shape(n.input(1)).size();
      if (rank != 4)
        fail(name, rank >= 3 ? fmt::format("a {}-D convolution is not modelled (2-D only: weight [F, C/g, Fh, Fw])", rank - 2)
                             : fmt::format("the weight {} has {} dimensions; a 2-D convolution's is [F, C/g, Fh, Fw]",
                                           text::quoted(n.input(1)), rank));
      need_rank(name, n.input(0), 4, "a 2-D convolution reads [N, C, H, W]");
      const Shape pads = ints_attribute(n, "pads"), strides = ints_attribute(n, "strides"),
                  dilations = ints_attribute(n, "dilations");
      check_window_attributes(n, name, pads, strides, dilations);
      if (!dilations.empty() && dilations[0] != dilations[1])
        fail(name, fmt::format("unequal dilations {} are not modelled", fmt::join(dilations, ", ")));
      conv_weights_.insert(n.input(1));
      YAML::Node o = with_bias("conv2d", {n.input(0), n.input(1)}, n.input_size() > 2 ? n.input(2) : "");
      if (!strides.empty()) o["stride"] = pair_or_one(strides);
      if (!pads.empty()) o["padding"] = pair_or_one({pads[0], pads[1]});
      if (!dilations.empty()) o["dilation"] = dilations[0];
      if (int_attribute(n, "group", 1) != 1) o["groups"] = int_attribute(n, "group", 1);
    } else if (t == "Relu" || t == "Gelu" || t == "Sigmoid") {
      std::string kind = t;
      std::transform(kind.begin(), kind.end(), kind.begin(), ::tolower);
      op(name, kind, {n.input(0)}, out);
    } else if (t == "Add" || t == "Sub" || t == "Mul" || t == "Div") {
      std::string a = n.input(0), b = n.input(1);
      if (graph_shape(a).size() < graph_shape(b).size()) std::swap(a, b);  // the larger first: b broadcasts
      op(name, t == "Add" || t == "Sub" ? "add" : "mul", {a, b}, out);
    } else if (t == "Softmax") {
      const int64_t axis = int_attribute(n, "axis", -1), rank = int64_t(shape(n.input(0)).size());
      if (axis != -1 && axis != rank - 1) fail(name, "softmax is modelled over the last axis only");
      op(name, "softmax", {n.input(0)}, out);
    } else if (t == "LayerNormalization") {
      std::vector<std::string> in(n.input().begin(), n.input().end());
      op(name, "layernorm", in, out);
    } else if (t == "BatchNormalization") {  // inference: a per-channel scale, then a shift
      tensors_[out + ".scaled"] = tensors_[out];
      images_.insert(out + ".scaled");
      op(name, "mul", {n.input(0), n.input(1)}, out + ".scaled");
      op(name + ".shift", "add", {out + ".scaled", n.input(2)}, out);
    } else if (t == "MaxPool" || t == "AveragePool") {
      const Shape k = ints_attribute(n, "kernel_shape"), s = ints_attribute(n, "strides"), p = ints_attribute(n, "pads");
      if (k.size() != 2)
        fail(name, k.empty() ? std::string("kernel_shape is missing")
                             : fmt::format("a {}-D pool is not modelled (2-D only: kernel_shape [h, w])", k.size()));
      need_rank(name, n.input(0), 4, "a 2-D pool reads [N, C, H, W]");
      check_window_attributes(n, name, p, s, ints_attribute(n, "dilations"));
      if (int_attribute(n, "ceil_mode", 0) != 0) fail(name, "ceil_mode 1 is not modelled (windows inside the input only)");
      for (int64_t d : ints_attribute(n, "dilations"))
        if (d != 1) fail(name, "a dilated pool is not modelled");
      YAML::Node o = op(name, t == "MaxPool" ? "maxpool" : "avgpool", {n.input(0)}, out);
      o["kernel"] = pair_or_one(k);
      if (!s.empty()) o["stride"] = pair_or_one(s);
      if (!p.empty()) o["padding"] = pair_or_one({p[0], p[1]});
    } else if (t == "GlobalAveragePool") {
      need_rank(name, n.input(0), 4, "a global pool is modelled over [N, C, H, W]");
      const Shape s = shape(n.input(0));  // NCHW
      YAML::Node o = op(name, "avgpool", {n.input(0)}, out);
      o["kernel"] = std::vector<int64_t>{s[2], s[3]};
      o["kernel"].SetStyle(YAML::EmitterStyle::Flow);
    } else if (t == "Concat") {
      if (n.input_size() < 2 || n.input_size() > 8)
        fail(name, fmt::format("a Concat of {} tensors; the graph's concat joins 2 to 8", n.input_size()));
      int64_t axis = int_attribute(n, "axis", 0);
      const int64_t rank = int64_t(shape(out).size());
      if (axis < -rank || axis >= rank) fail(name, fmt::format("axis {} of a {}-D tensor", axis, rank));
      if (axis < 0) axis += rank;
      if (images_.count(out)) axis = axis == 1 ? 3 : axis >= 2 ? axis - 1 : axis;  // NCHW -> NHWC
      YAML::Node o = op(name, "concat", {n.input().begin(), n.input().end()}, out);
      o["axis"] = axis;
    } else if (t == "Gather") {
      if (!weights_.count(n.input(0)) || shape(n.input(0)).size() != 2)
        fail(name, "a gather is modelled from a 2-D table among the initializers (an embedding) only");
      op(name, "embedding", {n.input(0), n.input(1)}, out);
    } else if (t == "RMSNormalization") {  // fused by fuse()
      op(name, "rmsnorm", {n.input().begin(), n.input().end()}, out);
    } else if (t == "Clip") {  // ReLU6 and its kin: a max and a min on the vector unit
      std::optional<double> lo, hi;
      if (const onnx::AttributeProto* a = attribute(n, "min")) lo = a->f();  // opset < 11
      if (const onnx::AttributeProto* a = attribute(n, "max")) hi = a->f();
      for (int k : {1, 2}) {
        if (n.input_size() <= k || n.input(k).empty()) continue;
        const auto c = consts_.find(n.input(k));
        if (c == consts_.end() || !c->second.known || c->second.v.size() != 1)
          fail(name, fmt::format("a Clip whose {} bound is not a constant scalar is not modelled", k == 1 ? "lower" : "upper"));
        (k == 1 ? lo : hi) = c->second.v[0];
      }
      if (lo && *lo == 0 && !hi) {
        op(name, "relu", {n.input(0)}, out);
      } else {
        YAML::Node o = op(name, "clip", {n.input(0)}, out);
        if (lo) o["min"] = *lo;
        if (hi) o["max"] = *hi;
      }
    } else if (t == "Where") {  // a mask laid over a tensor: one select per element, priced as an add
      std::vector<std::string> in;
      for (int k : {1, 2, 0})
        if (!weights_.count(n.input(k))) in.push_back(n.input(k));
      for (int k : {0, 1, 2})
        if (weights_.count(n.input(k))) in.push_back(n.input(k));
      if (graph_shape(in[0]).size() < graph_shape(in[1]).size()) std::swap(in[0], in[1]);
      op(name, "add", {in[0], in[1]}, out);
    } else if (t == "Split" || t == "Slice") {  // parts of a tensor: views of their source
      const Shape& whole = shape(n.input(0));
      const int64_t rank = int64_t(whole.size());
      for (const std::string& o : n.output())
        if (!o.empty() && shape(o).size() != whole.size())
          fail(name, fmt::format("{} has {} dimensions, its part {} {}", text::quoted(n.input(0)), rank,
                                 text::quoted(o), shape(o).size()));
      auto image_axis = [&](int64_t axis) {  // NCHW -> NHWC
        return images_.count(n.input(0)) ? (axis == 1 ? 3 : axis >= 2 ? axis - 1 : axis) : axis;
      };
      auto part = [&](const std::string& part_name, const std::string& to, int64_t axis, int64_t start) {
        YAML::Node o = op(part_name, "slice", {n.input(0)}, to);
        o["axis"] = image_axis(axis);
        o["start"] = start;
        o["size"] = shape(to)[size_t(axis)];
      };
      if (t == "Split") {
        int64_t axis = int_attribute(n, "axis", 0);
        if (axis < -rank || axis >= rank) fail(name, fmt::format("axis {} of a {}-D tensor", axis, rank));
        if (axis < 0) axis += rank;
        int64_t start = 0;
        for (int k = 0; k < n.output_size(); ++k) {
          part(n.output_size() == 1 ? name : fmt::format("{}.{}", name, k), n.output(k), axis, start);
          start += shape(n.output(k))[size_t(axis)];
        }
      } else {
        const Shape& piece = shape(out);
        auto ints = [&](int k) -> Shape {
          if (n.input_size() <= k || n.input(k).empty()) return {};
          const auto c = consts_.find(n.input(k));
          if (c == consts_.end() || !c->second.known) fail(name, "a Slice with computed starts, ends, axes or steps is not modelled");
          Shape v;
          for (double x : c->second.v) v.push_back(x >= 9.2e18 ? INT64_MAX : x <= -9.2e18 ? INT64_MIN : int64_t(x));
          return v;
        };
        const bool attributes = n.input_size() < 3;  // opset < 10: starts, ends and axes as attributes
        const Shape starts = attributes ? ints_attribute(n, "starts") : ints(1);
        const Shape axes = attributes ? ints_attribute(n, "axes") : ints(3), steps = attributes ? Shape{} : ints(4);
        for (int64_t st : steps)
          if (st != 1) fail(name, "a strided Slice is not modelled (steps other than 1)");
        std::vector<int64_t> cut;
        for (int64_t a = 0; a < rank; ++a)
          if (piece.at(size_t(a)) != whole[size_t(a)]) cut.push_back(a);
        if (cut.empty()) return view(name, n.input(0), out);
        if (cut.size() > 1) fail(name, "a Slice that cuts more than one axis is not modelled");
        int64_t start = 0;
        for (size_t k = 0; k < starts.size(); ++k) {
          int64_t a = axes.empty() ? int64_t(k) : axes[k];
          if (a < 0) a += rank;
          if (a != cut[0]) continue;
          const int64_t d = whole[size_t(a)];
          start = std::clamp(starts[k] < 0 ? starts[k] + d : starts[k], int64_t(0), d);
        }
        part(name, out, cut[0], start);
      }
    } else {  // Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Identity, Dropout, Cast: views
      view(name, n.input(0), out);
    }
  }

  OnnxImport emit(const onnx::GraphProto& g, int model_nodes) {
    YAML::Emitter e;
    e << YAML::Comment(fmt::format("imported by cstsim import onnx from {} ({} nodes)", path_, model_nodes));
    e << YAML::BeginMap;
    // The graph's own name, unless it is an exporter's stock one (torch: torch_jit, main_graph): then
    // the model file's, so that runs and sweep rows of several imported models tell them apart.
    const bool stock = g.name().empty() || g.name() == "torch_jit" || g.name() == "main_graph" ||
                       g.name() == "torch-jit-export";
    e << YAML::Key << "name" << YAML::Value << (stock ? std::filesystem::path(path_).stem().string() : g.name());
    e << YAML::Key << "source" << YAML::Value << fmt::format("ONNX model {}", path_);
    e << YAML::Key << "tensors" << YAML::Value << YAML::BeginSeq;
    int tensors = 0;
    auto tensor = [&](const std::string& t, const std::string& role) {
      std::string dtype = tensors_[t].dtype;
      if (dtype == "fp32" || dtype == "fp16" || dtype == "bf16") {
        const std::string& given = role == "weight" ? options_.weight_dtype : options_.activation_dtype;
        if (!given.empty()) dtype = given;
        else if (!options_.dtype.empty()) dtype = options_.dtype;
      }
      if (dtype.empty()) fail(t, "its element type has no cstsim dtype (int4..fp32)");
      e << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << t << YAML::Key << "shape"
        << YAML::Value << YAML::Flow << graph_shape(t) << YAML::Key << "dtype" << YAML::Value << dtype << YAML::Key
        << "role" << YAML::Value << role << YAML::EndMap;
      ++tensors;
    };
    for (const std::string& t : inputs_) tensor(t, "activation");
    std::vector<std::string> used;
    for (const YAML::Node& o : ops_)
      for (const YAML::Node& t : o["in"]) used.push_back(t.as<std::string>());
    std::set<std::string> listed;
    for (const std::string& t : used)
      if (weights_.count(t) && listed.insert(t).second) tensor(t, "weight");
    e << YAML::EndSeq;
    e << YAML::Key << "ops" << YAML::Value << YAML::BeginSeq;
    for (const YAML::Node& o : ops_) e << YAML::Flow << o;
    e << YAML::EndSeq << YAML::EndMap;
    OnnxImport result{std::string(e.c_str()) + "\n", model_nodes, int(ops_.size()), tensors, {}};
    // Where each tensor and op landed in the text, for errors the graph reader finds in it.
    const YAML::Node written = YAML::Load(result.yaml);
    for (const YAML::Node& t : written["tensors"])
      result.origin[t.Mark().line + 1] = "tensor " + text::quoted(t["name"].Scalar());
    size_t k = 0;
    for (const YAML::Node& o : written["ops"]) result.origin[o.Mark().line + 1] = op_nodes_.at(k++);
    return result;
  }

  std::string path_;
  const OnnxImportOptions& options_;
  const std::map<std::string, int64_t>& dims_;
  int model_nodes_ = 0;
  std::map<std::string, onnx_fold::Value> consts_;  // constants: initializers, Constant nodes, folded nodes
  int64_t computed_ = 0;                            // elements folding has computed (kFoldBudget)
  std::map<std::string, Tensor> tensors_;
  std::set<std::string> weights_, images_, conv_weights_, unbound_, used_;
  std::vector<std::string> inputs_;
  std::vector<YAML::Node> ops_;
  std::vector<std::string> op_nodes_;  // the ONNX node each of ops_ converts
  std::string node_;                   // the node convert() is at
};

}  // namespace

OnnxImport import_onnx(const std::string& path, const OnnxImportOptions& options) {
  return Importer(path, options).run();
}

}  // namespace cstsim
