#pragma once
// config_hash: a stable 64-bit FNV-1a hash (16 hex digits) of everything that decides a
// run's results. The HBM and NoC files are hashed by their resolved contents, not by
// their paths: editing a timing in configs/memory/*.yaml changes the hash (a resumed
// sweep reruns the points it touches), moving the checkout does not.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/arch_spec.h"
#include "sim/workload/workload.h"

namespace cstsim {

std::string config_hash(const ArchSpec& arch, const Workload& workload, const std::string& mode, uint64_t seed);

// What config_hash hashes, one `key=value` line each (for tests and for people).
std::string config_text(const ArchSpec& arch, const Workload& workload, const std::string& mode, uint64_t seed);

// A run's config_hash (summary.json; a sweep's tasks.csv): the arch and what its chips execute,
// `shares` as run_workloads (sim/run/run_workloads.h) makes them: chip 0's share, and with pipeline
// stages every stage's. `cstsim run` and the sweep both hash through here.
std::string run_config_hash(const ArchSpec& arch, const std::vector<Workload>& shares, const std::string& mode,
                            uint64_t seed);

}  // namespace cstsim
