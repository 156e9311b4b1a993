#include "sim/workload/graph.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <climits>
#include <functional>
#include <map>
#include <optional>
#include <queue>
#include <set>

#include "core/input_error.h"
#include "core/num_type.h"
#include "core/text.h"
#include "core/yaml_file.h"

namespace cstsim {

int64_t GraphTensor::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int dtype_bits(const std::string& dtype) {
  const std::optional<NumType> t = num_type_named(dtype);
  return t && on_chip(*t) ? bits_of(*t) : 0;
}

namespace {

using Shape = std::vector<int64_t>;

std::string unknown_dtype(const std::string& dtype) {
  return fmt::format("unknown dtype {} (expected one of: {}, or fp8 for fp8_e4m3)", text::quoted(dtype),
                     fmt::join(num_type_names(), ", "));
}

std::string shape_text(const Shape& s) { return fmt::format("[{}]", fmt::join(s, ", ")); }

// One op as written: its kind, tensors and attributes (checked against the kind's list).
struct OpNode {
  std::string name, kind, out;
  std::vector<std::string> in;
  std::map<std::string, YAML::Node> attrs;
  std::map<std::string, int> attr_lines;
  int line = 0, in_line = 0;
  // `density`: the fraction of its output's values that are nonzero (a ReLU's sparsity); unset:
  // a view's is its source's, anything else's 1.
  std::optional<double> out_density;
};

// Every kind: how many inputs it takes (min, max) and the attributes it accepts.
struct OpKind {
  size_t min_in, max_in;
  std::vector<std::string> attrs;
  bool gemm;  // runs on the array (the rest are vector ops)
};
const std::map<std::string, OpKind>& op_kinds() {
  static const std::map<std::string, OpKind> kinds = {
      {"matmul", {2, 2, {"transpose_a", "transpose_b", "dtype"}, true}},
      {"conv2d", {2, 2, {"stride", "padding", "dilation", "groups", "dtype"}, true}},
      {"attention", {3, 3, {"heads", "kv_heads", "causal", "tiling", "dtype"}, true}},
      {"add", {2, 2, {"dtype"}, false}},
      {"mul", {2, 2, {"dtype"}, false}},
      {"rmsnorm", {1, 2, {"dtype"}, false}},
      {"layernorm", {1, 3, {"dtype"}, false}},
      {"softmax", {1, 1, {"dtype"}, false}},
      {"rope", {1, 2, {"dtype"}, false}},
      {"gelu", {1, 1, {"dtype"}, false}},
      {"silu", {1, 1, {"dtype"}, false}},
      {"relu", {1, 1, {"dtype"}, false}},
      {"clip", {1, 1, {"min", "max", "dtype"}, false}},
      {"sigmoid", {1, 1, {"dtype"}, false}},
      {"quantize", {1, 2, {"dtype"}, false}},
      {"dequantize", {1, 2, {"dtype"}, false}},
      {"embedding", {2, 2, {"dtype"}, false}},
      {"kv_append", {2, 2, {}, false}},
      {"reshape", {1, 1, {"shape"}, false}},
      {"slice", {1, 1, {"axis", "start", "size"}, false}},
      {"concat", {2, 8, {"axis"}, false}},
      {"maxpool", {1, 1, {"kernel", "stride", "padding"}, false}},
      {"avgpool", {1, 1, {"kernel", "stride", "padding"}, false}},
  };
  return kinds;
}

std::string kind_names() {
  std::vector<std::string> names;
  for (const auto& [k, v] : op_kinds()) names.push_back(k);
  return fmt::format("{}", fmt::join(names, ", "));
}

class GraphReader {
 public:
  GraphReader(std::string path, Workload& w) : path_(std::move(path)), w_(w) {}

  void read(const YAML::Node& tensors, int tensors_line, const YAML::Node& ops, int ops_line) {
    if (tensors && !tensors.IsSequence())
      throw InputError(path_, tensors_line, "tensors", fmt::format("must be a list, got {}", yaml_kind(tensors)));
    if (!ops.IsSequence() || ops.size() == 0)
      throw InputError(path_, ops_line, "ops",
                       ops.IsSequence() ? "no ops" : fmt::format("must be a list, got {}", yaml_kind(ops)));
    if (tensors)
      for (const YAML::Node& t : tensors) declare(read_tensor(t));
    std::vector<OpNode> nodes;
    for (const YAML::Node& o : ops) nodes.push_back(read_op(o));
    for (const OpNode& n : in_dependency_order(nodes)) lower(n);
    if (w_.layers.empty() && w_.vector_steps.empty() && w_.flash.empty())
      throw InputError(path_, ops_line, "ops", "only views: nothing to run");
  }

