#pragma once
// What the vector unit reports per kernel (models/vector/vector_unit.h runs them): one cluster's
// share, or every cluster's merged. The accelerator keeps them by step; the run reports them.
// Plain C++: a reader of results needs neither the unit nor the SystemC kernel.
#include <array>
#include <cstdint>
#include <map>
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
  int64_t cycles() const { return end_cycle - start_cycle + 1; }
};

// Several clusters' results of one kernel as one: span, ops and bytes add up; the memory is shared.
VectorKernelResult merge_vector_parts(const std::vector<const VectorKernelResult*>& parts);

}  // namespace cstsim
