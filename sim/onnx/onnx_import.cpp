#include "sim/onnx/onnx_import.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <csignal>
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
// child process, which sends the inferred model back through a pipe; a child that dies, or takes
// over 10 s, makes the model an input error instead of taking cstsim down.
void infer_shapes_apart(onnx::ModelProto& model, const std::string& path) {
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
    ::alarm(10);
    std::string reply;
    try {
      onnx::shape_inference::InferShapes(model);
      reply = "M" + model.SerializeAsString();
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
  if (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0) || reply.empty())
    throw InputError(path, 0, "shape inference",
                     WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM
                         ? "ONNX's shape inference ran over 10 s on this model"
                         : "ONNX's shape inference crashed on this model (a malformed model it does not check)");
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
    case onnx::TensorProto::UINT8: return "int8";
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
    {"Dropout", 1}, {"Concat", 1}};

const std::set<std::string> kElementwise = {"Add", "Sub", "Mul", "Div", "Relu", "Gelu", "Sigmoid", "Identity", "Dropout"};

class Importer {
 public:
  Importer(std::string path, const std::map<std::string, int64_t>& dims) : path_(std::move(path)), dims_(dims) {}

  OnnxImport run() {
    onnx::ModelProto model;
    check_input_file(path_);
    std::ifstream in(path_, std::ios::binary);
    if (!in) throw InputError(path_, 0, "", "cannot read the file");
    if (!model.ParseFromIstream(&in) || !model.has_graph())
      throw InputError(path_, 0, "", "not an ONNX model (no graph in its protobuf)");
    check_arity(model.graph());
    infer_shapes_apart(model, path_);
    const onnx::GraphProto& g = model.graph();
    for (const onnx::TensorProto& t : g.initializer()) {
      Tensor& x = tensors_[t.name()];
      x.shape.assign(t.dims().begin(), t.dims().end());
      x.dtype = dtype_of(t.data_type());
      x.known = true;
      weights_.insert(t.name());
    }
    for (const auto* list : {&g.input(), &g.value_info(), &g.output()})
      for (const onnx::ValueInfoProto& v : *list) learn(v);
    for (const onnx::NodeProto& n : g.node())
      if (n.op_type() == "Constant") constant(n);
    find_images(g);
    check_supported(g);
    // Graph inputs that are not initializers: activations.
    for (const onnx::ValueInfoProto& v : g.input())
      if (!weights_.count(v.name())) inputs_.push_back(v.name());
    int index = 0;
    for (const onnx::NodeProto& n : g.node()) convert(n, index++);
    return emit(g);
  }

 private:
  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    throw InputError(path_, 0, key, message);
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
    x.shape = s;
    x.known = true;
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

  void constant(const onnx::NodeProto& n) {
    const onnx::AttributeProto* a = attribute(n, "value");
    if (!a || !a->has_t()) return;
    Tensor& x = tensors_[n.output(0)];
    x.shape.assign(a->t().dims().begin(), a->t().dims().end());
    x.dtype = dtype_of(a->t().data_type());
    x.known = true;
    weights_.insert(n.output(0));
  }

