#pragma once
// What a signal leaves behind. A staging directory or temporary file is registered while it exists;
// SIGINT, SIGTERM or SIGHUP removes every registered one (with system calls only: safe in a
// handler), prints one line and ends the process by the same signal. SIGXFSZ is ignored, so a file
// over the size limit (ulimit -f) fails its write with EFBIG and takes the ordinary error path.
#include <filesystem>

namespace cstsim::cleanup {

// Installs the handlers (not over a signal the parent ignores: nohup, a background job).
void install();

// Registers `path` for removal by a signal handler; the slot, or -1 if the registry is full (the
// next run in the same directory removes what a killed process left). Only the registering process
// removes it, never a forked child.
int add(const std::filesystem::path& path);
// Forgets the slot (a no-op for -1).
void remove(int slot);

}  // namespace cstsim::cleanup
