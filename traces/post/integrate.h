#pragma once
// Exact integration of the piecewise-constant trace, for the whole run and for
// each layer, in one streaming pass (memory independent of the record count).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "traces/reader.h"

namespace cstsim::post {

struct ResourceTotals {
  long double integral = 0;  // sum of value x cycles (exact for integers below 2^64)
  int64_t peak = 0;
  int64_t busy_cycles = 0;   // cycles with value > 0
};

struct ScopeTotals {          // the whole run, or one layer
  int64_t start = 0, end = 0; // cycles [start, end)
  std::vector<ResourceTotals> resources;
  int64_t peak_devices = 0;   // max of the sum of class-C "device" resources
  int64_t peak_pes = 0;       // max of the sum of class-C "PE" resources
  int64_t peak_links = 0;     // max of the sum of class-N resources
  int64_t peak_memory = 0;    // max of the sum of class-M resources (bytes, all levels)
  std::map<std::string, int64_t> peak_memory_by_level;
  int64_t serial_cycles = 0;  // cycles with exactly one busy device (0 < D(t) <= 1)
  int64_t cycles() const { return end - start; }
};

struct Integrals {
  ScopeTotals total;
  std::vector<ScopeTotals> layers;
};

Integrals integrate(trace::TraceReader& reader);

}  // namespace cstsim::post
