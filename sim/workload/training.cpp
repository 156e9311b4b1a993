#include "sim/workload/training.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/input_error.h"

namespace cstsim {

const std::vector<std::string>& recompute_names() {
  static const std::vector<std::string> names = {"none", "selective", "full"};
  return names;
}

namespace {

constexpr int64_t kStateBytes = 4;      // AdamW's master weight, m and v: fp32
constexpr int kMatrixA = 0, kMatrixB = 1, kMatrixC = 2;

class StepBuilder {
 public:
  StepBuilder(const Workload& forward, Recompute recompute, int value_bits)
      : f_(forward), recompute_(recompute), value_bits_(value_bits), n_(int(forward.layers.size())) {
    for (int i = 0; i < n_; ++i) {
      producer_a_.push_back(input_producer(f_, size_t(i)));
      producer_b_.push_back(f_.layers[size_t(i)].weight_layer);
    }
    trace_ancestry();
  }

  Workload build() {
    if (!f_.flash.empty())
      throw InputError(f_.source, f_.flash.front().line, "tiling",
                       "a training step of attention with tiling: flash is not modelled (its backward is a kernel "
                       "of its own); use tiling: materialized");
    out_ = f_;  // the forward's layers and vector steps (the latter's backward passes are not modelled)
    dx_.assign(size_t(n_), -1);
    dw_.assign(size_t(n_), -1);
    grad_of_c_.assign(size_t(n_), -1);
    for (int i = n_ - 1; i >= 0; --i) backward(i);
    TrainingStep t;
    t.recompute = recompute_names()[size_t(recompute_)];
    t.forward_layers = n_;
    for (int i = 0; i < n_; ++i) t.forward_macs += f_.layers[size_t(i)].macs();
    for (size_t k = size_t(n_); k < out_.layers.size(); ++k)
      (recomputed_.count(int(k)) ? t.recomputed_macs : t.backward_macs) += out_.layers[k].macs();
    add_optimizer(t);
    hold(t);
    out_.training = t;
    return std::move(out_);
  }

 private:
  const Layer& fl(int i) const { return f_.layers[size_t(i)]; }
  int bits(const Layer& l) const { return l.dtype_bits > 0 ? l.dtype_bits : value_bits_; }
  int64_t bytes(const Layer& l, int64_t elements) const { return (elements * bits(l) + 7) / 8; }
  // Elements of matrix x of a layer over its repeats' pieces.
  int64_t elements(const Layer& l, int x) const {
    const int64_t per = x == kMatrixA ? l.M * l.K : x == kMatrixB ? l.K * l.N : l.M * l.N;
    return per * l.pieces[size_t(x)].count(l.repeats);
  }
  std::string tensor(const Layer& l, int x) const {
    const std::string& t = l.tensors[size_t(x)];
    return t.empty() ? l.name + "." + "ABC"[x] : t;
  }
  // A weight of the layer's own (not another layer's output, not shared with an earlier layer).
  bool owns_weight(int i) const { return fl(i).weight_layer < 0 && fl(i).same_as[kMatrixB].layer < 0; }

  // The layers whose outputs operand x of layer i is made from: its producer, or the layers
  // behind the vector ops that wrote it (graphs: a norm's output comes from a residual add of
  // GEMM outputs). Empty: a step input.
  void trace_ancestry() {
    std::map<std::string, std::set<int>> made_from;  // graph tensor -> GEMM layers behind it
    std::vector<const VectorStep*> steps;
    for (const VectorStep& s : f_.vector_steps) steps.push_back(&s);
    std::stable_sort(steps.begin(), steps.end(), [](const VectorStep* a, const VectorStep* b) {
      return a->before_layer != b->before_layer ? a->before_layer < b->before_layer : a->order < b->order;
    });
    size_t next = 0;
    ancestors_.resize(size_t(n_));
    for (int i = 0; i <= n_; ++i) {
      for (; next < steps.size() && steps[next]->before_layer <= i; ++next) {
        std::set<int> from;
        for (const VectorAccess& r : steps[next]->reads) {
          auto it = made_from.find(r.tensor);
          if (it != made_from.end()) from.insert(it->second.begin(), it->second.end());
        }
        for (const VectorAccess& w : steps[next]->writes) made_from[w.tensor] = from;
      }
      if (i == n_) break;
      for (int x : {kMatrixA, kMatrixB}) {
        const int p = x == kMatrixA ? producer_a_[size_t(i)] : producer_b_[size_t(i)];
        std::set<int>& a = ancestors_[size_t(i)][size_t(x)];
        if (p >= 0) a = {p};
        else if (auto it = made_from.find(tensor(fl(i), x)); it != made_from.end()) a = it->second;
      }
      made_from[tensor(fl(i), kMatrixC)] = {i};  // a layer of a list has no names: its own
    }
  }

