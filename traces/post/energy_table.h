#pragma once
// An energy reference table (configs/energy/*.yaml): energy per action unit and
// static power per component, each row with its source.
#include <string>
#include <vector>

namespace cstsim::post {

struct ActionEnergy {
  std::string action;  // counter prefix, e.g. "sram.read" matches "sram.read.ifmap"
  double pj = 0;       // per unit of the counter
  std::string per, source;
};

struct StaticPower {
  std::string component;
  double watts = 0;
  std::string source;
};

struct EnergyTable {
  std::string name, path;
  double temperature_k = 300;
  std::vector<ActionEnergy> actions;
  std::vector<StaticPower> static_power;

  // The row charged for a counter: the longest key that is the counter's name or a
  // dot-separated prefix of it; nullptr when none. Counters named "*.nominal" are
  // the workload's need, not work done, and are never charged.
  const ActionEnergy* find(const std::string& counter) const;
  static bool is_nominal(const std::string& counter);
};

// Throws InputError (file, line, key) on any problem.
EnergyTable load_energy_table(const std::string& path);

}  // namespace cstsim::post
