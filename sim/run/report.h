#pragma once
// Turns array results into the run's outputs: summary.json (stable shape, see
// docs/guide.md), layers.csv and the stdout table (SCALE-Sim's reports: scalesim_reports.h).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/json_spool.h"

#include "plan/plan.h"
#include "plan/rs_plan.h"

#include "models/accelerator/module_info.h"
#include "models/array/layer_result.h"
#include "models/vector/vector_result.h"
#include "sim/config/arch_spec.h"
#include "sim/workload/workload.h"

namespace cstsim {

struct RunReport {
  const ArchSpec* arch = nullptr;
  const Workload* workload = nullptr;
  const std::vector<ArrayLayerResult>* layers = nullptr;
  std::string mode;         // "timing" or "reference"
  std::string config_hash;
  const std::vector<ModuleInfo>* modules = nullptr;  // the SystemC modules the run elaborated
  const Plan* plan = nullptr;  // the plan the run executed: its program's kernels, scalesim's memory replay
  // The results of the program's vector and flash-attention steps, one each, in order; empty
  // without a vector unit.
  const std::vector<VectorKernelResult>* vector = nullptr;
  const std::vector<FlashKernelResult>* flash = nullptr;
  std::string fidelity = "exact";  // --fidelity as asked: exact, sampled or auto
};

// `layers`: where the per-layer entries go (summary["layers"] is then its placeholder, and the
// caller writes the file with layers->write_document); nullptr keeps them in the tree.
nlohmann::ordered_json summary_json(const RunReport& r, io::JsonArraySpool* layers = nullptr);
// dataflow: rs: a layer's mapping (JSSC 2017 Table II's parameters and the placement), as
// summary.json and `cstsim plan` show it.
nlohmann::ordered_json rs_mapping_json(const RsMapping& m);
// The tidy per-layer table (docs/guide.md, "layers.csv"); layer_energy: each layer's attributed
// energy from the trace's report.json (nullptr with --no-trace: the column stays empty).
std::string layers_csv(const RunReport& r, const std::vector<double>* layer_energy);
// Of the array's peak: every PE doing `pack` MACs a cycle (core/precision.h).
double utilization(const ArchSpec& a, int64_t macs, int64_t cycles);
std::string human_table(const RunReport& r);

}  // namespace cstsim
