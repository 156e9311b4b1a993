#pragma once
// What a running simulation publishes for a progress display on another thread: the
// layer, pass and fold it is in and the cycle it has reached. Written by one model thread
// (relaxed atomic stores, nothing else), read by sim/run/progress.h.
#include <atomic>
#include <cstdint>

namespace cstsim {

struct RunPosition {
  std::atomic<int> layer{0};             // index of the layer being simulated
  std::atomic<int> pass{0}, passes{1};   // its pass being simulated, of how many
  std::atomic<int> fold{0}, folds{0};    // folds of that pass whose data is in (memory simulated), of how many (0: not yet known)
  std::atomic<int64_t> cycle{0};         // accelerator cycle reached
  void at(int l, int64_t c) {
    layer.store(l, std::memory_order_relaxed);
    advance(c);
  }
  // The cycle only moves forward: the closed form reaches a fold's start before the
  // array's thread sleeps its way there.
  void advance(int64_t c) {
    if (c > cycle.load(std::memory_order_relaxed)) cycle.store(c, std::memory_order_relaxed);
  }
  void reached(int folds_in, int64_t c) {
    fold.store(folds_in, std::memory_order_relaxed);
    advance(c);
  }
  void in_pass(int p, int of, int fold_count) {
    fold.store(0, std::memory_order_relaxed);
    folds.store(fold_count, std::memory_order_relaxed);
    passes.store(of, std::memory_order_relaxed);
    pass.store(p, std::memory_order_relaxed);
  }
};

}  // namespace cstsim
