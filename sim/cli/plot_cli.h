#pragma once
// `cstsim plot <run-dir>`: every figure of a run in one command, by the scripts in traces/plot/
// (Debian's /usr/bin/python3 with python3-matplotlib; $CSTSIM_PYTHON for another): R(t), power
// over time, the roofline, and the per-layer breakdowns (stalls, utilization, energy, traffic),
// each as PNG and PDF in <run-dir>/figures/ (or --out DIR). Prints every file it wrote.
#include <string>
#include <vector>

namespace cstsim {
// args are the words after "plot". Bad usage or a directory that is no run: one line, status 2.
int plot_command(const std::vector<std::string>& args);
}  // namespace cstsim
