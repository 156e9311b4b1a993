#include "sim/run/progress.h"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

namespace cstsim {

RunProgress::RunProgress(std::vector<Layer> layers, double every_s, bool terminal)
    : layers_(std::move(layers)), every_s_(every_s), terminal_(terminal), start_(std::chrono::steady_clock::now()) {
  for (const Layer& l : layers_) {
    macs_before_.push_back(total_macs_);
    total_macs_ += l.macs;
  }
  if (every_s_ > 0 && !layers_.empty()) thread_ = std::thread([this] { loop(); });
}

RunProgress::~RunProgress() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (drawn_) std::fputs("\r\033[K", stderr);  // the bar goes; the summary follows on a clean line
}

std::string RunProgress::line(const Where& at, double elapsed_s) const {
  const size_t l = std::min(size_t(std::max(at.layer, 0)), layers_.size() - 1);
  const int passes = std::max(at.passes, 1);
  const double in_pass = at.folds > 0 ? std::clamp(double(at.fold) / at.folds, 0.0, 1.0) : 0.0;
  const double in_layer = (std::clamp(at.pass, 0, passes - 1) + in_pass) / passes;
  const double done =
      total_macs_ > 0 ? (double(macs_before_[l]) + in_layer * double(layers_[l].macs)) / double(total_macs_) : 0.0;
  const std::string eta = done > 0 ? fmt::format("ETA {:.0f} s", elapsed_s * (1 - done) / done) : "ETA -";
  const std::string pass = passes > 1 ? fmt::format(", pass {}/{}", at.pass + 1, passes) : "";
  const std::string fold = at.folds > 0 ? fmt::format(", fold {}/{}", at.fold, at.folds) : "";
  const std::string where = fmt::format("layer {}/{} {}{}{}, cycle {}, {:.0f} %, {:.1f} s, {}", l + 1, layers_.size(),
                                        layers_[l].name, pass, fold, at.cycle, 100 * done, elapsed_s, eta);
  if (!terminal_) return "progress: " + where;
  const int width = 24, filled = int(done * width + 0.5);
  return fmt::format("[{}{}] {}", std::string(size_t(filled), '#'), std::string(size_t(width - filled), '.'), where);
}

void RunProgress::loop() {
  // A terminal gets a bar from 1 s on, redrawn twice a second; a log a line per interval.
  const double first = terminal_ ? 1.0 : every_s_, period = terminal_ ? 0.5 : every_s_;
  double next = first;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    const auto due = start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(next));
    if (stop_cv_.wait_until(lock, due, [this] { return stop_; })) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const auto get = [](const auto& a) { return a.load(std::memory_order_relaxed); };
    const std::string text = line({get(position_.layer), get(position_.pass), get(position_.passes),
                                   get(position_.fold), get(position_.folds), get(position_.cycle)},
                                  elapsed);
    if (terminal_)
      std::fprintf(stderr, "\r\033[K%s", text.c_str());
    else
      std::fprintf(stderr, "%s\n", text.c_str());
    std::fflush(stderr);
    drawn_ = terminal_;
    next += period;
  }
}

}  // namespace cstsim
