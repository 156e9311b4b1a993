#pragma once
// The post-processor: a run directory's trace -> report.json (V_CST, Θ_CST,
// H_peak, C_P, energy vector, roofline; per layer and total), report.txt and
// energy_windows.csv. Runs at the end of every `cstsim run` and alone as
// `cstsim post <run-dir>`. Schema: traces/FORMAT.md, "report.json".
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/json_spool.h"
#include "core/out_file.h"

namespace cstsim::post {

struct EnergyTable;

struct PostOptions {
  std::filesystem::path run_dir;
  std::string normalization;  // YAML declaring references, weights, boundary; "" = no scalar V_CST*
  int64_t window = 0;         // B_peak / energy-over-time window in cycles; 0 = the trace's window
  // Called on the run's total and on each layer's entry as it is made (the run's invariants):
  // the layers are spooled to disk, not kept.
  std::function<void(const nlohmann::ordered_json& scope, const std::string& what)> check_scope;
  // The run's own table, as it wrote <run_dir>/energy.yaml (nullptr: read that file): the run
  // need not parse its YAML a second time.
  const EnergyTable* energy = nullptr;
};

struct PostOutputs {
  nlohmann::ordered_json report;  // report.json but its layers: report["layers"] is the spool's placeholder
  std::shared_ptr<io::JsonArraySpool> layers;  // report.json's per-layer entries, in order
  std::vector<double> layer_energy;  // each layer's E_attrib, J (layers.csv)
  std::string text;                // readable summary
  std::shared_ptr<io::OutFile> energy_windows;  // written while streaming; committed by write_post_outputs
};

// Throws InputError for bad options or inputs, std::logic_error when the trace
// breaks an invariant (a bug: the run must fail loudly).
PostOutputs post_process(const PostOptions& options);

// Writes report.json, report.txt, energy_windows.csv into `dir` (each an io::OutFile).
void write_post_outputs(const std::filesystem::path& dir, const PostOutputs& outputs);

// An action's name without its chip ("chip3.hbm.read" -> "hbm.read"): what the energy table prices.
std::string unscoped_action(const std::string& action);

}  // namespace cstsim::post
