#include "sim/workload/data_parallel.h"

#include <algorithm>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "core/input_error.h"
#include "sim/workload/pipeline_parallel.h"
#include "sim/workload/tensor_parallel.h"
#include "sim/workload/training.h"

namespace cstsim {
namespace {

// The tensors the workload makes (layers' outputs, vector ops' and flash attention's): a GEMM
// reading one as B multiplies activations of the same samples.
std::set<std::string> made_tensors(const Workload& w) {
  std::set<std::string> made;
  for (const Layer& l : w.layers)
    if (!l.tensors[2].empty()) made.insert(l.tensors[2]);
  for (const VectorStep& s : w.vector_steps)
    for (const VectorAccess& a : s.writes) made.insert(a.tensor);
  for (const FlashAttention& f : w.flash) made.insert(f.out);
  return made;
}

}  // namespace

Workload split_data_parallel(const Workload& w, int d, const std::string& key) {
  if (d < 2) return w;
  Workload s = w;
  s.data_parallel = d;
  s.layer_splits.assign(w.layers.size(), "");
  const std::set<std::string> made = made_tensors(w);
  auto uneven = [&](int line, const std::string& name, const std::string& what) {
    throw InputError(w.source, line, name, fmt::format("{} do not split into {} {} ({})", what, d,
                                                       key == "parallel.data" ? "data-parallel shares" : "micro-batches", key));
  };
  for (size_t i = 0; i < w.layers.size(); ++i) {
    const Layer& in = w.layers[i];
    Layer& l = s.layers[i];
    const bool b_activation = in.weight_layer >= 0 || (!in.tensors[1].empty() && made.count(in.tensors[1]) > 0);
    if (b_activation || in.batch > 1 || in.conv) {  // whole samples (images): their repeats
      if (in.batch % d != 0)
        uneven(in.source_line, in.name, fmt::format("its {} sample(s) (a sample's tokens or pixels stay on one chip)", in.batch));
      l.repeats = in.repeats / d;
      l.batch = in.batch / d;
      s.layer_splits[i] = fmt::format("samples: {} of {} repeats", l.repeats, in.repeats);
    } else {
      if (in.M % d != 0) uneven(in.source_line, in.name, fmt::format("its M rows ({})", in.M));
      l.M = in.M / d;
      s.layer_splits[i] = fmt::format("rows: M {} of {}", l.M, in.M);
    }
  }
  for (VectorStep& v : s.vector_steps) {
    if (v.rows % d != 0) uneven(v.line, v.name, fmt::format("its {} rows", v.rows));
    v.rows /= d;
  }
  for (FlashAttention& f : s.flash) {
    if (f.batch % d != 0) uneven(f.line, f.name, fmt::format("its batch of {}", f.batch));
    f.batch /= d;
  }
  return s;
}

Workload with_gradient_all_reduces(Workload step) {
  for (const VectorStep& v : step.vector_steps) {
    if (v.kind != "adamw") continue;
    step.whole_on_every_chip.insert(v.op);  // every chip updates the whole weight
    const VectorAccess& grad = v.reads.front();  // the weight's gradient, at the layer's dtype
    WorkloadCollective c;
    c.tensor = grad.tensor;
    c.name = grad.tensor + ".all_reduce";
    c.op = "all_reduce";
    c.bytes = v.rows * grad.row_bytes;
    c.before_layer = v.before_layer;
    c.order = v.order;  // first among the kernels of its order: before the AdamW step
    c.line = v.line;
    c.why = fmt::format("{}: each chip's gradient sums its own samples only (data parallel)", v.op);
    step.collectives.push_back(std::move(c));
  }
  // In the order they run (the chips meet them one after another): the optimizer steps are listed
  // by forward layer, the backward runs the other way.
  std::stable_sort(step.collectives.begin(), step.collectives.end(), [](const auto& a, const auto& b) {
    return std::pair(a.before_layer, a.order) < std::pair(b.before_layer, b.order);
  });
  return step;
}

std::vector<Workload> chip_workloads(const Workload& loaded, const std::string& train, int value_bits,
                                     const ChipSplit& split) {
  if (split.pipeline > 1) {
    if (!train.empty())
      throw InputError("--train", 0, "", "a training step over pipeline stages (its backward schedule, 1F1B) is not "
                                         "modelled yet");
    return split_pipeline(loaded, split.pipeline, split.micro_batches, value_bits);
  }
  return std::vector<Workload>(size_t(split.chips()), chip_workload(loaded, train, value_bits, split));
}

Workload chip_workload(const Workload& loaded, const std::string& train, int value_bits, const ChipSplit& split) {
  const int tensor = split.tensor, data = split.data;
  if (split.pipeline > 1) return chip_workloads(loaded, train, value_bits, split).front();
  if (data > 1) {
    Workload share = with_training(split_data_parallel(loaded, data), train, value_bits);
    share.data_parallel = data;
    for (size_t i = share.layer_splits.size(); i < share.layers.size(); ++i)  // the step's backward layers
      share.layer_splits.push_back("the share's backward (its samples)");
    return share.training ? with_gradient_all_reduces(std::move(share)) : share;
  }
  const int sums = split.partial_sum_bits;
  if (tensor > 1 && !train.empty())
    return tensor_parallel_step(split_tensor_parallel(loaded, tensor, value_bits, sums), train, value_bits, sums);
  Workload whole = with_training(loaded, train, value_bits);
  return tensor > 1 ? split_tensor_parallel(whole, tensor, value_bits, sums) : whole;
}

}  // namespace cstsim
