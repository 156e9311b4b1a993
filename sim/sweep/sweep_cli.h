#pragma once
// `cstsim sweep ...` and `cstsim pareto ...`. Exit status: 0 ok, 1 some points
// failed or are missing (or a Slurm job failed), 2 bad input or usage (one line
// `error: file:line: key: message`, nothing written), 130 interrupted.
// Bad input is thrown as InputError, which the CLI prints.
#include <string>
#include <vector>

namespace cstsim {
int sweep_command(const std::vector<std::string>& args);
int pareto_command(const std::vector<std::string>& args);
}  // namespace cstsim
