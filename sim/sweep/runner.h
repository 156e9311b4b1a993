#pragma once
// Runs sweep points as child processes (`cstsim run`, one simulation per
// process), at most `jobs` at a time, each with an optional time limit. Used by
// the local pool (`cstsim sweep --jobs N`) and by each Slurm array task.
#include <filesystem>
#include <vector>

#include "sim/sweep/spec.h"

namespace cstsim::sweep {

struct PoolOptions {
  int jobs = 1;
  double timeout_s = 0;  // 0: no limit
  bool quiet = false;    // no progress output
};

struct PoolStats {
  int considered = 0;    // points asked for
  int already_done = 0;  // skipped: done before (never run twice)
  int ok = 0;            // ran and finished now
  int failed = 0;        // ran and failed or timed out (points/<i>.failed)
  int busy = 0;          // skipped: another process holds the point's lock
  bool interrupted = false;  // SIGINT/SIGTERM: running points were stopped and are not recorded as failed
  double wall_s = 0;
};

// Runs the points `indices` of `plan` in `dir` (prepared by prepare_dir). Long
// points (by estimated cycles) start first. Progress goes to stderr: a bar with
// ETA on a terminal, a line every 10 s otherwise.
PoolStats run_points(const Plan& plan, const std::filesystem::path& dir, const std::vector<int>& indices,
                     const PoolOptions& options);

}  // namespace cstsim::sweep
