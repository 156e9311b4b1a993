#include "traces/post/energy_table.h"

#include <filesystem>

#include <yaml-cpp/yaml.h>

#include "core/input_error.h"
#include "core/yaml_file.h"

namespace cstsim::post {
namespace {

double number(const std::string& file, const YAML::Node& n, const std::string& key, bool positive_or_zero) {
  double v;
  try {
    v = n.as<double>();
  } catch (const YAML::Exception&) {
    throw InputError(file, line_of(n), key, "must be a number");
  }
  if (positive_or_zero && v < 0) throw InputError(file, line_of(n), key, "must not be negative");
  return v;
}

}  // namespace

bool EnergyTable::is_nominal(const std::string& counter) {
  const std::string nominal = ".nominal";
  return counter.size() >= nominal.size() &&
         counter.compare(counter.size() - nominal.size(), nominal.size(), nominal) == 0;
}

const ActionEnergy* EnergyTable::find(const std::string& counter) const {
  if (is_nominal(counter)) return nullptr;
  const ActionEnergy* best = nullptr;
  for (const ActionEnergy& a : actions) {
    const bool match = counter == a.action ||
                       (counter.size() > a.action.size() && counter.compare(0, a.action.size(), a.action) == 0 &&
                        counter[a.action.size()] == '.');
    if (match && (!best || a.action.size() > best->action.size())) best = &a;
  }
  return best;
}

namespace {

EnergyTable load_table(const std::string& path, int depth);

template <class Row>
void put(std::vector<Row>& rows, Row row, std::string Row::*key) {
  for (Row& r : rows)
    if (r.*key == row.*key) {
      r = std::move(row);
      return;
    }
  rows.push_back(std::move(row));
}

EnergyTable load_table(const std::string& path, int depth) {
  const YAML::Node root = load_yaml_file(path);
  if (!root.IsMap()) throw InputError(path, 1, "", "expected a map");
  reject_unknown_keys(path, root, "", {"name", "base", "temperature_K", "actions", "static_power"});
  EnergyTable t;
  if (const YAML::Node b = root["base"]) {
    if (!b.IsScalar()) throw InputError(path, line_of(b), "base", "expected a table file name");
    if (depth > 8) throw InputError(path, line_of(b), "base", "bases nest more than 8 deep (a cycle?)");
    const std::filesystem::path base = std::filesystem::path(path).parent_path() / b.as<std::string>();
    if (!std::filesystem::is_regular_file(base))
      throw InputError(path, line_of(b), "base", "no such file: " + base.string());
    t = load_table(base.string(), depth + 1);
  }
  t.path = path;
  t.name = root["name"] ? root["name"].as<std::string>() : std::filesystem::path(path).stem().string();
  if (root["temperature_K"]) {
    t.temperature_k = number(path, root["temperature_K"], "temperature_K", true);
    if (t.temperature_k <= 0) throw InputError(path, line_of(root["temperature_K"]), "temperature_K", "must be positive");
  }
  const YAML::Node actions = root["actions"];
  if ((!actions && !root["base"]) || (actions && !actions.IsMap()))
    throw InputError(path, 0, "actions", "required: a map of action -> {pJ, per, source}");
  for (auto it = actions.begin(); actions && it != actions.end(); ++it) {
    const std::string key = "actions." + it->first.as<std::string>();
    const YAML::Node row = it->second;
    if (!row.IsMap()) throw InputError(path, line_of(row), key, "expected {pJ, per, source}");
    reject_unknown_keys(path, row, key + ".", {"pJ", "W", "per", "source"});
    if (!row["pJ"] == !row["W"]) throw InputError(path, line_of(row), key, "needs exactly one of pJ (per unit) or W (per unit held a cycle)");
    if (!row["source"]) throw InputError(path, line_of(row), key + ".source", "required: every row cites its source");
    ActionEnergy a{it->first.as<std::string>(), 0, -1, row["per"] ? row["per"].as<std::string>() : "",
                   row["source"].as<std::string>()};
    if (row["pJ"]) a.pj = number(path, row["pJ"], key + ".pJ", true);
    else a.watts = number(path, row["W"], key + ".W", true);
    put(t.actions, std::move(a), &ActionEnergy::action);
  }
  if (const YAML::Node sp = root["static_power"]) {
    if (!sp.IsMap()) throw InputError(path, line_of(sp), "static_power", "expected a map of component -> {W, source}");
    for (auto it = sp.begin(); it != sp.end(); ++it) {
      const std::string key = "static_power." + it->first.as<std::string>();
      reject_unknown_keys(path, it->second, key + ".", {"W", "source"});
      if (!it->second["W"]) throw InputError(path, line_of(it->second), key + ".W", "required");
      if (!it->second["source"]) throw InputError(path, line_of(it->second), key + ".source", "required");
      put(t.static_power,
          StaticPower{it->first.as<std::string>(), number(path, it->second["W"], key + ".W", true),
                      it->second["source"].as<std::string>()},
          &StaticPower::component);
    }
  }
  return t;
}

}  // namespace

EnergyTable load_energy_table(const std::string& path) { return load_table(path, 0); }

std::string to_yaml(const EnergyTable& t) {
  YAML::Emitter out;
  out.SetDoublePrecision(15);
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << t.name;
  out << YAML::Key << "temperature_K" << YAML::Value << t.temperature_k;
  out << YAML::Key << "actions" << YAML::Value << YAML::BeginMap;
  for (const ActionEnergy& a : t.actions) {
    out << YAML::Key << a.action << YAML::Value << YAML::Flow << YAML::BeginMap;
    if (a.watts >= 0) out << YAML::Key << "W" << YAML::Value << a.watts;
    else out << YAML::Key << "pJ" << YAML::Value << a.pj;
    if (!a.per.empty()) out << YAML::Key << "per" << YAML::Value << a.per;
    out << YAML::Key << "source" << YAML::Value << a.source << YAML::EndMap;
  }
  out << YAML::EndMap;
  if (!t.static_power.empty()) {
    out << YAML::Key << "static_power" << YAML::Value << YAML::BeginMap;
    for (const StaticPower& p : t.static_power)
      out << YAML::Key << p.component << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "W"
          << YAML::Value << p.watts << YAML::Key << "source" << YAML::Value << p.source << YAML::EndMap;
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace cstsim::post
