#include "sim/sweep/slurm.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "sim/config/input_error.h"
#include "sim/sweep/collect.h"
#include "sim/sweep/process.h"
#include "sim/sweep/runner.h"
#include "sim/sweep/sweep_dir.h"

namespace cstsim::sweep {
namespace fs = std::filesystem;
using proc::shell_quote;

namespace {

constexpr int kMaxArrayTasks = 1000;  // Slurm's default MaxArraySize is 1001

std::string job_state(const std::string& job) {
  std::string out;
  if (proc::capture({"scontrol", "-o", "show", "job", job}, out) != 0) return "";
  const auto at = out.find("JobState=");
  if (at == std::string::npos) return "";
  const auto end = out.find_first_of(" \n", at);
  return out.substr(at + 9, end == std::string::npos ? std::string::npos : end - at - 9);
}

bool terminal_state(const std::string& s) {
  return s == "COMPLETED" || s == "FAILED" || s == "CANCELLED" || s == "TIMEOUT" || s == "NODE_FAIL" ||
         s == "OUT_OF_MEMORY" || s == "PREEMPTED" || s == "BOOT_FAIL" || s == "DEADLINE";
}

std::string header(const std::string& job_name, const std::string& output, const SlurmOptions& o, bool array) {
  std::string h = "#!/bin/bash\n";
  h += fmt::format("#SBATCH --job-name={}\n", job_name);
  h += fmt::format("#SBATCH --output={}\n", output);
  h += "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n";
  if (!o.partition.empty()) h += fmt::format("#SBATCH --partition={}\n", o.partition);
  if (array && !o.time_limit.empty()) h += fmt::format("#SBATCH --time={}\n", o.time_limit);
  for (const std::string& a : o.sbatch_args) h += fmt::format("#SBATCH {}\n", a);
  return h;
}

void write_script(const fs::path& p, const std::string& text) {
  write_atomic(p, text);
  ::chmod(p.c_str(), 0755);
}

}  // namespace

int slurm_submit(const Plan& plan, const fs::path& dir_in, const SlurmOptions& o) {
  const fs::path dir = fs::absolute(dir_in);
  const int n = int(plan.tasks.size());
  const int chunk = o.chunk > 0 ? o.chunk : std::max(1, (n + kMaxArrayTasks - 1) / kMaxArrayTasks);
  const int chunks = (n + chunk - 1) / chunk;
  std::vector<int> pending_chunks;
  int pending_points = 0;
  for (int c = 0; c < chunks; ++c) {
    bool any = false;
    for (int i = c * chunk; i < std::min(n, (c + 1) * chunk); ++i)
      if (!point_done(dir, plan.tasks[size_t(i)])) {
        any = true;
        ++pending_points;
      }
    if (any) pending_chunks.push_back(c);
  }
  if (chunks > kMaxArrayTasks + 1)
    spdlog::warn("slurm: {} array tasks; Slurm's default MaxArraySize is 1001 (use --chunk {})", chunks,
                 (n + kMaxArrayTasks - 1) / kMaxArrayTasks);

  const std::string exe = proc::self_exe();
  const fs::path sd = dir / "slurm";
  fs::create_directories(sd / "logs");
  std::string job = "cstsim-" + plan.name;
  for (char& c : job)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  std::string task_cmd = fmt::format("{} sweep task {} --array-index \"$SLURM_ARRAY_TASK_ID\" --chunk {}",
                                     shell_quote(exe), shell_quote(dir.string()), chunk);
  if (o.timeout_s > 0) task_cmd += fmt::format(" --timeout {}", o.timeout_s);
  write_script(sd / "array.sh",
               header(job, (sd / "logs" / "array-%A_%a.out").string(), o, true) +
                   fmt::format("# cstsim sweep {}: array task i runs points [i*{}, i*{}+{}) that are not done yet.\n"
                               "set -eu\nexec {}\n",
                               plan.name, chunk, chunk, chunk, task_cmd));
  write_script(sd / "reduce.sh",
               header(job + "-collect", (sd / "logs" / "collect-%j.out").string(), o, false) +
                   fmt::format("# Collects results.csv once the array has ended (afterany) and lists missing points.\n"
                               "set -eu\nexec {} sweep collect {}\n",
                               shell_quote(exe), shell_quote(dir.string())));
  const std::string array_spec =
      ranges(pending_chunks) + (o.max_running > 0 ? fmt::format("%{}", o.max_running) : std::string());
  write_script(sd / "submit.sh",
               fmt::format("#!/bin/bash\n"
                           "# Submits the job array ({} task(s) of up to {} point(s), {} point(s) to run) and the\n"
                           "# reducer, which starts when every array task has ended, whatever its outcome.\n"
                           "set -euo pipefail\ncd {}\n"
                           "array=$(sbatch --parsable --array={} array.sh)\narray=${{array%%;*}}\n"
                           "reduce=$(sbatch --parsable --dependency=afterany:$array --kill-on-invalid-dep=yes reduce.sh)\n"
                           "reduce=${{reduce%%;*}}\n"
                           "printf 'array %s\\nreduce %s\\n' \"$array\" \"$reduce\" | tee jobs.txt\n",
                           pending_chunks.size(), chunk, pending_points, shell_quote(sd.string()), array_spec));
  if (o.dry_run) {
    if (!o.quiet)
      spdlog::info("slurm: wrote {}/{{array.sh,reduce.sh,submit.sh}}: {} array task(s) of up to {} point(s) ({} to run); "
                   "not submitted (--dry-run)",
                   sd.string(), pending_chunks.size(), chunk, pending_points);
    return 0;
  }
  if (pending_chunks.empty()) {
    if (!o.quiet) spdlog::info("slurm: every point is done; collecting here instead of submitting");
    const CollectStats c = collect(dir, o.quiet);
    return c.done == c.total ? 0 : 1;
  }
  if (!proc::in_path("sbatch"))
    throw InputError("--slurm", 0, "", "sbatch is not in PATH (use --dry-run to only write the scripts)");
  std::string out, err;
  const int rc = proc::capture({"/bin/bash", (sd / "submit.sh").string()}, out, &err);
  if (rc != 0) {
    spdlog::error("slurm: submission failed (status {}): {}", rc, err.empty() ? out : err);
    return 1;
  }
  std::string array_id, reduce_id;
  {
    char a[64] = {0}, r[64] = {0};
    if (std::sscanf(out.c_str(), "array %63s reduce %63s", a, r) == 2) {
      array_id = a;
      reduce_id = r;
    }
  }
  if (!o.quiet)
    spdlog::info("slurm: submitted array job {} ({} task(s) of up to {} point(s), {} point(s) to run) and reducer {} "
                 "(afterany); job ids in {}",
                 array_id, pending_chunks.size(), chunk, pending_points, reduce_id, (sd / "jobs.txt").string());
  if (!o.wait) return 0;

  // --wait: follow the points on disk and the reducer's state.
  const bool tty = ::isatty(2) == 1 && !o.quiet;
  auto t0 = std::chrono::steady_clock::now();
  auto last_line = t0 - std::chrono::hours(1);
  std::string state;
  for (;;) {
    state = job_state(reduce_id);
    int done = 0;
    for (const Task& t : plan.tasks) done += point_done(dir, t) ? 1 : 0;
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (tty) {
      std::fprintf(stderr, "\r\033[Kslurm: %d/%d points done, reducer %s, %.0f s", done, n,
                   state.empty() ? "?" : state.c_str(), el);
      std::fflush(stderr);
    } else if (!o.quiet && std::chrono::steady_clock::now() - last_line > std::chrono::seconds(10)) {
      spdlog::info("slurm: {}/{} points done, reducer {}, {:.0f} s", done, n, state.empty() ? "?" : state, el);
      last_line = std::chrono::steady_clock::now();
    }
    if (state.empty() || terminal_state(state)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  if (tty) std::fprintf(stderr, "\n");
  if (state.empty()) state = fs::exists(dir / "results.csv") ? "COMPLETED (record gone)" : "UNKNOWN";
  const bool complete = state.rfind("COMPLETED", 0) == 0 && fs::exists(dir / "results.csv");
  if (!o.quiet) {
    if (complete) spdlog::info("slurm: reducer {} {}: {}", reduce_id, state, (dir / "results.csv").string());
    else spdlog::error("slurm: reducer {} ended {}; see {} and missing.txt", reduce_id, state, (sd / "logs").string());
  }
  return complete ? 0 : 1;
}

int slurm_task(const fs::path& dir, int array_index, int chunk, double timeout_s) {
  const Plan plan = load_plan(dir);
  if (array_index < 0 || chunk <= 0) throw InputError("sweep task", 0, "", "--array-index >= 0 and --chunk > 0 required");
  const int n = int(plan.tasks.size());
  std::vector<int> idx;
  for (int i = array_index * chunk; i < std::min(n, (array_index + 1) * chunk); ++i) idx.push_back(i);
  if (idx.empty()) {
    spdlog::warn("sweep task: array index {} has no points (the sweep has {})", array_index, n);
    return 0;
  }
  PoolOptions po;
  po.jobs = 1;
  po.timeout_s = timeout_s;
  const PoolStats st = run_points(plan, dir, idx, po);
  spdlog::info("sweep task {}: points {}: {} ok, {} done before, {} failed, {} busy elsewhere", array_index,
               ranges(idx), st.ok, st.already_done, st.failed, st.busy);
  if (st.interrupted) return 130;
  return st.failed > 0 ? 1 : 0;
}

}  // namespace cstsim::sweep
