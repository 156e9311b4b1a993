#include "sim/sweep/sweep_cli.h"

#include <cmath>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <thread>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "core/input_error.h"
#include "core/out_file.h"
#include "sim/sweep/collect.h"
#include "sim/sweep/pareto.h"
#include "sim/sweep/runner.h"
#include "sim/sweep/slurm.h"
#include "sim/sweep/spec.h"
#include "sim/sweep/sweep_dir.h"

namespace cstsim {
namespace po = boost::program_options;
namespace fs = std::filesystem;
using namespace sweep;

namespace {

void logging(bool verbose, bool quiet) {
  auto logger = spdlog::get("cstsim-sweep");
  if (!logger) logger = spdlog::stderr_logger_mt("cstsim-sweep");
  logger->set_pattern("[%l] %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(quiet ? spdlog::level::warn : verbose ? spdlog::level::debug : spdlog::level::info);
}

po::variables_map parse(const std::vector<std::string>& args, const po::options_description& visible,
                        const po::options_description& hidden, const po::positional_options_description& pos,
                        const char* what) {
  po::options_description all;
  all.add(visible).add(hidden);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError(what, 0, "", e.what());
  }
  return vm;
}

std::vector<std::string> split_list(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const std::string& item : items) {
    size_t start = 0;
    while (start <= item.size()) {
      const size_t end = item.find(',', start);
      const std::string s = item.substr(start, end == std::string::npos ? std::string::npos : end - start);
      if (!s.empty()) out.push_back(s);
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  return out;
}

constexpr const char* kSweepUsage =
    "usage: cstsim sweep <spec.yaml> --out <dir> [--jobs N] [--timeout SEC] [--dry-run]\n"
    "       cstsim sweep <spec.yaml> --out <dir> --slurm [--chunk K] [--max-running P] [--partition NAME]\n"
    "                    [--time LIMIT] [--sbatch-arg ARG]... [--wait] [--dry-run]\n"
    "       cstsim sweep collect <dir>\n"
    "\n"
    "Expands the spec (configs/sweeps/, schema in sim/sweep/README.md) into <dir>/tasks.csv and runs every\n"
    "point as its own `cstsim run` process into <dir>/points/<index>/. Rerunning the same command resumes:\n"
    "a finished point is never run again; failed points are retried. A point that fails or times out is\n"
    "recorded in <dir>/points/<index>.failed and the sweep goes on. Local runs end with `collect`, which\n"
    "writes <dir>/results.csv (one row per point, every parameter and headline figure; host_* columns hold\n"
    "timing) and results.jsonl. --slurm writes and submits a job array and a reducer job that collects.\n"
    "Exit status: 0 all points done, 1 some failed or missing, 2 bad input, 130 interrupted.\n\noptions";

int collect_command(const std::vector<std::string>& args) {
  std::string dir;
  bool quiet = false;
  po::options_description desc(
      "usage: cstsim sweep collect <dir>\n\nWrites <dir>/results.csv, results.jsonl, results.columns.csv and, when\n"
      "points are not done, missing.txt. Exit status 1 when some points failed or are missing.\n\noptions");
  desc.add_options()("help,h", "show this help")("quiet,q", po::bool_switch(&quiet), "warnings only");
  po::options_description hidden;
  hidden.add_options()("dir", po::value(&dir));
  po::positional_options_description pos;
  pos.add("dir", 1);
  const auto vm = parse(args, desc, hidden, pos, "sweep collect");
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  if (dir.empty()) throw InputError("sweep collect", 0, "", "a sweep directory is required");
  logging(false, quiet);
  const CollectStats st = collect(dir, quiet);
  return st.done == st.total ? 0 : 1;
}

int task_command(const std::vector<std::string>& args) {
  std::string dir;
  int index = -1, chunk = 1;
  double timeout = 0;
  po::options_description desc("usage: cstsim sweep task <dir> --array-index I --chunk K [--timeout SEC]\n\n"
                               "One Slurm array task (used by <dir>/slurm/array.sh).\n\noptions");
  desc.add_options()("help,h", "show this help")("array-index", po::value(&index), "SLURM_ARRAY_TASK_ID")(
      "chunk", po::value(&chunk), "points per array task")("timeout", po::value(&timeout), "per point, seconds");
  po::options_description hidden;
  hidden.add_options()("dir", po::value(&dir));
  po::positional_options_description pos;
  pos.add("dir", 1);
  const auto vm = parse(args, desc, hidden, pos, "sweep task");
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  if (dir.empty()) throw InputError("sweep task", 0, "", "a sweep directory is required");
  logging(false, false);
  return slurm_task(dir, index, chunk, timeout);
}

}  // namespace

int sweep_command(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "collect") return collect_command({args.begin() + 1, args.end()});
  if (!args.empty() && args[0] == "task") return task_command({args.begin() + 1, args.end()});

