#pragma once
// memory: channel. A bandwidth-limited DRAM channel feeding a FIFO of tiles, one
// per fold (TPU v1's weight path: off-chip weight memory -> weight FIFO -> the
// array). Tile g may start when the channel is free and its FIFO slot is: the
// layer start, or when the tile fifo_tiles folds earlier left the FIFO. It takes
// ceil(bytes / bytes-per-cycle) cycles on the channel, then the access latency.
#include <cstdint>
#include <vector>

#include "models/memory/memory_params.h"
#include "models/memory/tile_source.h"

namespace cstsim {

class WeightChannel : public TileSource {
 public:
  WeightChannel(const ChannelParams& spec, double clock_hz, FifoTiles tiles, int64_t layer_start);

  int fifo_tiles() const override { return fifo_tiles_; }
  int64_t ready(int g, const std::vector<int64_t>& load_starts) override;
  const std::vector<Fetch>& fetches() const override { return fetches_; }
  const char* stall_cause() const override { return "memory_bandwidth"; }

 private:
  double bytes_per_cycle_;
  int64_t latency_cycles_;
  int fifo_tiles_;
  FifoTiles tiles_;
  int64_t layer_start_;
  int64_t free_at_ = 0;  // the channel is busy until this cycle
  std::vector<Fetch> fetches_;
};


}  // namespace cstsim
