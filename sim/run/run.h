#pragma once
// `cstsim run`: config -> workload -> array model -> report, in one direction.
#include <cstdint>
#include <string>

#include "sim/config/arch_spec.h"

namespace cstsim {

// --fidelity. exact: every fold through the memory (the reference; --verify, the goldens).
// sampled: each pass through the full hierarchy that can be is sampled (models/memory/
// sampled_source.h): exact fill and drain, windows of the body, the rest estimated with a 95 %
// interval. auto: sampled for the passes of at least kAutoSampleFolds folds, the rest exact.
enum class Fidelity { Exact, Sampled, Auto };
inline constexpr int64_t kAutoSampleFolds = 512;
inline const char* to_string(Fidelity f) { return f == Fidelity::Exact ? "exact" : f == Fidelity::Sampled ? "sampled" : "auto"; }

struct RunOptions {
  std::string arch_path;
  std::string workload_path;
  std::string out_dir;
  bool force = false;    // --force: replace an existing --out that is not a run directory
  Overrides overrides;
  bool verify = false;   // register-level reference mode, checked against a plain GEMM
  // --verify=structural: also PEs as sc_modules checked against the register grid every cycle
  // (sim/run/structural_run.h); --vcd-pes: their signals to <out>/pes.vcd.
  bool structural = false, vcd_pes = false;
  std::string train;     // --train none | selective | full: the workload's training step (sim/workload/training.h)
  std::string sparsity;  // --sparsity 2:4: the weights' structured sparsity (sim/workload/sparsity.h)
  uint64_t seed = 1;     // operand values for --verify
  bool print_table = true;
  bool trace = true;      // false: no trace/, no report.json (summary only)
  bool check_hbm = true;  // false (--no-hbm-check): no HBM protocol checker, for speed
  // --scalesim-reports all: under fold_pipeline: scalesim also BANDWIDTH_REPORT.csv and
  // DETAILED_ACCESS_REPORT.csv, whose replay of SCALE-Sim's memory is most of such a run's time.
  bool scalesim_memory_reports = false;
  Fidelity fidelity = Fidelity::Exact;
  int64_t window = 1024;  // action-counter window of the trace, cycles
  // The trace may not grow past this (0: no limit); a run whose estimate is already past it is
  // refused before it starts (sim/run/trace_budget.h).
  uint64_t max_trace_bytes = uint64_t(4) << 30;
  std::string energy_table;   // configs/energy/*.yaml; "" = the default table
  std::string normalization;  // optional: declares references, weights, boundary for V_CST*
  int64_t fault_cycle = -1;  // --inject-fault: checker self-test
  int fault_row = 0, fault_col = 0, fault_cluster = 0;
  // --inject-plan-fault LAYER: halve K in every pass the plan makes of LAYER, a planning error the
  // register grid and its reference share; the work-as-written law must stop the run (exit 3).
  std::string plan_fault_layer;
  // Seconds between progress lines on stderr when it is not a terminal (a terminal gets a
  // bar); 0: none.
  double progress_every = 10;
};

// Returns the process exit status: 0 ok, 1 verification failed. A broken law throws InvariantError.
// Bad input throws InputError before anything is written.
int run_simulation(const RunOptions& options);

// Whether this process has started its simulation (sc_start): after a failure, SystemC's threads
// may then be suspended mid-run.
bool simulation_started();

}  // namespace cstsim