  std::string spec, out;
  int jobs = int(std::max(1u, std::thread::hardware_concurrency()));
  double timeout = -1;
  bool dry = false, slurm = false, wait = false, quiet = false, verbose = false;
  SlurmOptions so;
  std::vector<std::string> sbatch_args;
  po::options_description desc(kSweepUsage);
  desc.add_options()
      ("help,h", "show this help")
      ("out", po::value(&out)->value_name("DIR"), "sweep directory (created; rerun with the same DIR to resume)")
      ("jobs,j", po::value(&jobs)->value_name("N"), "points run at once (default: the number of CPUs)")
      ("timeout", po::value(&timeout)->value_name("SEC"),
       "time limit of each point, seconds; 0: none (default: the spec's run.timeout, else none)")
      ("dry-run", po::bool_switch(&dry), "write tasks.csv (and with --slurm the job scripts) but run nothing")
      ("slurm", po::bool_switch(&slurm), "submit a Slurm job array and a reducer job instead of running here")
      ("chunk", po::value(&so.chunk)->value_name("K"),
       "--slurm: points per array task (default 1, or more to keep the array at 1000 tasks at most)")
      ("max-running", po::value(&so.max_running)->value_name("P"), "--slurm: at most P array tasks at once (%P)")
      ("partition", po::value(&so.partition)->value_name("NAME"), "--slurm: partition of both jobs")
      ("time", po::value(&so.time_limit)->value_name("LIMIT"), "--slurm: sbatch --time of each array task")
      ("sbatch-arg", po::value(&sbatch_args)->value_name("ARG")->composing(),
       "--slurm: extra sbatch option for both jobs, e.g. --sbatch-arg=--account=x (repeatable)")
      ("wait", po::bool_switch(&wait), "--slurm: wait until the reducer has run; exit 0 only if it completed")
      ("quiet,q", po::bool_switch(&quiet), "warnings only, no progress")
      ("verbose,v", po::bool_switch(&verbose), "debug logging");
  po::options_description hidden;
  hidden.add_options()("spec", po::value(&spec));
  po::positional_options_description pos;
  pos.add("spec", 1);
  const auto vm = parse(args, desc, hidden, pos, "sweep");
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  if (spec.empty()) throw InputError("sweep", 0, "", "a sweep spec is required (see cstsim sweep --help)");
  if (out.empty()) throw InputError("sweep", 0, "", "--out is required (see cstsim sweep --help)");
  if (jobs < 1) throw InputError("--jobs", 0, "", "must be at least 1");
  if (vm.count("timeout") && !(timeout >= 0 && std::isfinite(timeout)))
    throw InputError("--timeout", 0, "", fmt::format("must be a finite number of seconds >= 0, got {}", timeout));
  if (vm.count("chunk") && so.chunk < 1) throw InputError("--chunk", 0, "", "must be at least 1");
  if (vm.count("max-running") && so.max_running < 1) throw InputError("--max-running", 0, "", "must be at least 1");
  if (!slurm)
    for (const char* o : {"chunk", "max-running", "partition", "time", "sbatch-arg", "wait"})
      if (vm.count(o) && !(std::string(o) == "wait" && !wait))
        throw InputError("--" + std::string(o), 0, "", "only with --slurm");
  logging(verbose, quiet);

