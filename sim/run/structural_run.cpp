#include "sim/run/structural_run.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/input_error.h"

namespace cstsim {

void check_structural(const ArchSpec& arch, const RunOptions& o) {
  if (!o.structural) {
    if (o.vcd_pes) throw InputError("--vcd-pes", 0, "", "needs --verify=structural");
    return;
  }
  if (arch.rows > kStructuralMaxSide || arch.cols > kStructuralMaxSide)
    throw InputError("--verify", 0, "",
                     fmt::format("structural mode elaborates one sc_module per PE and takes arrays up to {}x{}; this "
                                 "one is {}x{} (array.rows, array.cols)",
                                 kStructuralMaxSide, kStructuralMaxSide, arch.rows, arch.cols));
  // Row stationary: a PE's link carries its p psums at once, p at most both scratchpads allow.
  if (arch.dataflow == Dataflow::RS &&
      (std::min(arch.rs.psum_spad, arch.rs.filter_spad) > kStructuralMaxRsWords || arch.rs.ifmap_spad > kStructuralMaxRsWords))
    throw InputError("--verify", 0, "",
                     fmt::format("structural mode's row-stationary PEs hold up to {} psums and {} ifmap words a PE; "
                                 "this arch allows {} and {} (rs.psum_spad, rs.ifmap_spad)",
                                 kStructuralMaxRsWords, kStructuralMaxRsWords,
                                 std::min(arch.rs.psum_spad, arch.rs.filter_spad), arch.rs.ifmap_spad));
}

std::unique_ptr<StructuralArrays> make_structural(const ArchSpec& arch, const RunOptions& o,
                                                  const std::filesystem::path& dir) {
  if (!o.structural) return nullptr;
  StructuralConfig c;
  c.rows = arch.rows;
  c.cols = arch.cols;
  c.lanes = arch.precision.pack;
  c.dataflow = arch.dataflow;
  c.chips = arch.chips;
  c.clusters = arch.clusters;
  c.clock_hz = arch.clock_hz;
  c.sparse_2_4 = arch.skip_2_4;
  c.rs_filter_spad = int(arch.rs.filter_spad);
  c.rs_ifmap_spad = int(arch.rs.ifmap_spad);
  c.rs_psum_spad = int(std::min(arch.rs.psum_spad, arch.rs.filter_spad));  // p <= both (plan/rs_plan.h)
  if (o.vcd_pes) c.vcd = (dir / "pes").string();  // SystemC adds ".vcd"
  return std::make_unique<StructuralArrays>(c);
}

nlohmann::ordered_json structural_summary(StructuralArrays& arrays, const RunOptions& o) {
  arrays.close_trace();
  nlohmann::ordered_json j = {{"passed", true},
                              {"cycles_compared", arrays.cycles_compared()},
                              {"pes", arrays.pes()},
                              {"passes", arrays.passes()}};
  if (o.vcd_pes) j["vcd"] = "pes.vcd";
  return j;
}

}  // namespace cstsim
