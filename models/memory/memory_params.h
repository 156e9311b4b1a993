#pragma once
// What feeds the array, as the models take it: the memory mode and the params of
// the two tile paths (a channel, or a DMA from HBM). The front fills them in
// (sim/config/accelerator_spec.h); the models never see the arch file.
#include <cstdint>

namespace cstsim {

// "ideal": operands are always on chip in time. "channel" / "hbm": the stationary
// operand comes from DRAM through one bandwidth-limited channel or one HBM stack
// into a FIFO of tiles, TPU v1 style. "hierarchy": every operand moves
// HBM -> mesh NoC -> DMA -> banked scratchpad, and the outputs back.
enum class MemoryMode { Ideal, Channel, Hbm, Hierarchy };
const char* to_string(MemoryMode m);  // as the YAML spells it

struct ChannelParams {              // memory: channel
  double bandwidth_bytes_per_s = 0;  // channel.bandwidth_gbps x 1e9
  double latency_s = 0;              // channel.latency_ns
  int fifo_tiles = 4;                // tiles fetched ahead
};

struct HbmDmaParams {        // memory: hbm | hierarchy: how the DMA reads HBM
  int fifo_tiles = 4;        // stationary tiles fetched ahead
  int max_outstanding = 64;  // reads in flight
  int64_t request_bytes = 64;  // size of one read
  int requests_per_cycle = 1;  // memory: hierarchy: requests each DMA queue issues per cycle
  int64_t controller_queue_flits = 0;  // memory: hierarchy: an HBM controller port's buffer, 0 unbounded
};

}  // namespace cstsim