 private:
  [[noreturn]] void fail(int line, const std::string& key, const std::string& message) const {
    throw InputError(path_, line, key, message);
  }

  std::string name_of(const YAML::Node& v, int line, const std::string& key) const {
    if (!v.IsScalar() || text::trim(v.Scalar()).empty()) fail(line, key, "must be a non-empty name");
    if (text::control_char(v.Scalar()))  // every table holds a name on one line
      fail(line, key, fmt::format("{} holds a control character (a line break or tab)", text::quoted(v.Scalar())));
    return std::string(text::trim(v.Scalar()));
  }

  int64_t positive(const YAML::Node& v, int line, const std::string& key, int64_t min = 1) const {
    const auto n = v.IsScalar() ? text::parse_int(v.Scalar()) : std::nullopt;
    if (!n || *n < min || *n > INT_MAX)
      fail(line, key, fmt::format("must be an integer from {} to {}, got {}", min, INT_MAX,
                                  v.IsScalar() ? text::quoted(v.Scalar()) : yaml_kind(v)));
    return *n;
  }

  Shape shape_of(const YAML::Node& v, int line, const std::string& key) const {
    if (!v.IsSequence() || v.size() == 0) fail(line, key, fmt::format("must be a list of sizes, got {}", yaml_kind(v)));
    Shape s;
    for (const YAML::Node& d : v) s.push_back(positive(d, line_of(d), key));
    int64_t n = 1;
    for (int64_t d : s)
      if (__builtin_mul_overflow(n, d, &n) || n > kMaxGraphTensorElements)
        fail(line, key, fmt::format("{} has too many elements", shape_text(s)));
    return s;
  }

  // The keys of a map node, each once; unknown ones rejected with the list of known ones.
  std::map<std::string, std::pair<YAML::Node, int>> keys_of(const YAML::Node& node, const std::string& what,
                                                             const std::vector<std::string>& known) const {
    std::map<std::string, std::pair<YAML::Node, int>> out;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string key = it->first.Scalar();
      const int line = line_of(it->first);
      bool ok = false;
      for (const std::string& k : known) ok = ok || k == key;
      if (!ok) fail(line, key, fmt::format("unknown key of {} (expected one of: {})", what, fmt::join(known, ", ")));
      if (!out.emplace(key, std::make_pair(it->second, line)).second) fail(line, key, "duplicate key");
    }
    return out;
  }

  GraphTensor read_tensor(const YAML::Node& node) {
    const int line = line_of(node);
    if (!node.IsMap()) fail(line, "tensors", fmt::format("each tensor must be a map, got {}", yaml_kind(node)));
    auto k = keys_of(node, "a tensor", {"name", "shape", "dtype", "role", "density"});
    for (const char* req : {"name", "shape", "dtype", "role"})
      if (!k.count(req)) fail(line, req, "required tensor key is missing");
    GraphTensor t;
    t.line = line;
    t.name = name_of(k["name"].first, k["name"].second, "name");
    t.shape = shape_of(k["shape"].first, k["shape"].second, "shape");
    t.dtype = name_of(k["dtype"].first, k["dtype"].second, "dtype");
    t.bits = dtype_bits(t.dtype);
    if (t.bits == 0) fail(k["dtype"].second, "dtype", unknown_dtype(t.dtype));
    t.role = name_of(k["role"].first, k["role"].second, "role");
    if (t.role != "weight" && t.role != "activation" && t.role != "kv_cache")
      fail(k["role"].second, "role",
           fmt::format("must be weight, activation or kv_cache, got {}", text::quoted(t.role)));
    if (k.count("density")) t.density = density_of(path_, k["density"].second, "density", k["density"].first);
    return t;
  }

  void declare(GraphTensor t) {
    if (auto it = tensors_.find(t.name); it != tensors_.end())
      fail(t.line, "name", fmt::format("tensor {} is already defined (line {})", text::quoted(t.name), it->second.line));
    std::string name = t.name;
    tensors_.emplace(std::move(name), std::move(t));
  }

