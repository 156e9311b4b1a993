#pragma once
// A piecewise-constant integer function of the cycle, stored as breakpoints: the
// scratchpad's record of port slots in use. Only changes cost anything; a long idle
// stretch is one entry, and equal neighbours are merged so a run of full cycles
// stays one entry however many transfers filled it.
//
// The breakpoints are a sorted vector: what is kept is what is in flight (the scratchpad
// forgets the past as the pass goes), a few hundred entries at most, and changes land near
// its end. A std::map's node per breakpoint cost a tenth of a sampled decode step in
// allocation and rebalancing.
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace cstsim::spad {

inline constexpr int64_t kForever = std::numeric_limits<int64_t>::max();

class StepFunction {
 public:
  // Value at cycle t (0 where nothing was ever added).
  int64_t at(int64_t t) const;
  // Adds delta on [begin, end); end may be kForever.
  void add(int64_t begin, int64_t end, int64_t delta);
  // Sum of the values over [begin, end) (end finite).
  int64_t integral(int64_t begin, int64_t end) const;
  // Drops breakpoints before `cycle`; values from `cycle` on are kept.
  void forget_before(int64_t cycle);
  size_t breakpoints() const { return steps_.size(); }

  // Calls f(seg_begin, seg_end, value) for the constant pieces from `from` on, in
  // order, clipped to start at `from`; the last piece ends at kForever. Stops when
  // f returns false.
  template <class F>
  void walk(int64_t from, F&& f) const {
    size_t i = upper(from);
    int64_t value = i == 0 ? 0 : steps_[i - 1].second;
    int64_t begin = from;
    for (;;) {
      const int64_t end = i == steps_.size() ? kForever : steps_[i].first;
      if (!f(begin, end, value) || i == steps_.size()) return;
      begin = steps_[i].first;
      value = steps_[i].second;
      ++i;
    }
  }

 private:
  size_t lower(int64_t t) const;  // first breakpoint at or after t
  size_t upper(int64_t t) const;  // first breakpoint after t
  // Makes `t` a breakpoint (same value as before), returns its index.
  size_t split(int64_t t);
  // Erases breakpoint i if it repeats the value before it.
  void merge_at(size_t i);

  std::vector<std::pair<int64_t, int64_t>> steps_;  // (cycle, value from there to the next), by cycle
};

}  // namespace cstsim::spad
