#include "sim/workload/pipeline_parallel.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/input_error.h"
#include "sim/workload/data_parallel.h"

namespace cstsim {
namespace {

// First layer of each stage (and the end): each cut at the layer boundary whose running MACs come
// closest to s/P of the total, every stage keeping at least one layer.
std::vector<int> stage_starts(const Workload& w, int stages) {
  const int n = int(w.layers.size());
  if (n < stages)
    throw InputError(w.source, 0, "layers",
                     fmt::format("{} layers do not fill {} pipeline stages (parallel.pipeline)", n, stages));
  std::vector<double> before(size_t(n) + 1, 0);  // MACs of layers [0, i)
  for (int i = 0; i < n; ++i) before[size_t(i) + 1] = before[size_t(i)] + double(w.layers[size_t(i)].macs());
  std::vector<int> starts{0};
  for (int s = 1; s < stages; ++s) {
    const double target = before[size_t(n)] * s / stages;
    int best = starts.back() + 1;
    for (int i = best; i <= n - (stages - s); ++i)
      if (std::abs(before[size_t(i)] - target) < std::abs(before[size_t(best)] - target)) best = i;
    starts.push_back(best);
  }
  starts.push_back(n);
  return starts;
}


int64_t layer_c_bytes(const Layer& l, int value_bits) {
  return (l.repeats * l.M * l.N * (l.dtype_bits > 0 ? l.dtype_bits : value_bits) + 7) / 8;
}

}  // namespace

std::vector<Workload> split_pipeline(const Workload& w, int stages, int m, int value_bits) {
  const Workload mb = m > 1 ? split_data_parallel(w, m, "parallel.micro_batches") : w;
  const std::vector<int> starts = stage_starts(mb, stages);
  const int n = int(mb.layers.size());
  auto stage_of = [&](int position) {  // a layer, or a kernel before layer `position` (n: the last stage)
    return position >= n ? stages - 1 : int(std::upper_bound(starts.begin(), starts.end(), position) - starts.begin()) - 1;
  };
  // Bytes crossing each boundary (s to s+1): every tensor made in a stage <= s that a stage > s reads.
  std::vector<int64_t> crossing(size_t(stages - 1), 0);
  {
    std::map<std::string, std::pair<int, int64_t>> made;  // graph tensors: maker's stage, bytes
    std::map<std::string, int> last_reader;
    auto read = [&](const std::string& t, int stage) {
      if (!t.empty() && made.count(t)) last_reader[t] = std::max(last_reader[t], stage);
    };
    std::vector<int> layer_reader(size_t(n), -1);  // plain workloads: the last stage reading layer i's C
    for (int i = 0; i <= n; ++i) {
      for (const VectorStep& v : mb.vector_steps)
        if (v.before_layer == i) {
          for (const VectorAccess& r : v.reads) read(r.tensor, stage_of(i));
          for (const VectorAccess& x : v.writes) made[x.tensor] = {stage_of(i), v.rows * x.row_bytes};
        }
      for (const FlashAttention& f : mb.flash)
        if (f.before_layer == i) {
          for (const std::string& t : {f.q, f.k, f.v}) read(t, stage_of(i));
          made[f.out] = {stage_of(i), (f.batch * f.Sq * f.heads * f.d * f.dtype_bits + 7) / 8};
        }
      if (i == n) break;
      const Layer& l = mb.layers[size_t(i)];
      read(l.tensors[0], stage_of(i));
      read(l.tensors[1], stage_of(i));
      if (!mb.is_graph) {
        for (int p : {input_producer(mb, size_t(i)), l.weight_layer})
          if (p >= 0) layer_reader[size_t(p)] = std::max(layer_reader[size_t(p)], stage_of(i));
      } else if (!l.tensors[2].empty()) {
        made[l.tensors[2]] = {stage_of(i), layer_c_bytes(l, value_bits)};
      }
    }
    auto add = [&](int from, int to, int64_t bytes) {
      for (int s = from; s < to; ++s) crossing[size_t(s)] += bytes;
    };
    for (const auto& [t, reader] : last_reader) add(made[t].first, reader, made[t].second);
    for (int i = 0; i < n; ++i)
      if (layer_reader[size_t(i)] >= 0) add(stage_of(i), layer_reader[size_t(i)], layer_c_bytes(mb.layers[size_t(i)], value_bits));
  }

  std::vector<Workload> out;
  for (int s = 0; s < stages; ++s) {
    const int first = starts[size_t(s)], end = starts[size_t(s) + 1], count = end - first;
    Workload st = mb;
    st.layers.clear();
    st.vector_steps.clear();
    st.flash.clear();
    st.collectives.clear();
    st.layer_splits.clear();
    st.pipeline_parallel = stages;
    st.data_parallel = 1;  // the micro-batches are that split, but run one after another on this chip
    st.micro_batches = m;
    st.pipeline_stage = s;
    int order = 0;
    auto send = [&](int boundary, int k, int before_layer) {
      WorkloadCollective c;
      c.op = "send";
      c.from = boundary;
      c.to = boundary + 1;
      c.id = boundary * m + k;
      c.bytes = crossing[size_t(boundary)];
      c.name = fmt::format("mb{}.stage{}>{}", k, boundary, boundary + 1);
      c.tensor = fmt::format("the activations of micro-batch {} leaving stage {}", k, boundary);
      c.before_layer = before_layer;
      c.order = order++;
      c.why = "pipeline parallel: the next stage computes on them";
      st.collectives.push_back(std::move(c));
    };
    auto kernels_at = [&](int position, int k) {  // the stage's ops and flash kernels before `position`
      std::vector<std::pair<int, std::pair<bool, size_t>>> at;
      for (size_t j = 0; j < mb.vector_steps.size(); ++j)
        if (mb.vector_steps[j].before_layer == position) at.push_back({mb.vector_steps[j].order, {false, j}});
      for (size_t j = 0; j < mb.flash.size(); ++j)
        if (mb.flash[j].before_layer == position) at.push_back({mb.flash[j].order, {true, j}});
      std::stable_sort(at.begin(), at.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      const std::string suffix = m > 1 ? fmt::format(".mb{}", k) : "";
      const int here = k * count + (position - first);
      for (const auto& [o, which] : at) {
        if (which.first) {
          FlashAttention f = mb.flash[which.second];
          f.name += suffix;
          f.before_layer = here;
          f.order = order++;
          st.flash.push_back(std::move(f));
        } else {
          VectorStep v = mb.vector_steps[which.second];
          v.name += suffix;
          v.before_layer = here;
          v.order = order++;
          st.vector_steps.push_back(std::move(v));
        }
      }
    };
    for (int k = 0; k < m; ++k) {
      if (s > 0 && crossing[size_t(s - 1)] > 0) send(s - 1, k, k * count);
      for (int i = first; i < end; ++i) {
        kernels_at(i, k);
        Layer l = mb.layers[size_t(i)];
        if (m > 1) l.name += fmt::format(".mb{}", k);
        auto here = [&](int j) { return j >= first && j < end ? k * count + (j - first) : -1; };
        auto first_copy = [&](int j) { return j >= first && j < end ? j - first : -1; };
        const int producer = input_producer(mb, size_t(i));
        if (here(producer) >= 0) l.input_layer = here(producer);
        else l.input_layer.reset(), l.reads_previous = false;  // over the link, or a tensor of its own
        l.weight_layer = here(l.weight_layer);
        if (l.attention_scores_layer >= 0) l.attention_scores_layer = here(l.attention_scores_layer);
        for (Layer::SameAs& same : l.same_as)  // weights and shared inputs lie in HBM once: the first copy's
          if (same.layer >= 0) same.layer = first_copy(same.layer);
        for (Layer::SameAs& same : l.same_as)
          if (same.layer < 0) same = {};
        st.layers.push_back(std::move(l));
        st.layer_splits.push_back(fmt::format("stage {} of {}, micro-batch {} of {}", s, stages, k, m));
      }
      if (s == stages - 1) kernels_at(n, k);  // the ops after the last layer
      if (s < stages - 1 && crossing[size_t(s)] > 0) send(s, k, (k + 1) * count);
    }
    out.push_back(std::move(st));
  }
  return out;
}

}  // namespace cstsim