  OpNode read_op(const YAML::Node& node) {
    OpNode n;
    n.line = line_of(node);
    if (!node.IsMap()) fail(n.line, "ops", fmt::format("each op must be a map with name, op, in, out; got {}", yaml_kind(node)));
    std::vector<std::string> known = {"name", "op", "in", "out", "density"};
    const YAML::Node kind_node = node["op"];
    if (!kind_node) fail(n.line, "op", fmt::format("required op key is missing (one of: {})", kind_names()));
    n.kind = name_of(kind_node, line_of(kind_node), "op");
    auto kind = op_kinds().find(n.kind);
    if (kind == op_kinds().end())
      fail(line_of(kind_node), "op", fmt::format("unknown op {} (expected one of: {})", text::quoted(n.kind), kind_names()));
    known.insert(known.end(), kind->second.attrs.begin(), kind->second.attrs.end());
    auto k = keys_of(node, "a " + n.kind + " op", known);
    for (const char* req : {"name", "in", "out"})
      if (!k.count(req)) fail(n.line, req, "required op key is missing");
    if (k.count("density")) n.out_density = density_of(path_, k["density"].second, "density", k["density"].first);
    n.name = name_of(k["name"].first, k["name"].second, "name");
    if (!op_names_.emplace(n.name, n.line).second)
      fail(k["name"].second, "name", fmt::format("duplicate op name {} (first at line {})", text::quoted(n.name), op_names_[n.name]));
    n.out = name_of(k["out"].first, k["out"].second, "out");
    const YAML::Node& in = k["in"].first;
    n.in_line = k["in"].second;
    if (in.IsScalar()) n.in.push_back(name_of(in, n.in_line, "in"));
    else if (in.IsSequence())
      for (const YAML::Node& t : in) n.in.push_back(name_of(t, line_of(t), "in"));
    else fail(n.in_line, "in", fmt::format("must be a tensor name or a list of them, got {}", yaml_kind(in)));
    if (n.in.size() < kind->second.min_in || n.in.size() > kind->second.max_in)
      fail(n.in_line, "in",
           fmt::format("{} takes {} input tensor(s), got {}", n.kind,
                       kind->second.min_in == kind->second.max_in
                           ? std::to_string(kind->second.min_in)
                           : fmt::format("{} to {}", kind->second.min_in, kind->second.max_in),
                       n.in.size()));
    for (const std::string& a : kind->second.attrs)
      if (k.count(a)) {
        n.attrs[a] = k[a].first;
        n.attr_lines[a] = k[a].second;
      }
    return n;
  }

  // The ops in an order where every tensor is written before it is read: the file's order
  // wherever the dependencies allow it.
  std::vector<OpNode> in_dependency_order(const std::vector<OpNode>& nodes) {
    std::map<std::string, size_t> producer;
    for (size_t i = 0; i < nodes.size(); ++i) {
      const OpNode& n = nodes[i];
      if (auto t = tensors_.find(n.out); t != tensors_.end())
        fail(n.line, "out", fmt::format("op {} writes {}, a tensor declared at line {} (an op's output is a new tensor)",
                                        text::quoted(n.name), text::quoted(n.out), t->second.line));
      if (auto [it, fresh] = producer.emplace(n.out, i); !fresh)
        fail(n.line, "out", fmt::format("op {} writes {}, which op {} writes too", text::quoted(n.name),
                                        text::quoted(n.out), text::quoted(nodes[it->second].name)));
    }
    std::vector<std::vector<size_t>> readers(nodes.size());
    std::vector<int> waiting(nodes.size(), 0);
    for (size_t i = 0; i < nodes.size(); ++i)
      for (const std::string& t : nodes[i].in) {
        if (auto p = producer.find(t); p != producer.end()) {
          readers[p->second].push_back(i);
          ++waiting[i];
        } else if (!tensors_.count(t)) {
          fail(nodes[i].in_line, "in",
               fmt::format("op {} reads {}: no tensor of that name is declared or written by an op",
                           text::quoted(nodes[i].name), text::quoted(t)));
        }
      }
    std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
    for (size_t i = 0; i < nodes.size(); ++i)
      if (waiting[i] == 0) ready.push(i);
    std::vector<OpNode> order;
    while (!ready.empty()) {
      const size_t i = ready.top();
      ready.pop();
      order.push_back(nodes[i]);
      for (size_t r : readers[i])
        if (--waiting[r] == 0) ready.push(r);
    }
    if (order.size() < nodes.size())
      for (size_t i = 0; i < nodes.size(); ++i)
        if (waiting[i] > 0)
          fail(nodes[i].line, "in", fmt::format("op {} depends on its own output (a cycle through its inputs)",
                                                text::quoted(nodes[i].name)));
    return order;
  }

