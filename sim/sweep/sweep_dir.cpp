#include "sim/sweep/sweep_dir.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/input_error.h"
#include "core/input_file.h"
#include "version.h"

namespace cstsim::sweep {
namespace fs = std::filesystem;

namespace dirs {
fs::path point(const fs::path& dir, int i) { return dir / "points" / std::to_string(i); }
fs::path failed(const fs::path& dir, int i) { return dir / "points" / (std::to_string(i) + ".failed"); }
fs::path host(const fs::path& dir, int i) { return dir / "points" / (std::to_string(i) + ".host.json"); }
fs::path log(const fs::path& dir, int i) { return dir / "logs" / (std::to_string(i) + ".log"); }
fs::path lock(const fs::path& dir, int i) { return dir / "locks" / (std::to_string(i) + ".lock"); }
}  // namespace dirs


std::string summary_hash(const fs::path& summary_json) {
  // summary.json begins {"version", "config_hash", ...}: read the head, parse the whole only if needed.
  std::error_code ec;
  if (!fs::exists(summary_json, ec)) return "";
  InputStream in(summary_json.string());  // a FIFO or a device is an InputError, never a wait
  char head[512];
  in.read(head, sizeof head);
  const std::string h(head, size_t(in.gcount()));
  const std::string key = "\"config_hash\": \"";
  const auto at = h.find(key);
  if (at != std::string::npos) {
    const auto end = h.find('"', at + key.size());
    if (end != std::string::npos) return h.substr(at + key.size(), end - at - key.size());
  }
  try {
    return nlohmann::json::parse(io::read_file(summary_json)).value("config_hash", "");
  } catch (const nlohmann::json::exception&) {
    return "";
  }
}

namespace {

// Whole and well-formed: a point whose results were damaged after it ran is run again, not
// counted as done and then refused by collect.
bool readable_json(const fs::path& p) {
  try {
    const nlohmann::json j = nlohmann::json::parse(io::read_file(p));
    return j.is_object();
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

bool point_done(const fs::path& dir, const Task& task, bool traced) {
  const fs::path p = dirs::point(dir, task.index);
  std::error_code ec;
  return (!traced || (fs::is_regular_file(p / "report.json", ec) && readable_json(p / "report.json"))) &&
         fs::is_regular_file(p / "summary.json", ec) && summary_hash(p / "summary.json") == task.hash &&
         readable_json(p / "summary.json");
}


Plan load_plan(const fs::path& dir) {
  const fs::path p = dir / "sweep.json";
  if (!fs::is_regular_file(p)) throw InputError(dir.string(), 0, "", "not a sweep directory (no sweep.json)");
  try {
    return plan_from_json(nlohmann::json::parse(io::read_file(p)));
  } catch (const std::exception& e) {
    throw InputError(p.string(), 0, "", std::string("malformed: ") + e.what());
  }
}

void prepare_dir(const Plan& plan, const fs::path& dir) {
  bool rehashed = false;  // same points, but a file they read has changed: sweep.json gets the new hashes
  if (fs::exists(dir)) {
    if (!fs::is_directory(dir)) throw InputError(dir.string(), 0, "--out", "exists and is not a directory");
    if (fs::exists(dir / "sweep.json")) {
      const Plan old = load_plan(dir);
      const std::string diff = plan_difference(old, plan);
      if (!diff.empty())
        throw InputError(dir.string(), 0, "--out",
                         fmt::format("holds another sweep ({}); use a new --out directory", diff));
      int changed = 0;
      for (size_t i = 0; i < plan.tasks.size(); ++i) changed += old.tasks[i].hash != plan.tasks[i].hash ? 1 : 0;
      if (changed > 0)
        spdlog::info("sweep: {} point(s) hash differently now (a file they read was edited): they run again", changed);
      rehashed = changed > 0;
    } else if (!fs::is_empty(dir)) {
      throw InputError(dir.string(), 0, "--out", "exists, is not empty and is not a sweep directory");
    }
  }
  for (const char* sub : {"points", "logs", "locks", "workloads"}) fs::create_directories(dir / sub);
  for (const fs::path& d : {dir, dir / "points", dir / "workloads"}) io::remove_stale_temporaries(d);  // a killed driver's
  for (const WorkloadVariant& v : plan.variants)
    if (!v.derived_text.empty() && (!fs::exists(dir / v.file) || io::read_file(dir / v.file) != v.derived_text))
      io::write_file(dir / v.file, v.derived_text);
  nlohmann::ordered_json j = plan_json(plan);
  j["cstsim_version"] = CSTSIM_VERSION;
  const std::string tasks = tasks_csv(plan);
  if (!fs::exists(dir / "tasks.csv") || io::read_file(dir / "tasks.csv") != tasks) io::write_file(dir / "tasks.csv", tasks);
  if (rehashed || !fs::exists(dir / "sweep.json")) io::write_file(dir / "sweep.json", j.dump(1) + "\n");
}

std::string ranges(const std::vector<int>& v) {
  std::string out;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? std::to_string(v[i]) : fmt::format("{}-{}", v[i], v[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace cstsim::sweep
