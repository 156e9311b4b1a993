#include "sim/cli/cli.h"

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "core/input_error.h"
#include "core/out_file.h"
#include "sim/ledger/ledger_cli.h"
#include "sim/mapper/dma_plan.h"
#include "sim/mapper/tiling_plan.h"
#include "sim/workload/workload.h"
#include "models/noc/noc_bench.h"
#include "models/hbm/hbm_bench.h"
#include "traces/export/export_cli.h"
#include "traces/post/post.h"
#include "sim/run/run.h"
#include "sim/sweep/sweep_cli.h"
#include "commit.h"
#include "version.h"

namespace cstsim {
namespace po = boost::program_options;
namespace {

constexpr const char* kUsage =
    "cstsim — cycle-accurate systolic-array accelerator simulator\n"
    "\n"
    "usage: cstsim <command> [options]\n"
    "\n"
    "commands:\n"
    "  run      simulate a workload on an accelerator and write a run directory\n"
    "  plan     the mapper's tiling plan per layer (blocks, loop order, DRAM bytes)\n"
    "  post     recompute report.json (V_CST, Theta_CST, H_peak, C_P, energy, roofline) from a run directory\n"
    "  export   turn a run's trace into perfetto JSON, VCD or CSV\n"
    "  ledger   analytical roofline ledger of operators (seeds 002/003)\n"
    "  sweep    run a design-space sweep (locally or through Slurm) and collect results.csv\n"
    "  pareto   the non-dominated points of a sweep's results.csv\n"
    "  noc-bench  synthetic-traffic load test of the mesh NoC (latency, accepted throughput)\n"
    "  hbm-bench  closed-loop traffic on one HBM stack (bandwidth, row hits, latency, refresh)\n"
    "\n"
    "cstsim <command> --help shows the command's options. cstsim --version prints the version.\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void setup_logging(bool verbose, bool quiet) {
  auto logger = spdlog::stderr_color_mt("cstsim");
  logger->set_pattern("[%l] %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(quiet ? spdlog::level::warn : verbose ? spdlog::level::debug : spdlog::level::info);
}

Overrides parse_overrides(const std::vector<std::string>& items) {
  Overrides out;
  for (const std::string& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--set", 0, item, "expected key=value");
    out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  return out;
}

int plan_command(const std::vector<std::string>& args) {
  std::string arch_path, workload_path;
  std::vector<std::string> sets;
  po::options_description desc(
      "usage: cstsim plan --arch <yaml|cfg> --workload <yaml|csv> [--set key=value ...] [--json]\n\n"
      "Prints the mapper's tiling plan per layer: on-chip block of each operand (double-buffered\n"
      "in its SRAM partition), loop order, resident operand, and the DRAM bytes it implies.\n\noptions");
  desc.add_options()("help,h", "show this help")("arch", po::value(&arch_path)->value_name("FILE"), "accelerator")(
      "workload", po::value(&workload_path)->value_name("FILE"), "layers")(
      "set", po::value(&sets)->value_name("KEY=VALUE")->composing(), "override a config key (repeatable)")(
      "json", "print JSON instead of a table");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(desc).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(std::string("plan: ") + e.what());
  }
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  for (const char* required : {"arch", "workload"})
    if (!vm.count(required)) throw UsageError(fmt::format("plan: --{} is required (see cstsim plan --help)", required));
  const ArchSpec arch = load_arch(arch_path, parse_overrides(sets));
  const Workload w = load_workload(workload_path);
  std::vector<TilingPlan> plans;
  for (const Layer& l : w.layers) plans.push_back(make_tiling_plan(arch, l, w.source));
  // Under memory: hierarchy the simulated program is the fold-ordered DMA plan.
  std::vector<LayerDmaPlan> programs;
  if (arch.memory == "hierarchy")
    for (const Layer& l : w.layers)
      programs.push_back(layer_program(arch, l.M, l.N, l.K, l.name));
  if (vm.count("json")) {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (size_t i = 0; i < plans.size(); ++i) {
      j.push_back(to_json(plans[i]));
      if (!programs.empty()) j.back()["dma_program"] = to_json(programs[i]);
    }
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << plan_table(plans);
    if (!programs.empty()) {
      std::vector<std::string> names;
      for (const Layer& l : w.layers) names.push_back(l.name);
      std::cout << "\nDMA program simulated under memory: hierarchy (fold order, per pass of the widest cluster share;"
                   " sim/mapper/dma_plan.h):\n"
                << dma_plan_table(names, programs);
    }
  }
  return 0;
}

int post_command(const std::vector<std::string>& args) {
  post::PostOptions o;
  std::string run_dir;
  po::options_description desc(
      "usage: cstsim post <run-dir> [--normalization FILE] [--window CYCLES]\n\n"
      "Integrates <run-dir>/trace exactly and rewrites report.json, report.txt and\n"
      "energy_windows.csv (schema in traces/FORMAT.md).\n\noptions");
  desc.add_options()("help,h", "show this help")(
      "normalization", po::value(&o.normalization)->value_name("FILE"),
      "references C_ref..S_ref, weights w_C..w_S and boundary: adds the scalar V_CST*")(
      "window", po::value(&o.window)->value_name("CYCLES"),
      "window for B_peak and energy over time; a multiple of the trace's window (default: the trace's)");
  po::options_description hidden;
  hidden.add_options()("run-dir", po::value(&run_dir));
  po::options_description all;
  all.add(desc).add(hidden);
  po::positional_options_description pos;
  pos.add("run-dir", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(std::string("post: ") + e.what());
  }
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  if (run_dir.empty()) throw UsageError("post: a run directory is required (see cstsim post --help)");
  if (vm.count("window") && o.window <= 0) throw InputError("--window", 0, "", "must be a positive number of cycles");
  o.run_dir = run_dir;
  const post::PostOutputs out = post::post_process(o);
  post::write_post_outputs(o.run_dir, out);
  std::cout << out.text;
  return 0;
}

int run_command(const std::vector<std::string>& args) {
  RunOptions o;
  std::vector<std::string> sets;
  std::string fault;
  bool verbose = false, quiet = false;
  po::options_description desc(
      "usage: cstsim run --arch <yaml|cfg> --workload <yaml|csv> --out <dir> [options]\n\n"
      "Simulates every layer of the workload on the accelerator and writes <dir>/summary.json\n"
      "and <dir>/layers.csv (plus COMPUTE_REPORT.csv in SCALE-Sim's format under\n"
      "fold_pipeline: scalesim). The directory appears only when the run completed.\n\noptions");
  desc.add_options()
      ("help,h", "show this help")
      ("arch", po::value(&o.arch_path)->value_name("FILE"),
       "accelerator: cstsim YAML (configs/arch/) or SCALE-Sim .cfg")
      ("workload", po::value(&o.workload_path)->value_name("FILE"),
       "layers: YAML list of GEMMs or SCALE-Sim topology CSV")
      ("out", po::value(&o.out_dir)->value_name("DIR"),
       "run directory to write; an existing DIR is replaced only if it is a cstsim run directory")
      ("force", po::bool_switch(&o.force),
       "replace an existing --out even if it is not a run directory (never the current directory, "
       "an input or a directory holding one)")
      ("set", po::value(&sets)->value_name("KEY=VALUE")->composing(),
       "override a config key, e.g. --set array.rows=64 --set dataflow=os (repeatable)")
      ("verify", po::bool_switch(&o.verify),
       "register-level reference mode: move real int8 values through the PE registers, check every "
       "output against a plain GEMM and every event cycle against the timing mode; exit 1 on mismatch")
      ("energy", po::value(&o.energy_table)->value_name("FILE"),
       "energy table (default configs/energy/horowitz-45nm.yaml)")
      ("normalization", po::value(&o.normalization)->value_name("FILE"),
       "declare C_ref..S_ref, weights and boundary to get the scalar V_CST* in report.json")
      ("no-trace", "skip the R(t) trace and report.json (summary.json and layers.csv only)")
      ("window", po::value(&o.window)->value_name("CYCLES"),
       "window of the trace's action counters, in cycles (default 1024)")
      ("seed", po::value(&o.seed)->value_name("N"), "seed of the --verify operand values (default 1)")
      ("inject-fault", po::value(&fault)->value_name("CYCLE,ROW,COL[,CLUSTER]"),
       "with --verify: flip one bit of PE(ROW,COL)'s sum register in cluster CLUSTER (default 0) after the clock "
       "edge of CYCLE, to see the checker catch it")
      ("verbose,v", po::bool_switch(&verbose), "debug logging")
      ("quiet,q", po::bool_switch(&quiet), "warnings and errors only; no table");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(desc).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(std::string("run: ") + e.what());
  }
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  for (const char* required : {"arch", "workload", "out"})
    if (!vm.count(required)) throw UsageError(fmt::format("run: --{} is required (see cstsim run --help)", required));
  setup_logging(verbose, quiet);
  o.overrides = parse_overrides(sets);
  o.print_table = !quiet;
  o.trace = vm.count("no-trace") == 0;
  if (o.window <= 0) throw InputError("--window", 0, "", "must be a positive number of cycles");
  if (!fault.empty()) {
    char tail = 0;
    long long cycle = 0;
    const int n = std::sscanf(fault.c_str(), "%lld,%d,%d,%d%c", &cycle, &o.fault_row, &o.fault_col, &o.fault_cluster, &tail);
    if ((n != 3 && n != 4) || cycle < 0)
      throw InputError("--inject-fault", 0, "", "expected CYCLE,ROW,COL[,CLUSTER] with non-negative integers");
    if (!o.verify) throw InputError("--inject-fault", 0, "", "needs --verify");
    o.fault_cycle = cycle;
  }
  return run_simulation(o);
}

}  // namespace

int cli_main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
      std::cout << kUsage;
      return args.empty() ? 2 : 0;
    }
    if (args[0] == "--version") {
      std::cout << "cstsim " << CSTSIM_VERSION << " (commit " << CSTSIM_COMMIT << ")\n";
      return 0;
    }
    const std::string command = args[0];
    args.erase(args.begin());
    if (command == "run") return run_command(args);
    if (command == "post") return post_command(args);
    if (command == "plan") return plan_command(args);
    if (command == "export") return export_command(args);
    if (command == "ledger") return ledger_command(args);
    if (command == "sweep") return sweep_command(args);
    if (command == "pareto") return pareto_command(args);
    if (command == "noc-bench") return noc_bench_command(args);
    if (command == "hbm-bench") return hbm_bench_command(args);
    throw UsageError(fmt::format("unknown command '{}' (commands: run, plan, post, export, ledger, sweep, pareto, noc-bench, hbm-bench)", command));
  } catch (const InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const UsageError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const io::OutputError& e) {  // disk full, read-only target: the input was fine, the output was not
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    std::cerr << "error: " << InputError::one_line(e.what()) << "\n";
    return 2;
  }
}

}  // namespace cstsim
