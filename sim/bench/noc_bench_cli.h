#pragma once
// `cstsim noc-bench`: synthetic traffic on the mesh NoC (models/noc/noc_bench.h runs
// it); prints offered and accepted load, latency percentiles and the busiest link.
#include <string>
#include <vector>

namespace cstsim {
// args are the words after "noc-bench". Bad usage prints one line and returns 2.
int noc_bench_command(const std::vector<std::string>& args);
}  // namespace cstsim
