#include "sim/sweep/spec.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "core/input_error.h"
#include "core/text.h"
#include "sim/config/config_hash.h"
#include "sim/sweep/constraint.h"
#include "sim/sweep/csv.h"
#include "sim/sweep/spec_read.h"
#include "sim/workload/workload.h"

namespace cstsim::sweep {
namespace fs = std::filesystem;

namespace {

// canonical_text -> key -> value
std::map<std::string, std::string> canonical_map(const ArchSpec& a) {
  std::map<std::string, std::string> out;
  std::istringstream in(canonical_text(a));
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

// A workload name as a file name: anything but [A-Za-z0-9._-] becomes '_'.
std::string file_safe(const std::string& name) {
  std::string out = name;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  return out;
}

double estimate_cycles(const ArchSpec& a, const Workload& w) {
  auto cdiv = [](double x, double y) { return std::ceil(x / y); };
  const double R = a.rows, C = a.cols;
  double total = 0;
  for (const Layer& l : w.layers) {
    const GemmDims g{l.M, l.N, l.K};
    const DataflowRoles& r = roles(a.dataflow);  // folds x (stream + fill and drain)
    total += cdiv(double(g[r.Sr]), R) * cdiv(double(g[r.Sc]), C) * (double(g[r.T]) + R + C);
  }
  // Process start-up, parsing and writing the outputs cost about as much as half a million cycles.
  return total + 5e5 + 2e4 * double(w.layers.size());
}

// The workload with every layer's M multiplied by `batch`, and its YAML text.
Workload batched(const Workload& w, int64_t batch, const std::string& spec, int line, std::string& yaml) {
  Workload out;
  out.name = fmt::format("{}-b{}", w.name, batch);
  out.source = w.source;
  yaml = fmt::format("# Derived by `cstsim sweep` from {}:\n# batch {}, every layer's M multiplied by {}.\n", w.source,
                     batch, batch);
  yaml += "name: " + nlohmann::json(out.name).dump() + "\nlayers:\n";
  std::map<std::string, int> seen;
  for (const Layer& l : w.layers) {
    Layer b = l;
    if (l.M > INT_MAX / batch)
      throw InputError(spec, line, "batch",
                       fmt::format("batch {} makes M of layer '{}' of {} exceed {}", batch, l.name, w.name, INT_MAX));
    b.M = l.M * batch;
    b.conv.reset();
    const int n = ++seen[l.name];  // the YAML reader wants unique names; SCALE-Sim CSVs may repeat them
    if (n > 1) b.name = fmt::format("{}~{}", l.name, n);
    yaml += fmt::format("  - {{name: {}, M: {}, N: {}, K: {}}}\n", nlohmann::json(b.name).dump(), b.M, b.N, b.K);
    out.layers.push_back(b);
  }
  return out;
}

}  // namespace

bool is_sweepable_key(const std::string& key) { return is_config_key(key); }

Plan expand(const std::string& spec_path) {
  const SpecFile sp = read_spec(spec_path);
  const std::string& S = spec_path;
  auto line_of_key = [&](const std::string& k) { return sp.line_of(k); };
  const auto& workloads = sp.workloads;
  const auto& batches = sp.batches;
  const auto& batch_values = sp.batch_values;
  const auto& axes = sp.axes;
  const auto& fixed = sp.fixed;
  const auto& points = sp.points;
  const auto& constraints = sp.constraints;
  Plan plan;
  plan.name = sp.name;
  plan.spec_path = sp.spec_path;
  plan.base = sp.base;
  plan.run = sp.run;
  plan.param_keys = sp.param_keys;

  // Base values, for constraints on keys a point does not set.
  std::map<std::string, std::string> base_values;
  std::string base_error;
  try {
    Overrides o;
    for (const auto& [k, v] : fixed) o.emplace_back(k, v.text);
    base_values = canonical_map(load_arch(plan.base, o));
  } catch (const InputError& e) {
    base_error = e.what();
  }

  // Workload variants: workload-major, then batch.
  std::vector<Workload> variant_workloads;
  for (size_t w = 0; w < workloads.size(); ++w)
    for (size_t b = 0; b < batch_values.size(); ++b) {
      WorkloadVariant v;
      v.name = workloads[w].name;
      v.source = workloads[w].source;
      v.batch = batch_values[b];
      if (v.batch == 1) {
        v.file = v.source;
        variant_workloads.push_back(workloads[w]);
      } else {
        v.file = fmt::format("workloads/{}-b{}.yaml", file_safe(v.name), v.batch);
        variant_workloads.push_back(batched(workloads[w], v.batch, S, batches[b].line, v.derived_text));
      }
      plan.variants.push_back(std::move(v));
    }
  auto variant_of = [&](size_t w, int64_t batch) {
    for (size_t i = 0; i < plan.variants.size(); ++i)
      if (plan.variants[i].name == workloads[w].name && plan.variants[i].batch == batch) return int(i);
    return -1;
  };

  // The grid's size, before spending time on it.
  int64_t per_variant = 1;
  for (const Axis& a : axes) {
    if (per_variant > kMaxPoints / int64_t(a.values.size()))
      throw InputError(S, a.line, a.key, fmt::format("the grid has more than {} points", kMaxPoints));
    per_variant *= int64_t(a.values.size());
  }
  if (per_variant * int64_t(plan.variants.size()) > kMaxPoints)
    throw InputError(S, line_of_key("grid"), "grid", fmt::format("the sweep has more than {} points", kMaxPoints));

  std::set<std::pair<int, std::vector<std::string>>> seen_points;
  // One point: resolve the arch (errors point at the spec line of the offending value), hash it.
  auto add_point = [&](int variant, const std::vector<std::pair<std::string, Value>>& values) {
    Overrides o;
    for (const auto& [k, v] : fixed) o.emplace_back(k, v.text);
    for (const auto& [k, v] : values) o.emplace_back(k, v.text);
    ArchSpec arch;
    try {
      arch = load_arch(plan.base, o);
    } catch (const InputError& e) {
      if (e.file() != "--set") throw;
      int line = 0;
      using List = std::vector<std::pair<std::string, Value>>;
      for (const List* list : {&values, static_cast<const List*>(&fixed)})
        for (const auto& [k, v] : *list)
          if (k == e.key() && line == 0) line = v.line;
      throw InputError(S, line, e.key(), e.message());
    }
    const auto canon = canonical_map(arch);
    Task t;
    t.variant = variant;
    t.overrides = o;
    for (const std::string& k : plan.param_keys) {
      std::string value;
      if (canon.count(k)) {
        value = canon.at(k);
      } else {
        for (const auto& [ok, ov] : o)
          if (ok == k) value = ov;
      }
      t.params.push_back(value);
    }
    if (!seen_points.insert({variant, t.params}).second) {
      ++plan.duplicates;
      return;
    }
    t.hash = config_hash(arch, variant_workloads[variant], "timing", 1);
    t.cost = estimate_cycles(arch, variant_workloads[variant]);
    t.index = int(plan.tasks.size());
    plan.tasks.push_back(std::move(t));
  };

  // The product: workloads x batch x grid (last grid key fastest).
  for (size_t w = 0; w < workloads.size(); ++w)
    for (const int64_t batch : batch_values) {
      const int variant = variant_of(w, batch);
      std::vector<size_t> odo(axes.size(), 0);
      for (int64_t n = 0; n < per_variant; ++n) {
        std::vector<std::pair<std::string, Value>> values;
        for (size_t a = 0; a < axes.size(); ++a) values.push_back({axes[a].key, axes[a].values[odo[a]]});
        for (size_t a = axes.size(); a-- > 0;) {
          if (++odo[a] < axes[a].values.size()) break;
          odo[a] = 0;
        }
        ++plan.grid_points;
        auto lookup = [&](const std::string& k) -> std::string {
          if (k == "workload") return workloads[w].name;
          if (k == "batch") return std::to_string(batch);
          for (const auto& [vk, vv] : values)
            if (vk == k) return vv.text;
          for (const auto& [fk, fv] : fixed)
            if (fk == k) return fv.text;
          if (base_values.count(k)) return base_values.at(k);
          throw InputError(S, line_of_key("constraints"), "constraints",
                           fmt::format("{} has no value without the grid ({})", k, base_error));
        };
        bool keep = true;
        for (const Constraint& c : constraints)
          if (!c.holds(lookup)) {
            keep = false;
            break;
          }
        if (!keep) {
          ++plan.rejected;
          continue;
        }
        add_point(variant, values);
      }
    }
  if (plan.grid_points > 0 && plan.rejected == plan.grid_points && points.empty())
    throw InputError(S, line_of_key("constraints"), "constraints",
                     fmt::format("no point satisfies the constraints (all {} grid points rejected): the product is empty",
                                 plan.grid_points));

  // Explicit points, each crossed with the workloads and batch sizes it does not name.
  for (const ExplicitPoint& p : points)
    for (size_t w = 0; w < workloads.size(); ++w) {
      if (p.workload && p.workload->text != workloads[w].name) continue;
      std::vector<int64_t> bs = batch_values;
      if (p.batch) bs = {*text::parse_int(p.batch->text)};
      for (const int64_t batch : bs) {
        int variant = variant_of(w, batch);
        if (variant < 0) {  // a batch size only this point uses
          WorkloadVariant v;
          v.name = workloads[w].name;
          v.source = workloads[w].source;
          v.batch = batch;
          v.file = fmt::format("workloads/{}-b{}.yaml", file_safe(v.name), v.batch);
          variant_workloads.push_back(batched(workloads[w], batch, S, p.batch->line, v.derived_text));
          plan.variants.push_back(std::move(v));
          variant = int(plan.variants.size()) - 1;
        }
        add_point(variant, p.values);
      }
    }
  if (plan.tasks.empty()) throw InputError(S, 0, "grid", "the sweep has no points");
  return plan;
}

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
  j["run"] = {{"window", p.run.window}, {"energy", p.run.energy}, {"timeout_s", p.run.timeout_s},
              {"keep_trace", p.run.keep_trace}};
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
    j["tasks"].push_back({{"index", t.index}, {"variant", t.variant}, {"set", set}, {"params", t.params},
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
    p.run.window = j.at("run").at("window");
    p.run.energy = j.at("run").at("energy");
    p.run.timeout_s = j.at("run").at("timeout_s");
    p.run.keep_trace = j.at("run").at("keep_trace");
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
      for (const auto& kv : t.at("set")) task.overrides.emplace_back(kv.at(0), kv.at(1));
      task.params = t.at("params").get<std::vector<std::string>>();
      task.hash = t.at("hash");
      task.cost = t.at("cost");
      if (task.index != int(p.tasks.size()) || task.variant < 0 || task.variant >= int(p.variants.size()))
        throw std::runtime_error("task list out of order");
      p.tasks.push_back(std::move(task));
    }
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(e.what());
  }
}

std::string plan_difference(const Plan& a, const Plan& b) {
  if (a.base != b.base) return fmt::format("base {} vs {}", a.base, b.base);
  if (a.run.window != b.run.window || a.run.energy != b.run.energy || a.run.keep_trace != b.run.keep_trace)
    return "run settings (window, energy or keep_trace) differ";
  if (a.param_keys != b.param_keys) return "the swept keys differ";
  if (a.tasks.size() != b.tasks.size()) return fmt::format("{} tasks vs {}", a.tasks.size(), b.tasks.size());
  for (size_t i = 0; i < a.tasks.size(); ++i) {
    const Task &x = a.tasks[i], &y = b.tasks[i];
    const WorkloadVariant &vx = a.variants[x.variant], &vy = b.variants[y.variant];
    if (x.params != y.params || x.overrides != y.overrides || vx.name != vy.name ||
        vx.batch != vy.batch || vx.source != vy.source)
      return fmt::format("task {} differs", i);
  }
  return "";
}

std::vector<std::string> point_args(const Plan& plan, const Task& t, const std::string& dir) {
  const WorkloadVariant& v = plan.variants[t.variant];
  const std::string workload = v.batch == 1 ? v.file : (fs::path(dir) / v.file).string();
  std::vector<std::string> args{"run", "-q", "--arch", plan.base, "--workload", workload, "--out",
                                (fs::path(dir) / "points" / std::to_string(t.index)).string()};
  if (plan.run.window > 0) args.insert(args.end(), {"--window", std::to_string(plan.run.window)});
  if (!plan.run.energy.empty()) args.insert(args.end(), {"--energy", plan.run.energy});
  for (const auto& [k, val] : t.overrides) args.insert(args.end(), {"--set", k + "=" + val});
  return args;
}

}  // namespace cstsim::sweep
