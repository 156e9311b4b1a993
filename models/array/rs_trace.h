#pragma once
// Row stationary's part of R(t) (models/array/README.md, "Row stationary"): the PEs' three
// scratchpads, the filter, ifmap and psum networks between the global buffer and the PEs, the
// local psum links up the columns, and the DRAM channel; announced pass by pass and step by
// step from the timing mode's cycles (rs_timing.h), which the register level equals on every
// event, in both modes.
#include <cstdint>
#include <string>
#include <vector>

#include "core/precision.h"
#include "models/array/rs_memory.h"
#include "models/array/rs_timing.h"
#include "plan/rs_plan.h"
#include "traces/sink.h"

namespace cstsim {

struct RsTraceIds {
  trace::ResourceId busy = 0, active_pes = 0;
  trace::ResourceId spad_filter = 0, spad_ifmap = 0, spad_psum = 0;  // M (reg), byte
  trace::ResourceId gin_filter = 0, gin_ifmap = 0, gin_psum = 0, gon = 0;  // N, word lanes busy
  trace::ResourceId local = 0;    // N, psums on the local links (one hop a cycle)
  trace::ResourceId dram = 0;     // N, the DRAM channel (memory: channel; has_channel)
  bool has_channel = false;
  trace::ActionId nominal_macs = 0, gated_macs = 0;
  bool gates_zeros = false;
  trace::ActionId spad_write_filter = 0, spad_write_ifmap = 0, spad_read_filter = 0;
  trace::ActionId spad_read_psum = 0, spad_write_psum = 0;  // per ungated MAC, booked with the filter reads
  trace::ActionId dram_read_filter = 0, dram_read_ifmap = 0, dram_write_ofmap = 0;
  int64_t act_bytes = 2, weight_bytes = 2, acc_bytes = 4;
  int64_t register_bytes = 2;  // a scratchpad word: the operand type's
};

struct RsTraceShape {
  int rows = 0, cols = 0;
  Precision precision;
  int64_t filter_spad = 0, ifmap_spad = 0, psum_spad = 0;  // words per PE
  bool channel = false;      // memory: channel: the link's busy time
  bool dram_actions = false;  // memory: channel | hierarchy: the DRAM bytes each transfer moved
  bool gates_zeros = false;   // sparsity.zero_gating: mac.<type>.gated
};

RsTraceIds declare_rs_trace(trace::TraceSink& sink, const RsTraceShape& shape, const std::string& owner);

// Pass `pass` with its steps' cycles; books its MACs, scratchpad fills and every network's words.
void announce_rs_pass(trace::TraceSink& sink, const RsTraceIds& ids, const RsLayerPlan& plan, size_t pass,
                      const RsPassTiming& timing, const RsStepTiming* steps, size_t step_count);

// The DRAM channel's transfers of a layer.
void announce_rs_transfers(trace::TraceSink& sink, const RsTraceIds& ids, const RsTransfer* transfers, size_t count);

}  // namespace cstsim
