#pragma once
// The sweep directory:
//
//   DIR/sweep.json            the expanded plan (base, workloads, run settings, every task's --set and hash)
//   DIR/tasks.csv             index, workload, batch, every parameter, hash
//   DIR/workloads/*.yaml      workloads derived for batch sizes other than 1
//   DIR/points/<i>/           point i's run directory (written atomically by `cstsim run`)
//   DIR/points/<i>.failed     why point i's last attempt failed (reason line, then the error)
//   DIR/points/<i>.host.json  wall time and host of point i's successful attempt
//   DIR/logs/<i>.log          output of every attempt at point i, each between "=== " lines
//   DIR/locks/<i>.lock        flock held while a process runs point i
//   DIR/results.csv, results.jsonl, results.columns.csv, missing.txt   (collect)
//   DIR/slurm/                job scripts, submit.sh, jobs.txt, logs/
//
// A point is done iff points/<i>/ holds summary.json and report.json and the
// summary's config_hash is the task's hash.
#include <filesystem>
#include <string>

#include "core/out_file.h"
#include "sim/sweep/spec.h"

namespace cstsim::sweep {

namespace dirs {
std::filesystem::path point(const std::filesystem::path& dir, int i);
std::filesystem::path failed(const std::filesystem::path& dir, int i);
std::filesystem::path host(const std::filesystem::path& dir, int i);
std::filesystem::path log(const std::filesystem::path& dir, int i);
std::filesystem::path lock(const std::filesystem::path& dir, int i);
}  // namespace dirs

// summary.json's config_hash ("" when unreadable).
std::string summary_hash(const std::filesystem::path& summary_json);

// `traced`: the sweep's points write report.json (RunSettings::trace).
bool point_done(const std::filesystem::path& dir, const Task& task, bool traced = true);


// Creates DIR (or checks that it holds the same plan) and writes sweep.json,
// tasks.csv and the derived workloads. A DIR made by a different plan, or a
// non-empty directory that is not a sweep, is an InputError (nothing written).
void prepare_dir(const Plan& plan, const std::filesystem::path& dir);

// Reads DIR/sweep.json. Throws InputError when DIR is not a sweep directory.
Plan load_plan(const std::filesystem::path& dir);

// "0-3,7,9-12" from sorted distinct integers.
std::string ranges(const std::vector<int>& sorted);

}  // namespace cstsim::sweep
