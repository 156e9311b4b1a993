#pragma once
// Reader for SCALE-Sim topology CSVs, read unchanged. The header line picks the form:
//   GEMM form  "Layer, M, N, K,"                  rows: name, M, N, K
//   conv form  "Layer name, IFMAP Height, ...,"   rows: name, H, W, Fh, Fw, C, filters[, stride]
// Trailing comma optional, fields trimmed, blank lines skipped, CRLF tolerated.
#include <string>

#include "sim/workload/workload.h"

namespace cstsim {

Workload read_scalesim_csv(const std::string& path);

}  // namespace cstsim
