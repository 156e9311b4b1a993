#include "sim/run/structural_run.h"

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
  if (arch.dataflow == Dataflow::RS)
    throw InputError("--verify", 0, "", "structural mode has PEs for ws, os and is; row stationary has none yet");
  if (!o.sparsity.empty())
    throw InputError("--verify", 0, "", "structural mode's PEs hold dense weights (leave out --sparsity)");
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
