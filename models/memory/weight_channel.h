#pragma once
// A bandwidth-limited DRAM channel feeding a FIFO of stationary tiles (TPU v1's
// weight path: off-chip weight memory -> weight FIFO -> the array's shift chain).
// Plain C++, shared by the timing and the register-level modes: both ask for the
// tiles in fold order, so both see the same arrival cycles, and the array's
// behaviour around them is what the equivalence tests check.
#include <cstdint>
#include <vector>

#include "sim/config/arch_spec.h"

namespace cstsim {

class WeightChannel {
 public:
  struct Fetch {
    int64_t issue = 0;  // cycle the transfer may start (FIFO slot free)
    int64_t start = 0;  // cycle the channel starts sending it
    int64_t end = 0;    // first cycle after the last byte left the channel
    int64_t ready = 0;  // first cycle the tile can be shifted into the array
    int64_t bytes = 0;
  };

  WeightChannel(const ArchSpec::Channel& spec, double clock_hz);

  // Fetches the next tile (in fold order). `slot_free` is the first cycle its
  // FIFO slot is free: the layer start, or when the tile `fifo_tiles` folds
  // earlier left the FIFO (its load into the array began).
  const Fetch& fetch(int64_t bytes, int64_t slot_free);
  int fifo_tiles() const { return fifo_tiles_; }
  const std::vector<Fetch>& fetches() const { return fetches_; }
  void reset() { fetches_.clear(); free_at_ = 0; }

 private:
  double bytes_per_cycle_;
  int64_t latency_cycles_;
  int fifo_tiles_;
  int64_t free_at_ = 0;  // the channel is busy until this cycle
  std::vector<Fetch> fetches_;
};

}  // namespace cstsim