  // Attributes.
  int64_t int_attr(const OpNode& n, const std::string& key, int64_t fallback, int64_t min = 1) const {
    auto it = n.attrs.find(key);
    return it == n.attrs.end() ? fallback : positive(it->second, n.attr_lines.at(key), key, min);
  }
  // An int, or a pair [h, w] with both equal (the lowering takes one value per dimension pair).
  std::pair<int64_t, int64_t> pair_attr(const OpNode& n, const std::string& key, int64_t fallback, int64_t min) const {
    auto it = n.attrs.find(key);
    if (it == n.attrs.end()) return {fallback, fallback};
    const int line = n.attr_lines.at(key);
    if (it->second.IsSequence()) {
      if (it->second.size() != 2) fail(line, key, "must be one integer or a pair [height, width]");
      return {positive(it->second[0], line, key, min), positive(it->second[1], line, key, min)};
    }
    const int64_t v = positive(it->second, line, key, min);
    return {v, v};
  }
  bool bool_attr(const OpNode& n, const std::string& key) const {
    auto it = n.attrs.find(key);
    if (it == n.attrs.end()) return false;
    const std::string v = it->second.IsScalar() ? it->second.Scalar() : "";
    if (v != "true" && v != "false") fail(n.attr_lines.at(key), key, fmt::format("must be true or false, got {}", text::quoted(v)));
    return v == "true";
  }
  std::string dtype_attr(const OpNode& n, const std::string& fallback) const {
    auto it = n.attrs.find("dtype");
    if (it == n.attrs.end()) return fallback;
    const std::string d = name_of(it->second, n.attr_lines.at("dtype"), "dtype");
    if (dtype_bits(d) == 0) fail(n.attr_lines.at("dtype"), "dtype", unknown_dtype(d));
    return d;
  }

  const GraphTensor& in(const OpNode& n, size_t k) const { return tensors_.at(n.in[k]); }

  // The layer an op's input was last written by (-1: it lies in HBM as the run starts).
  int layer_of(const std::string& tensor) const {
    auto it = written_by_.find(tensor);
    return it == written_by_.end() ? -1 : it->second;
  }
  // The tensor whose data a tensor is (a view, or the output of an op no model runs yet, is its
  // input's data; a cache after an append is the cache).
  std::string data_of(const std::string& tensor) const {
    auto it = alias_.find(tensor);
    return it == alias_.end() ? tensor : it->second;
  }

  // Declares n's output; `layer`: the layer that writes it, else it is the data of `same_data`.
  void output(const OpNode& n, Shape shape, const std::string& dtype, const std::string& role, int layer,
              const std::string& same_data = "") {
    if (layer < 0 && !same_data.empty()) alias_[n.out] = data_of(same_data);
    if (layer >= 0 && !same_data.empty()) w_.views[n.out] = same_data;
    GraphTensor t;
    t.name = n.out;
    t.shape = std::move(shape);
    t.dtype = dtype;
    t.bits = dtype_bits(dtype);
    t.role = role;
    t.line = n.line;
    t.density = n.out_density.value_or(layer < 0 && !same_data.empty() ? tensors_.at(same_data).density : 1.0);
    declare(t);
    if (layer >= 0) written_by_[n.out] = layer;
  }

  void shape_error(const OpNode& n, const std::string& what) const {
    fail(n.in_line, "in", fmt::format("{} {}: {}", n.kind, text::quoted(n.name), what));
  }

  // Appends a layer reading tensors a and b and writing c: a and b where an earlier layer wrote
  // them, or where the first layer that read them has them.
  int add_layer(const OpNode& n, Layer l, const std::string& a, const std::string& b, const std::string& c) {
    const int index = int(w_.layers.size());
    l.source_line = n.line;
    l.input_layer = layer_of(a);
    l.weight_layer = layer_of(b);
    l.tensors = {data_of(a), data_of(b), c};  // the data they are: a view is its source's
    l.dtype_bits = tensors_.at(a).bits;
    l.b_dtype_bits = tensors_.at(b).bits;
    l.dtypes = {tensors_.at(a).dtype, tensors_.at(b).dtype};
    l.input_density = tensors_.at(a).density;
    for (int x = 0; x < 2; ++x) {
      const std::string& t = x == 0 ? a : b;
      if (layer_of(t) >= 0) continue;
      auto [it, fresh] = read_first_by_.emplace(data_of(t), Layer::SameAs{index, x});
      if (!fresh) l.same_as[size_t(x)] = it->second;
    }
    for (const Layer& other : w_.layers)
      if (other.name == l.name) fail(n.line, "name", fmt::format("layer name {} is taken", text::quoted(l.name)));
    w_.layers.push_back(std::move(l));
    return index;
  }

  // The op's unfused steps, after the layers lowered so far.
  void add_steps(const VectorOpIo& io) {
    for (VectorStep& step : vector_steps(io)) {
      step.before_layer = int(w_.layers.size());
      step.order = sequence_++;
      w_.vector_steps.push_back(std::move(step));
    }
  }

  void lower(const OpNode& n) {
    if (n.kind == "matmul") return lower_matmul(n);
    if (n.kind == "conv2d") return lower_conv2d(n);
    if (n.kind == "attention") return lower_attention(n);
    lower_vector(n);
  }

