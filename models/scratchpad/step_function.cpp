#include "models/scratchpad/step_function.h"

#include <algorithm>

namespace cstsim::spad {

size_t StepFunction::lower(int64_t t) const {
  return size_t(std::lower_bound(steps_.begin(), steps_.end(), t,
                                 [](const std::pair<int64_t, int64_t>& s, int64_t c) { return s.first < c; }) -
                steps_.begin());
}

size_t StepFunction::upper(int64_t t) const {
  return size_t(std::upper_bound(steps_.begin(), steps_.end(), t,
                                 [](int64_t c, const std::pair<int64_t, int64_t>& s) { return c < s.first; }) -
                steps_.begin());
}

int64_t StepFunction::at(int64_t t) const {
  const size_t i = upper(t);
  return i == 0 ? 0 : steps_[i - 1].second;
}

size_t StepFunction::split(int64_t t) {
  const size_t i = lower(t);
  if (i < steps_.size() && steps_[i].first == t) return i;
  const int64_t value = i == 0 ? 0 : steps_[i - 1].second;
  steps_.insert(steps_.begin() + long(i), {t, value});
  return i;
}

void StepFunction::merge_at(size_t i) {
  if (i >= steps_.size()) return;
  const int64_t before = i == 0 ? 0 : steps_[i - 1].second;
  if (steps_[i].second == before) steps_.erase(steps_.begin() + long(i));
}

void StepFunction::add(int64_t begin, int64_t end, int64_t delta) {
  if (begin >= end || delta == 0) return;
  const size_t first = split(begin);
  const size_t last = end == kForever ? steps_.size() : split(end);  // after `first`: it stays valid
  for (size_t i = first; i < last; ++i) steps_[i].second += delta;
  // Only the two edges can now repeat a neighbour: inside, all values moved together. The later
  // one first, so the earlier index still holds.
  if (end != kForever) merge_at(last);
  merge_at(first);
}

int64_t StepFunction::integral(int64_t begin, int64_t end) const {
  int64_t sum = 0;
  walk(begin, [&](int64_t b, int64_t e, int64_t value) {
    if (b >= end) return false;
    sum += value * ((e < end ? e : end) - b);
    return e < end;
  });
  return sum;
}

void StepFunction::forget_before(int64_t cycle) {
  const int64_t value = at(cycle);
  const size_t i = lower(cycle);
  steps_.erase(steps_.begin(), steps_.begin() + long(i));
  // Keep the value at `cycle` explicit unless it is the implicit 0 before the first key.
  if (value != 0 && (steps_.empty() || steps_.front().first != cycle)) steps_.insert(steps_.begin(), {cycle, value});
}

}  // namespace cstsim::spad
