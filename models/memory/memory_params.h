#pragma once
// What feeds the array, as the models take it: the memory mode (plan/memory_mode.h) and
// the params of the two tile paths (a channel, or a DMA from HBM). The front fills them in
// (sim/config/accelerator_spec.h); the models never see the arch file.
#include <cstdint>

#include "plan/memory_mode.h"

namespace cstsim {

struct ChannelParams {              // memory: channel
  double bandwidth_bytes_per_s = 0;  // channel.bandwidth_gbps x 1e9
  double latency_s = 0;              // channel.latency_ns
  int fifo_tiles = 4;                // tiles fetched ahead
  // channel.tile_layout: padded - DRAM holds every stationary tile as a whole R x C block (the
  // edge tiles' unused rows and columns as zeros) and the channel moves it whole (TPU v1's weight
  // tiles, ISCA 2017 section 2's LSTM1 example); packed (false) moves only the tile's own words.
  bool padded_tiles = false;
};

struct HbmDmaParams {        // memory: hbm | hierarchy: how the DMA reads HBM
  int fifo_tiles = 4;        // stationary tiles fetched ahead
  int max_outstanding = 64;  // reads in flight
  int64_t request_bytes = 64;  // size of one read
  int requests_per_cycle = 1;  // memory: hierarchy: requests each DMA queue issues per cycle
  int64_t controller_queue_flits = 0;  // memory: hierarchy: an HBM controller port's buffer, 0 unbounded
};

}  // namespace cstsim
