#pragma once
// What the vector unit reports per kernel (models/vector/vector_unit.h runs them): one cluster's
// share, or every cluster's merged. The accelerator keeps them by step; the run reports them.
// Plain C++: a reader of results needs neither the unit nor the SystemC kernel.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/memory/memory_group.h"  // SharedStats

namespace cstsim {

struct VectorKernelResult {
  std::string name;
  int64_t tiles = 0;             // this unit's share
  int64_t start_cycle = 0, end_cycle = 0;  // end: last cycle (its last write-back under hierarchy)
  int64_t compute_cycles = 0;    // latency + the tiles' compute cycles: the kernel with operands always there
  int64_t waiting_cycles = 0;    // cycles the lanes waited for operands or a free output slot
  // cycles - compute_cycles (the waits and the last write-backs after the last results) by root
  // cause, as the layers' stalls (models/dma/explain_wait.h); empty with operands on chip.
  std::map<std::string, int64_t> stalls;
  std::array<int64_t, 3> ops{};  // by class, as the tiles computed them
  int64_t lane_cycles = 0;       // lane-cycles the operations took (sum_c ops_c / per_lane[c])
  int64_t spad_bytes_read = 0, spad_bytes_written = 0;  // through the unit's own ports
  bool has_hierarchy = false;
  SharedStats shared;            // memory: hierarchy: the step's HBM and NoC figures (every cluster's)
  bool idle = false;             // no share of the tiles
  // fidelity: sampled (vector_unit.h): what was simulated of its tiles and the estimate of the
  // rest. detailed: simulated (head, tail, windows with their warm-up); measured: the windows'
  // units, whose waits the skipped tiles take on average.
  struct Sampling {
    int64_t tiles = 0, detailed_tiles = 0, measured_tiles = 0;
    int windows = 0;
    double mean_wait = 0;          // cycles a skipped tile waited for its operands, estimated
    double ci95_cycles = 0;        // half-width of the kernel's cycles' 95 % interval
    bool degenerate = false;       // the windows could not tell apart: the rule of three
    int64_t skipped_read_bytes = 0, skipped_written_bytes = 0;  // the skipped tiles' transfers, exact
  };
  std::optional<Sampling> sampling;
  int64_t cycles() const { return end_cycle - start_cycle + 1; }
};

// Several clusters' results of one kernel as one: span, ops and bytes add up; the memory is shared.
VectorKernelResult merge_vector_parts(const std::vector<const VectorKernelResult*>& parts);

}  // namespace cstsim