  // a [..., M, K] x b [..., K, N] (transposes swap the last two). A 2-D b (a weight) is shared by
  // every row of a: a's leading dimensions join M. Otherwise b's leading dimensions equal a's (or
  // are all 1: broadcast) and each matrix product is a repeat.
  void lower_matmul(const OpNode& n) {
    const GraphTensor &a = in(n, 0), &b = in(n, 1);
    if (a.shape.size() < 2 || b.shape.size() < 2) shape_error(n, "both inputs need at least 2 dimensions");
    const bool ta = bool_attr(n, "transpose_a"), tb = bool_attr(n, "transpose_b");
    const size_t ra = a.shape.size(), rb = b.shape.size();
    const int64_t M = a.shape[ra - (ta ? 1 : 2)], K = a.shape[ra - (ta ? 2 : 1)];
    const int64_t Kb = b.shape[rb - (tb ? 1 : 2)], N = b.shape[rb - (tb ? 2 : 1)];
    if (K != Kb)
      shape_error(n, fmt::format("{} {} and {} {} do not agree on K ({} vs {})", a.name, shape_text(a.shape), b.name,
                                 shape_text(b.shape), K, Kb));
    const Shape batch(a.shape.begin(), a.shape.end() - 2), b_batch(b.shape.begin(), b.shape.end() - 2);
    int64_t batches = 1, b_batches = 1;
    for (int64_t d : batch) batches *= d;
    for (int64_t d : b_batch) b_batches *= d;
    Layer l = Layer::gemm(n.name, M, N, K);
    if (b_batch.empty()) {
      l.M = batches * M;
    } else {
      if (b_batches != 1 && b_batch != batch)
        shape_error(n, fmt::format("batch dimensions {} and {} differ", shape_text(batch), shape_text(b_batch)));
      l.repeats = batches;
      l.batch = batch.empty() ? 1 : batch.front();
      if (b_batches == 1) l.pieces[1].cycle = 1;  // one b for every product
    }
    Shape out = batch;
    out.push_back(M);
    out.push_back(N);
    const int layer = add_layer(n, l, a.name, b.name, n.out);
    output(n, out, dtype_attr(n, a.dtype), "activation", layer);
  }

  // x [N, H, W, C] (NHWC) * w [Fh, Fw, C / groups, F]: per image and group, a GEMM of
  // (Ho*Wo) x (F / groups) x (Fh*Fw*C / groups) on the ifmap with its zero border. Images and
  // groups are repeats; images share their group's filters.
  void lower_conv2d(const OpNode& n) {
    const GraphTensor &x = in(n, 0), &wt = in(n, 1);
    if (x.shape.size() != 4) shape_error(n, fmt::format("{} must be [N, H, W, C], got {}", x.name, shape_text(x.shape)));
    if (wt.shape.size() != 4)
      shape_error(n, fmt::format("{} must be [Fh, Fw, C / groups, F], got {}", wt.name, shape_text(wt.shape)));
    const int64_t images = x.shape[0], H = x.shape[1], W = x.shape[2], C = x.shape[3];
    const int64_t groups = int_attr(n, "groups", 1);
    const auto [sh, sw] = pair_attr(n, "stride", 1, 1);
    const auto [ph, pw] = pair_attr(n, "padding", 0, 0);
    const int64_t dilation = int_attr(n, "dilation", 1);
    if (sh != sw) fail(n.attr_lines.at("stride"), "stride", "only equal strides along height and width are modelled");
    if (C % groups != 0 || wt.shape[3] % groups != 0)
      fail(n.attr_lines.at("groups"), "groups",
           fmt::format("{} groups do not divide {} channels and {} filters", groups, C, wt.shape[3]));
    if (wt.shape[2] != C / groups)
      shape_error(n, fmt::format("{} {} has {} channels per filter; {} channels in {} groups need {}", wt.name,
                                 shape_text(wt.shape), wt.shape[2], C, groups, C / groups));
    ConvShape c{H + 2 * ph, W + 2 * pw, wt.shape[0], wt.shape[1], C / groups, wt.shape[3] / groups, sh};
    c.dilation = dilation;
    c.scalesim_rounding = false;
    if (c.span_h() > c.ifmap_h || c.span_w() > c.ifmap_w)
      shape_error(n, fmt::format("a {}x{} window (dilation {}) is larger than the padded {}x{} input", c.span_h(),
                                 c.span_w(), dilation, c.ifmap_h, c.ifmap_w));
    Layer l = lower_conv(n.name, c);
    l.repeats = images * groups;
    l.batch = images;
    l.pieces[1].cycle = groups;  // repeat r = image * groups + group uses filters of its group
    const int layer = add_layer(n, l, x.name, wt.name, n.out);
    output(n, {images, c.out_h(), c.out_w(), wt.shape[3]}, dtype_attr(n, x.dtype), "activation", layer);
  }

