#include "models/memory/weight_channel.h"

#include <algorithm>
#include <cmath>

#include "core/registry.h"

namespace cstsim {

WeightChannel::WeightChannel(const ChannelParams& spec, double clock_hz, FifoTiles tiles, int64_t layer_start)
    : bytes_per_cycle_(spec.bandwidth_bytes_per_s / clock_hz),
      latency_cycles_(int64_t(std::ceil(spec.latency_s * clock_hz - 1e-9))),
      fifo_tiles_(spec.fifo_tiles),
      tiles_(std::move(tiles)),
      layer_start_(layer_start) {}

int64_t WeightChannel::ready(int g, const std::vector<int64_t>& load_starts) {
  while (int(fetches_.size()) <= g) {
    const int j = int(fetches_.size());
    Fetch f;
    f.bytes = tiles_.bytes[size_t(j)];
    f.issue = j >= fifo_tiles_ ? tiles_.frees_at(j - fifo_tiles_, load_starts) : layer_start_;
    f.start = std::max(f.issue, free_at_);
    // Whole cycles on the channel; the transfer is pipelined with the access latency.
    f.end = f.start + int64_t(std::ceil(double(f.bytes) / bytes_per_cycle_ - 1e-9));
    f.ready = f.end + latency_cycles_;
    free_at_ = f.end;
    fetches_.push_back(f);
  }
  return fetches_[size_t(g)].ready;
}

namespace {

class ChannelMemory final : public MemoryBackend {
 public:
  std::unique_ptr<TileSource> make_source(const AcceleratorSpec& a, const FoldPlan& plan, int64_t start, const LayerDmaPlan*, bool) const override {
    return std::make_unique<WeightChannel>(a.channel, a.clock_hz, fifo_tiles_of(plan, a.array.precision, a.channel.padded_tiles), start);
  }
};

}  // namespace

CSTSIM_REGISTER(MemoryBackend, ChannelMemory, "channel")

}  // namespace cstsim
