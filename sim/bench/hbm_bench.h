#pragma once
// `cstsim hbm-bench`: closed-loop traffic on one HBM stack; prints achieved bandwidth,
// row-hit rate, latency distribution, command counts and the refresh share.
#include <string>
#include <vector>

namespace cstsim {
// args are the words after "hbm-bench". Returns 0; bad usage or input prints one line
// "error: hbm-bench: ..." on stderr and returns 2. Runs SystemC (once per process) unless
// --engine direct.
int hbm_bench_command(const std::vector<std::string>& args);
}  // namespace cstsim
