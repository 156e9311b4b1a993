#pragma once
// What the tests of workloads and their multi-chip splits (tensor, data, pipeline) share.
#include <cstdint>
#include <string>

#include "sim/workload/workload.h"

namespace cstsim::testing_util {

inline const std::string kModels = std::string(CSTSIM_SOURCE_DIR) + "/configs/workloads/models/";

// Every layer's MACs (repeats x M x N x K).
inline int64_t macs(const Workload& w) {
  int64_t n = 0;
  for (const Layer& l : w.layers) n += l.macs();
  return n;
}

}  // namespace cstsim::testing_util
