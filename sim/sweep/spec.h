#pragma once
// Sweep specs (configs/sweeps/*.yaml) and their expansion into an indexed,
// stable task list. Schema and expansion order: sim/sweep/README.md.
//
//   base: ../arch/npu-128.yaml               # arch YAML or SCALE-Sim .cfg, relative to the spec
//   workloads: [../workloads/resnet18.csv]   # relative to the spec
//   batch: [1, 4]                            # optional: a graph's batch dimension (or M of every layer) x batch
//   grid: {array.rows: [8, 16], dataflow: [ws, os]}   # dotted `run --set` keys -> values
//   constraints: ["array.rows == array.cols"]          # optional
//   points: [{array.rows: 128, array.cols: 32}]        # optional explicit points
//   set: {fold_pipeline: overlapped}                   # optional fixed overrides
//   run: {window: 1024, timeout: 600, keep_trace: true, trace: true, energy: ../energy/x.yaml, train: none, sparsity: "2:4",
//         fidelity: sampled}
//
// Every problem is one InputError "spec:line: key: message", thrown before
// anything is written.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/arch_spec.h"

namespace cstsim::sweep {

struct RunSettings {
  int64_t window = 0;     // trace window in cycles; 0 = the run's default
  std::string energy;     // energy table (absolute path); "" = the run's default
  double timeout_s = 0;   // per-point limit; 0 = none (--timeout overrides)
  bool keep_trace = true; // false: delete trace/rt.bin and trace/actions.csv once a point is done
  // false: points run with --no-trace (no trace, no report.json: results.csv has the summary's
  // columns only), for points whose traces would be too big (10^8 cycles of small folds)
  bool trace = true;
  std::string train;      // run --train for every point (none | selective | full); "" = the forward pass
  std::string sparsity;   // run --sparsity for every point ("2:4"); "" = dense
  std::string fidelity;   // run --fidelity for every point (exact | sampled | auto); "" = the run's default
};

// One workload at one batch size.
struct WorkloadVariant {
  std::string name;          // the workload's name (file stem)
  std::string source;        // the workload file, absolute
  int64_t batch = 1;
  std::string file;          // what the point runs: `source` (batch 1) or "workloads/<name>-b<batch>.yaml" in the sweep dir
  std::string derived_text;  // that file's YAML text (batch != 1); empty when read back from sweep.json
};

struct Task {
  int index = 0;
  int variant = 0;                  // into Plan::variants
  int base = 0;                     // into Plan::bases
  Overrides overrides;              // passed as --set key=value, in order
  std::vector<std::string> params;  // the point's value of each Plan::param_keys (canonical form)
  std::string hash;                 // config_hash of the point: summary.json's config_hash must equal it
  double cost = 0;                  // estimated simulated cycles, to start long points first
};

struct Plan {
  std::string name;
  std::string spec_path;  // absolute
  std::string base;       // absolute: bases.front()
  std::vector<std::string> bases;  // absolute; several: "base" is the first param key (the file's stem)
  RunSettings run;
  std::vector<std::string> param_keys;  // config keys the spec mentions: grid, points, set (in that order)
  std::vector<WorkloadVariant> variants;
  std::vector<Task> tasks;
  int64_t grid_points = 0;      // size of the cartesian product before constraints
  int64_t rejected = 0;         // grid points the constraints removed
  int64_t duplicates = 0;       // points equal to an earlier one, dropped
};

// Reads and validates a spec and expands it. Throws InputError.
Plan expand(const std::string& spec_path);

// tasks.csv: index, workload, batch, one column per param key, hash.
std::string tasks_csv(const Plan& plan);

// sweep.json: the plan in full, enough to run any task without the spec.
nlohmann::ordered_json plan_json(const Plan& plan);
// Reads sweep.json back (derived_text left empty). Throws std::runtime_error.
Plan plan_from_json(const nlohmann::json& j);
// Empty when the two plans run the same points the same way, else the first difference.
// Config hashes may differ (a file the points read was edited): those points run again.
std::string plan_difference(const Plan& a, const Plan& b);

// Arguments of `cstsim ...` for one point (without the program name).
std::vector<std::string> point_args(const Plan& plan, const Task& task, const std::string& sweep_dir);

// The keys a grid, a point or `set` may name (config keys), and a hint listing them.
bool is_sweepable_key(const std::string& key);

}  // namespace cstsim::sweep
