#pragma once
// What a running simulation publishes for a progress display on another thread: the
// layer it is in and the cycle it has reached. Written by the model (relaxed atomic
// stores, nothing else), read by sim/run/progress.h.
#include <atomic>
#include <cstdint>

namespace cstsim {

struct RunPosition {
  std::atomic<int> layer{0};         // index of the layer being simulated
  std::atomic<int64_t> cycle{0};     // accelerator cycle reached
  void at(int l, int64_t c) {
    layer.store(l, std::memory_order_relaxed);
    cycle.store(c, std::memory_order_relaxed);
  }
};

}  // namespace cstsim
