#pragma once
// The memory side of the accelerator as SystemC modules: per cluster a scratchpad
// and a DMA, and one NoC and one HBM (a controller per channel) shared by the
// clusters. Each holds its params by value and declares and announces the part of
// R(t) it owns. The timing itself runs in their plain-C++ engines (Scratchpad,
// DmaSystem with its Network and HbmDevice) on one exact time base over their three
// clocks (models/dma/dma_system.h); under memory: hierarchy each steps its part in its
// own process (memory_system.h), and TLM-2.0 sockets join them: DMA <-> mesh router per
// cluster, mesh controller port -> stack.
#include <memory>
#include <string>
#include <deque>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "models/accelerator/accelerator_spec.h"
#include "models/base/process_guard.h"
#include "models/accelerator/memory_system.h"
#include "models/accelerator/module_info.h"
#include "models/array/fold_timing.h"
#include "models/memory/hierarchy_source.h"
#include "traces/sink.h"

namespace cstsim {

// memory: channel | hbm: the FIFO of tiles at the array and the DRAM path feeding it
// (TPU v1's weight FIFO): the path's busy time, the FIFO's bytes, the bytes read.
class TileFifoModule : public sc_core::sc_module {
 public:
  TileFifoModule(sc_core::sc_module_name name, int fifo_tiles, int64_t tile_bytes, Dataflow dataflow,
                 const Precision& precision);
  void declare(trace::TraceSink& sink);
  void announce(trace::TraceSink& sink, const FoldPlan& folds, const std::vector<TileSource::Fetch>& fetches,
                const LayerTiming& timing) const;

 private:
  const int fifo_tiles_;
  const int64_t tile_bytes_;
  const Precision precision_;
  const Dataflow dataflow_;
  trace::ResourceId busy_ = 0, fifo_ = 0;
  trace::ActionId read_ = 0;
};

// A cluster's scratchpad. Its process (memory: hierarchy) moves the DMA's words through the
// ports the array leaves free: the landing buffer's writes and the egress queue's reads.
class ScratchpadModule : public sc_core::sc_module {
 public:
  ScratchpadModule(sc_core::sc_module_name name, spad::ScratchpadParams params, MemorySystemModule& memory,
                   int cluster);
  const spad::ScratchpadParams& params() const { return params_; }
  const MemorySystemModule::Stats& process_stats() const { return stats_; }
  // `prefix` names a cluster's own resources ("cluster1.", or "" for one cluster).
  void declare(trace::TraceSink& sink, const std::string& prefix);
  void announce(trace::TraceSink& sink, const ResidencyTimeline& residency) const;

 private:
  void guarded_step() { guard_process([this] { memory_.run(MemoryPart::Ports, cluster_, stats_); }); }

  const spad::ScratchpadParams params_;
  MemorySystemModule& memory_;
  const int cluster_;
  MemorySystemModule::Stats stats_;
  trace::ResourceId partition_[3] = {0, 0, 0};  // ifmap, filter, ofmap: resident bytes
};

// What a packet carries across a DMA-to-mesh socket besides the base protocol's command and
// length: the memory system it belongs to, the packet as the mesh takes it (its cycle among
// them: the parts keep their own exact clocks, so the socket's delay stays zero), and on the way
// out of the mesh at a cluster's router its delivery. Each crossing is one posted transaction
// (BEGIN_REQ, TLM_COMPLETED): the mesh's own buffers and credits are its back-pressure.
struct MeshEdgeExtension : tlm::tlm_extension<MeshEdgeExtension> {
  DmaSystem* dma = nullptr;
  noc::Delivery delivery;  // into the mesh: its packet alone
  tlm::tlm_extension_base* clone() const override { return new MeshEdgeExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const MeshEdgeExtension&>(other);
  }
};

// A cluster's DMA engine. memory: hierarchy: its process issues its requests and sends its
// write data (`memory`), through `to_noc` into its mesh router; what the mesh delivers there
// (read data, write acks, other clusters' on-chip copies) comes in on `from_noc`. memory: hbm:
// its cluster's sequencer thread runs it (no `memory`, no sockets bound).
class DmaModule : public sc_core::sc_module {
 public:
  DmaModule(sc_core::sc_module_name name, HbmDmaParams params, Dataflow dataflow, MemorySystemModule* memory = nullptr,
            int cluster = 0);
  tlm_utils::simple_initiator_socket_optional<DmaModule> to_noc;
  tlm_utils::simple_target_socket_optional<DmaModule> from_noc;
  // A memory system of the run sends this cluster's packets through to_noc.
  void connect(MemoryGroup& group);
  const HbmDmaParams& params() const { return params_; }
  const MemorySystemModule::Stats& process_stats() const { return stats_; }
  void declare_hbm_actions(trace::TraceSink& sink);   // bytes it reads from and writes to HBM
  void declare_spad_actions(trace::TraceSink& sink);  // bytes it writes into and reads out of the scratchpad
  // The pass's transfers' bytes before cycle `before` not yet announced, in the cycle they moved.
  void announce(trace::TraceSink& sink, HierarchySource& source, int64_t before) const;

