#include "traces/export/trace_input.h"

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/csv.h"
#include "core/input_error.h"
#include "core/input_file.h"
#include "core/text.h"

namespace cstsim::trace {
namespace fs = std::filesystem;

// Opens <run-dir>/trace with errors that name what is missing.
std::unique_ptr<TraceReader> open_trace(const fs::path& run_dir) {
  if (!fs::exists(run_dir)) throw InputError::usage("", "", fmt::format("run directory {} does not exist", run_dir.string()));
  if (!fs::is_directory(run_dir)) throw InputError::usage("", "", fmt::format("{} is not a run directory", run_dir.string()));
  const fs::path dir = run_dir / "trace";
  if (!fs::is_directory(dir)) throw InputError::usage("", "", fmt::format("{}: no trace folder in this run directory", dir.string()));
  auto reader = std::make_unique<TraceReader>(dir);
  // The whole trace is checked before anything is exported: its summary.json entry, and
  // actions.csv (which no exporter reads) against the manifest, like rt.bin's records as they stream.
  const fs::path summary_path = run_dir / "summary.json";
  reader->manifest().check_summary(summary_path, read_run_summary(summary_path));
  reader->for_each_action([](const ActionRow&) {});
  return reader;
}

void for_each_slice(const fs::path& run_dir, const std::function<void(const SliceRow&)>& f) {
  const fs::path path = run_dir / "trace" / "slices.csv";
  if (!fs::exists(path)) return;
  const Manifest manifest = Manifest::read(run_dir / "trace");
  const FileCheck& check = manifest.file(run_dir / "trace", "slices.csv");
  check_streamed(path, check);
  InputStream in(path.string());
  std::string line;
  std::vector<std::vector<std::string>> rows;
  for (int n = 1; std::getline(in, line); ++n) {
    if (n == 1) continue;  // the header
    if (!csv::parse(line, rows) || rows.size() != 1 || rows[0].size() != 4)
      throw std::runtime_error(fmt::format("{}:{}: malformed slice row", path.string(), n));
    const auto start = text::parse_int(rows[0][2]), end = text::parse_int(rows[0][3]);
    if (!start || !end || *start < 0 || *end < *start)
      throw std::runtime_error(fmt::format("{}:{}: bad cycles {}..{}", path.string(), n, rows[0][2], rows[0][3]));
    f({rows[0][0], rows[0][1], *start, *end});
  }
}

std::string run_name(const fs::path& run_dir) {
  fs::path p = fs::absolute(run_dir).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return p.filename().string();
}

}  // namespace cstsim::trace
