#include "models/memory/weight_channel.h"

#include <algorithm>
#include <cmath>

namespace cstsim {

WeightChannel::WeightChannel(const ArchSpec::Channel& spec, double clock_hz)
    : bytes_per_cycle_(spec.bandwidth_bytes_per_s / clock_hz),
      latency_cycles_(int64_t(std::ceil(spec.latency_s * clock_hz - 1e-9))),
      fifo_tiles_(spec.fifo_tiles) {}

const WeightChannel::Fetch& WeightChannel::fetch(int64_t bytes, int64_t slot_free) {
  Fetch f;
  f.bytes = bytes;
  f.issue = slot_free;
  f.start = std::max(slot_free, free_at_);
  // Whole cycles on the channel; the transfer is pipelined with the access latency.
  f.end = f.start + int64_t(std::ceil(double(bytes) / bytes_per_cycle_ - 1e-9));
  f.ready = f.end + latency_cycles_;
  free_at_ = f.end;
  fetches_.push_back(f);
  return fetches_.back();
}

}  // namespace cstsim
