#pragma once
// Progress of one long run on stderr, from a thread of its own that reads the model's
// RunPosition: on a terminal a bar redrawn twice a second (from 1 s on), else one line
// every `every_s` seconds. The fraction done counts multiply-accumulates: the layers
// before the current one, and of the current one the share of its passes and of the
// current pass's folds whose data is in (the memory simulation is most of a pass's
// wall time). The ETA assumes the rest runs at the same MACs per second.
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
  // Where the run is, as read from a RunPosition.
  struct Where {
    int layer = 0, pass = 0, passes = 1, fold = 0, folds = 0;  // folds 0: not known yet
    int64_t cycle = 0;
  };
  // The line shown after `elapsed_s` seconds (tests).
  std::string line(const Where& at, double elapsed_s) const;

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
