#include "sim/workload/tensor_parallel.h"

#include <algorithm>
#include <climits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/input_error.h"
#include "sim/workload/training.h"

namespace cstsim {
namespace {

// How a tensor lies across the chips.
enum class Lie { Whole, Columns, Rows };

class Splitter {
 public:
  Splitter(const Workload& w, int t, int output_bits, int partial_sum_bits)
      : w_(w), s_(w), t_(t), output_bits_(output_bits), partial_sum_bits_(partial_sum_bits) {}

  Workload run() {
    if (w_.training)
      throw InputError(w_.source, 0, "--train", "a training step split across chips is not modelled yet (its backward "
                                                "GEMMs need collectives of their own)");
    s_.tensor_parallel = t_;
    s_.layer_splits.assign(w_.layers.size(), "");
    layer_lie_.assign(w_.layers.size(), Lie::Whole);
    for (size_t i = 0; i <= w_.layers.size(); ++i) {
      for (const auto& [order, kernel] : kernels_before(i)) {
        if (kernel.first) flash(kernel.second);
        else step(kernel.second);
      }
      if (i < w_.layers.size()) layer(i);
    }
    return std::move(s_);
  }

 private:
  // The vector steps (false) and flash kernels (true) that run before layer i, in graph order.
  std::vector<std::pair<int, std::pair<bool, size_t>>> kernels_before(size_t i) const {
    std::vector<std::pair<int, std::pair<bool, size_t>>> k;
    for (size_t j = 0; j < w_.vector_steps.size(); ++j)
      if (size_t(w_.vector_steps[j].before_layer) == i) k.push_back({w_.vector_steps[j].order, {false, j}});
    for (size_t j = 0; j < w_.flash.size(); ++j)
      if (size_t(w_.flash[j].before_layer) == i) k.push_back({w_.flash[j].order, {true, j}});
    std::stable_sort(k.begin(), k.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return k;
  }

  Lie lie(const std::string& tensor) const {
    auto it = lie_.find(tensor);
    return it == lie_.end() ? Lie::Whole : it->second;
  }
  bool made_here(const std::string& tensor) const { return !tensor.empty() && whole_bytes_.count(tensor) > 0; }

  void collective(const std::string& op, const std::string& tensor, int64_t bytes, int before_layer, int order,
                  int line, const std::string& why) {
    WorkloadCollective c;
    c.name = tensor + "." + op;
    c.op = op;
    c.tensor = tensor;
    c.bytes = bytes;
    c.before_layer = before_layer;
    c.order = order;
    c.line = line;
    c.why = why;
    s_.collectives.push_back(std::move(c));
  }
  // Makes a split tensor whole on every chip before what runs at (before_layer, order).
  void gather(const std::string& tensor, int64_t fallback_bytes, int before_layer, int order, int line,
              const std::string& why) {
    auto it = whole_bytes_.find(tensor);
    collective("all_gather", tensor, it != whole_bytes_.end() ? it->second : fallback_bytes, before_layer, order, line, why);
    lie_[tensor] = Lie::Whole;
  }

  int bits_of(const Layer& l) const { return l.dtype_bits > 0 ? l.dtype_bits : output_bits_; }

  void layer(size_t i) {
    const Layer& in = w_.layers[i];
    Layer& l = s_.layers[i];
    const bool graph = w_.is_graph;
    const int64_t c_bytes = (in.repeats * in.M * in.N * bits_of(in) + 7) / 8;
    const std::string& a_name = in.tensors[0];
    const int producer = graph ? -1 : input_producer(w_, i);
    Lie a = graph ? lie(a_name) : producer >= 0 ? layer_lie_[size_t(producer)] : Lie::Whole;
    const bool b_activation = in.weight_layer >= 0 || (graph && made_here(in.tensors[1]));
    const int64_t a_bytes = (in.repeats * in.M * in.K * bits_of(in) + 7) / 8;
    Lie out = Lie::Whole;
    std::string how = "whole on every chip";
    auto gather_a = [&](const std::string& why) {
      if (graph) gather(a_name, a_bytes, int(i), INT_MAX, in.source_line, why);
      else collective("all_gather", w_.layers[size_t(producer)].name, a_bytes, int(i), INT_MAX, in.source_line, why);
      a = Lie::Whole;
    };
    if (b_activation) {  // attention's GEMMs: both operands activations, split by heads or not at all
      const Lie b = lie(in.tensors[1]);
      const int64_t kv = in.pieces[1].count(in.repeats);  // heads of B (GQA: KV heads)
      if (a != Lie::Whole && b != Lie::Whole && in.repeats % t_ == 0 && kv % t_ == 0) {
        l.repeats = in.repeats / t_;
        l.chip_cut = {ChipCut::Dim::Repeats, in.repeats};
        if (in.pieces[1].cycle > 0) l.pieces[1].cycle = in.pieces[1].cycle / t_;
        out = in.attention_scores_layer >= 0 ? Lie::Columns : Lie::Rows;
        how = fmt::format("heads: {} of {} repeats", l.repeats, in.repeats);
      } else if (a != Lie::Whole || b != Lie::Whole) {
        throw InputError(w_.source, in.source_line, in.name,
                         fmt::format("{} heads ({} of them K and V heads) do not split evenly over {} chips "
                                     "(parallel.tensor)", in.repeats, kv, t_));
      }
    } else {
      if (a == Lie::Rows) gather_a(fmt::format("{} reads it whole", in.name));
      const bool conv = in.conv.has_value();
      if (a == Lie::Columns && in.K % t_ == 0 && (!conv || in.conv->channels % t_ == 0)) {
        l.K = in.K / t_;
        l.chip_cut = {ChipCut::Dim::K, in.K};
        if (conv) l.conv->channels = in.conv->channels / t_;
        how = fmt::format("rows: K {} of {}", l.K, in.K);
        // Each chip holds partial sums of all of C in the accumulator: they are what is added.
        const int64_t sum_bytes = (in.repeats * in.M * in.N * partial_sum_bits_ + 7) / 8;
        collective("all_reduce", graph ? in.tensors[2] : in.name, sum_bytes, int(i) + 1, -1, in.source_line,
                   fmt::format("{} is split by rows: each chip holds partial sums of all of it", in.name));
        s_.collectives.back().element_bits = partial_sum_bits_;
      } else {
        if (a == Lie::Columns) gather_a(fmt::format("{}'s K ({}) is not a multiple of {}", in.name, in.K, t_));
        if (in.N % t_ == 0 && (!conv || in.conv->filters % t_ == 0)) {
          l.N = in.N / t_;
          l.chip_cut = {ChipCut::Dim::N, in.N};
          if (conv) l.conv->filters = in.conv->filters / t_;
          out = Lie::Columns;
          how = fmt::format("columns: N {} of {}", l.N, in.N);
        }
      }
    }
    s_.layer_splits[i] = how;
    if (out == Lie::Whole && l.K == in.K && l.repeats == in.repeats) s_.whole_on_every_chip.insert(in.name);
    layer_lie_[i] = out;
    if (graph) {
      lie_[in.tensors[2]] = out;
      whole_bytes_[in.tensors[2]] = c_bytes;
    }
  }

  void step(size_t j) {
    const VectorStep& in = w_.vector_steps[j];
    VectorStep& s = s_.vector_steps[j];
    bool split = false, rows = false;
    for (const VectorAccess& r : in.reads) {
      if (r.row_bytes == 0) continue;  // read once (a norm's weights): every chip holds them
      Lie l = lie(r.tensor);
      if (l == Lie::Columns && in.reduces) {
        gather(r.tensor, in.rows * r.row_bytes, in.before_layer, in.order, in.line,
               fmt::format("{} reduces along rows that lie split across the chips", in.name));
        l = Lie::Whole;
      }
      split |= l != Lie::Whole;
      rows |= l == Lie::Rows;
    }
    const Lie out = !split ? Lie::Whole : rows ? Lie::Rows : Lie::Columns;
    if (!split) s_.whole_on_every_chip.insert(in.op);
    if (split) {
      if (in.rows % t_ != 0)
        throw InputError(w_.source, in.line, in.name,
                         fmt::format("{} rows of split tensors do not divide over {} chips (parallel.tensor)", in.rows, t_));
      s.rows = in.rows / t_;
    }
    for (const VectorAccess& wr : in.writes) {
      lie_[wr.tensor] = out;
      whole_bytes_[wr.tensor] = in.rows * wr.row_bytes;
    }
  }

  void flash(size_t j) {
    const FlashAttention& in = w_.flash[j];
    FlashAttention& f = s_.flash[j];
    const bool split = lie(in.q) != Lie::Whole || lie(in.k) != Lie::Whole || lie(in.v) != Lie::Whole;
    if (split) {
      if (in.heads % t_ != 0 || in.kv_heads % t_ != 0)
        throw InputError(w_.source, in.line, in.name,
                         fmt::format("{} heads and {} KV heads do not split evenly over {} chips (parallel.tensor)",
                                     in.heads, in.kv_heads, t_));
      f.heads = in.heads / t_;
      f.kv_heads = in.kv_heads / t_;
    }
    lie_[in.out] = split ? Lie::Columns : Lie::Whole;
    if (!split) s_.whole_on_every_chip.insert(in.name);
    whole_bytes_[in.out] = (in.batch * in.Sq * in.heads * in.d * in.dtype_bits + 7) / 8;
  }

  const Workload& w_;
  Workload s_;
  int t_, output_bits_, partial_sum_bits_;
  std::map<std::string, Lie> lie_;            // operator graphs: by tensor
  std::map<std::string, int64_t> whole_bytes_;  // what each tensor made here moves whole
  std::vector<Lie> layer_lie_;                // every workload: each layer's C
};

}  // namespace

Workload tensor_parallel_step(const Workload& forward, const std::string& recompute, int value_bits,
                              int partial_sum_bits) {
  if (recompute == "full")
    throw InputError("--train", 0, "", "recompute full under tensor parallelism is not modelled (the recomputed "
                                       "layers would repeat the forward's all-reduces)");
  for (const CollectiveKernelPlan& c : forward.collectives)
    if (c.op == "all_gather")
      throw InputError(forward.source, c.line, c.tensor, "training with an all-gather in the forward pass (its "
                                                         "backward, a reduce-scatter) is not modelled");
  Workload step = with_training(forward, recompute, value_bits);
  std::map<std::string, int> index;
  for (size_t i = 0; i < step.layers.size(); ++i) index[step.layers[i].name] = int(i);
  for (size_t i = 0; i < forward.layers.size(); ++i) {
    const Layer& f = forward.layers[i];
    if (forward.whole_on_every_chip.count(f.name))
      for (const char* part : {".dX", ".dW", ".adamw"}) step.whole_on_every_chip.insert(f.name + part);
    if (f.chip_cut.dim != ChipCut::Dim::N) continue;
    const Layer& dx = step.layers[size_t(index.at(f.name + ".dX"))];
    WorkloadCollective c;
    c.tensor = dx.tensors[2].empty() ? dx.name : dx.tensors[2];
    c.name = c.tensor + ".all_reduce";
    c.op = "all_reduce";
    c.bytes = (dx.repeats * dx.M * dx.N * partial_sum_bits + 7) / 8;  // dX's partial sums, in the accumulator
    c.element_bits = partial_sum_bits;
    c.before_layer = index.at(dx.name) + 1;
    c.order = -1;  // before anything reads it
    c.line = f.source_line;
    c.why = fmt::format("{} is split by columns: each chip's dX holds partial sums of its whole input's gradient", f.name);
    step.collectives.push_back(std::move(c));
  }
  std::stable_sort(step.collectives.begin(), step.collectives.end(), [](const auto& a, const auto& b) {
    return std::pair(a.before_layer, a.order) < std::pair(b.before_layer, b.order);
  });
  for (size_t i = step.layer_splits.size(); i < step.layers.size(); ++i)
    step.layer_splits.push_back("the share's backward");
  return step;
}

Workload split_tensor_parallel(const Workload& w, int t, int output_bits, int partial_sum_bits) {
  if (t < 2) return w;
  return Splitter(w, t, output_bits, partial_sum_bits).run();
}

}  // namespace cstsim
