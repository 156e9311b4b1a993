#include "models/memory/hierarchy_trace.h"

#include <fmt/format.h>

#include "models/noc/mesh.h"

namespace cstsim {

void HierarchyTrace::declare(trace::TraceSink& sink, const AcceleratorSpec& a, int cluster, const std::string& prefix) {
  const hbm::HbmSpec& hs = a.hbm;
  const noc::NocConfig& nc = a.noc;
  const noc::Mesh mesh(nc.cols, nc.rows, nc.edge_nodes);
  using trace::ResourceClass;
  ids_.row_bytes = hs.org.row_bytes();
  ids_.flit_bytes = nc.flit_bytes;
  const int64_t banks = int64_t(hs.org.pcs()) * hs.org.banks_per_pc();
  owns_shared_ = cluster == 0;
  if (owns_shared_) {
    for (int ch = 0; ch < hs.org.channels; ++ch) {  // a channel's data buses and row buffers
      const std::string name = fmt::format("hbm.ch{:02d}", ch);
      ids_.channel_busy.push_back(
          sink.declare({0, name + ".busy", ResourceClass::Network, "link", hs.org.pseudo_channels, "hbm", ""}));
      ids_.channel_rows.push_back(sink.declare(
          {0, name + ".row_buffers", ResourceClass::Memory, "byte", banks / hs.org.channels * ids_.row_bytes, "hbm", "hbm"}));
    }
    ids_.links_busy =
        sink.declare({0, "noc.links_busy", ResourceClass::Network, "link", int64_t(mesh.links().size()), "noc", ""});
  }
  const int64_t bytes[3] = {a.scratchpad.ifmap_bytes, a.scratchpad.filter_bytes, a.scratchpad.ofmap_bytes};
  const char* names[3] = {"spad.ifmap", "spad.filter", "spad.ofmap"};
  for (int p = 0; p < 3; ++p)
    ids_.spad[p] =
        sink.declare({0, prefix + names[p], ResourceClass::Memory, "byte", bytes[p], prefix + "spad", "sram"});
  const bool ws = roles(a.array.dataflow).tile_is_filter;  // the tile operand is B
  ids_.hbm_read_stationary = sink.declare_action(ws ? "hbm.read.filter" : "hbm.read.ifmap", "byte");
  ids_.hbm_read_stream = sink.declare_action(ws ? "hbm.read.ifmap" : "hbm.read.filter", "byte");
  ids_.hbm_write = sink.declare_action("hbm.write.ofmap", "byte");
  ids_.noc_hop = sink.declare_action("noc.hop", "byte");
  ids_.spad_write = sink.declare_action("sram.write.dma", "byte");
  ids_.spad_read = sink.declare_action("sram.read.dma", "byte");
}

// The layer's memory traffic is simulated before its first fold starts, so all of
// it is announced then, ahead of time, like the array's folds.
// One cluster (the first) reports the shared HBM and NoC, idle or not.
void HierarchyTrace::announce_shared(trace::TraceSink& sink, const MemoryGroup& group) const {
  if (!owns_shared_) return;
  const SharedTimeline& t = group.timeline();
  for (size_t ch = 0; ch < ids_.channel_busy.size(); ++ch) {
    for (const auto& [cycle, v] : t.hbm_busy_pcs[ch]) sink.set(cycle, ids_.channel_busy[ch], v);
    for (const auto& [cycle, v] : t.hbm_open_rows[ch]) sink.set(cycle, ids_.channel_rows[ch], v * ids_.row_bytes);
  }
  for (const auto& [cycle, v] : t.noc_busy_links) sink.set(cycle, ids_.links_busy, v);
  for (const auto& [cycle, n] : t.noc_flit_hops) sink.count(cycle, ids_.noc_hop, n * ids_.flit_bytes);
}

void HierarchyTrace::announce(trace::TraceSink& sink, const HierarchySource& source) const {
  announce_shared(sink, source.group());
  for (int p = 0; p < 3; ++p)
    for (const auto& [cycle, v] : source.residency()[size_t(p)]) sink.set(cycle, ids_.spad[p], v);
  const LayerDmaPlan& plan = source.dma_plan();
  for (size_t k = 0; k < plan.reads.size(); ++k) {
    const TransferState& tr = source.read_state(int(k));
    sink.count(tr.first_issue, plan.reads[k].operand == Operand::Stationary ? ids_.hbm_read_stationary
                                                                              : ids_.hbm_read_stream,
                 tr.what.bytes);
    sink.count(tr.done, ids_.spad_write, tr.what.bytes);
  }
  for (size_t k = 0; k < plan.writes.size(); ++k) {
    const TransferState& tr = source.write_state(int(k));
    sink.count(tr.first_issue, ids_.spad_read, tr.what.bytes);
    sink.count(tr.first_issue, ids_.hbm_write, tr.what.bytes);
  }
}

}  // namespace cstsim
