#pragma once
// An energy reference table (configs/energy/*.yaml): energy per action unit and
// static power per component, each row with its source.
#include <string>
#include <utility>
#include <vector>

namespace cstsim::post {

struct ActionEnergy {
  std::string action;  // counter prefix, e.g. "sram.read" matches "sram.read.ifmap"
  double pj = 0;       // per unit of the counter
  // A state held over time (counted in unit-cycles, e.g. hbm_bg.active in channel-cycles):
  // power in W per unit instead of pJ, so the energy follows the run's clock. -1: a pJ row.
  double watts = -1;
  std::string per, source;
  // pJ by SRAM bank size (`pJ_by_bank_bytes: {bytes: pJ, ...}`, at least two sizes, increasing):
  // resolved() sets `pj` for the run's bank size, log-log between the two sizes around it
  // (beyond the ends, the end segment's slope). Empty: a fixed row.
  std::vector<std::pair<double, double>> pj_by_bank_bytes;
  double joules(double count, double cycle_seconds) const {
    return watts >= 0 ? count * watts * cycle_seconds : count * pj * 1e-12;
  }
};

struct StaticPower {
  std::string component;
  double watts = 0;
  std::string source;
  // Leakage that scales with what is built: `W_per_byte` (of on-chip SRAM), `W_per_PE` or
  // `W_per_buffer_byte` (of NoC router input buffers); resolved() multiplies it out. -1: a fixed row.
  double watts_per_byte = -1, watts_per_pe = -1, watts_per_buffer_byte = -1;
};

// What size-dependent rows depend on, from the accelerator as configured.
struct Geometry {
  double sram_bytes = 0;       // every cluster's scratchpad partitions
  double sram_bank_bytes = 0;  // one bank: a cluster's partitions / scratchpad.banks
  double pes = 0;              // every cluster's PEs
  double noc_buffer_bytes = 0; // the mesh routers' input buffers (0 without a NoC)
};

struct EnergyTable {
  std::string name, path;
  double temperature_k = 300;
  std::vector<ActionEnergy> actions;
  std::vector<StaticPower> static_power;

  // The row charged for a counter: the longest key that is the counter's name or a
  // dot-separated prefix of it; nullptr when none. Counters named "*.nominal" (the workload's
  // need) and "*.padding" (lanes inside work already counted as executed) are never charged.
  const ActionEnergy* find(const std::string& counter) const;
  static bool is_nominal(const std::string& counter);
  bool resolved() const;  // no size-dependent row left
};

// The table with every size-dependent row turned into a fixed one for `g`, each resolved
// row's source saying at which size (the run writes this table to its directory).
EnergyTable resolved(EnergyTable table, const Geometry& g);

// Throws InputError (file, line, key) on any problem. `base: <file>` (relative to this one)
// reads another table first; this file's rows then replace or add to its rows.
EnergyTable load_energy_table(const std::string& path);
// The table as one self-contained YAML file (its base merged in), for the run directory.
std::string to_yaml(const EnergyTable& table);
// What load_energy_table(`path`) gives once to_yaml(table) is written there (its numbers at
// to_yaml's precision), without the YAML: the run reports from the table it wrote.
EnergyTable as_written(EnergyTable table, const std::string& path);

}  // namespace cstsim::post
