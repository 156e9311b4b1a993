#pragma once
// The memory side of the accelerator as SystemC modules: per cluster a scratchpad
// and a DMA, and one NoC and one HBM (a controller per channel) shared by the
// clusters. Each holds its params by value and declares and announces the part of
// R(t) it owns. The timing itself runs in their plain-C++ engines (Scratchpad,
// DmaSystem with its Network and HbmDevice) on one exact time base over their three
// clocks (models/dma/dma_system.h); under memory: hierarchy the NoC and the HBM step
// their parts in their own processes, the DMA engines in accelerator.memory's
// (memory_system.h).
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "models/accelerator/accelerator_spec.h"
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

class ScratchpadModule : public sc_core::sc_module {
 public:
  ScratchpadModule(sc_core::sc_module_name name, spad::ScratchpadParams params);
  const spad::ScratchpadParams& params() const { return params_; }
  // `prefix` names a cluster's own resources ("cluster1.", or "" for one cluster).
  void declare(trace::TraceSink& sink, const std::string& prefix);
  void announce(trace::TraceSink& sink, const ResidencyTimeline& residency) const;

 private:
  const spad::ScratchpadParams params_;
  trace::ResourceId partition_[3] = {0, 0, 0};  // ifmap, filter, ofmap: resident bytes
};

class DmaModule : public sc_core::sc_module {
 public:
  DmaModule(sc_core::sc_module_name name, HbmDmaParams params, Dataflow dataflow);
  const HbmDmaParams& params() const { return params_; }
  void declare_hbm_actions(trace::TraceSink& sink);   // bytes it reads from and writes to HBM
  void declare_spad_actions(trace::TraceSink& sink);  // bytes it writes into and reads out of the scratchpad
  // The pass's transfers' bytes before cycle `before` not yet announced, in the cycle they moved.
  void announce(trace::TraceSink& sink, HierarchySource& source, int64_t before) const;

 private:
  const HbmDmaParams params_;
  const Dataflow dataflow_;
  trace::ActionId read_tile_ = 0, read_stream_ = 0, write_ = 0, spad_write_ = 0, spad_read_ = 0;
};

class NocModule : public sc_core::sc_module {
 public:
  NocModule(sc_core::sc_module_name name, noc::NocConfig config, MemorySystemModule& memory);
  const noc::NocConfig& config() const { return config_; }
  void declare_links(trace::TraceSink& sink);
  void declare_hops(trace::TraceSink& sink);
  void announce(trace::TraceSink& sink, const SharedTimeline& timeline) const;

 private:
  void guarded_step() { guard_process([this] { memory_.run(MemoryPart::Noc); }); }  // what SC_*(step) registers

  const noc::NocConfig config_;
  MemorySystemModule& memory_;
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
  const hbm::HbmSpec& spec() const { return spec_; }
  void declare(trace::TraceSink& sink);
  // A piece of a pass's timeline, everything before `before` (MemoryGroup::kTimelineEnd: the
  // pass's last piece); a channel's active standby that goes on past it is announced up to it
  // and carried into the next piece.
  void announce(trace::TraceSink& sink, const SharedTimeline& timeline, int64_t before);
  // hbm.tensors (V_M[hbm]): what layer `layer` holds in HBM, from its start (once per start).
  void announce_tensors(trace::TraceSink& sink, int layer, int64_t start);
  const std::vector<std::unique_ptr<HbmControllerModule>>& controllers() const { return controllers_; }

 private:
  void guarded_step() { guard_process([this] { memory_->run(MemoryPart::Hbm); }); }  // what SC_*(step) registers

  const hbm::HbmSpec spec_;
  MemorySystemModule* memory_;
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
