#include "sim/sweep/result_columns.h"

#include <algorithm>
#include <utility>

#include "sim/config/arch_schema.h"

namespace cstsim::sweep {
namespace {

bool starts(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Exact columns of summary.json's total and the sweep's own: (unit, what).
const std::vector<std::pair<std::string, ColumnInfo>>& exact() {
  static const std::vector<std::pair<std::string, ColumnInfo>> rows = {
      {"index", {"", "the point's index (tasks.csv, points/<index>/)", ""}},
      {"status", {"", "done, failed or missing", ""}},
      {"workload", {"", "the workload's name", ""}},
      {"batch", {"", "batch size the workload was scaled to", ""}},
      {"hash", {"", "the point's config hash (summary.json config_hash)", ""}},
      {"error", {"", "why a point failed or is missing", ""}},
      {"cycles", {"cycle", "the run's cycles (summary.json cycles_convention)", ""}},
      {"macs", {"MAC", "MACs of the run", ""}},
      {"utilization", {"1", "MACs over the array's peak in those cycles", ""}},
      {"ideal_cycles", {"cycle", "the same plan with ideal memory", ""}},
      {"stall_cycles", {"cycle", "cycles - ideal_cycles, split by cause in stalls.*", ""}},
      {"collective_cycles", {"cycle", "chip 0's cycles in collectives", ""}},
      {"dram_bytes", {"byte", "bytes read from DRAM (HBM or the channel)", ""}},
      {"cycles_ci95", {"cycle", "half-width of the cycles' 95 % interval; 0: simulated exactly (docs/sampling.md)", ""}},
      {"fidelity.requested", {"", "--fidelity asked for: exact, sampled or auto", ""}},
      {"fidelity.result", {"", "sampled when any pass was estimated, else exact", ""}},
      {"fidelity.folds", {"fold", "folds of the passes through the memory hierarchy", ""}},
      {"fidelity.estimated_folds", {"fold", "of those, not simulated but estimated", ""}},
      {"fidelity.estimated_share", {"1", "estimated_folds over folds", ""}},
      {"fidelity.kernel_tiles", {"tile", "tiles of the sampled vector kernels", ""}},
      {"fidelity.estimated_tiles", {"tile", "of those, not simulated but estimated", ""}},
      {"time_s", {"s", "the run's time", "Theta_CST.T_wall"}},
      {"arch.clock_hz", {"Hz", "the array's clock", ""}},
      {"arch.rows", {"PE", "array height", "array.rows"}},
      {"arch.cols", {"PE", "array width", "array.cols"}},
      {"arch.pes", {"PE", "rows x cols x clusters", ""}},
      {"arch.dataflow", {"", "dataflow", "dataflow"}},
      {"arch.fold_pipeline", {"", "fold pipeline", "fold_pipeline"}},
      {"arch.memory", {"", "memory mode", "memory"}},
      {"arch.clusters", {"", "clusters of the array", "clusters"}},
      {"arch.operand_bits", {"bit", "operand width", ""}},
      {"arch.accumulator_bits", {"bit", "accumulator width", ""}},
      {"arch.macs_per_pe_cycle", {"MAC/cycle", "MACs a PE does a cycle at the operand type", ""}},
      {"C_P.T", {"s", "the cost vector's time", "Theta_CST.T_wall"}},
      {"roofline.time_simulated", {"s", "the simulated time the roofline compares", "Theta_CST.T_wall"}},
      {"C_P.E", {"J", "the cost vector's energy", "energy.E_gross"}},
      {"energy.E_attrib", {"J", "energy attributed to the run (exclusive: all of it)", "energy.E_gross"}},
      {"H_peak.D_peak", {"device", "devices in use at the peak", "Theta_CST.D_peak"}},
  };
  return rows;
}

// Column families by prefix: (prefix, what). Units of report.json figures come with them.
const std::vector<std::pair<const char*, const char*>>& families() {
  static const std::vector<std::pair<const char*, const char*>> rows = {
      {"stalls.", "stall cycles of this root cause (docs/guide.md, layers.csv's stall_<cause>)"},
      {"sram.", "array-edge SRAM accesses, words"},
      {"arch.pe_types.", "MACs a PE does a cycle of this type"},
      {"arch.", "the point's accelerator as run (summary.json arch)"},
      {"machine.", "the machine the roofline prices against (report.json machine)"},
      {"V_CST.", "occupancy integral over the run, the integral of R(t) of one class (docs/guide.md glossary)"},
      {"Theta_CST.", "the run's shape: wall and serial time, parallelism, peaks (docs/guide.md glossary)"},
      {"H_peak.", "peak holding of one class (docs/guide.md glossary)"},
      {"C_P.", "the cost vector (docs/guide.md glossary)"},
      {"energy.E_marg_by_action.", "marginal energy of one action"},
      {"energy.", "energy: E_gross = E_base + E_marg (docs/guide.md glossary)"},
      {"roofline.", "the roofline of the run (report.json roofline)"},
      {"host_", "host timing of the point (differs between runs)"},
  };
  return rows;
}

}  // namespace

ColumnInfo column_info(const std::string& column, const std::vector<std::string>& params) {
  ColumnInfo info;
  for (const auto& [name, row] : exact())
    if (name == column) info = row;
  if (std::find(params.begin(), params.end(), column) != params.end()) {
    info.what = "a sweep parameter (config key)";
    if (const schema::Key* k = arch_schema().find(column)) info.unit = k->unit, info.what += ": " + k->doc;
    return info;
  }
  // C_P's occupancy integrals are V_CST's.
  if (starts(column, "C_P.V_")) info.same_as = "V_CST." + column.substr(4), info.what = "the cost vector's integral";
  if (starts(column, "stalls.")) info.unit = "cycle";
  if (starts(column, "sram.")) info.unit = "word";
  if (starts(column, "arch.pe_types.")) info.unit = "MAC/cycle";
  if (info.what.empty())
    for (const auto& [prefix, what] : families())
      if (starts(column, prefix)) {
        info.what = what;
        break;
      }
  // A parameter that is not swept keeps its arch.* column.
  if (!info.same_as.empty() && !starts(info.same_as, "Theta_CST.") && !starts(info.same_as, "energy.") &&
      !starts(info.same_as, "V_CST.") &&
      std::find(params.begin(), params.end(), info.same_as) == params.end())
    info.same_as.clear();
  return info;
}

}  // namespace cstsim::sweep
