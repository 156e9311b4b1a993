#include "sim/mapper/program_order.h"

#include <algorithm>
#include <tuple>

namespace cstsim {

std::vector<Step> layer_steps(const std::vector<LayerPlan>& layers) {
  std::vector<Step> out;
  out.reserve(layers.size());
  for (size_t i = 0; i < layers.size(); ++i) {
    Step s;
    s.name = layers[i].name;
    s.layer = int(i);
    if (layers[i].rs)
      s.what = RsLayerStep{};
    else
      s.what = GemmLayerStep{};
    out.push_back(std::move(s));
  }
  return out;
}

Program order_program(std::vector<Step> layers, std::vector<Placed<VectorKernelPlan>> vector,
                      std::vector<Placed<FlashKernelPlan>> flash, const std::vector<WorkloadCollective>& collectives) {
  // (before layer, graph order, collective first, arrival) -> step
  std::vector<std::pair<std::tuple<int, int, int, size_t>, Step>> kernels;
  auto add = [&](int before, int order, int rank, Step s) {
    kernels.push_back({{before, order, rank, kernels.size()}, std::move(s)});
  };
  for (const WorkloadCollective& c : collectives) {
    Step s;
    s.name = c.name;
    s.what = CollectiveStep{c};  // the plan's part of it; its place stays with the workload
    add(c.before_layer, c.order, 0, std::move(s));
  }
  for (Placed<VectorKernelPlan>& k : vector) {
    Step s;
    s.name = k.kernel.name;
    s.what = VectorKernelStep{std::move(k.kernel)};
    add(k.before_layer, k.order, 1, std::move(s));
  }
  for (Placed<FlashKernelPlan>& k : flash) {
    Step s;
    s.name = k.kernel.name;
    s.what = FlashKernelStep{std::move(k.kernel)};
    add(k.before_layer, k.order, 1, std::move(s));
  }
  std::sort(kernels.begin(), kernels.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  Program p;
  p.steps.reserve(layers.size() + kernels.size());
  size_t k = 0;
  for (size_t i = 0; i <= layers.size(); ++i) {
    for (; k < kernels.size() && size_t(std::get<0>(kernels[k].first)) <= i; ++k) p.steps.push_back(std::move(kernels[k].second));
    if (i < layers.size()) p.steps.push_back(std::move(layers[i]));
  }
  for (; k < kernels.size(); ++k) p.steps.push_back(std::move(kernels[k].second));  // past the last layer
  for (size_t i = 0; i < p.steps.size(); ++i) {
    p.steps[i].id = int(i);
    p.steps[i].deps.clear();
    if (i > 0) p.steps[i].deps.push_back(int(i) - 1);
  }
  return p;
}

}  // namespace cstsim
