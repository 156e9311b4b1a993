#pragma once
// The trace's size, estimated before a run: actions.csv holds a row per window and action
// counted in it, and dominates long runs (rt.bin grows with folds, not cycles). The estimate takes
// the fewest cycles the layers can take (their MACs at the array's peak) and every declared action
// in every window; above --max-trace-bytes the run is refused with the window that would fit.
#include <cstdint>

#include "plan/plan.h"
#include "sim/config/arch_spec.h"

namespace cstsim {

struct TraceEstimate {
  int64_t min_cycles = 0;  // the layers' MACs at the arrays' peak
  uint64_t bytes = 0;      // of actions.csv at that many cycles, every action in every window
};

TraceEstimate estimate_trace(const Plan& plan, const ArchSpec& arch, int64_t window, size_t actions);

// InputError on --max-trace-bytes (with the window that would fit) when the estimate is past it.
void check_trace_budget(const Plan& plan, const ArchSpec& arch, int64_t window, size_t actions, uint64_t max_bytes);

}  // namespace cstsim
