#include "traces/post/energy_table.h"

#include <filesystem>

#include <yaml-cpp/yaml.h>

#include "sim/config/input_error.h"

namespace cstsim::post {
namespace {

int line_of(const YAML::Node& n) { return n.Mark().line >= 0 ? n.Mark().line + 1 : 0; }

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

void only_keys(const std::string& file, const YAML::Node& map, const std::string& where,
               std::initializer_list<const char*> allowed) {
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string k = it->first.as<std::string>();
    bool ok = false;
    for (const char* a : allowed) ok = ok || k == a;
    if (!ok) throw InputError(file, line_of(it->first), where.empty() ? k : where + "." + k, "unknown key");
  }
}

}  // namespace

const ActionEnergy* EnergyTable::find(const std::string& counter) const {
  const std::string nominal = ".nominal";
  if (counter.size() >= nominal.size() && counter.compare(counter.size() - nominal.size(), nominal.size(), nominal) == 0)
    return nullptr;
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
  if (!std::filesystem::is_regular_file(path)) throw InputError(path, 0, "", "cannot open file");
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::ParserException& e) {
    throw InputError(path, e.mark.line + 1, "", "malformed YAML: " + e.msg);
  }
  if (!root.IsMap()) throw InputError(path, 1, "", "expected a map");
  only_keys(path, root, "", {"name", "temperature_K", "actions", "static_power"});
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
    only_keys(path, row, key, {"pJ", "per", "source"});
    if (!row["pJ"]) throw InputError(path, line_of(row), key + ".pJ", "required");
    if (!row["source"]) throw InputError(path, line_of(row), key + ".source", "required: every row cites its source");
    t.actions.push_back({it->first.as<std::string>(), number(path, row["pJ"], key + ".pJ", true),
                         row["per"] ? row["per"].as<std::string>() : "", row["source"].as<std::string>()});
  }
  if (const YAML::Node sp = root["static_power"]) {
    if (!sp.IsMap()) throw InputError(path, line_of(sp), "static_power", "expected a map of component -> {W, source}");
    for (auto it = sp.begin(); it != sp.end(); ++it) {
      const std::string key = "static_power." + it->first.as<std::string>();
      only_keys(path, it->second, key, {"W", "source"});
      if (!it->second["W"]) throw InputError(path, line_of(it->second), key + ".W", "required");
      if (!it->second["source"]) throw InputError(path, line_of(it->second), key + ".source", "required");
      t.static_power.push_back({it->first.as<std::string>(), number(path, it->second["W"], key + ".W", true),
                                it->second["source"].as<std::string>()});
    }
  }
  return t;
}

}  // namespace cstsim::post
