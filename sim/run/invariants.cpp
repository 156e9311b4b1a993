#include "sim/run/invariants.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

namespace cstsim {

namespace {

[[noreturn]] void violated(const char* law, size_t layer, const ArrayLayerResult& L, const std::string& detail) {
  throw InvariantError(fmt::format("invariant '{}' violated in layer {} ({}): {}", law, layer, L.shape.name, detail));
}

}  // namespace

void check_invariants(const ArchSpec& a, const std::vector<ArrayLayerResult>& layers) {
  const double pes = double(a.rows) * a.cols * a.clusters;
  double hbm_bytes_per_cycle = 0;
  if (has_hbm(a.memory)) {
    const hbm::HbmSpec& s = a.hbm_spec;
    hbm_bytes_per_cycle = s.peak_gbps() * 1e9 / a.clock_hz;
  }
  for (size_t i = 0; i < layers.size(); ++i) {
    const ArrayLayerResult& L = layers[i];
    int64_t explained = 0;
    for (const auto& [cause, n] : L.stalls) explained += n;
    if (explained != L.stall_cycles)
      violated("stalls", i, L, fmt::format("causes add up to {}, stall cycles are {}", explained, L.stall_cycles));
    for (const auto& [cause, n] : L.stalls)
      if (n < 0) violated("stalls", i, L, fmt::format("cause {} is {} cycles", cause, n));
    if (L.stall_cycles != L.cycles - L.ideal_cycles)
      violated("stalls", i, L,
               fmt::format("stall cycles are {}, cycles - ideal-memory cycles are {} - {}", L.stall_cycles, L.cycles,
                           L.ideal_cycles));
    if (L.has_hierarchy) {
      const HierarchyLayerStats& h = L.hierarchy;
      // Outputs kept on chip (overlap: pipeline) are read out of a scratchpad once and written
      // into one (or, with several clusters, every one).
      const int64_t on_chip_in = h.dma_bytes_on_chip, on_chip_out = h.dma_bytes_on_chip_read;
      if (h.shared.hbm_bytes_read != h.dma_bytes_delivered ||
          h.dma_bytes_delivered + on_chip_in != h.spad_bytes_written)
        violated("bytes", i, L, fmt::format("read: HBM {}, DMA {}, scratchpad {}, on chip {}", h.shared.hbm_bytes_read,
                                            h.dma_bytes_delivered, h.spad_bytes_written, on_chip_in));
      if (h.shared.hbm_bytes_written != h.dma_bytes_sent || h.dma_bytes_sent + on_chip_out != h.spad_bytes_read)
        violated("bytes", i, L,
                 fmt::format("written: HBM {}, DMA {}, scratchpad {}, on chip {}", h.shared.hbm_bytes_written,
                             h.dma_bytes_sent, h.spad_bytes_read, on_chip_out));
    }
    const double span = double(L.end_cycle - L.start_cycle + 1);
    if (span * pes * a.precision.pack < double(L.stats.macs))
      violated("compute", i, L, fmt::format("{} MACs in {} cycles on {} PEs of {} MACs each", L.stats.macs, span, pes,
                                            a.precision.pack));
    const double hbm = L.has_hierarchy
                           ? double(L.hierarchy.shared.hbm_bytes_read + L.hierarchy.shared.hbm_bytes_written)
                           : double(L.dram_bytes);
    if (hbm_bytes_per_cycle > 0 && span * hbm_bytes_per_cycle < hbm)
      violated("bandwidth", i, L,
               fmt::format("{} HBM bytes in {} cycles at a peak of {:.1f} B/cycle", hbm, span, hbm_bytes_per_cycle));
  }
}

void check_work_as_written(const ArchSpec& a, const Workload& w, const std::vector<ArrayLayerResult>& layers,
                           const std::vector<FlashKernelResult>& flash) {
  auto fail = [&](const std::string& where, const std::string& detail) {
    throw InvariantError(fmt::format("invariant 'work as written' violated in {}: {}", where, detail));
  };
  // A layer's MACs from its own shape: repeats x M x N x K, K the kept half where the PEs skip 2:4 weights.
  auto asked = [&](const Layer& l) { return l.repeats * l.M * l.N * (a.skip_2_4 && l.weights_2_4 ? l.K / 2 : l.K); };
  int64_t done = 0, want = 0;
  for (const ArrayLayerResult& r : layers) done += r.stats.macs;
  for (const Layer& l : w.layers) want += asked(l);
  // Layer by layer where the results are the workload's layers in order.
  bool in_order = layers.size() == w.layers.size();
  for (size_t i = 0; in_order && i < layers.size(); ++i) in_order = layers[i].shape.name == w.layers[i].name;
  for (size_t i = 0; in_order && i < layers.size(); ++i)
    if (layers[i].stats.macs != asked(w.layers[i]))
      fail(fmt::format("layer {} ({})", i, w.layers[i].name),
           fmt::format("{} MACs executed, its shape asks for {} ({} x {}x{}x{})", layers[i].stats.macs,
                       asked(w.layers[i]), w.layers[i].repeats, w.layers[i].M, w.layers[i].N, w.layers[i].K));
  if (done != want) fail("the layers", fmt::format("{} MACs executed, the workload's layers ask for {}", done, want));
  // Flash attention: every score's two products, or with a causal mask at least those on and below
  // the diagonal (tiles cut across it compute their whole block).
  for (const FlashAttention& f : w.flash) {
    const FlashKernelResult* r = nullptr;
    for (const FlashKernelResult& k : flash)
      if (k.name == f.name) r = &k;
    if (!r) fail(f.name, "no result for this flash-attention op");
    const int64_t dense = f.dense_macs();
    const int64_t causal_min =  // queries aligned with the last keys; none promised when there are fewer keys
        f.Sq > f.Skv ? 0 : 2 * f.batch * f.heads * f.d * (f.Sq * (f.Sq + 1) / 2 + f.Sq * (f.Skv - f.Sq));
    if (f.causal ? (r->macs < std::min(dense, causal_min) || r->macs > dense) : r->macs != dense)
      fail(f.name, fmt::format("{} MACs executed, its shape asks for {}{}", r->macs, f.causal ? "between " : "",
                               f.causal ? fmt::format("{} and {}", std::min(dense, causal_min), dense)
                                        : std::to_string(dense)));
  }
}

namespace {

void check_scope(const nlohmann::ordered_json& scope, const std::string& where) {
  auto fail = [&](const char* law, const std::string& detail) {
    throw InvariantError(fmt::format("invariant '{}' violated in {}: {}", law, where, detail));
  };
  for (const auto& [precision, macs] : scope.at("C_P").at("O").at("by_precision").items()) {
    const double executed = macs.contains("executed") ? macs["executed"]["value"].get<double>() : 0;
    const double nominal = macs.contains("nominal") ? macs["nominal"]["value"].get<double>() : 0;
    const double padding = macs.contains("padding") ? macs["padding"]["value"].get<double>() : 0;
    const double skipped = macs.contains("skipped") ? macs["skipped"]["value"].get<double>() : 0;
    if (executed != nominal - skipped + padding)
      fail("work", fmt::format("{} MACs executed, {} asked for{}{} ({})", executed, nominal,
                               skipped > 0 ? fmt::format(", {} skipped", skipped) : "",
                               padding > 0 ? fmt::format(" and {} padding lanes", padding) : "", precision));
    // Gated lanes are executed lanes whose activation was zero (no more than executed minus padding).
    const double gated = macs.contains("gated") ? macs["gated"]["value"].get<double>() : 0;
    if (gated > executed - padding)
      fail("gating", fmt::format("{} MAC lanes gated of {} executed ({})", gated, executed - padding, precision));
  }
  const double gross = scope.at("energy").at("E_gross").at("value").get<double>();
  const double landauer = scope.at("energy").at("E_thermo_min").at("value").get<double>();
  if (gross < landauer) fail("landauer", fmt::format("E_gross {} J below the Landauer bound {} J", gross, landauer));
}

}  // namespace

void check_report_scope(const nlohmann::ordered_json& scope, const std::string& what) { check_scope(scope, what); }

}  // namespace cstsim
