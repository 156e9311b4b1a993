#include "models/noc/noc_stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace cstsim::noc {

void LatencyHistogram::add(int64_t cycles) {
  if (cycles < 0) throw std::logic_error("noc: negative packet latency");
  if (size_t(cycles) >= bins_.size()) bins_.resize(size_t(cycles) + 1 + bins_.size() / 2, 0);
  ++bins_[size_t(cycles)];
  min_ = count_ ? std::min(min_, cycles) : cycles;
  max_ = count_ ? std::max(max_, cycles) : cycles;
  ++count_;
  sum_ += cycles;
}

int64_t LatencyHistogram::percentile(double q) const {
  if (count_ == 0) return 0;
  const uint64_t rank = std::max<uint64_t>(1, uint64_t(std::ceil(q * double(count_))));
  uint64_t seen = 0;
  for (size_t v = 0; v < bins_.size(); ++v) {
    seen += bins_[v];
    if (seen >= rank) return int64_t(v);
  }
  return max_;
}

}  // namespace cstsim::noc
