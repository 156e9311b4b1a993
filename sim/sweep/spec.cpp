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
#include "core/yaml_file.h"
#include "sim/config/config_hash.h"
#include "sim/sweep/constraint.h"
#include "sim/sweep/csv.h"
#include "sim/workload/workload.h"
#include "traces/post/energy_table.h"

namespace cstsim::sweep {
namespace fs = std::filesystem;

namespace {

constexpr int64_t kMaxPoints = 1000000;
const char* const kTopKeys[] = {"name", "description", "base", "workloads", "batch", "grid",
                                "constraints", "points", "set", "run"};
const char* const kRunKeys[] = {"window", "timeout", "keep_trace", "energy"};

struct Value {
  std::string text;
  int line = 0;
};

struct Axis {  // one grid key and its values
  std::string key;
  int line = 0;
  std::vector<Value> values;
};

struct ExplicitPoint {
  int line = 0;
  std::vector<std::pair<std::string, Value>> values;  // config keys, in the order written
  std::optional<Value> workload, batch;
};

std::string known_keys_hint() {
  std::string out;
  for (const std::string& k : arch_keys())
    if (k != "source") out += (out.empty() ? "" : ", ") + k;
  return out;
}

std::string scalar_text(const YAML::Node& n) { return std::string(text::trim(n.Scalar())); }

// Keys of a YAML map in order, with their lines; duplicate keys are an error.
std::vector<std::pair<std::string, YAML::Node>> map_entries(const std::string& file, const YAML::Node& map,
                                                            const std::string& what, std::vector<int>* lines) {
  if (!map.IsMap())
    throw InputError(file, line_of(map), what, fmt::format("must be a map, got {}", yaml_kind(map)));
  std::vector<std::pair<std::string, YAML::Node>> out;
  std::set<std::string> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (!it->first.IsScalar()) throw InputError(file, line_of(it->first), what, "keys must be plain names");
    const std::string key = scalar_text(it->first);
    if (!seen.insert(key).second) throw InputError(file, line_of(it->first), key, "duplicate key");
    out.emplace_back(key, it->second);
    if (lines) lines->push_back(line_of(it->first));
  }
  return out;
}

std::vector<Value> scalar_list(const std::string& file, const std::string& key, const YAML::Node& node) {
  std::vector<Value> out;
  if (node.IsScalar()) {
    out.push_back({scalar_text(node), line_of(node)});
  } else if (node.IsSequence()) {
    for (const YAML::Node& v : node) {
      if (!v.IsScalar())
        throw InputError(file, line_of(v), key, fmt::format("list items must be single values, got {}", yaml_kind(v)));
      out.push_back({scalar_text(v), line_of(v)});
    }
  } else {
    throw InputError(file, line_of(node), key, fmt::format("must be a value or a list, got {}", yaml_kind(node)));
  }
  return out;
}

// Grid values: a scalar, a list, or {from, to, times|step} (integers).
std::vector<Value> grid_values(const std::string& file, const std::string& key, const YAML::Node& node) {
  if (!node.IsMap()) return scalar_list(file, key, node);
  std::vector<int> lines;
  std::map<std::string, int64_t> f;
  const auto entries = map_entries(file, node, key, &lines);
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& [k, v] = entries[i];
    if (k != "from" && k != "to" && k != "times" && k != "step")
      throw InputError(file, lines[i], key + "." + k, "unknown range key (a range is {from, to, times} or {from, to, step})");
    const auto n = v.IsScalar() ? text::parse_int(v.Scalar()) : std::nullopt;
    if (!n) throw InputError(file, lines[i], key + "." + k, "must be an integer");
    f[k] = *n;
  }
  const int line = line_of(node);
  if (!f.count("from") || !f.count("to") || f.count("times") == f.count("step"))
    throw InputError(file, line, key, "a range needs from, to and exactly one of times or step");
  std::vector<Value> out;
  const int64_t from = f["from"], to = f["to"];
  if (f.count("times")) {
    if (f["times"] < 2 || from <= 0) throw InputError(file, line, key, "a geometric range needs from > 0 and times >= 2");
    for (int64_t v = from; v <= to; v *= f["times"]) {
      out.push_back({std::to_string(v), line});
      if (v > INT64_MAX / f["times"]) break;
    }
  } else {
    if (f["step"] <= 0) throw InputError(file, line, key, "step must be positive");
    for (int64_t v = from; v <= to; v += f["step"]) {
      out.push_back({std::to_string(v), line});
      if (out.size() > size_t(kMaxPoints)) throw InputError(file, line, key, "range too long");
    }
  }
  return out;
}

