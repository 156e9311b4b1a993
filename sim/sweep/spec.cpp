#include "sim/sweep/spec.h"

#include <filesystem>

#include <fmt/format.h>

#include "core/input_error.h"
#include "core/text.h"
#include "core/csv.h"

// The sweep plan's files (tasks.csv, sweep.json) and a point's command line;
// expand() is in expand.cpp, the spec's reader in spec_read.cpp.
namespace cstsim::sweep {
namespace fs = std::filesystem;

bool is_sweepable_key(const std::string& key) { return is_config_key(key); }

std::string tasks_csv(const Plan& plan) {
  std::vector<std::string> head{"index", "workload", "batch"};
  head.insert(head.end(), plan.param_keys.begin(), plan.param_keys.end());
  head.push_back("hash");
  std::string out = csv::row(head);
  for (const Task& t : plan.tasks) {
    const WorkloadVariant& v = plan.variants[t.variant];
    std::vector<std::string> r{std::to_string(t.index), v.name, std::to_string(v.batch)};
    r.insert(r.end(), t.params.begin(), t.params.end());
    r.push_back(t.hash);
    out += csv::row(r);
  }
  return out;
}

nlohmann::ordered_json plan_json(const Plan& p) {
  nlohmann::ordered_json j;
  j["format"] = "cstsim-sweep/1";
  j["name"] = p.name;
  j["spec"] = p.spec_path;
  j["base"] = p.base;
  j["bases"] = p.bases;
  j["run"] = {{"window", p.run.window}, {"energy", p.run.energy}, {"timeout_s", p.run.timeout_s},
              {"keep_trace", p.run.keep_trace}, {"trace", p.run.trace}, {"train", p.run.train}, {"sparsity", p.run.sparsity},
              {"fidelity", p.run.fidelity}};
  j["param_keys"] = p.param_keys;
  j["counts"] = {{"tasks", p.tasks.size()}, {"grid_points", p.grid_points}, {"rejected_by_constraints", p.rejected},
                 {"duplicates_dropped", p.duplicates}};
  j["variants"] = nlohmann::ordered_json::array();
  for (const WorkloadVariant& v : p.variants)
    j["variants"].push_back({{"name", v.name}, {"source", v.source}, {"batch", v.batch}, {"file", v.file}});
  j["tasks"] = nlohmann::ordered_json::array();
  for (const Task& t : p.tasks) {
    nlohmann::ordered_json set = nlohmann::ordered_json::array();
    for (const auto& [k, v] : t.overrides) set.push_back({k, v});
    j["tasks"].push_back({{"index", t.index}, {"variant", t.variant}, {"base", t.base}, {"set", set}, {"params", t.params},
                          {"hash", t.hash}, {"cost", t.cost}});
  }
  return j;
}

Plan plan_from_json(const nlohmann::json& j) {
  try {
    if (j.at("format") != "cstsim-sweep/1") throw std::runtime_error("unknown format " + j.at("format").dump());
    Plan p;
    p.name = j.at("name");
    p.spec_path = j.at("spec");
    p.base = j.at("base");
    p.bases = j.value("bases", std::vector<std::string>{p.base});  // sweeps written before: one base
    p.run.window = j.at("run").at("window");
    p.run.energy = j.at("run").at("energy");
    p.run.timeout_s = j.at("run").at("timeout_s");
    p.run.keep_trace = j.at("run").at("keep_trace");
    p.run.trace = j.at("run").value("trace", true);  // sweeps written before it existed: traced
    p.run.train = j.at("run").value("train", "");  // sweeps written before they existed: none
    p.run.sparsity = j.at("run").value("sparsity", "");
    p.run.fidelity = j.at("run").value("fidelity", "");  // sweeps written before it existed: the default
    p.param_keys = j.at("param_keys").get<std::vector<std::string>>();
    p.grid_points = j.at("counts").at("grid_points");
    p.rejected = j.at("counts").at("rejected_by_constraints");
    p.duplicates = j.at("counts").at("duplicates_dropped");
    for (const auto& v : j.at("variants"))
      p.variants.push_back({v.at("name"), v.at("source"), v.at("batch"), v.at("file"), ""});
    for (const auto& t : j.at("tasks")) {
      Task task;
      task.index = t.at("index");
      task.variant = t.at("variant");
      task.base = t.value("base", 0);
      for (const auto& kv : t.at("set")) task.overrides.emplace_back(kv.at(0), kv.at(1));
      task.params = t.at("params").get<std::vector<std::string>>();
      task.hash = t.at("hash");
      task.cost = t.at("cost");
      if (task.index != int(p.tasks.size()) || task.variant < 0 || task.variant >= int(p.variants.size()) ||
          task.base < 0 || task.base >= int(p.bases.size()))
        throw std::runtime_error("task list out of order");
      p.tasks.push_back(std::move(task));
    }
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(e.what());
  }
}

std::string plan_difference(const Plan& a, const Plan& b) {
  if (a.bases != b.bases) return fmt::format("base {} vs {}", fmt::join(a.bases, ", "), fmt::join(b.bases, ", "));
  if (a.run.window != b.run.window || a.run.energy != b.run.energy || a.run.keep_trace != b.run.keep_trace ||
      a.run.trace != b.run.trace || a.run.train != b.run.train || a.run.sparsity != b.run.sparsity ||
      a.run.fidelity != b.run.fidelity)
    return "run settings (window, energy, keep_trace, trace, train, sparsity or fidelity) differ";
  if (a.param_keys != b.param_keys) return "the swept keys differ";
  if (a.tasks.size() != b.tasks.size()) return fmt::format("{} tasks vs {}", a.tasks.size(), b.tasks.size());
  for (size_t i = 0; i < a.tasks.size(); ++i) {
    const Task &x = a.tasks[i], &y = b.tasks[i];
    const WorkloadVariant &vx = a.variants[x.variant], &vy = b.variants[y.variant];
    if (x.params != y.params || x.overrides != y.overrides || x.base != y.base || vx.name != vy.name ||
        vx.batch != vy.batch || vx.source != vy.source)
      return fmt::format("task {} differs", i);
  }
  return "";
}

std::vector<std::string> point_args(const Plan& plan, const Task& t, const std::string& dir) {
  const WorkloadVariant& v = plan.variants[t.variant];
  const std::string workload = v.batch == 1 ? v.file : (fs::path(dir) / v.file).string();
  std::vector<std::string> args{"run", "-q", "--arch", plan.bases.at(size_t(t.base)), "--workload", workload, "--out",
                                (fs::path(dir) / "points" / std::to_string(t.index)).string()};
  if (!plan.run.trace) args.push_back("--no-trace");
  if (plan.run.window > 0) args.insert(args.end(), {"--window", std::to_string(plan.run.window)});
  if (!plan.run.energy.empty()) args.insert(args.end(), {"--energy", plan.run.energy});
  if (!plan.run.train.empty()) args.insert(args.end(), {"--train", plan.run.train});
  if (!plan.run.sparsity.empty()) args.insert(args.end(), {"--sparsity", plan.run.sparsity});
  if (!plan.run.fidelity.empty()) args.insert(args.end(), {"--fidelity", plan.run.fidelity});
  for (const auto& [k, val] : t.overrides) args.insert(args.end(), {"--set", k + "=" + val});
  return args;
}

}  // namespace cstsim::sweep
