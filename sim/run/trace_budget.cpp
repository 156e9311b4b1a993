#include "sim/run/trace_budget.h"

#include <fmt/format.h>

#include "core/input_error.h"

namespace cstsim {

namespace {
constexpr uint64_t kBytesPerActionRow = 40;  // "12,1048576,1049600,sram.ifmap.read,byte,131072\n"
}

TraceEstimate estimate_trace(const Plan& plan, const ArchSpec& arch, int64_t window, size_t actions) {
  TraceEstimate e;
  const long double peak = (long double)arch.rows * arch.cols * arch.precision.pack * arch.clusters;
  long double cycles = 0;
  for (const LayerPlan& l : plan.layers) cycles += (long double)l.macs() / peak;
  e.min_cycles = int64_t(std::min<long double>(cycles, 9e18L));
  const long double windows = cycles / window + plan.layers.size();  // a layer starts a window of its own
  e.bytes = uint64_t(std::min<long double>(windows * actions * kBytesPerActionRow, 1.8e19L));
  return e;
}

void check_trace_budget(const Plan& plan, const ArchSpec& arch, int64_t window, size_t actions, uint64_t max_bytes) {
  if (max_bytes == 0) return;
  const TraceEstimate e = estimate_trace(plan, arch, window, actions);
  if (e.bytes <= max_bytes) return;
  int64_t fits = window;  // the power-of-two multiple of the window that brings the estimate under the limit
  while (fits < (int64_t(1) << 40) && estimate_trace(plan, arch, fits, actions).bytes > max_bytes) fits *= 2;
  const bool coarser = estimate_trace(plan, arch, fits, actions).bytes <= max_bytes;
  throw InputError("--max-trace-bytes", 0, "",
                   fmt::format("the trace would take about {:.3g} bytes ({} cycles at least, windows of {} cycles, "
                               "{} actions), more than {}: {}raise the limit, or run with --no-trace",
                               double(e.bytes), e.min_cycles, window, actions, max_bytes,
                               coarser ? fmt::format("give --window {}, ", fits) : ""));
}

}  // namespace cstsim