  // Whether the backward of layer i finds operand x (A or B activations) kept from the forward.
  bool kept(int i, int x) const {
    switch (recompute_) {
      case Recompute::None: return true;
      case Recompute::Selective: return !(x == kMatrixA && fl(i).attention_scores_layer >= 0);
      case Recompute::Full: return ancestors_[size_t(i)][size_t(x)].empty();  // a step input cannot be made again
    }
    return true;
  }

  int append(Layer l) {
    l.reads_previous = false;
    out_.layers.push_back(std::move(l));
    return int(out_.layers.size()) - 1;
  }

  // Layer p again, with its operands where this recompute batch made them (copy_of) or where the
  // forward pass read them.
  int recompute_layer(int p, int for_layer, std::map<int, int>& copy_of) {
    Layer l = fl(p);
    l.name = fmt::format("{}.recompute.{}", fl(p).name, fl(for_layer).name);
    l.tensors = {tensor(fl(p), kMatrixA), tensor(fl(p), kMatrixB), tensor(fl(p), kMatrixC) + ".recompute." + fl(for_layer).name};
    l.input_layer.reset();
    l.weight_layer = -1;
    l.same_as = {};
    l.attention_scores_layer = -1;
    l.conv.reset();  // in GEMM form: the lowered ifmap is read as A
    const int pa = producer_a_[size_t(p)], pb = producer_b_[size_t(p)];
    if (pa >= 0 && copy_of.count(pa)) l.input_layer = copy_of[pa];
    else l.same_as[kMatrixA] = {p, kMatrixA};
    if (pb >= 0 && copy_of.count(pb)) l.weight_layer = copy_of[pb];
    else l.same_as[kMatrixB] = {p, kMatrixB};
    const int k = append(std::move(l));
    copy_of[p] = k;
    recomputed_.insert(k);
    recompute_for_[k] = for_layer;
    return k;
  }

  // The layers whose outputs layer i's operands not kept are, transitively, in forward order.
  std::vector<int> to_recompute(int i) const {
    std::set<int> need;
    std::vector<int> stack;
    if (recompute_ == Recompute::Selective) {
      if (!kept(i, kMatrixA)) need.insert(fl(i).attention_scores_layer);
      return {need.begin(), need.end()};
    }
    for (int x : {kMatrixA, kMatrixB})
      if (!kept(i, x)) stack.insert(stack.end(), ancestors_[size_t(i)][size_t(x)].begin(), ancestors_[size_t(i)][size_t(x)].end());
    while (!stack.empty()) {
      const int p = stack.back();
      stack.pop_back();
      if (!need.insert(p).second) continue;
      for (int x : {kMatrixA, kMatrixB}) stack.insert(stack.end(), ancestors_[size_t(p)][size_t(x)].begin(), ancestors_[size_t(p)][size_t(x)].end());
    }
    return {need.begin(), need.end()};
  }

