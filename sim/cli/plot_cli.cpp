#include "sim/cli/plot_cli.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "core/input_error.h"
#include "core/input_file.h"
#include "core/install_paths.h"
#include "core/out_file.h"
#include "core/signal_cleanup.h"
#include "sim/sweep/process.h"

namespace cstsim {
namespace {

namespace fs = std::filesystem;

// What paperstyle.save writes into every figure (PNG Software, PDF Creator): how plot knows its own.
constexpr const char* kFigureMark = "cstsim plot";

constexpr const char* kPlotUsage =
    "usage: cstsim plot <run-dir | sweep-dir> [--out DIR] [--force]\n\n"
    "Every figure of a run or a sweep, as PNG and PDF (text at least 7 pt, colour-blind-safe colours),\n"
    "in <dir>/figures/ unless --out. A run: rt (R(t), with a trace), power (energy per window),\n"
    "roofline, and the breakdowns stalls, utilization, energy and traffic per layer. A sweep: lines\n"
    "(cycles and energy against the swept size, one line per dataflow), pareto, roofline. Needs\n"
    "/usr/bin/python3 with matplotlib (Debian: python3-matplotlib), or $CSTSIM_PYTHON.\n"
    "The figures are drawn into a hidden directory first and moved into place only when all of them\n"
    "are there; a figure of the same name is replaced only if cstsim plot made it (--force: any file).\n";

// A failed script's one line: its own `error:` line, else the last line of what it printed (the
// exception of a traceback).
std::string script_error(const std::string& script, const std::string& err) {
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < err.size()) {
    const size_t nl = err.find('\n', at);
    std::string line = err.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(line);
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (it->rfind("error: ", 0) == 0) return InputError::one_line(*it);
  return InputError::one_line(fmt::format("error: plot: {} failed: {}", script,
                                          lines.empty() ? std::string("no message") : lines.back()));
}

// Runs a plot script without a shell (sweep/process.h); throws PlotFailed with its one line.
struct PlotFailed {
  std::string line;
};
// One figure script to run: its figures' name (for progress), the script, its arguments.
struct Script {
  std::string figure, script;
  std::vector<std::string> args;
};

// Runs the scripts in turn, each without a shell (sweep/process.h). Progress on stdout, a line
// before each (a large trace's R(t) takes a minute); what a script says besides its figures'
// paths (points that failed, labels left out) is kept in `notes`. Throws PlotFailed with the
// failing script's one line.
void run_scripts(const std::string& python, const std::vector<Script>& scripts, std::vector<std::string>& notes) {
  for (size_t k = 0; k < scripts.size(); ++k) {
    const Script& s = scripts[k];
    fmt::print("plot: [{}/{}] {}\n", k + 1, scripts.size(), s.figure);
    std::fflush(stdout);
    std::vector<std::string> argv{python, plot_dir() + "/" + s.script};
    argv.insert(argv.end(), s.args.begin(), s.args.end());
    std::string out, err;
    if (sweep::proc::capture(argv, out, &err) != 0) throw PlotFailed{script_error(s.script, err)};
    for (size_t at = 0; at < out.size();) {
      const size_t nl = out.find('\n', at);
      const std::string line = out.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
      at = nl == std::string::npos ? out.size() : nl + 1;
      const bool path = line.size() > 4 && (line.compare(line.size() - 4, 4, ".png") == 0 ||
                                            line.compare(line.size() - 4, 4, ".pdf") == 0);
      if (!line.empty() && !path) notes.push_back(s.figure + ": " + line);
    }
  }
}

// A run's figures.
std::vector<Script> run_scripts_of(const std::string& run, const fs::path& dir, const std::string& prefix) {
  std::vector<Script> s;
  if (fs::is_directory(dir / "trace")) s.push_back({"rt", "plot_rt.py", {run, "--out", prefix + "rt"}});
  if (fs::is_regular_file(dir / "energy_windows.csv"))
    s.push_back({"power", "plot_energy.py", {run, "--out", prefix + "power"}});
  if (fs::is_regular_file(dir / "report.json"))
    s.push_back({"roofline", "plot_roofline.py", {run, "--out", prefix + "roofline"}});
  s.push_back({"layers (stalls, utilization, energy, traffic)", "plot_breakdown.py", {run, "--out", prefix + "layers"}});
  return s;
}

// The scripts read with Python's open(), which waits on a FIFO forever: every file they may read
// (the run's or sweep's own files and its trace) must be a regular file, a directory or absent.
void check_readable(const fs::path& dir) {
  for (const fs::path& d : {dir, dir / "trace"}) {
    std::error_code ec;
    if (!fs::is_directory(d, ec)) continue;
    for (const auto& e : fs::directory_iterator(d, ec))
      if (fs::exists(e.status(ec)) && !e.is_directory(ec)) check_input_file(e.path().string());  // dangling: skipped
  }
}

// Whether the figure `target` is one cstsim plot made: its PNG text chunk, or its PDF's Creator,
// names us (paperstyle.save writes both).
bool our_figure(const fs::path& target, std::string_view head) {
  if (head.rfind("\x89PNG", 0) == 0) return head.find(kFigureMark) != std::string_view::npos;
  if (head.rfind("%PDF-", 0) != 0) return false;
  std::error_code ec;
  const uintmax_t size = fs::file_size(target, ec);
  if (ec) return false;
  InputStream in(target.string());  // the PDF's Info dictionary is near its end
  const uintmax_t tail = std::min<uintmax_t>(size, 1 << 18);
  in.seekg(std::streamoff(size - tail));
  std::string text(size_t(tail), '\0');
  in.read(text.data(), std::streamsize(tail));
  return text.find(std::string("/Creator (") + kFigureMark + ")") != std::string::npos;
}

// Every name a figure may take: checked before anything is drawn, so a refusal is quick.
std::vector<std::string> figure_names(bool sweep, bool serving) {
  const std::vector<std::string> stems =
      sweep     ? std::vector<std::string>{"lines", "pareto", "roofline"}
      : serving ? std::vector<std::string>{"serve-latency", "serve-kv", "serve-throughput"}
                : std::vector<std::string>{"rt", "power", "roofline", "layers-stalls", "layers-utilization", "layers-energy",
                                           "layers-traffic"};
  std::vector<std::string> names;
  for (const std::string& s : stems)
    for (const char* ext : {".png", ".pdf"}) names.push_back(s + ext);
  return names;
}

void check_figure(const fs::path& target, bool force) {
  io::check_replaceable(target, "plot", force, [&](std::string_view head) { return our_figure(target, head); },
                        "a figure written by cstsim plot", "; choose another --out, or --force to replace it");
}

// Moves every figure of `staging` into `figures`: first checks them all (nothing moves if one may not
// be replaced), then renames each (rename replaces a link at the name, never the file it points to).
std::vector<fs::path> commit_figures(const fs::path& staging, const fs::path& figures, bool force) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(staging)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  for (const std::string& n : names) check_figure(figures / n, force);  // again: the directory may have changed
  std::vector<fs::path> done;
  for (const std::string& n : names) {
    if (std::rename((staging / n).c_str(), (figures / n).c_str()) != 0)
      throw io::OutputError::from_errno(figures / n, "cannot replace", errno);
    done.push_back(figures / n);
  }
  return done;
}

}  // namespace

