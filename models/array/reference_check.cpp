#include "models/array/reference_check.h"

#include <fmt/format.h>

namespace cstsim {

std::vector<std::string> reference_problems(const RegisterArray& grid, const std::vector<ArrayEvent>& expected,
                                            int64_t grid_end, int64_t timing_end, const ArrayLayerStats& stats,
                                            const GemmData& data) {
  std::vector<std::string> problems;
  // Timing: every event of the register grid must be where the closed form puts it.
  if (std::string d = first_difference(expected, grid.events()); !d.empty()) problems.push_back("timing: " + d);
  if (grid_end != timing_end)
    problems.push_back(fmt::format("timing: layer ends at cycle {}, timing mode says {}", grid_end, timing_end));
  // Values: the exact integer GEMM.
  const std::vector<int32_t> want = reference_gemm(data);
  const std::vector<int32_t> got = grid.result();
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] != got[i]) {
      problems.push_back(fmt::format("value: C[{}][{}] = {}, reference GEMM gives {}", int64_t(i) / data.N,
                                     int64_t(i) % data.N, got[i], want[i]));
      break;
    }
  }
  // Traffic and work: counted word by word, against the closed form.
  const EdgeCounts& c = grid.counts();
  const EdgeCounts& e = stats.sram;
  if (c.ifmap_reads != e.ifmap_reads || c.filter_reads != e.filter_reads || c.ofmap_writes != e.ofmap_writes)
    problems.push_back(fmt::format("sram: counted ifmap/filter/ofmap {}/{}/{}, expected {}/{}/{}", c.ifmap_reads,
                                   c.filter_reads, c.ofmap_writes, e.ifmap_reads, e.filter_reads, e.ofmap_writes));
  if (grid.mac_count() != stats.macs)
    problems.push_back(fmt::format("macs: counted {}, expected {}", grid.mac_count(), stats.macs));
  return problems;
}

}  // namespace cstsim
