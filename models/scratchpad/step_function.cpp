#include "models/scratchpad/step_function.h"

#include <iterator>

namespace cstsim::spad {

int64_t StepFunction::at(int64_t t) const {
  auto it = steps_.upper_bound(t);
  return it == steps_.begin() ? 0 : std::prev(it)->second;
}

std::map<int64_t, int64_t>::iterator StepFunction::split(int64_t t) {
  auto it = steps_.lower_bound(t);
  if (it != steps_.end() && it->first == t) return it;
  const int64_t value = it == steps_.begin() ? 0 : std::prev(it)->second;
  return steps_.emplace_hint(it, t, value);
}

void StepFunction::merge_at(int64_t t) {
  auto it = steps_.find(t);
  if (it == steps_.end()) return;
  const int64_t before = it == steps_.begin() ? 0 : std::prev(it)->second;
  if (it->second == before) steps_.erase(it);
}

void StepFunction::add(int64_t begin, int64_t end, int64_t delta) {
  if (begin >= end || delta == 0) return;
  auto first = split(begin);
  auto last = end == kForever ? steps_.end() : split(end);
  for (auto it = first; it != last; ++it) it->second += delta;
  // Only the two edges can now repeat a neighbour: inside, all values moved together.
  if (end != kForever) merge_at(end);
  merge_at(begin);
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
  steps_.erase(steps_.begin(), steps_.lower_bound(cycle));
  // Keep the value at `cycle` explicit unless it is the implicit 0 before the first key.
  if (value != 0) steps_.emplace(cycle, value);
}

}  // namespace cstsim::spad
