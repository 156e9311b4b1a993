#include "models/accelerator/memory_modules.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "models/noc/topology.h"

namespace cstsim {

using trace::ResourceClass;

TileFifoModule::TileFifoModule(sc_core::sc_module_name name, int fifo_tiles, int64_t tile_bytes, Dataflow dataflow,
                               const Precision& precision)
    : sc_module(name), fifo_tiles_(fifo_tiles), tile_bytes_(tile_bytes), precision_(precision), dataflow_(dataflow) {}

void TileFifoModule::declare(trace::TraceSink& sink) {
  busy_ = sink.declare({0, "dram.channel.busy", ResourceClass::Network, "link", 1, "dram", "", "dram>sram",
                        "actions:hbm.read."});
  fifo_ = sink.declare({0, "dram.fifo", ResourceClass::Memory, "byte", fifo_tiles_ * tile_bytes_, "dram", "sram"});
  read_ = sink.declare_action(roles(dataflow_).tile_is_filter ? "hbm.read.filter" : "hbm.read.ifmap", "byte");
}

// The path's whole schedule for the pass is known when it starts (tiles are fetched
// in fold order), so it is announced then, ahead of time.
void TileFifoModule::announce(trace::TraceSink& sink, const FoldPlan& folds,
                              const std::vector<TileSource::Fetch>& fetches, const LayerTiming& timing) const {
  // Transfers may overlap (an HBM serves the next tile while finishing one): the
  // path counts busy over the union of the transfer intervals (starts are in order).
  int64_t busy_from = -1, busy_to = -1;
  for (const TileSource::Fetch& f : fetches) {
    if (f.start > busy_to) {
      if (busy_to > busy_from) {
        sink.add(busy_from, busy_, 1);
        sink.add(busy_to, busy_, -1);
      }
      busy_from = f.start;
    }
    busy_to = std::max(busy_to, f.end);
  }
  if (busy_to > busy_from) {
    sink.add(busy_from, busy_, 1);
    sink.add(busy_to, busy_, -1);
  }
  const FifoTiles tiles = fifo_tiles_of(folds, precision_);  // for the hold times (the bytes are the fetches')
  for (size_t g = 0; g < fetches.size(); ++g) {
    const TileSource::Fetch& f = fetches[g];
    // The tile holds a FIFO slot from the start of its transfer until it leaves the FIFO.
    sink.add(f.start, fifo_, f.bytes);
    sink.add(timing.folds[g].start + tiles.hold[g], fifo_, -f.bytes);
    sink.count(f.start, read_, f.bytes);
  }
}

ScratchpadModule::ScratchpadModule(sc_core::sc_module_name name, spad::ScratchpadParams params,
                                   MemorySystemModule& memory, int cluster)
    : sc_module(name), params_(std::move(params)), memory_(memory), cluster_(cluster) {
  SC_HAS_PROCESS(ScratchpadModule);
  SC_METHOD(guarded_step);  // woken at its ports' next move (memory_system.h)
  sensitive << memory_.wake_event(MemoryPart::Ports, cluster_);
  dont_initialize();
}

void ScratchpadModule::declare(trace::TraceSink& sink, const std::string& prefix) {
  const int64_t bytes[3] = {params_.ifmap_bytes, params_.filter_bytes, params_.ofmap_bytes};
  const char* names[3] = {"spad.ifmap", "spad.filter", "spad.ofmap"};
  for (int p = 0; p < 3; ++p)
    partition_[p] = sink.declare({0, prefix + names[p], ResourceClass::Memory, "byte", bytes[p], prefix + "spad", "sram"});
}

void ScratchpadModule::announce(trace::TraceSink& sink, const ResidencyTimeline& residency) const {
  for (int p = 0; p < 3; ++p)
    for (const auto& [cycle, v] : residency[size_t(p)].steps) sink.set(cycle, partition_[p], v);
}

DmaModule::DmaModule(sc_core::sc_module_name name, HbmDmaParams params, Dataflow dataflow, MemorySystemModule* memory,
                     int cluster)
    : sc_module(name),
      to_noc("to_noc"),
      from_noc("from_noc"),
      edge_(new MeshEdgeExtension),
      params_(params),
      dataflow_(dataflow),
      memory_(memory),
      cluster_(cluster) {
  payload_.set_extension(edge_);
  from_noc.register_nb_transport_fw(this, &DmaModule::take);
  if (!memory_) return;
  SC_HAS_PROCESS(DmaModule);
  SC_METHOD(guarded_step);  // woken at its next issue or injection (memory_system.h)
  sensitive << memory_->wake_event(MemoryPart::DmaEarly, cluster_);
  dont_initialize();
}

void DmaModule::connect(MemoryGroup& group) {
  if (cluster_ >= group.clusters()) return;
  DmaSystem& dma = group.dma();
  dma.set_mesh_send(cluster_, [this, &dma](const noc::Packet& p) { send(dma, p); });
}

void DmaModule::send(DmaSystem& dma, const noc::Packet& packet) {
  payload_.set_command(tlm::TLM_WRITE_COMMAND);
  payload_.set_address(0);
  payload_.set_data_length(static_cast<unsigned int>(packet.bytes));
  payload_.set_streaming_width(static_cast<unsigned int>(packet.bytes));
  payload_.set_data_ptr(nullptr);  // a timing model: no data moves
  payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  edge_->dma = &dma;
  edge_->delivery.packet = packet;
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  if (to_noc->nb_transport_fw(payload_, phase, delay) != tlm::TLM_COMPLETED)
    throw std::logic_error(fmt::format("{}: the mesh did not take a packet", name()));
}

tlm::tlm_sync_enum DmaModule::take(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase, sc_core::sc_time&) {
  const MeshEdgeExtension* e = payload.get_extension<MeshEdgeExtension>();
  if (phase != tlm::BEGIN_REQ || !e || !e->dma)
    throw std::logic_error(fmt::format("{}: a delivery without its memory system", name()));
  e->dma->deliver_to_cluster(cluster_, e->delivery);
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
  return tlm::TLM_COMPLETED;
}

void DmaModule::declare_hbm_actions(trace::TraceSink& sink) {
  const bool filter_tiles = roles(dataflow_).tile_is_filter;  // the tile operand is B
  read_tile_ = sink.declare_action(filter_tiles ? "hbm.read.filter" : "hbm.read.ifmap", "byte");
  read_stream_ = sink.declare_action(filter_tiles ? "hbm.read.ifmap" : "hbm.read.filter", "byte");
  write_ = sink.declare_action("hbm.write.ofmap", "byte");
}

void DmaModule::declare_spad_actions(trace::TraceSink& sink) {
  spad_write_ = sink.declare_action("sram.write.dma", "byte");
  spad_read_ = sink.declare_action("sram.read.dma", "byte");
}

void DmaModule::announce(trace::TraceSink& sink, HierarchySource& source, int64_t before) const {
  using Kind = HierarchySource::ActionKind;
  source.take_actions(before, [&](Kind kind, int64_t cycle, int64_t bytes) {
    const trace::ActionId id = kind == Kind::HbmReadTile     ? read_tile_
                               : kind == Kind::HbmReadStream ? read_stream_
                               : kind == Kind::SpadWrite     ? spad_write_
                               : kind == Kind::SpadRead      ? spad_read_
                                                             : write_;
    sink.count(cycle, id, bytes);
  });
}

NocModule::NocModule(sc_core::sc_module_name name, noc::NocConfig config, MemorySystemModule& memory)
    : sc_module(name),
      to_hbm("to_hbm"),
      from_dma("from_dma"),
      to_dma("to_dma"),
      delivery_edge_(new MeshEdgeExtension),
      config_(std::move(config)),
      memory_(memory) {
  to_hbm.register_nb_transport_bw(this, &NocModule::from_hbm);
  from_dma.register_nb_transport_fw(this, &NocModule::take);
  delivery_.set_extension(delivery_edge_);
  SC_HAS_PROCESS(NocModule);
  SC_METHOD(guarded_step);  // woken at the mesh's next event (memory_system.h)
  sensitive << memory_.wake_event(MemoryPart::Noc);
  dont_initialize();
}

void NocModule::connect(MemoryGroup& group) {
  DmaSystem& dma = group.dma();
  dma.set_memory_submit([this, &dma](const hbm::HbmRequest& r) { send(dma, r); });
  dma.set_mesh_deliver([this, &dma](int cluster, const noc::Delivery& d) { deliver(dma, cluster, d); });
}

tlm::tlm_sync_enum NocModule::take(int, tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase, sc_core::sc_time&) {
  const MeshEdgeExtension* e = payload.get_extension<MeshEdgeExtension>();
  if (phase != tlm::BEGIN_REQ || !e || !e->dma)
    throw std::logic_error(fmt::format("{}: a packet without its memory system", name()));
  e->dma->take_from_cluster(e->delivery.packet);
  ++edges_.from_dma;
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
  return tlm::TLM_COMPLETED;
}

void NocModule::deliver(DmaSystem& dma, int cluster, const noc::Delivery& d) {
  delivery_.set_command(tlm::TLM_WRITE_COMMAND);
  delivery_.set_address(0);
  delivery_.set_data_length(static_cast<unsigned int>(d.packet.bytes));
  delivery_.set_streaming_width(static_cast<unsigned int>(d.packet.bytes));
  delivery_.set_data_ptr(nullptr);
  delivery_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  delivery_edge_->dma = &dma;
  delivery_edge_->delivery = d;
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  if (to_dma[cluster]->nb_transport_fw(delivery_, phase, delay) != tlm::TLM_COMPLETED)
    throw std::logic_error(fmt::format("{}: cluster {}'s DMA did not take a delivery", name(), cluster));
  ++edges_.to_dma;
}

void NocModule::send(DmaSystem& dma, const hbm::HbmRequest& request) {
  if (free_.empty()) {
    free_.push_back(std::make_unique<tlm::tlm_generic_payload>());
    free_.back()->set_extension(new HbmEdgeExtension);  // the payload owns it
  }
  tlm::tlm_generic_payload* p = free_.back().release();
  free_.pop_back();
  p->set_command(request.is_write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  p->set_address(request.addr);
  p->set_data_length(static_cast<unsigned int>(request.bytes));
  p->set_streaming_width(static_cast<unsigned int>(request.bytes));
  p->set_data_ptr(nullptr);  // a timing model: no data moves
  p->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  HbmEdgeExtension* e = p->get_extension<HbmEdgeExtension>();
  e->dma = &dma;
  e->request = request;
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  const tlm::tlm_sync_enum s = to_hbm->nb_transport_fw(*p, phase, delay);
  if (s != tlm::TLM_UPDATED || phase != tlm::END_REQ)
    throw std::logic_error(fmt::format("{}: the stack did not take a request", name()));
  ++edges_.to_hbm;
}

tlm::tlm_sync_enum NocModule::from_hbm(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase, sc_core::sc_time&) {
  if (phase != tlm::BEGIN_RESP) throw std::logic_error(fmt::format("{}: unexpected phase from the stack", name()));
  HbmEdgeExtension* e = payload.get_extension<HbmEdgeExtension>();
  e->dma->complete(e->completion);
  ++edges_.from_hbm;
  free_.emplace_back(&payload);
  return tlm::TLM_COMPLETED;
}

void NocModule::declare_links(trace::TraceSink& sink) {
  const noc::Mesh mesh = noc::build_topology(config_);
  // The mesh carries every HBM byte, both ways, between the controllers and the scratchpads.
  links_busy_ = sink.declare({0, "noc.links_busy", ResourceClass::Network, "link", int64_t(mesh.links().size()), "noc",
                              "", "noc>sram", "actions:hbm.read.+hbm.write."});
}

void NocModule::declare_hops(trace::TraceSink& sink) { hop_ = sink.declare_action("noc.hop", "byte"); }

void NocModule::announce(trace::TraceSink& sink, const SharedTimeline& t) const {
  for (const auto& [cycle, v] : t.noc_busy_links.steps) sink.set(cycle, links_busy_, v);
  for (const auto& [cycle, n] : t.noc_flit_hops) sink.count(cycle, hop_, n * config_.flit_bytes);
}

HbmControllerModule::HbmControllerModule(sc_core::sc_module_name name, int channel, const hbm::HbmSpec& spec)
    : sc_module(name),
      channel_(channel),
      pseudo_channels_(spec.org.pseudo_channels),
      row_bytes_(spec.org.row_bytes()),
      row_buffer_bytes_(int64_t(spec.org.pcs()) * spec.org.banks_per_pc() / spec.org.channels * spec.org.row_bytes()) {}

void HbmControllerModule::declare(trace::TraceSink& sink) {
  const std::string name = fmt::format("hbm.ch{:02d}", channel_);  // a channel's data buses and row buffers
  // Every HBM byte crosses one channel's data buses, counted burst by burst (hbm_ch.NN).
  const std::string counter = fmt::format("hbm_ch.{:02d}", channel_);
  bytes_ = sink.declare_action(counter, "byte");
  busy_ = sink.declare({0, name + ".busy", ResourceClass::Network, "link", pseudo_channels_, "hbm", "", "hbm>noc",
                        "actions:" + counter});
  // Open rows are a cache inside the DRAM, not data the accelerator keeps there: their own level,
  // so V_M["hbm"] is the tensors resident in HBM (hbm.tensors, HbmStackModule).
  rows_ = sink.declare({0, name + ".row_buffers", ResourceClass::Memory, "byte", row_buffer_bytes_, "hbm",
                        "hbm_row_buffer"});
}

void HbmControllerModule::announce(trace::TraceSink& sink, const SharedTimeline& t) const {
  for (const auto& [cycle, v] : t.hbm_busy_pcs[size_t(channel_)].steps) sink.set(cycle, busy_, v);
  for (const auto& [cycle, v] : t.hbm_open_rows[size_t(channel_)].steps) sink.set(cycle, rows_, v * row_bytes_);
  for (const auto& [cycle, bytes] : t.hbm_bytes[size_t(channel_)]) sink.count(cycle, bytes_, bytes);
}

HbmStackModule::HbmStackModule(sc_core::sc_module_name name, hbm::HbmSpec spec, std::vector<int64_t> resident,
                               MemorySystemModule* memory)
    : sc_module(name), from_noc("from_noc"), spec_(std::move(spec)), memory_(memory), resident_(std::move(resident)) {
  from_noc.register_nb_transport_fw(this, &HbmStackModule::take);
  if (memory_) {  // memory: hierarchy; under memory: hbm the tile source runs the stack in its cluster's thread
    SC_HAS_PROCESS(HbmStackModule);
    SC_METHOD(guarded_step);  // woken at the stack's next event (memory_system.h)
    sensitive << memory_->wake_event(MemoryPart::Hbm);
    dont_initialize();
  }
  for (int ch = 0; ch < spec_.org.channels; ++ch)
    controllers_.push_back(std::make_unique<HbmControllerModule>(fmt::format("ch{:02d}", ch).c_str(), ch, spec_));
}

void HbmStackModule::connect(MemoryGroup& group) {
  const DmaSystem& dma = group.dma();
  group.dma().set_memory_respond([this, &dma](const hbm::HbmCompletion& c) { respond(dma, c); });
}

tlm::tlm_sync_enum HbmStackModule::take(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase, sc_core::sc_time&) {
  HbmEdgeExtension* e = payload.get_extension<HbmEdgeExtension>();
  if (phase != tlm::BEGIN_REQ || !e || !e->dma)
    throw std::logic_error(fmt::format("{}: a request without its memory system", name()));
  e->dma->hbm().submit(e->request);
  InFlight& f = in_flight(e->dma);
  const uint64_t id = e->request.id;
  if (f.by_id.empty()) f.first = id;
  for (; id < f.first; --f.first) f.by_id.push_front(nullptr);
  if (id - f.first >= f.by_id.size()) f.by_id.resize(size_t(id - f.first + 1), nullptr);
  f.by_id[size_t(id - f.first)] = &payload;
  phase = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

HbmStackModule::InFlight& HbmStackModule::in_flight(const DmaSystem* dma) {
  for (InFlight& f : in_flight_)
    if (f.dma == dma) return f;
  in_flight_.push_back({dma, 0, {}});
  return in_flight_.back();
}

void HbmStackModule::respond(const DmaSystem& dma, const hbm::HbmCompletion& c) {
  InFlight& f = in_flight(&dma);
  tlm::tlm_generic_payload* const* slot =
      c.id >= f.first && c.id - f.first < f.by_id.size() ? &f.by_id[size_t(c.id - f.first)] : nullptr;
  if (!slot || !*slot) throw std::logic_error(fmt::format("{}: a completion for no request", name()));
  tlm::tlm_generic_payload& p = **slot;
  f.by_id[size_t(c.id - f.first)] = nullptr;
  for (; !f.by_id.empty() && !f.by_id.front(); ++f.first) f.by_id.pop_front();
  p.get_extension<HbmEdgeExtension>()->completion = c;
  p.set_response_status(tlm::TLM_OK_RESPONSE);
  tlm::tlm_phase phase = tlm::BEGIN_RESP;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  if (from_noc->nb_transport_bw(p, phase, delay) != tlm::TLM_COMPLETED)
    throw std::logic_error(fmt::format("{}: the mesh did not take a response", name()));
}

void HbmStackModule::declare(trace::TraceSink& sink) {
  for (auto& c : controllers_) c->declare(sink);
  tensors_ = sink.declare({0, "hbm.tensors", ResourceClass::Memory, "byte", int64_t(spec_.org.capacity_bytes()), "hbm",
                           "hbm"});
  for (hbm::Cmd c : hbm::kAllCmds) {
    const char* name = c == hbm::Cmd::ACT   ? "hbm_cmd.act"
                       : c == hbm::Cmd::RD  ? "hbm_cmd.rd"
                       : c == hbm::Cmd::WR  ? "hbm_cmd.wr"
                       : c == hbm::Cmd::REF ? "hbm_cmd.ref"
                       : c == hbm::Cmd::REFPB ? "hbm_cmd.refpb"
                                              : "hbm_cmd.pre";  // PRE and PREA
    command_[size_t(hbm::index(c))] = sink.declare_action(name, "command");
  }
  active_ = sink.declare_action("hbm_bg.active", "channel_cycle");
  // Every channel is powered for the whole run: precharge standby, with active on top.
  sink.count_every_cycle(sink.declare_action("hbm_bg.standby", "channel_cycle"), spec_.org.channels);
}

void HbmStackModule::announce_tensors(trace::TraceSink& sink, int layer, int64_t start) {
  if (start == tensors_from_) return;
  tensors_from_ = start;
  if (size_t(layer) < resident_.size()) sink.set(start, tensors_, resident_[size_t(layer)]);
}

void HbmStackModule::announce(trace::TraceSink& sink, const SharedTimeline& t, int64_t before) {
  for (const auto& c : controllers_) c->announce(sink, t);
  for (size_t k = 0; k < t.hbm_commands.size(); ++k)
    for (const auto& [cycle, n] : t.hbm_commands[k]) sink.count(cycle, command_[k], n);
  // A channel is in active standby while it has a row open or an all-bank refresh runs.
  const bool last_piece = before == MemoryGroup::kTimelineEnd;
  open_since_.resize(t.hbm_open_rows.size(), -1);
  refresh_left_.resize(t.hbm_open_rows.size());
  for (size_t ch = 0; ch < t.hbm_open_rows.size(); ++ch) {
    std::vector<std::pair<int64_t, int64_t>> spans = std::move(refresh_left_[ch]);
    refresh_left_[ch].clear();
    spans.insert(spans.end(), t.hbm_refreshing[ch].begin(), t.hbm_refreshing[ch].end());
    int64_t& open = open_since_[ch];
    for (const auto& [cycle, rows] : t.hbm_open_rows[ch].steps) {  // (cycle, open rows) steps
      if (rows > 0 && open < 0) open = cycle;
      if (rows == 0 && open >= 0) {
        spans.emplace_back(open, cycle);
        open = -1;
      }
    }
    if (!last_piece) {  // what goes on past this piece: up to it now, the rest with the next
      if (open >= 0 && open < before) {
        spans.emplace_back(open, before);
        open = before;
      }
      for (auto& [b, e] : spans)
        if (e > before) {
          refresh_left_[ch].emplace_back(std::max(b, before), e);
          e = std::max(b, before);
        }
    }
    std::sort(spans.begin(), spans.end());
    int64_t from = 0, to = 0;  // the union, one span at a time
    for (const auto& [b, e] : spans) {
      if (e <= b) continue;
      if (b > to) {
        if (to > from) sink.count_span(from, to, active_, 1);
        from = b;
      }
      to = std::max(to, e);
    }
    if (to > from) sink.count_span(from, to, active_, 1);
  }
}

}  // namespace cstsim