std::string resolve_path(const std::string& spec, const std::string& p) {
  fs::path path(p);
  if (path.is_relative()) path = fs::absolute(fs::path(spec)).parent_path() / path;
  return fs::weakly_canonical(path).string();
}

std::string require_file(const std::string& spec, int line, const std::string& key, const std::string& written) {
  if (written.empty()) throw InputError(spec, line, key, "must be a file path");
  const std::string p = resolve_path(spec, written);
  if (!fs::is_regular_file(p))
    throw InputError(spec, line, key, fmt::format("cannot open {} (paths are relative to the spec file)", p));
  return p;
}

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
    const double M = double(l.M), N = double(l.N), K = double(l.K);
    switch (a.dataflow) {
      case Dataflow::WS: total += cdiv(K, R) * cdiv(N, C) * (M + R + C); break;
      case Dataflow::OS: total += cdiv(M, R) * cdiv(N, C) * (K + R + C); break;
      case Dataflow::IS: total += cdiv(K, R) * cdiv(M, C) * (N + R + C); break;
    }
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
  const std::string& S = spec_path;
  const YAML::Node root = load_yaml_file(S);
  if (!root.IsMap())
    throw InputError(S, line_of(root), "", fmt::format("a sweep spec is a map (base, workloads, grid, ...), got {}",
                                                       yaml_kind(root)));
  std::vector<int> top_lines;
  const auto top = map_entries(S, root, "", &top_lines);
  std::map<std::string, std::pair<YAML::Node, int>> f;
  for (size_t i = 0; i < top.size(); ++i) {
    const std::string& k = top[i].first;
    if (std::find(std::begin(kTopKeys), std::end(kTopKeys), k) == std::end(kTopKeys))
      throw InputError(S, top_lines[i], k,
                       "unknown key (known: name, description, base, workloads, batch, grid, constraints, points, set, run)");
    f[k] = {top[i].second, top_lines[i]};
  }
  auto line_of_key = [&](const std::string& k) { return f.count(k) ? f[k].second : 0; };

  Plan plan;
  plan.spec_path = fs::weakly_canonical(fs::absolute(S)).string();
  plan.name = text::stem(S);
  if (f.count("name")) {
    const YAML::Node& n = f["name"].first;
    if (!n.IsScalar() || scalar_text(n).empty()) throw InputError(S, line_of_key("name"), "name", "must be a non-empty string");
    plan.name = scalar_text(n);
  }
  if (const auto at = text::control_char(plan.name))
    throw InputError(S, f.count("name") ? line_of_key("name") : 0, "name",
                     fmt::format("contains a control character (byte 0x{:02x} at offset {}); a sweep name goes "
                                 "into job names and scripts, so it must be printable",
                                 unsigned(static_cast<unsigned char>(plan.name[*at])), *at));

  // base
  if (!f.count("base")) throw InputError(S, 0, "base", "required: the arch YAML or SCALE-Sim .cfg every point starts from");
  {
    const YAML::Node& b = f["base"].first;
    if (!b.IsScalar()) throw InputError(S, line_of_key("base"), "base", "must be a file path");
    plan.base = require_file(S, line_of(b), "base", scalar_text(b));
  }

  // workloads
  if (!f.count("workloads")) throw InputError(S, 0, "workloads", "required: a list of workload files");
  std::vector<Workload> workloads;
  std::vector<int> workload_lines;
  {
    const auto list = scalar_list(S, "workloads", f["workloads"].first);
    if (list.empty()) throw InputError(S, line_of_key("workloads"), "workloads", "empty list: the product would be empty");
    std::set<std::string> names;
    for (const Value& v : list) {
      const std::string p = require_file(S, v.line, "workloads", v.text);
      Workload w = load_workload(p);
      if (!names.insert(w.name).second)
        throw InputError(S, v.line, "workloads", fmt::format("two workloads are named '{}'", w.name));
      workloads.push_back(std::move(w));
      workload_lines.push_back(v.line);
    }
  }

  // batch
  std::vector<Value> batches{{"1", 0}};
  std::vector<int64_t> batch_values{1};
  if (f.count("batch")) {
    batches = scalar_list(S, "batch", f["batch"].first);
    if (batches.empty()) throw InputError(S, line_of_key("batch"), "batch", "empty list: the product would be empty");
    batch_values.clear();
    std::set<int64_t> seen;
    for (const Value& v : batches) {
      const auto n = text::parse_int(v.text);
      if (!n || *n <= 0) throw InputError(S, v.line, "batch", "must be a positive integer, got " + text::quoted(v.text));
      if (!seen.insert(*n).second) throw InputError(S, v.line, "batch", fmt::format("{} is listed twice", *n));
      batch_values.push_back(*n);
    }
  }

  // grid
  std::vector<Axis> axes;
  if (f.count("grid")) {
    std::vector<int> lines;
    const auto entries = map_entries(S, f["grid"].first, "grid", &lines);
    for (size_t i = 0; i < entries.size(); ++i) {
      const std::string& k = entries[i].first;
      if (k == "workload" || k == "workloads" || k == "batch")
        throw InputError(S, lines[i], k, fmt::format("not a grid key: list {} at the top level of the spec",
                                                     k == "batch" ? "batch sizes under batch:" : "workloads under workloads:"));
      if (!is_sweepable_key(k))
        throw InputError(S, lines[i], k, fmt::format("unknown config key in grid (keys: {})", known_keys_hint()));
      Axis a{k, lines[i], grid_values(S, k, entries[i].second)};
      if (a.values.empty()) throw InputError(S, lines[i], k, "empty list: the product would be empty");
      std::set<std::string> seen;
      for (const Value& v : a.values)
        if (!seen.insert(v.text).second)
          throw InputError(S, v.line, k, fmt::format("{} is listed twice", text::quoted(v.text)));
      axes.push_back(std::move(a));
    }
  }

  // set
  std::vector<std::pair<std::string, Value>> fixed;
  if (f.count("set")) {
    std::vector<int> lines;
    const auto entries = map_entries(S, f["set"].first, "set", &lines);
    for (size_t i = 0; i < entries.size(); ++i) {
      const std::string& k = entries[i].first;
      if (!is_sweepable_key(k))
        throw InputError(S, lines[i], k, fmt::format("unknown config key in set (keys: {})", known_keys_hint()));
      if (!entries[i].second.IsScalar()) throw InputError(S, lines[i], k, "must be a single value");
      for (const Axis& a : axes)
        if (a.key == k) throw InputError(S, lines[i], k, "both in grid and in set");
      fixed.push_back({k, {scalar_text(entries[i].second), line_of(entries[i].second)}});
    }
  }

  // points
  std::vector<ExplicitPoint> points;
  if (f.count("points")) {
    const YAML::Node& list = f["points"].first;
    if (!list.IsSequence())
      throw InputError(S, line_of_key("points"), "points", fmt::format("must be a list of maps, got {}", yaml_kind(list)));
    for (const YAML::Node& p : list) {
      ExplicitPoint ep;
      ep.line = line_of(p);
      std::vector<int> lines;
      const auto entries = map_entries(S, p, "points", &lines);
      for (size_t i = 0; i < entries.size(); ++i) {
        const std::string& k = entries[i].first;
        if (!entries[i].second.IsScalar()) throw InputError(S, lines[i], k, "must be a single value");
        const Value v{scalar_text(entries[i].second), line_of(entries[i].second)};
        if (k == "workload") {
          if (std::none_of(workloads.begin(), workloads.end(), [&](const Workload& w) { return w.name == v.text; }))
            throw InputError(S, v.line, k, fmt::format("{} is not one of the workloads", text::quoted(v.text)));
          ep.workload = v;
        } else if (k == "batch") {
          const auto n = text::parse_int(v.text);
          if (!n || *n <= 0) throw InputError(S, v.line, k, "must be a positive integer, got " + text::quoted(v.text));
          ep.batch = v;
        } else if (!is_sweepable_key(k)) {
          throw InputError(S, lines[i], k, fmt::format("unknown config key in points (keys: workload, batch, {})",
                                                       known_keys_hint()));
        } else {
          for (const auto& [fk, fv] : fixed)
            if (fk == k) throw InputError(S, lines[i], k, "both in set and in a point");
          ep.values.push_back({k, v});
        }
      }
      points.push_back(std::move(ep));
    }
  }

  // run
  if (f.count("run")) {
    std::vector<int> lines;
    const auto entries = map_entries(S, f["run"].first, "run", &lines);
    for (size_t i = 0; i < entries.size(); ++i) {
      const std::string& k = entries[i].first;
      const YAML::Node& v = entries[i].second;
      const std::string key = "run." + k;
      if (std::find(std::begin(kRunKeys), std::end(kRunKeys), k) == std::end(kRunKeys))
        throw InputError(S, lines[i], key, "unknown key (known: window, timeout, keep_trace, energy)");
      if (!v.IsScalar()) throw InputError(S, lines[i], key, "must be a single value");
      const std::string t = scalar_text(v);
      if (k == "window") {
        const auto n = text::parse_int(t);
        if (!n || *n <= 0) throw InputError(S, line_of(v), key, "must be a positive number of cycles");
        plan.run.window = *n;
      } else if (k == "timeout") {
        const auto d = text::parse_double(t);
        if (!d || *d < 0) throw InputError(S, line_of(v), key, "must be a number of seconds >= 0 (0: no limit)");
        plan.run.timeout_s = *d;
      } else if (k == "keep_trace") {
        if (t != "true" && t != "false") throw InputError(S, line_of(v), key, "must be true or false");
        plan.run.keep_trace = t == "true";
      } else {
        plan.run.energy = require_file(S, line_of(v), key, t);
        post::load_energy_table(plan.run.energy);
      }
    }
  }

  // Constraints.
  std::set<std::string> mentioned;  // param keys
  for (const Axis& a : axes) {
    mentioned.insert(a.key);
    plan.param_keys.push_back(a.key);
  }
  for (const ExplicitPoint& p : points)
    for (const auto& [k, v] : p.values)
      if (mentioned.insert(k).second) plan.param_keys.push_back(k);
  for (const auto& [k, v] : fixed)
    if (mentioned.insert(k).second) plan.param_keys.push_back(k);
  std::vector<Constraint> constraints;
  if (f.count("constraints")) {
    auto is_key = [&](const std::string& k) { return k == "workload" || k == "batch" || is_sweepable_key(k); };
    for (const Value& v : scalar_list(S, "constraints", f["constraints"].first))
      constraints.push_back(Constraint::parse(v.text, S, v.line, is_key));
  }

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
      std::string msg = e.what();
      const std::string prefix = "--set: " + e.key() + ": ";
      if (msg.compare(0, prefix.size(), prefix) == 0) msg = msg.substr(prefix.size());
      throw InputError(S, line, e.key(), msg);
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
