#pragma once
// Child processes for the sweep: the points (cstsim run, one simulation per
// process) and the Slurm client commands.
#include <signal.h>
#include <sys/types.h>

#include <string>
#include <vector>

namespace cstsim::sweep::proc {

// The binary the points run: $CSTSIM_SWEEP_EXE if set, else this process's own
// executable (/proc/self/exe), as an absolute path.
std::string self_exe();

// What the local pool executes: $CSTSIM_SWEEP_EXE if set, else "/proc/self/exe",
// which a forked child resolves to the driver's own executable even when the
// file on disk has been rebuilt since the sweep started (so one sweep never
// mixes two builds).
std::string exec_path();

// Starts `path` with arguments argv (argv[0] is only the name the program sees) with stdin from /dev/null and stdout+stderr
// appended to `log_path`, in its own process group (so a terminal's Ctrl-C
// reaches only the driver, which then stops its points) and with SIGKILL as its
// parent-death signal (a driver killed with SIGKILL leaves no orphan running).
// The child starts with `child_mask` as its signal mask. Throws std::runtime_error.
pid_t spawn(const std::string& path, const std::vector<std::string>& argv, const std::string& log_path,
            const sigset_t& child_mask);

// Runs argv[0] (searched in PATH) to completion and returns its exit status
// (128 + signal when killed, 127 when it cannot be started); stdout into `out`,
// stderr into `err` (when given, else it goes to `out` too).
int capture(const std::vector<std::string>& argv, std::string& out, std::string* err = nullptr);

// True when `name` is an executable file in PATH.
bool in_path(const std::string& name);

// Shell-quotes a word for the generated scripts.
std::string shell_quote(const std::string& s);

}  // namespace cstsim::sweep::proc
