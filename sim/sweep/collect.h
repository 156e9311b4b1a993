#pragma once
// `cstsim sweep collect <dir>`: one row per task, in task order, with every
// parameter and every headline figure of summary.json and report.json.
//
//   results.csv          index, status, workload, batch, <params>, hash, error,
//                        arch.*, summary totals (cycles, stall_cycles, utilization, sram.*, ...),
//                        machine.*, report totals (V_CST.*, Theta_CST.*, H_peak.*, C_P.*,
//                        energy.*, roofline.*), then host_* (timing; differs run to run)
//   results.columns.csv  column, unit, from (summary.json / report.json / sweep)
//   results.jsonl        the same per task as JSON, quantities with their units
//   missing.txt          index,status,reason of every task not done (absent when all are)
//
// Everything but the host_* columns depends only on the simulations, so a sweep
// run locally and one run through Slurm give identical files once host_* is dropped.
#include <filesystem>

namespace cstsim::sweep {

struct CollectStats {
  int total = 0, done = 0, failed = 0, missing = 0;
};

CollectStats collect(const std::filesystem::path& dir, bool quiet);

}  // namespace cstsim::sweep
