#pragma once
// `cstsim export {csv|perfetto|vcd} <run-dir> [--out FILE]`: converts a run's
// trace/ folder (traces/FORMAT.md) to formats other tools open. The mapping of
// each format is described in traces/export/README.md.
//
// Every exporter streams the records (memory does not grow with the trace) into
// a hidden temporary file next to the output and renames it when complete, so a
// failed export leaves no partial file behind.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace cstsim {

// `args` are the words after "export". Exit status: 0 written (or --help), 2 bad
// usage, an unreadable or missing trace, or an output that could not be written
// (one line "error: export: ..." on stderr, no output file). One file per exporter,
// each a registered row (exporter.h); trace_input.h is what they read.
int export_command(const std::vector<std::string>& args);

namespace trace {

// The exporters behind the command; `run_dir` holds trace/. They throw
// std::runtime_error on a bad trace or a failed write (and leave no output).
void export_csv(const std::filesystem::path& run_dir, const std::filesystem::path& out);
void export_perfetto(const std::filesystem::path& run_dir, const std::filesystem::path& out);
void export_perfetto_proto(const std::filesystem::path& run_dir, const std::filesystem::path& out);
// `cstsim export perfetto` writes the protobuf form by default above this many records (the
// JSON takes about 100 bytes a record; the protobuf about 12).
inline constexpr uint64_t kPerfettoJsonMaxRecords = 1'000'000;
void export_vcd(const std::filesystem::path& run_dir, const std::filesystem::path& out);

// VCD time base for a clock period. When the period is a whole number of
// femtoseconds, `unit` is the coarsest standard $timescale that divides it
// ("1 ns" for 1 GHz, "100 ps" for 2.5 GHz) and cycle c is at c * per_cycle
// exactly; otherwise (e.g. 700 MHz) `unit` is "1 ps" and cycle c is at
// llround(c * units_per_cycle), which never accumulates rounding error.
struct VcdTimebase {
  std::string unit;
  bool exact = false;
  uint64_t per_cycle = 0;        // when exact
  double units_per_cycle = 0;    // always: period / unit
  uint64_t time_of(uint64_t cycle) const;
};
VcdTimebase vcd_timebase(double period_s);

}  // namespace trace
}  // namespace cstsim
