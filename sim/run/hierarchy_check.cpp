#include "sim/run/hierarchy_check.h"

#include <fmt/format.h>

#include "core/arith.h"
#include "core/input_error.h"
#include "sim/config/accelerator_spec.h"
#include "models/scratchpad/scratchpad.h"

namespace cstsim {

namespace {

std::unique_ptr<spad::Scratchpad> make_scratchpad(const ArchSpec& a) {
  try {
    return std::make_unique<spad::Scratchpad>(scratchpad_params(a));
  } catch (const std::invalid_argument& e) {
    throw InputError(a.source, 0, "scratchpad", e.what());
  }
}

}  // namespace

void check_scratchpad(const ArchSpec& a) { make_scratchpad(a); }

void check_hierarchy(const ArchSpec& a, const LayerDmaPlan& dma) {
  const std::unique_ptr<spad::Scratchpad> spad = make_scratchpad(a);
  // The array alone must leave the DMA at least one port slot in every cycle.
  const int64_t acc = a.precision.accumulator_bytes(), word = a.scratchpad.word_bytes;
  const Matrix tile = tile_matrix(a.dataflow), stream = stream_matrix(a.dataflow);
  const std::pair<spad::Partition, int64_t> need[3] = {
      // a stream vector (2:4 weights: up to the four activations of every group of two rows, one more at an edge)
      {spad::partition_named(dma.stream_partition), ceil_div(dma.words_bytes(stream, a.skip_2_4 ? 2 * a.rows + 2 : a.rows), word)},
      {spad::partition_named(dma.stationary_partition), ceil_div(dma.words_bytes(tile, a.cols), word)},  // a row of the tile
      // a result row: written (OS), or read and written back (WS, IS add to partial sums)
      {spad::Partition::Ofmap, (roles(a.dataflow).stationary_outputs ? 1 : 2) * ceil_div(int64_t(a.cols) * acc, word)}};
  for (const auto& [p, words] : need)
    if (words >= spad->layout(p).ports)
      throw InputError(a.source, 0, "scratchpad.banks",
                       fmt::format("the {} partition has {} word ports per cycle; the array alone uses {} of them, "
                                   "leaving none for the DMA",
                                   spad::partition_name(p), spad->layout(p).ports, words));
  const hbm::HbmSpec& hbm_spec = a.hbm_spec;
  if (dma.hbm_end > hbm_spec.org.capacity_bytes())
    throw InputError(a.hbm.spec, 0, "organization",
                     fmt::format("a pass's blocks reach byte {} of HBM, the stack holds {}", dma.hbm_end,
                                 hbm_spec.org.capacity_bytes()));
  const noc::NocConfig& noc = a.noc_config;
  const int x = a.noc.cluster_x < 0 ? noc.cols / 2 : a.noc.cluster_x, y = a.noc.cluster_y < 0 ? noc.rows / 2 : a.noc.cluster_y;
  if (x >= noc.cols || y >= noc.rows)
    throw InputError(a.source, 0, x >= noc.cols ? "noc.cluster_x" : "noc.cluster_y",
                     fmt::format("({}, {}) is outside the {}x{} mesh of {}", x, y, noc.cols, noc.rows, noc.source));
  const auto last = cluster_routers(a, noc.cols, noc.rows, a.clusters).back();
  if (last.second >= noc.rows)
    throw InputError(a.source, 0, "clusters",
                     fmt::format("{} clusters from router ({}, {}) on, row by row, do not fit the {}x{} mesh of {}",
                                 a.clusters, x, y, noc.cols, noc.rows, noc.source));
  if (noc.edge_nodes.empty())
    throw InputError(noc.source, 0, "edge_nodes",
                     "memory: hierarchy attaches the HBM channel controllers to edge nodes; give at least one");
}

void check_hbm_capacity(const ArchSpec& a, const Plan& plan) {
  const uint64_t capacity = a.hbm_spec.org.capacity_bytes();
  for (const LayerPlan& l : plan.layers)
    for (int x = 0; x < kMatrices; ++x) {
      const TensorPlace& t = l.tensors[size_t(x)];
      if (t.addr + uint64_t(t.bytes) > capacity)
        throw InputError(a.hbm.spec, 0, "organization",
                         fmt::format("the workload's tensors need {} bytes of HBM (layer {}'s {} ends there), the "
                                     "stack holds {}",
                                     t.addr + uint64_t(t.bytes), l.name, "ABC"[x], capacity));
    }
}

}  // namespace cstsim
