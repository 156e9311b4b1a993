#include "sim/mapper/program_order.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

namespace cstsim {
namespace {

// What a step reads and writes, by the workload's tensor names.
struct Access {
  std::vector<std::string> reads, writes;
  // Its writes are new tensors (a layer's output, flash attention's): nothing may read them before
  // it runs. A vector kernel or a collective may update a tensor in place (a KV-cache append, an
  // all-reduce), so who reads it first is the program's word.
  bool makes = false;
  bool send = false, receive = false;  // a pipeline stage's send (from this chip) or receive
};

// The name a layer's output goes by: its graph tensor, else (a list of layers) the layer's own
// name, which the collectives a split inserts use too.
std::string output_of(const Layer& l) { return l.tensors[2].empty() ? l.name : l.tensors[2]; }

// The tensor whose data `t` is: a view of a layer's output is that output.
std::string data_of(const Workload& w, std::string t) {
  for (auto it = w.views.find(t); it != w.views.end(); it = w.views.find(t)) t = it->second;
  return t;
}

// The tensor layer i reads as matrix x (0 A, 1 B); empty: one that no step writes (a weight of its
// own, a list's layer input from outside). The layer whose output it is when the workload says
// so (a list of layers names no tensors; a graph's view of a layer's output is named by no step),
// else what the first layer that read it read, else the graph's name.
std::string operand_of(const Workload& w, size_t i, size_t x) {
  const Layer& l = w.layers[i];
  const int producer = x == 0 ? input_producer(w, i) : l.weight_layer;
  if (producer >= 0) return output_of(w.layers[size_t(producer)]);
  if (const Layer::SameAs& same = l.same_as[x]; same.layer >= 0 && size_t(same.layer) < i)
    return operand_of(w, size_t(same.layer), size_t(same.matrix));
  return l.tensors[x].empty() ? std::string() : data_of(w, l.tensors[x]);
}

Access layer_access(const Workload& w, size_t i) {
  Access a;
  a.makes = true;
  for (size_t x : {0, 1})
    if (std::string t = operand_of(w, i, x); !t.empty()) a.reads.push_back(std::move(t));
  a.writes.push_back(output_of(w.layers[i]));
  return a;
}

Access vector_access(const Workload& w, const VectorKernelPlan& k) {
  Access a;
  for (const VectorOperandPlan& o : k.reads) a.reads.push_back(data_of(w, o.tensor));
  for (const VectorOperandPlan& o : k.writes) a.writes.push_back(data_of(w, o.tensor));
  return a;
}

Access flash_access(const Workload& w, const FlashAttention& f) {
  Access a;
  a.makes = true;
  for (const std::string* t : {&f.q, &f.k, &f.v}) a.reads.push_back(data_of(w, *t));
  a.writes.push_back(f.out);
  return a;
}

// A collective reduces or gathers its tensor in place. A pipeline send names no tensor of this
// chip's graph (what crosses is every tensor a later stage reads): see link_sends.
Access collective_access(const Workload& w, const WorkloadCollective& c) {
  Access a;
  if (c.op == "send") {
    a.send = c.from == w.pipeline_stage;
    a.receive = c.to == w.pipeline_stage;
    return a;
  }
  a.reads.push_back(data_of(w, c.tensor));
  a.writes.push_back(data_of(w, c.tensor));
  return a;
}

// deps: for each tensor a step reads, the last step before it that wrote the tensor; none before
// it and a step that makes it runs later: that step (a dependency on a later step, which
// Program::check_order refuses).
void link_tensors(Program& p, const std::vector<Access>& access) {
  std::map<std::string, int> maker, last;
  for (size_t i = 0; i < access.size(); ++i)
    if (access[i].makes)
      for (const std::string& t : access[i].writes) maker.emplace(t, int(i));
  for (size_t i = 0; i < access.size(); ++i) {
    std::set<int> deps;
    for (const std::string& t : access[i].reads) {
      if (auto it = last.find(t); it != last.end())
        deps.insert(it->second);
      else if (auto m = maker.find(t); m != maker.end() && m->second != int(i))
        deps.insert(m->second);
    }
    for (const std::string& t : access[i].writes) last[t] = int(i);
    p.steps[i].deps.assign(deps.begin(), deps.end());
  }
}

// Pipeline stages run each micro-batch between a receive (stage > 0) and a send (stage < last).
// What a receive brings is whatever the micro-batch's steps read that no step of this chip wrote:
// every step of the micro-batch that depends on nothing else here depends on the receive. A send
// carries what the micro-batch made: it depends on each of its steps that no other step of it
// depends on (the rest lead to those).
void link_sends(Program& p, const std::vector<Access>& access) {
  const int n = int(p.steps.size());
  auto boundary = [&](int i) { return access[size_t(i)].send || access[size_t(i)].receive; };
  for (int i = 0; i < n; ++i) {
    if (access[size_t(i)].receive) {
      for (int j = i + 1; j < n && !boundary(j); ++j)
        if (p.steps[size_t(j)].deps.empty()) p.steps[size_t(j)].deps.push_back(i);
    } else if (access[size_t(i)].send) {
      int from = i;
      while (from > 0 && !boundary(from - 1)) --from;
      std::set<int> needed;
      for (int j = from; j < i; ++j) needed.insert(p.steps[size_t(j)].deps.begin(), p.steps[size_t(j)].deps.end());
      for (int j = from; j < i; ++j)
        if (!needed.count(j)) p.steps[size_t(i)].deps.push_back(j);
    }
  }
}

}  // namespace

std::vector<Step> layer_steps(const std::vector<LayerPlan>& layers) {
  std::vector<Step> out;
  out.reserve(layers.size());
  for (size_t i = 0; i < layers.size(); ++i) {
    Step s;
    s.name = layers[i].name;
    s.layer = int(i);
    if (layers[i].rs)
      s.what = RsLayerStep{};
    else if (layers[i].rocc)
      s.what = RoccLayerStep{};
    else
      s.what = GemmLayerStep{};
    out.push_back(std::move(s));
  }
  return out;
}

Program order_program(const Workload& w, std::vector<Step> layers, std::vector<Placed<VectorKernelPlan>> vector,
                      std::vector<Placed<FlashKernelPlan>> flash, const std::vector<WorkloadCollective>& collectives) {
  if (layers.size() != w.layers.size() || flash.size() != w.flash.size())
    throw std::logic_error("order_program: the steps are not the workload's (layers or flash kernels differ in number)");
  // (before layer, graph order, collective first, arrival) -> step, what it reads and writes
  std::vector<std::pair<std::tuple<int, int, int, size_t>, std::pair<Step, Access>>> kernels;
  auto add = [&](int before, int order, int rank, Step s, Access a) {
    kernels.push_back({{before, order, rank, kernels.size()}, {std::move(s), std::move(a)}});
  };
  for (const WorkloadCollective& c : collectives) {
    Step s;
    s.name = c.name;
    s.what = CollectiveStep{c};  // the plan's part of it; its place stays with the workload
    add(c.before_layer, c.order, 0, std::move(s), collective_access(w, c));
  }
  for (Placed<VectorKernelPlan>& k : vector) {
    Step s;
    s.name = k.kernel.name;
    Access a = vector_access(w, k.kernel);
    s.what = VectorKernelStep{std::move(k.kernel)};
    add(k.before_layer, k.order, 1, std::move(s), std::move(a));
  }
  for (size_t f = 0; f < flash.size(); ++f) {  // one kernel for each of the workload's, in its order
    Step s;
    s.name = flash[f].kernel.name;
    s.what = FlashKernelStep{std::move(flash[f].kernel)};
    add(flash[f].before_layer, flash[f].order, 1, std::move(s), flash_access(w, w.flash[f]));
  }
  std::sort(kernels.begin(), kernels.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  Program p;
  std::vector<Access> access;
  p.steps.reserve(layers.size() + kernels.size());
  size_t k = 0;
  auto take_kernel = [&] {
    p.steps.push_back(std::move(kernels[k].second.first));
    access.push_back(std::move(kernels[k].second.second));
    ++k;
  };
  for (size_t i = 0; i <= layers.size(); ++i) {
    while (k < kernels.size() && size_t(std::get<0>(kernels[k].first)) <= i) take_kernel();
    if (i < layers.size()) {
      access.push_back(layer_access(w, size_t(layers[i].layer)));
      p.steps.push_back(std::move(layers[i]));
    }
  }
  while (k < kernels.size()) take_kernel();  // past the last layer
  for (size_t i = 0; i < p.steps.size(); ++i) p.steps[i].id = int(i);
  link_tensors(p, access);
  link_sends(p, access);
  p.check_order();
  return p;
}

}  // namespace cstsim
