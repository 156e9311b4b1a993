#pragma once
// Everything a run checks before it simulates, so that a bad input fails with its one line (exit 2)
// before any output exists: the inputs against each other (preflight_inputs), the plans against
// the memory they run in (preflight_plans), and the energy table against what the run will count
// (run_energy_table, preflight_energy; the trace's own actions are checked once the models have
// declared them, preflight_actions).
#include <string>
#include <vector>

#include "plan/plan.h"
#include "sim/config/arch_spec.h"
#include "sim/run/run.h"
#include "sim/workload/workload.h"
#include "traces/post/energy_table.h"

namespace cstsim {

// The options and the workload shares (`distinct` of them differ: pipeline stages) the arch can run.
void preflight_inputs(const RunOptions& o, const ArchSpec& arch, const std::vector<Workload>& shares, size_t distinct);

// Every plan's memory fits: the scratchpad, HBM capacity, and each layer's DMA program (its first
// pass, the longest) under memory: hierarchy.
void preflight_plans(const ArchSpec& arch, const Workload& w, const std::vector<Plan>& plans);

// The table the run prices its trace with (written to its directory): size-dependent rows resolved
// for the arch; with chips, every static row once per chip (the rows that scale with size already
// count every chip's) and the interconnect's wire bytes at its link preset's energy per bit.
post::EnergyTable run_energy_table(const ArchSpec& a, const std::string& path);

// The table prices the array's MACs (and the gated ones, with zero gating); the normalization file reads.
void preflight_energy(const ArchSpec& arch, const Workload& w, const post::EnergyTable& table,
                      const std::string& energy_path, const std::string& normalization);

// Every action the trace can count (`actions`, as the models declared them) has a price.
void preflight_actions(const post::EnergyTable& table, const std::string& energy_path,
                       const std::vector<std::string>& actions);

}  // namespace cstsim