  // q [B, Sq, heads*d], k and v [B, Skv, kv_heads*d]. Materialized: per batch and head, scores
  // = q_h k_h^T (Sq x Skv x d), softmax (a vector op), then context = P_h v_h (Sq x d x Skv);
  // the scores go to HBM and back. Heads of one KV head read the same K and V (GQA).
  void lower_attention(const OpNode& n) {
    const GraphTensor &q = in(n, 0), &k = in(n, 1), &v = in(n, 2);
    for (const GraphTensor* t : {&q, &k, &v})
      if (t->shape.size() != 3)
        shape_error(n, fmt::format("{} must be [batch, sequence, heads x head_dim], got {}", t->name, shape_text(t->shape)));
    if (!n.attrs.count("heads")) fail(n.line, "heads", "required for attention: the number of query heads");
    const int64_t heads = int_attr(n, "heads", 1), kv_heads = int_attr(n, "kv_heads", heads);
    const int heads_line = n.attr_lines.at("heads");
    if (q.shape[2] % heads != 0) fail(heads_line, "heads", fmt::format("{} heads do not divide {}'s {} features", heads, q.name, q.shape[2]));
    if (heads % kv_heads != 0)
      fail(n.attr_lines.count("kv_heads") ? n.attr_lines.at("kv_heads") : heads_line, "kv_heads",
           fmt::format("{} KV heads do not divide {} heads", kv_heads, heads));
    const int64_t B = q.shape[0], Sq = q.shape[1], d = q.shape[2] / heads, Skv = k.shape[1];
    if (k.shape != v.shape) shape_error(n, fmt::format("{} {} and {} {} differ", k.name, shape_text(k.shape), v.name, shape_text(v.shape)));
    if (k.shape[0] != B || k.shape[2] != kv_heads * d)
      shape_error(n, fmt::format("{} {} should be [{}, Skv, {}] ({} KV heads of {})", k.name, shape_text(k.shape), B,
                                 kv_heads * d, kv_heads, d));
    std::string tiling = "materialized";
    if (auto it = n.attrs.find("tiling"); it != n.attrs.end()) {
      tiling = name_of(it->second, n.attr_lines.at("tiling"), "tiling");
      if (tiling != "materialized" && tiling != "flash")
        fail(n.attr_lines.at("tiling"), "tiling", fmt::format("must be materialized or flash, got {}", text::quoted(tiling)));
    }
    const bool causal = bool_attr(n, "causal");  // the materialized kernel computes every score either way
    if (tiling == "flash") {  // one kernel: the scores stay on chip
      FlashAttention f;
      f.name = n.name;
      f.batch = B;
      f.heads = heads;
      f.kv_heads = kv_heads;
      f.Sq = Sq;
      f.Skv = Skv;
      f.d = d;
      f.causal = causal;
      const std::string dtype = dtype_attr(n, q.dtype);
      f.dtype_bits = dtype_bits(dtype);
      f.q = data_of(q.name);
      f.k = data_of(k.name);
      f.v = data_of(v.name);
      f.out = n.out;
      f.line = n.line;
      f.before_layer = int(w_.layers.size());
      f.order = sequence_++;
      for (const Layer& other : w_.layers)
        if (other.name == f.name) fail(n.line, "name", fmt::format("layer name {} is taken", text::quoted(f.name)));
      w_.flash.push_back(f);
      return output(n, {B, Sq, heads * d}, dtype, "activation", -1);
    }
    const int64_t share = heads / kv_heads;
    Layer scores = Layer::gemm(n.name + ".scores", Sq, Skv, d);
    scores.repeats = B * heads;
    scores.batch = B;
    scores.pieces[1].every = share;
    const int s = add_layer(n, scores, q.name, k.name, n.name + ".scores");
    const std::string dtype = dtype_attr(n, q.dtype);
    // The scores, scaled scores and probabilities are tensors in HBM ([B, heads, Sq, Skv]) between the
    // two GEMMs: eager attention scales the scores by 1/sqrt(d) in a kernel of its own, then runs the
    // softmax (seed 003's materialized form); vector.fusion: chain runs the two as one kernel.
    for (const char* part : {".scores", ".scaled", ".probs"}) {
      GraphTensor t;
      t.name = n.name + part;
      t.shape = {B, heads, Sq, Skv};
      t.dtype = dtype;
      t.bits = dtype_bits(dtype);
      t.role = "activation";
      t.line = n.line;
      declare(t);
    }
    written_by_[n.name + ".scores"] = s;
    VectorOpIo io;  // over each row of scores, on the vector unit
    io.rows = B * heads * Sq;
    io.cols = Skv;
    io.element_bytes = std::max(1, dtype_bits(dtype) / 8);
    io.out_row_bytes = (Skv * dtype_bits(dtype) + 7) / 8;
    io.line = n.line;
    for (const auto& [kind, from, to] : {std::array<const char*, 3>{"scale", ".scores", ".scaled"},
                                         std::array<const char*, 3>{"softmax", ".scaled", ".probs"}}) {
      io.op = n.name + "." + kind;
      io.kind = kind;
      io.in = {{n.name + from, io.out_row_bytes, 0}};
      io.out = n.name + to;
      add_steps(io);
    }
    Layer context = Layer::gemm(n.name + ".context", Sq, d, Skv);
    context.attention_scores_layer = s;
    context.repeats = B * heads;
    context.batch = B;
    context.pieces[1].every = share;
    const int c = add_layer(n, context, n.name + ".probs", v.name, n.out);
    output(n, {B, Sq, heads * d}, dtype, "activation", c);
  }

