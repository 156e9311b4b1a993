#include "sim/sweep/slurm.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/input_error.h"
#include "core/text.h"
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

// sbatch options a user may add with --sbatch-arg: resources, placement and accounting.
// Anything that changes what runs or where (--wrap, --export, --chdir, --output,
// --array, --dependency, ...) is cstsim's to set, or would let the job run something else.
constexpr const char* kAllowedSbatchOptions[] = {
    "account", "qos", "mem", "mem-per-cpu", "mem-per-gpu", "constraint", "nodelist", "exclude", "reservation",
    "gres", "gpus", "nice", "comment", "mail-type", "mail-user", "exclusive", "requeue", "no-requeue", "priority",
    "clusters", "licenses", "begin", "deadline", "hint", "tmp", "wckey", "time-min", "oversubscribe",
    "threads-per-core", "cores-per-socket", "sockets-per-node", "core-spec", "network", "switches"};

// Every value that reaches a script: printable, so it can never start a new shell line.
void check_printable(const std::string& field, const std::string& value) {
  if (const auto at = text::control_char(value))
    throw InputError(field, 0, "",
                     fmt::format("contains a control character (byte 0x{:02x} at offset {}); it would go into a "
                                 "generated Slurm script",
                                 unsigned(static_cast<unsigned char>(value[*at])), *at));
}

void check_sbatch_arg(const std::string& arg) {
  check_printable("--sbatch-arg", arg);
  const auto eq = arg.find('=');
  const std::string name = arg.rfind("--", 0) == 0 ? arg.substr(2, eq == std::string::npos ? eq : eq - 2) : "";
  for (const char* ok : kAllowedSbatchOptions)
    if (name == ok) return;
  std::string list;
  for (const char* ok : kAllowedSbatchOptions) list += (list.empty() ? "--" : ", --") + std::string(ok);
  throw InputError("--sbatch-arg", 0, "",
                   fmt::format("'{}' is not one of the sbatch options cstsim passes on (give it as --NAME or "
                               "--NAME=VALUE; allowed: {})",
                               arg, list));
}

// `sbatch` with its options, each shell-quoted: nothing user-supplied goes into an
// #SBATCH or comment line, where a quote cannot protect it.
std::string sbatch_line(const std::string& job_name, const fs::path& log, const SlurmOptions& o, bool array,
                        const std::string& extra) {
  std::string log_pattern;  // sbatch expands %x in file names; a literal % in the directory is %%
  for (char c : log.parent_path().string()) log_pattern += c == '%' ? std::string("%%") : std::string(1, c);
  log_pattern += "/" + log.filename().string();
  std::vector<std::string> args{"sbatch", "--parsable", "--job-name=" + job_name, "--output=" + log_pattern,
                                "--ntasks=1", "--cpus-per-task=1"};
  if (!o.partition.empty()) args.push_back("--partition=" + o.partition);
  if (array && !o.time_limit.empty()) args.push_back("--time=" + o.time_limit);
  for (const std::string& a : o.sbatch_args) args.push_back(a);
  std::string line;
  for (const std::string& a : args) line += (line.empty() ? "" : " ") + shell_quote(a);
  return line + " " + extra;
}

void write_script(const fs::path& p, const std::string& text) {
  io::write_file(p, text);
  ::chmod(p.c_str(), 0755);
}

}  // namespace

void check_slurm_options(const SlurmOptions& o, const fs::path& dir) {
  check_printable("cstsim executable path", proc::self_exe());
  check_printable("--out", fs::absolute(dir).string());
  check_printable("--partition", o.partition);
  check_printable("--time", o.time_limit);
  for (const std::string& a : o.sbatch_args) check_sbatch_arg(a);
}

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
      if (!point_done(dir, plan.tasks[size_t(i)], plan.run.trace)) {
        any = true;
        ++pending_points;
      }
    if (any) pending_chunks.push_back(c);
  }
  if (chunks > kMaxArrayTasks + 1)
    spdlog::warn("slurm: {} array tasks; Slurm's default MaxArraySize is 1001 (use --chunk {})", chunks,
                 (n + kMaxArrayTasks - 1) / kMaxArrayTasks);

  check_slurm_options(o, dir);
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
               fmt::format("#!/bin/bash\n"
                           "# One task of the job array that submit.sh submits (with its sbatch options):\n"
                           "# task i runs the sweep's points [i*{}, i*{}+{}) that are not done yet.\n"
                           "set -eu\nexec {}\n",
                           chunk, chunk, chunk, task_cmd));
  write_script(sd / "reduce.sh",
               fmt::format("#!/bin/bash\n"
                           "# Collects results.csv once the array has ended (afterany) and lists missing points.\n"
                           "set -eu\nexec {} sweep collect {}\n",
                           shell_quote(exe), shell_quote(dir.string())));
  const std::string array_spec =
      ranges(pending_chunks) + (o.max_running > 0 ? fmt::format("%{}", o.max_running) : std::string());
  const std::string submit_array =
      sbatch_line(job, sd / "logs" / "array-%A_%a.out", o, true, "--array=" + array_spec + " array.sh");
  const std::string submit_reduce =
      sbatch_line(job + "-collect", sd / "logs" / "collect-%j.out", o, false,
                  "--dependency=afterany:\"$array\" --kill-on-invalid-dep=yes reduce.sh");
  write_script(sd / "submit.sh",
               fmt::format("#!/bin/bash\n"
                           "# Submits the job array ({} task(s) of up to {} point(s), {} point(s) to run) and the\n"
                           "# reducer, which starts when every array task has ended, whatever its outcome.\n"
                           "set -euo pipefail\ncd {}\n"
                           "array=$({})\narray=${{array%%;*}}\n"
                           "reduce=$({})\nreduce=${{reduce%%;*}}\n"
                           "printf 'array %s\\nreduce %s\\n' \"$array\" \"$reduce\" | tee jobs.txt\n",
                           pending_chunks.size(), chunk, pending_points, shell_quote(sd.string()), submit_array,
                           submit_reduce));
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
    for (const Task& t : plan.tasks) done += point_done(dir, t, plan.run.trace) ? 1 : 0;
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
