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

EnergyTable load_energy_table(const std::string& path) {
  const YAML::Node root = load_yaml_file(path);
  if (!root.IsMap()) throw InputError(path, 1, "", "expected a map");
  reject_unknown_keys(path, root, "", {"name", "temperature_K", "actions", "static_power"});
  EnergyTable t;
  t.path = path;
  t.name = root["name"] ? root["name"].as<std::string>() : std::filesystem::path(path).stem().string();
  if (root["temperature_K"]) {
    t.temperature_k = number(path, root["temperature_K"], "temperature_K", true);
    if (t.temperature_k <= 0) throw InputError(path, line_of(root["temperature_K"]), "temperature_K", "must be positive");
  }
  const YAML::Node actions = root["actions"];
  if (!actions || !actions.IsMap()) throw InputError(path, 0, "actions", "required: a map of action -> {pJ, per, source}");
  for (auto it = actions.begin(); it != actions.end(); ++it) {
    const std::string key = "actions." + it->first.as<std::string>();
    const YAML::Node row = it->second;
    if (!row.IsMap()) throw InputError(path, line_of(row), key, "expected {pJ, per, source}");
    reject_unknown_keys(path, row, key + ".", {"pJ", "per", "source"});
    if (!row["pJ"]) throw InputError(path, line_of(row), key + ".pJ", "required");
    if (!row["source"]) throw InputError(path, line_of(row), key + ".source", "required: every row cites its source");
    t.actions.push_back({it->first.as<std::string>(), number(path, row["pJ"], key + ".pJ", true),
                         row["per"] ? row["per"].as<std::string>() : "", row["source"].as<std::string>()});
  }
  if (const YAML::Node sp = root["static_power"]) {
    if (!sp.IsMap()) throw InputError(path, line_of(sp), "static_power", "expected a map of component -> {W, source}");
    for (auto it = sp.begin(); it != sp.end(); ++it) {
      const std::string key = "static_power." + it->first.as<std::string>();
      reject_unknown_keys(path, it->second, key + ".", {"W", "source"});
      if (!it->second["W"]) throw InputError(path, line_of(it->second), key + ".W", "required");
      if (!it->second["source"]) throw InputError(path, line_of(it->second), key + ".source", "required");
      t.static_power.push_back({it->first.as<std::string>(), number(path, it->second["W"], key + ".W", true),
                                it->second["source"].as<std::string>()});
    }
  }
  return t;
}

}  // namespace cstsim::post