  void lower_vector(const OpNode& n) {
    const GraphTensor& x = in(n, 0);
    Shape out = x.shape;
    std::string dtype = dtype_attr(n, x.dtype), role = "activation";
    if (n.kind == "add" || n.kind == "mul") {
      const GraphTensor& y = in(n, 1);
      const bool broadcast = y.elements() == 1 || (y.shape.size() <= x.shape.size() &&
                             std::equal(y.shape.rbegin(), y.shape.rend(), x.shape.rbegin()));
      if (!broadcast) shape_error(n, fmt::format("{} {} does not broadcast to {} {}", y.name, shape_text(y.shape), x.name, shape_text(x.shape)));
    } else if (n.kind == "embedding") {  // table [V, D], ids [...]: rows gathered
      const GraphTensor& ids = in(n, 1);
      if (x.shape.size() != 2) shape_error(n, fmt::format("table {} must be [vocabulary, features], got {}", x.name, shape_text(x.shape)));
      out = ids.shape;
      out.push_back(x.shape[1]);
    } else if (n.kind == "kv_append") {  // cache [B, L, D] + new [B, S, D] -> [B, L + S, D] in place
      const GraphTensor& y = in(n, 1);
      if (x.shape.size() != 3 || y.shape.size() != 3 || x.shape[0] != y.shape[0] || x.shape[2] != y.shape[2])
        shape_error(n, fmt::format("cache {} {} and new rows {} {} must be [B, L, D] and [B, S, D]", x.name,
                                   shape_text(x.shape), y.name, shape_text(y.shape)));
      if (x.role != "kv_cache") shape_error(n, fmt::format("{} is not a kv_cache tensor", x.name));
      out[1] += y.shape[1];
      role = "kv_cache";
    } else if (n.kind == "concat") {  // along `axis` (default 0); the rest of the shapes agree
      const int64_t axis = int_attr(n, "axis", 0, 0);
      if (axis >= int64_t(out.size())) fail(n.attr_lines.at("axis"), "axis", fmt::format("{} has {} dimensions", x.name, out.size()));
      for (size_t k = 1; k < n.in.size(); ++k) {
        Shape other = in(n, k).shape;
        if (other.size() != out.size()) shape_error(n, fmt::format("{} and {} differ in rank", x.name, n.in[k]));
        out[size_t(axis)] += other[size_t(axis)];
        other[size_t(axis)] = x.shape[size_t(axis)];
        if (other != x.shape) shape_error(n, fmt::format("{} and {} differ off the axis", x.name, n.in[k]));
      }
    } else if (n.kind == "maxpool" || n.kind == "avgpool") {  // NHWC windows
      if (x.shape.size() != 4) shape_error(n, fmt::format("{} must be [N, H, W, C], got {}", x.name, shape_text(x.shape)));
      if (!n.attrs.count("kernel")) fail(n.line, "kernel", "required for a pool: the window's size");
      const auto [kh, kw] = pair_attr(n, "kernel", 1, 1);
      const auto [sh, sw] = pair_attr(n, "stride", kh, 1);
      const auto [ph, pw] = pair_attr(n, "padding", 0, 0);
      if (kh > x.shape[1] + 2 * ph || kw > x.shape[2] + 2 * pw) shape_error(n, "the window is larger than the padded input");
      out = {x.shape[0], (x.shape[1] + 2 * ph - kh) / sh + 1, (x.shape[2] + 2 * pw - kw) / sw + 1, x.shape[3]};
    } else if (n.kind == "slice") {  // a part along one axis: [start, start + size)
      for (const char* key : {"axis", "start", "size"})
        if (!n.attrs.count(key)) fail(n.line, key, "required for slice");
      const int64_t axis = int_attr(n, "axis", 0, 0), start = int_attr(n, "start", 0, 0), size = int_attr(n, "size", 1);
      if (axis >= int64_t(out.size())) fail(n.attr_lines.at("axis"), "axis", fmt::format("{} has {} dimensions", x.name, out.size()));
      if (start + size > out[size_t(axis)])
        fail(n.attr_lines.at("size"), "size",
             fmt::format("[{}, {}) is past {}'s {} along axis {}", start, start + size, x.name, out[size_t(axis)], axis));
      out[size_t(axis)] = size;
    } else if (n.kind == "clip") {
      for (const char* key : {"min", "max"})
        if (n.attrs.count(key) && (!n.attrs.at(key).IsScalar() || !text::parse_double(n.attrs.at(key).Scalar())))
          fail(n.attr_lines.at(key), key, "must be a number");
    } else if (n.kind == "reshape") {
      if (!n.attrs.count("shape")) fail(n.line, "shape", "required for reshape");
      out = shape_of(n.attrs.at("shape"), n.attr_lines.at("shape"), "shape");
      int64_t e = 1;
      for (int64_t d : out) e *= d;
      if (e != x.elements())
        fail(n.attr_lines.at("shape"), "shape", fmt::format("{} has {} elements, {} has {}", shape_text(out), e, x.name, x.elements()));
    }
    GraphTensor result;
    result.shape = out;
    result.bits = dtype_bits(dtype);
    // A view moves nothing: a reshape is its source, a slice a part of it that a reader reads.
    if (n.kind == "reshape" || n.kind == "slice") return output(n, out, dtype, role, layer_of(x.name), x.name);
    // The step's view: rows of the output's last dimension (kv_append: the new rows; pools: output pixels).
    const GraphTensor& shaped = n.kind == "kv_append" ? in(n, 1) : result;
    VectorOpIo io;
    io.op = n.name;
    io.kind = n.kind;
    io.out = n.kind == "kv_append" ? data_of(x.name) : n.out;  // the new rows go into the cache
    io.cols = shaped.shape.back();
    io.rows = shaped.elements() / io.cols;
    io.element_bytes = std::max<int64_t>(1, x.bits / 8);
    io.out_row_bytes = (io.cols * result.bits + 7) / 8;
    io.line = n.line;
    if (n.kind == "maxpool" || n.kind == "avgpool") {
      const auto [kh, kw] = pair_attr(n, "kernel", 1, 1);
      io.window = kh * kw;
    }
    for (size_t k = 0; k < n.in.size(); ++k) {
      const GraphTensor& t = in(n, k);
      VectorAccess a{data_of(t.name), 0, 0};
      const int64_t row = (io.cols * t.bits + 7) / 8;
      if (n.kind == "embedding") a.row_bytes = k == 0 ? (t.shape[1] * t.bits + 7) / 8 : (t.bits + 7) / 8;
      else if (n.kind == "kv_append") a.row_bytes = k == 1 ? row : 0;  // the cache itself is not read
      else if (n.kind == "concat" || n.kind == "maxpool" || n.kind == "avgpool") a.row_bytes = (t.bytes() + io.rows - 1) / io.rows;
      else if (t.elements() == shaped.elements()) a.row_bytes = row;
      else if (t.elements() <= io.cols) a.once_bytes = t.bytes();  // one row for every row: read once, kept
      else a.row_bytes = row;  // broadcast: each row reads its own row of it
      io.in.push_back(a);
    }
    add_steps(io);
    // The result is a tensor of its own, written by the vector unit; a cache after an append is the cache.
    output(n, out, dtype, role, -1, n.kind == "kv_append" ? x.name : "");
  }

  std::string path_;
  Workload& w_;
  std::map<std::string, GraphTensor> tensors_;
  std::map<std::string, int> op_names_, written_by_;
  std::map<std::string, Layer::SameAs> read_first_by_;  // tensors in HBM from the start
  std::map<std::string, std::string> alias_;
  int sequence_ = 0;  // the next kernel's place in graph order (VectorStep::order)
};

}  // namespace

void read_graph(const std::string& path, const YAML::Node& root, Workload& w) {
  YAML::Node tensors, ops;
  int tensors_line = 0, ops_line = 0;
  for (auto it = root.begin(); it != root.end(); ++it) {
    if (it->first.Scalar() == "tensors") tensors = it->second, tensors_line = line_of(it->first);
    if (it->first.Scalar() == "ops") ops = it->second, ops_line = line_of(it->first);
  }
  w.is_graph = true;
  GraphReader(path, w).read(tensors, tensors_line, ops, ops_line);
}

}  // namespace cstsim
