#include "sim/sweep/spec_read.h"

#include <algorithm>
#include <climits>
#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/input_error.h"
#include "core/text.h"
#include "core/yaml_file.h"
#include "sim/workload/training.h"
#include "traces/post/energy_table.h"

namespace cstsim::sweep {
namespace fs = std::filesystem;

namespace {

const char* const kTopKeys[] = {"name", "description", "base", "workloads", "batch", "grid",
                                "constraints", "points", "set", "run"};
const char* const kRunKeys[] = {"window", "timeout", "keep_trace", "trace", "energy", "train", "sparsity", "fidelity"};

std::string known_keys_hint() {
  std::string out;
  for (const std::string& k : arch_keys()) {
    if (k != "source") out += (out.empty() ? "" : ", ") + k;
    if (k == "array.cols") out += std::string(", ") + kArraySize;  // both sides at once
  }
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
      if (v > INT64_MAX - f["step"]) break;  // the next value would not fit
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
  if (!is_file(p))
    throw InputError(spec, line, key, fmt::format("cannot open {} (paths are relative to the spec file)", p));
  return p;
}

}  // namespace

SpecFile read_spec(const std::string& spec_path) {
  SpecFile sp;
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
    sp.key_lines[k] = top_lines[i];
  }
  auto line_of_key = [&](const std::string& k) { return f.count(k) ? f[k].second : 0; };

  sp.spec_path = fs::weakly_canonical(fs::absolute(S)).string();
  sp.name = text::stem(S);
  if (f.count("name")) {
    const YAML::Node& n = f["name"].first;
    if (!n.IsScalar() || scalar_text(n).empty()) throw InputError(S, line_of_key("name"), "name", "must be a non-empty string");
    sp.name = scalar_text(n);
  }
  if (const auto at = text::control_char(sp.name))
    throw InputError(S, f.count("name") ? line_of_key("name") : 0, "name",
                     fmt::format("contains a control character (byte 0x{:02x} at offset {}); a sweep name goes "
                                 "into job names and scripts, so it must be printable",
                                 unsigned(static_cast<unsigned char>(sp.name[*at])), *at));

  // base
  if (!f.count("base")) throw InputError(S, 0, "base", "required: the arch YAML or SCALE-Sim .cfg every point starts from");
  {
    // One arch file, or a list of them: then `base` is the grid's first axis (its value in
    // tasks.csv and results.csv the file's stem), every base crossed with the workloads and the grid.
    const YAML::Node& b = f["base"].first;
    if (b.IsSequence()) {
      std::set<std::string> stems;
      for (const YAML::Node& e : b) {
        if (!e.IsScalar()) throw InputError(S, line_of(e), "base", "a list of file paths");
        sp.bases.push_back(require_file(S, line_of(e), "base", scalar_text(e)));
        if (!stems.insert(fs::path(sp.bases.back()).stem().string()).second)
          throw InputError(S, line_of(e), "base", "two bases have the file name " + fs::path(sp.bases.back()).filename().string());
      }
      if (sp.bases.empty()) throw InputError(S, line_of_key("base"), "base", "empty list: the product would be empty");
    } else if (b.IsScalar()) {
      sp.bases.push_back(require_file(S, line_of(b), "base", scalar_text(b)));
    } else {
      throw InputError(S, line_of_key("base"), "base", "must be a file path or a list of them");
    }
    sp.base = sp.bases.front();
  }

  // workloads
  if (!f.count("workloads")) throw InputError(S, 0, "workloads", "required: a list of workload files");
  {
    const auto list = scalar_list(S, "workloads", f["workloads"].first);
    if (list.empty()) throw InputError(S, line_of_key("workloads"), "workloads", "empty list: the product would be empty");
    std::set<std::string> names;
    for (const Value& v : list) {
      const std::string p = require_file(S, v.line, "workloads", v.text);
      Workload w = load_workload(p);
      if (!names.insert(w.name).second)
        throw InputError(S, v.line, "workloads", fmt::format("two workloads are named '{}'", w.name));
      sp.workloads.push_back(std::move(w));
    }
  }

  // batch
  if (f.count("batch")) {
    sp.batches = scalar_list(S, "batch", f["batch"].first);
    if (sp.batches.empty()) throw InputError(S, line_of_key("batch"), "batch", "empty list: the product would be empty");
    sp.batch_values.clear();
    std::set<int64_t> seen;
    for (const Value& v : sp.batches) {
      const auto n = text::parse_int(v.text);
      if (!n || *n <= 0) throw InputError(S, v.line, "batch", "must be a positive integer, got " + text::quoted(v.text));
      if (!seen.insert(*n).second) throw InputError(S, v.line, "batch", fmt::format("{} is listed twice", *n));
      sp.batch_values.push_back(*n);
    }
  }

