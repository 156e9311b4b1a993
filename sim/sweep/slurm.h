#pragma once
// The Slurm path: a job array whose task i runs points [i*K, i*K+K) that are
// not done yet (`cstsim sweep task`), and a reducer job that runs
// `cstsim sweep collect` once the array has ended (--dependency=afterany).
#include <filesystem>
#include <string>
#include <vector>

#include "sim/sweep/spec.h"

namespace cstsim::sweep {

struct SlurmOptions {
  int chunk = 0;             // points per array task; 0: 1, or more so that the array has at most 1000 tasks
  int max_running = 0;       // --array=...%P; 0: no throttle
  std::string partition;
  std::string time_limit;    // sbatch --time of each array task
  std::vector<std::string> sbatch_args;  // passed to both jobs as #SBATCH lines
  double timeout_s = 0;      // per point
  bool dry_run = false;      // write the scripts only
  bool wait = false;         // wait for the reducer and return its outcome
  bool quiet = false;
};

// Every value that will reach a generated script: printable, and --sbatch-arg one of
// the options cstsim passes on. Throws InputError naming the option.
void check_slurm_options(const SlurmOptions& options, const std::filesystem::path& dir);

// Writes DIR/slurm/{array.sh,reduce.sh,submit.sh} and, unless dry_run, runs
// submit.sh. Returns the exit status for the CLI.
int slurm_submit(const Plan& plan, const std::filesystem::path& dir, const SlurmOptions& options);

// One array task: runs its chunk's points that are not done. 0 when all of them are done.
int slurm_task(const std::filesystem::path& dir, int array_index, int chunk, double timeout_s);

}  // namespace cstsim::sweep
