#include "sim/cli/plot_cli.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "core/install_paths.h"
#include "sim/sweep/process.h"

namespace cstsim {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPlotUsage =
    "usage: cstsim plot <run-dir | sweep-dir> [--out DIR]\n\n"
    "Every figure of a run or a sweep, as PNG and PDF (text at least 7 pt, colour-blind-safe colours),\n"
    "in <dir>/figures/ unless --out. A run: rt (R(t), with a trace), power (energy per window),\n"
    "roofline, and the breakdowns stalls, utilization, energy and traffic per layer. A sweep: lines\n"
    "(cycles and energy against the swept size, one line per dataflow), pareto, roofline. Needs\n"
    "/usr/bin/python3 with matplotlib (Debian: python3-matplotlib), or $CSTSIM_PYTHON.\n";

// Runs a plot script without a shell (sweep/process.h); what it printed (the files it wrote, or its
// error) is passed on. False on failure.
bool run_script(const std::string& python, const std::string& script, const std::vector<std::string>& args) {
  std::vector<std::string> argv{python, plot_dir() + "/" + script};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string out, err;
  const int status = sweep::proc::capture(argv, out, &err);
  std::cout << out << std::flush;
  std::cerr << err;
  return status == 0;
}

// A run's figures.
bool plot_run(const std::string& python, const std::string& run, const fs::path& dir, const std::string& prefix) {
  bool ok = true;
  if (fs::is_directory(dir / "trace")) ok &= run_script(python, "plot_rt.py", {run, "--out", prefix + "rt"});
  if (fs::is_regular_file(dir / "energy_windows.csv"))
    ok &= run_script(python, "plot_energy.py", {run, "--out", prefix + "power"});
  if (fs::is_regular_file(dir / "report.json"))
    ok &= run_script(python, "plot_roofline.py", {run, "--out", prefix + "roofline"});
  ok &= run_script(python, "plot_breakdown.py", {run, "--out", prefix + "layers"});
  return ok;
}

}  // namespace

int plot_command(const std::vector<std::string>& args) {
  std::string run, out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      std::cout << kPlotUsage;
      return 0;
    }
    if (args[i] == "--out") {
      if (i + 1 == args.size()) {
        std::cerr << "error: plot: --out needs a directory\n";
        return 2;
      }
      out = args[++i];
    } else if (!args[i].empty() && args[i][0] == '-') {
      std::cerr << fmt::format("error: plot: unknown option '{}' (see cstsim plot --help)\n", args[i]);
      return 2;
    } else if (run.empty()) run = args[i];
    else {
      std::cerr << fmt::format("error: plot: unexpected argument '{}'\n", args[i]);
      return 2;
    }
  }
  if (run.empty()) {
    std::cerr << "error: plot: missing <run-dir> (see cstsim plot --help)\n";
    return 2;
  }
  const fs::path dir = run;
  const bool sweep = fs::is_regular_file(dir / "results.csv");
  if (!sweep && !fs::is_regular_file(dir / "summary.json")) {
    std::cerr << fmt::format("error: plot: {}: no summary.json or results.csv there (not a run or a sweep)\n", run);
    return 2;
  }
  const fs::path figures = out.empty() ? dir / "figures" : fs::path(out);
  std::error_code ec;
  fs::create_directories(figures, ec);
  if (ec) {
    std::cerr << fmt::format("error: plot: --out {}: {}\n", figures.string(), ec.message());
    return 2;
  }
  const char* env = std::getenv("CSTSIM_PYTHON");
  const std::string python = env && *env ? env : "/usr/bin/python3";
  const std::string prefix = (figures / "").string();
  bool ok = true;
  if (sweep) {  // a sweep's results: metrics against the swept size, the Pareto front, the roofline
    ok &= run_script(python, "plot_sweep_lines.py", {run, "--out", prefix + "lines"});
    ok &= run_script(python, "plot_pareto.py", {run, "--out", prefix + "pareto"});
    ok &= run_script(python, "plot_sweep_roofline.py", {run, "--out", prefix + "roofline"});
  } else {
    ok &= plot_run(python, run, dir, prefix);
  }
  if (!ok) {
    std::cerr << "error: plot: a figure failed (its script's message is above)\n";
    return 1;
  }
  return 0;
}

}  // namespace cstsim