  void backward(int i) {
    const Layer& f = fl(i);
    std::map<int, int> copy_of;  // forward layer -> its recomputed copy
    for (int p : to_recompute(i)) recompute_layer(p, i, copy_of);
    const int pa = producer_a_[size_t(i)], pb = producer_b_[size_t(i)];
    // dX: dA = dC . B^T
    Layer dx = Layer::gemm(f.name + ".dX", f.M, f.K, f.N);
    dx.repeats = f.repeats;
    dx.pieces = {f.pieces[kMatrixC], f.pieces[kMatrixB], f.pieces[kMatrixA]};
    dx.source_line = f.source_line;
    dx.dtype_bits = f.dtype_bits;  // dC at the activations' width; B the forward's weight
    dx.b_dtype_bits = f.b_dtype_bits;
    dx.dtypes = f.dtypes;
    dx.tensors = {tensor(f, kMatrixC) + ".grad", tensor(f, kMatrixB), tensor(f, kMatrixA) + ".grad"};
    if (grad_of_c_[size_t(i)] >= 0) dx.input_layer = grad_of_c_[size_t(i)];  // else the loss's gradient
    if (pb >= 0 && copy_of.count(pb)) dx.weight_layer = copy_of[pb];
    else dx.same_as[kMatrixB] = {i, kMatrixB};
    const int x = append(std::move(dx));
    // dW: dB = A^T . dC
    Layer dw = Layer::gemm(f.name + ".dW", f.K, f.N, f.M);
    dw.repeats = f.repeats;
    dw.pieces = {f.pieces[kMatrixA], f.pieces[kMatrixC], f.pieces[kMatrixB]};
    dw.source_line = f.source_line;
    dw.dtype_bits = f.dtype_bits;  // A the forward's, B its output's gradient: activations
    dw.b_dtype_bits = f.dtype_bits;
    dw.dtypes = {f.dtypes[0], f.dtypes[0]};
    dw.input_density = f.input_density;  // its A is the forward's A, transposed: the same zeros (dX's, dC, has none)
    dw.tensors = {tensor(f, kMatrixA), tensor(f, kMatrixC) + ".grad", tensor(f, kMatrixB) + ".grad"};
    if (pa >= 0 && copy_of.count(pa)) dw.input_layer = copy_of[pa];
    else dw.same_as[kMatrixA] = {i, kMatrixA};
    if (grad_of_c_[size_t(i)] >= 0) dw.weight_layer = grad_of_c_[size_t(i)];
    else dw.same_as[kMatrixB] = {x, kMatrixA};  // the loss's gradient dX read
    const int w = append(std::move(dw));
    dx_[size_t(i)] = x;
    dw_[size_t(i)] = w;
    if (pa >= 0) grad_of_c_[size_t(pa)] = x;
    if (pb >= 0) grad_of_c_[size_t(pb)] = w;
  }

  void add_optimizer(TrainingStep& t) {
    int order = 0;
    for (const VectorStep& s : out_.vector_steps) order = std::max(order, s.order + 1);
    for (int i = 0; i < n_; ++i) {
      if (!owns_weight(i)) continue;
      const Layer& f = fl(i);
      const int64_t rows = f.pieces[kMatrixB].count(f.repeats) * f.K, cols = f.N;
      const int64_t grad_row = (cols * bits(f) + 7) / 8, state_row = cols * kStateBytes;
      const std::string w = tensor(f, kMatrixB);
      VectorStep s;
      s.name = f.name + ".adamw";
      s.op = s.name;
      s.kind = "adamw";
      s.what = "m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2; w -= lr (m^ / (sqrt(v^) + eps) + wd w)";
      s.rows = rows;
      s.cols = cols;
      s.ops_per_row = {5 * cols, 8 * cols, 2 * cols};  // add, mul, special (VectorClass)
      s.reads = {{w + ".grad", grad_row, 0}, {w + ".master", state_row, 0}, {w + ".m", state_row, 0}, {w + ".v", state_row, 0}};
      s.writes = {{w + ".master", state_row, 0}, {w + ".m", state_row, 0}, {w + ".v", state_row, 0}};
      s.line = f.source_line;
      s.before_layer = dw_[size_t(i)] + 1;  // as soon as the gradient is complete
      s.order = order++;
      out_.vector_steps.push_back(std::move(s));
      t.parameters += rows * cols;
      t.weight_gradient_bytes += rows * grad_row;
      t.optimizer_state_bytes += 3 * rows * state_row;
    }
  }