  const sweep::Plan plan = expand(spec);  // every spec error is thrown here, before anything is written
  const double point_timeout = timeout >= 0 ? timeout : plan.run.timeout_s;
  const fs::path dir = fs::absolute(out);
  so.sbatch_args = sbatch_args;
  if (slurm) check_slurm_options(so, dir);  // before the directory exists
  const bool fresh = !fs::exists(fs::symlink_status(dir));
  try {
    prepare_dir(plan, out);
  } catch (...) {  // a new directory that could not be set up (disk full) is not left half made
    std::error_code ec;
    if (fresh) fs::remove_all(dir, ec);
    throw;
  }
  if (!quiet)
    spdlog::info("sweep {}: {} point(s) ({} grid points, {} removed by constraints, {} duplicates dropped) -> {}",
                 plan.name, plan.tasks.size(), plan.grid_points, plan.rejected, plan.duplicates,
                 (dir / "tasks.csv").string());
  if (slurm) {
    so.timeout_s = point_timeout;
    so.dry_run = dry;
    so.wait = wait;
    so.quiet = quiet;
    return slurm_submit(plan, dir, so);
  }
  if (dry) return 0;

  // One local driver per directory at a time.
  const int lock = ::open((dir / "locks" / "driver.lock").c_str(), O_CREAT | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (lock < 0) throw io::OutputError::from_errno(dir / "locks" / "driver.lock", "cannot open", errno);
  if (::flock(lock, LOCK_EX | LOCK_NB) != 0)
    throw InputError(dir.string(), 0, "--out", "another `cstsim sweep` is running in this directory");
  std::vector<int> all;
  for (const Task& t : plan.tasks) all.push_back(t.index);
  PoolOptions po;
  po.jobs = jobs;
  po.timeout_s = point_timeout;
  po.quiet = quiet;
  const PoolStats st = run_points(plan, dir, all, po);
  if (st.interrupted) return 130;
  const CollectStats c = collect(dir, quiet);
  if (!quiet)
    spdlog::info("sweep: ran {} point(s) in {:.1f} s ({} ok, {} failed); {} of {} done", st.ok + st.failed, st.wall_s,
                 st.ok, st.failed, c.done, c.total);
  ::close(lock);
  return c.done == c.total ? 0 : 1;
}

int pareto_command(const std::vector<std::string>& args) {
  ParetoOptions o;
  std::vector<std::string> axes, quality, by;
  po::options_description desc(
      "usage: cstsim pareto <results.csv> --axes A,B,... [--quality Q,...] [--by COLS|none] [--out FILE]\n\n"
      "Prints the non-dominated points (the Pareto front) of a sweep's results.csv and writes pareto.csv\n"
      "(every point with front, dominated_by, dominates). Rule (seed 000 §140): A dominates B when A is no\n"
      "worse on every axis (cost axes lower or equal, quality axes higher or equal) and strictly better on\n"
      "at least one; ties on every axis do not dominate each other. No single winner is named unless one\n"
      "point dominates every other. Axes are results.csv columns or aliases: cycles, time, energy, e_marg,\n"
      "m_peak, b_peak, d_peak, n_peak, v_c, v_n, stalls, pes, utilization, u_c, u_m.\n\noptions");
  desc.add_options()
      ("help,h", "show this help")
      ("axes", po::value(&axes)->value_name("A,B,...")->composing(), "cost axes, minimised (comma-separated)")
      ("quality", po::value(&quality)->value_name("Q,...")->composing(), "quality axes, maximised")
      ("by", po::value(&by)->value_name("COLS"), "compare only within groups of equal COLS (default workload,batch; none: all)")
      ("out", po::value(&o.out)->value_name("FILE"), "pareto.csv path (default: next to results.csv)")
      ("force", po::bool_switch(&o.force), "replace --out even if it is not an earlier pareto.csv");
  po::options_description hidden;
  hidden.add_options()("results", po::value(&o.results));
  po::positional_options_description pos;
  pos.add("results", 1);
  const auto vm = parse(args, desc, hidden, pos, "pareto");
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  if (o.results.empty()) throw InputError("pareto", 0, "", "a results.csv is required (see cstsim pareto --help)");
  o.axes = split_list(axes);
  o.quality = split_list(quality);
  const std::vector<std::string> b = split_list(by);
  if (b.size() == 1 && b[0] == "none") o.no_groups = true;
  else o.by = b;
  if (o.axes.empty() && o.quality.empty()) throw InputError("pareto", 0, "--axes", "name at least one axis");
  pareto_report(o);
  return 0;
}

}  // namespace cstsim