  // grid
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
      sp.axes.push_back(std::move(a));
    }
  }

  // set
  if (f.count("set")) {
    std::vector<int> lines;
    const auto entries = map_entries(S, f["set"].first, "set", &lines);
    for (size_t i = 0; i < entries.size(); ++i) {
      const std::string& k = entries[i].first;
      if (!is_sweepable_key(k))
        throw InputError(S, lines[i], k, fmt::format("unknown config key in set (keys: {})", known_keys_hint()));
      if (!entries[i].second.IsScalar()) throw InputError(S, lines[i], k, "must be a single value");
      for (const Axis& a : sp.axes)
        if (a.key == k) throw InputError(S, lines[i], k, "both in grid and in set");
      sp.fixed.push_back({k, {scalar_text(entries[i].second), line_of(entries[i].second)}});
    }
  }

  // points
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
          if (std::none_of(sp.workloads.begin(), sp.workloads.end(), [&](const Workload& w) { return w.name == v.text; }))
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
          for (const auto& [fk, fv] : sp.fixed)
            if (fk == k) throw InputError(S, lines[i], k, "both in set and in a point");
          ep.values.push_back({k, v});
        }
      }
      sp.points.push_back(std::move(ep));
    }
  }

  // run
  if (f.count("run")) {
    std::vector<int> lines;
    const auto entries = map_entries(S, f["run"].first, "run", &lines);
    int fidelity_line = 0;
    for (size_t i = 0; i < entries.size(); ++i) {
      const std::string& k = entries[i].first;
      const YAML::Node& v = entries[i].second;
      const std::string key = "run." + k;
      if (std::find(std::begin(kRunKeys), std::end(kRunKeys), k) == std::end(kRunKeys))
        throw InputError(S, lines[i], key, "unknown key (known: window, timeout, keep_trace, trace, energy, train, sparsity, fidelity)");
      if (!v.IsScalar()) throw InputError(S, lines[i], key, "must be a single value");
      const std::string t = scalar_text(v);
      if (k == "window") {
        const auto n = text::parse_int(t);
        if (!n || *n <= 0) throw InputError(S, line_of(v), key, "must be a positive number of cycles");
        sp.run.window = *n;
      } else if (k == "timeout") {
        const auto d = text::parse_double(t);
        if (!d || *d < 0) throw InputError(S, line_of(v), key, "must be a number of seconds >= 0 (0: no limit)");
        sp.run.timeout_s = *d;
      } else if (k == "keep_trace") {
        if (t != "true" && t != "false") throw InputError(S, line_of(v), key, "must be true or false");
        sp.run.keep_trace = t == "true";
      } else if (k == "trace") {
        if (t != "true" && t != "false") throw InputError(S, line_of(v), key, "must be true or false");
        sp.run.trace = t == "true";
      } else if (k == "train") {
        const auto& names = recompute_names();
        if (std::find(names.begin(), names.end(), t) == names.end())
          throw InputError(S, line_of(v), key, fmt::format("must be one of {}; got {}", fmt::join(names, ", "), t));
        sp.run.train = t;
      } else if (k == "sparsity") {
        if (t != "2:4") throw InputError(S, line_of(v), key, "must be \"2:4\"; got " + t);
        sp.run.sparsity = t;
      } else if (k == "fidelity") {
        if (t != "exact" && t != "sampled" && t != "auto")
          throw InputError(S, line_of(v), key, "must be exact, sampled or auto; got " + t);
        sp.run.fidelity = t;
        fidelity_line = line_of(v);
      } else {
        sp.run.energy = require_file(S, line_of(v), key, t);
        post::load_energy_table(sp.run.energy);
      }
    }
    if (sp.run.fidelity == "sampled" && sp.run.trace)  // as `run --fidelity sampled` without --no-trace
      throw InputError(S, fidelity_line, "run.fidelity", "sampled runs have no trace: add run.trace: false");
  }

  // Constraints.
  std::set<std::string> mentioned;  // param keys
  if (sp.bases.size() > 1) {
    mentioned.insert("base");
    sp.param_keys.push_back("base");
  }
  for (const Axis& a : sp.axes) {
    mentioned.insert(a.key);
    sp.param_keys.push_back(a.key);
  }
  for (const ExplicitPoint& p : sp.points)
    for (const auto& [k, v] : p.values)
      if (mentioned.insert(k).second) sp.param_keys.push_back(k);
  for (const auto& [k, v] : sp.fixed)
    if (mentioned.insert(k).second) sp.param_keys.push_back(k);
  if (f.count("constraints")) {
    auto is_key = [&](const std::string& k) { return k == "workload" || k == "batch" || is_sweepable_key(k); };
    for (const Value& v : scalar_list(S, "constraints", f["constraints"].first))
      sp.constraints.push_back(Constraint::parse(v.text, S, v.line, is_key));
  }
  return sp;
}

}  // namespace cstsim::sweep