 private:
  void guarded_step() { guard_process([this] { memory_->run(MemoryPart::DmaEarly, cluster_, stats_); }); }
  void send(DmaSystem& dma, const noc::Packet& packet);
  tlm::tlm_sync_enum take(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase, sc_core::sc_time& delay);

  tlm::tlm_generic_payload payload_;  // a posted transaction is done when the call returns: one is enough
  MeshEdgeExtension* edge_;           // payload_'s, which owns it
  const HbmDmaParams params_;
  const Dataflow dataflow_;
  MemorySystemModule* memory_;
  const int cluster_;
  MemorySystemModule::Stats stats_;
  trace::ActionId read_tile_ = 0, read_stream_ = 0, write_ = 0, spad_write_ = 0, spad_read_ = 0;
};

// What a request carries across the mesh-to-stack socket besides the base protocol's command,
// address and length: the memory system it belongs to, the request as the controller takes it
// (its arrival cycle among them: the parts keep their own exact clocks, so the socket's delay
// stays zero), and on the way back its completion.
struct HbmEdgeExtension : tlm::tlm_extension<HbmEdgeExtension> {
  DmaSystem* dma = nullptr;
  hbm::HbmRequest request;
  hbm::HbmCompletion completion;
  tlm::tlm_extension_base* clone() const override { return new HbmEdgeExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const HbmEdgeExtension&>(other);
  }
};

class NocModule : public sc_core::sc_module {
 public:
  NocModule(sc_core::sc_module_name name, noc::NocConfig config, MemorySystemModule& memory);
  // Initiator at the mesh's controller ports: a request that reached its controller goes to the
  // stack as a READ or WRITE (nb_transport_fw, BEGIN_REQ); the stack answers on the backward
  // path (BEGIN_RESP) once its data is done.
  tlm_utils::simple_initiator_socket<NocModule> to_hbm;
  // Per cluster k (socket index k): its DMA's packets into its router, and what the mesh
  // delivers at that router out to the DMA (MeshEdgeExtension).
  tlm_utils::multi_passthrough_target_socket<NocModule> from_dma;
  tlm_utils::multi_passthrough_initiator_socket<NocModule> to_dma;
  // A memory system of the run sends its controller-bound requests through to_hbm, and its
  // deliveries at the clusters through to_dma.
  void connect(MemoryGroup& group);
  const noc::NocConfig& config() const { return config_; }
  const MemorySystemModule::Stats& process_stats() const { return stats_; }
  // Transactions across its sockets (counts): packets the DMAs sent in, deliveries out to them,
  // requests handed to the stack and completions it answered.
  struct EdgeStats {
    int64_t from_dma = 0, to_dma = 0, to_hbm = 0, from_hbm = 0;
  };
  const EdgeStats& edge_stats() const { return edges_; }
  void declare_links(trace::TraceSink& sink);
  void declare_hops(trace::TraceSink& sink);
  void announce(trace::TraceSink& sink, const SharedTimeline& timeline) const;