  // Layer::held_bytes of every layer of the step: the optimizer state throughout, the activations
  // kept for a backward still to come (A until its dW, an activation B until its dX; neither
  // while it is the layer's own operand), and the outputs of recomputed layers until the
  // backward they are for is done. A weight's gradient lives from its dW to its AdamW kernel,
  // which runs right after: no layer runs while it is held.
  void hold(TrainingStep& t) {
    const int total = int(out_.layers.size());
    std::vector<int64_t> kept_at(size_t(total), 0), held(size_t(total), t.optimizer_state_bytes);
    // One tensor several layers read (a norm's output into Q, K and V) is kept once, from its
    // first reader to the last backward that needs it.
    struct Kept {
      int64_t bytes = 0;
      int from = 0, until = 0;
    };
    std::map<std::string, Kept> kept_tensors;
    for (int i = 0; i < n_; ++i) {
      const Layer& f = fl(i);
      const std::array<std::pair<int, int>, 2> operands = {{{kMatrixA, dw_[size_t(i)]}, {kMatrixB, dx_[size_t(i)]}}};
      for (const auto& [x, until] : operands) {
        if (x == kMatrixB && ancestors_[size_t(i)][kMatrixB].empty() && producer_b_[size_t(i)] < 0)
          continue;  // a weight, not an activation
        if (!kept(i, x)) continue;
        auto [it, fresh] = kept_tensors.try_emplace(tensor(f, x), Kept{bytes(f, elements(f, x)), i + 1, until});
        if (!fresh) it->second.until = std::max(it->second.until, until);
      }
    }
    for (const auto& [name, k] : kept_tensors)
      for (int m = k.from; m < k.until; ++m) {
        const Layer& l = out_.layers[size_t(m)];
        if (tensor(l, kMatrixA) != name && tensor(l, kMatrixB) != name) kept_at[size_t(m)] += k.bytes;  // else its operand
      }
    for (const auto& [k, for_layer] : recompute_for_) {  // held from it to its last reader
      int last = k;
      for (int m = k + 1; m < total; ++m) {
        const Layer& r = out_.layers[size_t(m)];
        if ((r.input_layer && *r.input_layer == k) || r.weight_layer == k) last = m;
      }
      const Layer& c = out_.layers[size_t(k)];
      const int64_t b = bytes(c, elements(c, kMatrixC));
      for (int m = k + 1; m < last; ++m) held[size_t(m)] += b;
    }
    for (int k = 0; k < total; ++k) {
      out_.layers[size_t(k)].held_bytes = held[size_t(k)] + kept_at[size_t(k)];
      t.stored_activation_bytes = std::max(t.stored_activation_bytes, kept_at[size_t(k)]);
    }
  }

  const Workload& f_;
  const Recompute recompute_;
  const int value_bits_;
  const int n_;
  Workload out_;
  std::vector<int> producer_a_, producer_b_, dx_, dw_, grad_of_c_;
  std::vector<std::array<std::set<int>, 2>> ancestors_;  // per layer, per operand (A, B)
  std::set<int> recomputed_;
  std::map<int, int> recompute_for_;  // recomputed layer -> the forward layer whose backward it is for
};

}  // namespace

Workload training_step(const Workload& forward, Recompute recompute, int value_bits) {
  return StepBuilder(forward, recompute, value_bits).build();
}

Workload with_training(Workload forward, const std::string& recompute, int value_bits) {
  if (recompute.empty()) return forward;
  const auto& names = recompute_names();
  const auto it = std::find(names.begin(), names.end(), recompute);
  if (it == names.end())
    throw InputError("--train", 0, "", fmt::format("must be one of {}; got {}", fmt::join(names, ", "), recompute));
  return training_step(forward, Recompute(it - names.begin()), value_bits);
}

}  // namespace cstsim
