#pragma once
// A piecewise-constant integer function of the cycle, stored as breakpoints: the
// scratchpad's record of port slots in use. Only changes cost anything; a long idle
// stretch is one entry, and equal neighbours are merged so a run of full cycles
// stays one entry however many transfers filled it.
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>

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
    auto it = steps_.upper_bound(from);
    int64_t value = it == steps_.begin() ? 0 : std::prev(it)->second;
    int64_t begin = from;
    for (;;) {
      const int64_t end = it == steps_.end() ? kForever : it->first;
      if (!f(begin, end, value) || it == steps_.end()) return;
      begin = it->first;
      value = it->second;
      ++it;
    }
  }

 private:
  // Makes `t` a breakpoint (same value as before), returns it.
  std::map<int64_t, int64_t>::iterator split(int64_t t);
  // Erases the breakpoint at `t` if it repeats the value before it.
  void merge_at(int64_t t);

  std::map<int64_t, int64_t> steps_;  // cycle -> value from there to the next key
};

}  // namespace cstsim::spad