  // 4-D tensors in or out of a convolution or pool, and those joined to one by elementwise ops.
  void find_images(const onnx::GraphProto& g) {
    auto four_d = [&](const std::string& t) { return tensors_.count(t) && tensors_[t].shape.size() == 4; };
    for (bool grew = true; grew;) {
      grew = false;
      for (const onnx::NodeProto& n : g.node()) {
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

  void check_supported(const onnx::GraphProto& g) {
    std::vector<std::string> missing;
    for (const onnx::NodeProto& n : g.node())
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
    if (images_.count(t)) return {s[0], s[2], s[3], s[1]};
    if (conv_weights_.count(t)) return {s[2], s[3], s[1], s[0]};
    return s;
  }

  YAML::Node op(const std::string& name, const std::string& kind, std::vector<std::string> in, const std::string& out) {
    YAML::Node o;
    o["name"] = name;
    o["op"] = kind;
    for (const std::string& t : in) o["in"].push_back(t);
    o["out"] = out;
    o["in"].SetStyle(YAML::EmitterStyle::Flow);
    ops_.push_back(o);
    return ops_.back();
  }
  void view(const std::string& name, const std::string& in, const std::string& out) {
    YAML::Node o = op(name, "reshape", {in}, out);
    for (int64_t d : graph_shape(out)) o["shape"].push_back(d);
    o["shape"].SetStyle(YAML::EmitterStyle::Flow);
  }

  void convert(const onnx::NodeProto& n, int index) {
    const std::string& t = n.op_type();
    const std::string name = n.name().empty() ? fmt::format("{}_{}", t, index) : n.name();
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
      op(name, "matmul", {n.input(0), n.input(1)}, out);
    } else if (t == "Gemm") {
      YAML::Node o = with_bias("matmul", {n.input(0), n.input(1)}, n.input_size() > 2 ? n.input(2) : "");
      if (int_attribute(n, "transA", 0)) o["transpose_a"] = true;
      if (int_attribute(n, "transB", 0)) o["transpose_b"] = true;
    } else if (t == "Conv") {
      conv_weights_.insert(n.input(1));
      const Shape pads = ints_attribute(n, "pads"), strides = ints_attribute(n, "strides"),
                  dilations = ints_attribute(n, "dilations");
      if (pads.size() == 4 && (pads[0] != pads[2] || pads[1] != pads[3]))
        fail(name, fmt::format("asymmetric padding {} is not modelled", fmt::join(pads, ", ")));
      YAML::Node o = with_bias("conv2d", {n.input(0), n.input(1)}, n.input_size() > 2 ? n.input(2) : "");
      if (!strides.empty()) o["stride"] = strides[0];
      if (pads.size() == 4) o["padding"] = pads[0] == pads[1] ? YAML::Node(pads[0]) : YAML::Node(std::vector<int64_t>{pads[0], pads[1]});
      if (!dilations.empty()) o["dilation"] = dilations[0];
      if (int_attribute(n, "group", 1) > 1) o["groups"] = int_attribute(n, "group", 1);
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
      YAML::Node o = op(name, t == "MaxPool" ? "maxpool" : "avgpool", {n.input(0)}, out);
      o["kernel"] = k.size() == 2 && k[0] == k[1] ? YAML::Node(k[0]) : YAML::Node(k);
      if (!s.empty()) o["stride"] = s[0];
      if (p.size() == 4) o["padding"] = p[0];
    } else if (t == "GlobalAveragePool") {
      const Shape s = shape(n.input(0));  // NCHW
      YAML::Node o = op(name, "avgpool", {n.input(0)}, out);
      o["kernel"] = std::vector<int64_t>{s[2], s[3]};
      o["kernel"].SetStyle(YAML::EmitterStyle::Flow);
    } else if (t == "Concat") {
      int64_t axis = int_attribute(n, "axis", 0);
      const int64_t rank = int64_t(shape(out).size());
      if (axis < 0) axis += rank;
      if (images_.count(out)) axis = axis == 1 ? 3 : axis >= 2 ? axis - 1 : axis;  // NCHW -> NHWC
      YAML::Node o = op(name, "concat", {n.input().begin(), n.input().end()}, out);
      o["axis"] = axis;
    } else if (t == "Gather") {
      if (!weights_.count(n.input(0)) || shape(n.input(0)).size() != 2)
        fail(name, "a gather is modelled from a 2-D table among the initializers (an embedding) only");
      op(name, "embedding", {n.input(0), n.input(1)}, out);
    } else {  // Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Identity, Dropout: views
      view(name, n.input(0), out);
    }
  }

  OnnxImport emit(const onnx::GraphProto& g) {
    YAML::Emitter e;
    e << YAML::Comment(fmt::format("imported by cstsim import onnx from {} ({} nodes)", path_, g.node_size()));
    e << YAML::BeginMap;
    e << YAML::Key << "name" << YAML::Value << (g.name().empty() ? std::string("onnx-model") : g.name());
    e << YAML::Key << "source" << YAML::Value << fmt::format("ONNX model {}", path_);
    e << YAML::Key << "tensors" << YAML::Value << YAML::BeginSeq;
    int tensors = 0;
    auto tensor = [&](const std::string& t, const std::string& role) {
      const std::string dtype = tensors_[t].dtype;
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
    return {std::string(e.c_str()) + "\n", g.node_size(), int(ops_.size()), tensors};
  }

  std::string path_;
  const std::map<std::string, int64_t>& dims_;
  std::map<std::string, Tensor> tensors_;
  std::set<std::string> weights_, images_, conv_weights_, unbound_, used_;
  std::vector<std::string> inputs_;
  std::vector<YAML::Node> ops_;
};

}  // namespace

OnnxImport import_onnx(const std::string& path, const std::map<std::string, int64_t>& dims) {
  return Importer(path, dims).run();
}

}  // namespace cstsim
