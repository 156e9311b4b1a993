#pragma once
// Progress of one long run on stderr, from a thread of its own that reads the model's
// RunPosition: on a terminal a bar redrawn twice a second (from 1 s on), else one line
// every `every_s` seconds. The fraction done is the multiply-accumulates of the layers
// before the current one over the workload's, so the ETA assumes the rest runs at the
// same MACs per second.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/progress.h"

namespace cstsim {

class RunProgress {
 public:
  struct Layer {
    std::string name;
    int64_t macs;
  };
  // every_s <= 0: nothing is shown (the thread is not started).
  RunProgress(std::vector<Layer> layers, double every_s, bool terminal);
  ~RunProgress();  // stops the thread and clears the bar
  RunProgress(const RunProgress&) = delete;
  RunProgress& operator=(const RunProgress&) = delete;
  RunPosition& position() { return position_; }
  // The line shown after `elapsed_s` seconds at `position` (tests).
  std::string line(int layer, int64_t cycle, double elapsed_s) const;

 private:
  void loop();

  std::vector<Layer> layers_;
  std::vector<int64_t> macs_before_;  // per layer: MACs of the layers before it
  int64_t total_macs_ = 0;
  double every_s_;
  bool terminal_;
  RunPosition position_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  bool drawn_ = false;
  std::thread thread_;
};

}  // namespace cstsim