int plot_command(const std::vector<std::string>& args) {
  std::string run, out;
  bool force = false;
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
    } else if (args[i] == "--force") {
      force = true;
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
  check_readable(dir);
  const fs::path figures = out.empty() ? dir / "figures" : fs::path(out);
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(figures, ec);
  if (fs::is_symlink(st))  // planted or not, the figures would land wherever it points
    throw InputError(figures.string(), 0, "--out", "is a symbolic link; name the directory itself");
  if (fs::exists(st) && !fs::is_directory(st)) throw InputError(figures.string(), 0, "--out", "exists and is not a directory");
  // A serving run (cstsim serve): its request and iteration logs.
  const bool serving = !sweep && fs::is_regular_file(dir / "requests.csv") && fs::is_regular_file(dir / "iterations.csv");
  for (const std::string& n : figure_names(sweep, serving)) check_figure(figures / n, force);
  // Directories made here are removed again if nothing is written.
  std::vector<fs::path> created;
  for (fs::path p = fs::absolute(figures); !p.empty() && !fs::exists(fs::symlink_status(p, ec)); p = p.parent_path()) {
    created.push_back(p);
    if (p == p.root_path()) break;
  }
  fs::create_directories(figures, ec);
  if (ec) throw io::OutputError(figures, "cannot create the directory: " + ec.message());
  std::string templ = (figures / (".figures.tmp-" + io::owner_tag() + "-XXXXXX")).string();
  if (!::mkdtemp(templ.data())) throw io::OutputError::from_errno(figures, "cannot create a staging directory in", errno);
  const fs::path staging = templ;
  const int slot = cleanup::add(staging);
  const auto discard = [&] {
    fs::remove_all(staging, ec);
    cleanup::remove(slot);
    for (const fs::path& p : created) fs::remove(p, ec);  // deepest first; only if empty
  };
  const char* env = std::getenv("CSTSIM_PYTHON");
  const std::string python = env && *env ? env : "/usr/bin/python3";
  const std::string prefix = (staging / "").string();
  std::vector<fs::path> written;
  std::vector<std::string> notes;
  try {
    // A sweep's results: metrics against the swept size, the Pareto front, the roofline.
    const std::vector<Script> scripts =
        sweep ? std::vector<Script>{{"lines", "plot_sweep_lines.py", {run, "--out", prefix + "lines"}},
                                    {"pareto", "plot_pareto.py", {run, "--out", prefix + "pareto"}},
                                    {"roofline", "plot_sweep_roofline.py", {run, "--out", prefix + "roofline"}}}
              : serving ? std::vector<Script>{{"serving (latency CDFs, KV cache, throughput)", "plot_serve.py", {run, "--out", prefix + "serve"}}}
              : run_scripts_of(run, dir, prefix);
    run_scripts(python, scripts, notes);
    written = commit_figures(staging, figures, force);
  } catch (const PlotFailed& f) {
    discard();
    std::cerr << f.line << "\n";
    return 2;
  } catch (...) {
    discard();
    throw;
  }
  discard();  // the staging directory is empty now
  for (const fs::path& f : written) std::cout << f.string() << "\n";
  std::vector<std::string> said;  // a sweep's failed points, once even if every figure names them
  for (const std::string& n : notes) {
    const std::string text = n.substr(n.find(": ") + 2);
    if (std::find(said.begin(), said.end(), text) != said.end()) continue;
    said.push_back(text);
    std::cout << "plot: " << n << "\n";
  }
  return 0;
}

}  // namespace cstsim