 private:
  void guarded_step() { guard_process([this] { memory_.run(MemoryPart::Noc, 0, stats_); }); }
  void send(DmaSystem& dma, const hbm::HbmRequest& request);
  void deliver(DmaSystem& dma, int cluster, const noc::Delivery& delivery);
  tlm::tlm_sync_enum take(int cluster, tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  tlm::tlm_sync_enum from_hbm(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase, sc_core::sc_time& delay);

  std::vector<std::unique_ptr<tlm::tlm_generic_payload>> free_;  // payloads not in flight, for reuse
  tlm::tlm_generic_payload delivery_;  // posted: one is enough
  MeshEdgeExtension* delivery_edge_;   // delivery_'s, which owns it
  const noc::NocConfig config_;
  MemorySystemModule& memory_;
  MemorySystemModule::Stats stats_;
  EdgeStats edges_;
  trace::ResourceId links_busy_ = 0;
  trace::ActionId hop_ = 0;
};

// One HBM channel's controller (bank state machines, refresh, FR-FCFS): its data
// buses and row buffers in R(t).
class HbmControllerModule : public sc_core::sc_module {
 public:
  HbmControllerModule(sc_core::sc_module_name name, int channel, const hbm::HbmSpec& spec);
  void declare(trace::TraceSink& sink);
  void announce(trace::TraceSink& sink, const SharedTimeline& timeline) const;

 private:
  const int channel_;
  const int pseudo_channels_;
  const int64_t row_bytes_, row_buffer_bytes_;
  trace::ResourceId busy_ = 0, rows_ = 0;
  trace::ActionId bytes_ = 0;  // hbm_ch.NN: bytes its data buses moved, for its Gamma_comm edge
};

class HbmStackModule : public sc_core::sc_module {
 public:
  // `resident` (per layer): bytes of tensors held in HBM while that layer runs.
  // `memory` (memory: hierarchy): the clock whose stack slot its process steps.
  HbmStackModule(sc_core::sc_module_name name, hbm::HbmSpec spec, std::vector<int64_t> resident = {},
                 MemorySystemModule* memory = nullptr);
  // Target for the mesh's requests (NocModule::to_hbm): BEGIN_REQ is taken at once (TLM_UPDATED,
  // END_REQ: the controller queue is the stack's); BEGIN_RESP goes back when the data is done.
  tlm_utils::simple_target_socket_optional<HbmStackModule> from_noc;  // unbound under memory: hbm
  // A memory system of the run answers its requests through from_noc.
  void connect(MemoryGroup& group);
  const hbm::HbmSpec& spec() const { return spec_; }
  const MemorySystemModule::Stats& process_stats() const { return stats_; }
  void declare(trace::TraceSink& sink);
  // A piece of a pass's timeline, everything before `before` (MemoryGroup::kTimelineEnd: the
  // pass's last piece); a channel's active standby that goes on past it is announced up to it
  // and carried into the next piece.
  void announce(trace::TraceSink& sink, const SharedTimeline& timeline, int64_t before);
  // hbm.tensors (V_M[hbm]): what layer `layer` holds in HBM, from its start (once per start).
  void announce_tensors(trace::TraceSink& sink, int layer, int64_t start);
  const std::vector<std::unique_ptr<HbmControllerModule>>& controllers() const { return controllers_; }

 private:
  void guarded_step() { guard_process([this] { memory_->run(MemoryPart::Hbm, 0, stats_); }); }
  tlm::tlm_sync_enum take(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  void respond(const DmaSystem& dma, const hbm::HbmCompletion& c);

  // Requests in the stack, for their BEGIN_RESP: per memory system, by id from `first` (ids
  // are handed out in issue order, so the window spans what is in flight).
  struct InFlight {
    const DmaSystem* dma = nullptr;
    uint64_t first = 0;
    std::deque<tlm::tlm_generic_payload*> by_id;
  };
  InFlight& in_flight(const DmaSystem* dma);
  std::vector<InFlight> in_flight_;
  const hbm::HbmSpec spec_;
  MemorySystemModule* memory_;
  MemorySystemModule::Stats stats_;
  // Command counters (hbm_cmd.act, .pre, .rd, .wr, .ref, .refpb; PREA counts as pre), the
  // channel-cycles a channel holds an open row (hbm_bg.active: active standby on top of
  // hbm_bg.standby, every channel every cycle), booked in the cycle they happen so energy
  // follows the commands and the channel count (configs/energy/README.md).
  std::array<trace::ActionId, hbm::kNumCmds> command_{};
  trace::ActionId active_ = 0;
  std::vector<int64_t> resident_;
  trace::ResourceId tensors_ = 0;
  int64_t tensors_from_ = -1;       // the pass start hbm.tensors was last announced for
  std::vector<int64_t> open_since_;  // per channel: since when a row is open (-1: none), across pieces
  std::vector<std::vector<std::pair<int64_t, int64_t>>> refresh_left_;  // per channel: refresh past the last piece
  std::vector<std::unique_ptr<HbmControllerModule>> controllers_;
};

}  // namespace cstsim
