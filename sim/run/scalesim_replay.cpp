#include "sim/run/scalesim_replay.h"

#include <spdlog/spdlog.h>

#include "core/input_error.h"
#include "models/scalesim/scalesim_memory.h"

namespace cstsim {

namespace {

std::optional<ScaleSimMemory> replay(const ArchSpec& a, const Workload& w, size_t i, bool reports) {
  const Layer& l = w.layers[i];
  std::string unlike;  // why SCALE-Sim has no such layer
  if (a.dataflow == Dataflow::RS) unlike = "dataflow: rs";
  else if (a.clusters != 1) unlike = "clusters";
  else if (l.repeats != 1) unlike = "several GEMMs in one layer";
  else if (a.skip_2_4 && l.weights_2_4) unlike = "2:4 weights";
  else if (l.conv && l.conv->dilation != 1) unlike = "a dilated convolution";
  else if (a.precision.pack != 1) unlike = "several operands to a PE word";
  else if (a.ifmap_sram_kib <= 0 || a.filter_sram_kib <= 0 || a.ofmap_sram_kib <= 0) unlike = "unsized SRAMs (sram.*_kib)";
  if (!unlike.empty()) {
    if (a.scalesim_user_bandwidth)
      throw InputError(w.source, l.source_line, l.name,
                       "scalesim.interface_bandwidth: user replays SCALE-Sim's memory, which has no " + unlike);
    spdlog::debug("{}: no SCALE-Sim memory replay ({})", l.name, unlike);
    return std::nullopt;
  }
  scalesim::LayerGeometry g = scalesim::LayerGeometry::gemm(l.M, l.N, l.K);
  if (l.conv) {
    const ConvShape& c = *l.conv;
    g = {c.ifmap_h, c.ifmap_w, c.filter_h, c.filter_w, c.channels, c.filters, c.stride, c.col_stride(), c.out_h(), c.out_w()};
  }
  const scalesim::OperandMatrices operands(g);
  const scalesim::DemandStream demand(operands, a.dataflow, a.rows, a.cols);
  scalesim::MemoryParams p;
  p.ifmap_words = a.ifmap_sram_kib * 1024;  // 1-byte words, as SCALE-Sim v2 has them
  p.filter_words = a.filter_sram_kib * 1024;
  p.ofmap_words = a.ofmap_sram_kib * 1024;
  p.user_bandwidth = a.scalesim_user_bandwidth;
  p.bandwidth = a.scalesim_bandwidth_words;
  ScaleSimMemory m;
  try {
    // CALC: the stalls alone; the full replay gives the same ones (tests/unit/test_scalesim_memory.cpp).
    if (!a.scalesim_user_bandwidth) m = scalesim::calc_stalls(demand, p);
    if (a.scalesim_user_bandwidth || reports) {
      ScaleSimMemory full = scalesim::replay_layer(demand, p);
      if (!a.scalesim_user_bandwidth && (full.stall_cycles != m.stall_cycles || full.total_cycles != m.total_cycles))
        throw std::logic_error("SCALE-Sim's CALC stalls differ between its replays");
      m = std::move(full);
    }
  } catch (const std::runtime_error& e) {  // where SCALE-Sim's own model fails (its words)
    if (a.scalesim_user_bandwidth) throw InputError(w.source, l.source_line, l.name, e.what());
    spdlog::warn("{}: no SCALE-Sim memory {}: {}", l.name, m.total_cycles ? "reports" : "replay", e.what());
    if (m.total_cycles) return m;  // the stalls stand; only the reports are missing
    return std::nullopt;
  }
  spdlog::debug("{}: SCALE-Sim memory replay: {} cycles, {} stalls, DRAM words {} / {} / {}", l.name, m.total_cycles,
                m.stall_cycles, m.dram[0].words, m.dram[1].words, m.dram[2].words);
  return m;
}

}  // namespace

void add_scalesim_memory(const ArchSpec& a, const Workload& w, Plan& plan, bool reports) {
  if (a.fold_pipeline != FoldPipeline::ScaleSim) return;
  for (size_t i = 0; i < w.layers.size(); ++i) plan.layers.at(i).scalesim = replay(a, w, i, reports);
}

}  // namespace cstsim
