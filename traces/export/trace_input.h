#pragma once
// What every exporter reads: a run directory's trace/, opened with errors that name
// what is missing, and its records streamed with their ids and order checked.
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "traces/reader.h"

namespace cstsim::trace {

// A missing or unreadable run directory is an InputError (core/input_error.h): `cstsim export`
// prints "error: export: <what>" and exits with status 2.
std::unique_ptr<TraceReader> open_trace(const std::filesystem::path& run_dir);

// Calls f(record) for every record, checking ids and order.
template <class F>
void stream_records(TraceReader& reader, const std::filesystem::path& run_dir, F&& f) {
  const size_t n = reader.resources().size();
  Record rec{};
  uint64_t prev = 0, i = 0;
  while (reader.next(rec)) {
    if (rec.resource >= n)
      throw std::runtime_error(fmt::format("{}: record {}: resource id {} out of range (resources.csv has {})",
                                           (run_dir / "trace" / "rt.bin").string(), i, rec.resource, n));
    if (rec.cycle < prev)
      throw std::runtime_error(fmt::format("{}: record {}: cycle {} before cycle {} (records must be in cycle order)",
                                           (run_dir / "trace" / "rt.bin").string(), i, rec.cycle, prev));
    prev = rec.cycle;
    ++i;
    f(rec);
  }
}

// A row of slices.csv: a named span [start, end] of cycles on a track (traces/FORMAT.md).
struct SliceRow {
  std::string track, name;
  int64_t start = 0, end = 0;
};
// Calls f(slice) for every row of <run-dir>/trace/slices.csv, streamed (traces written before
// slices existed have none).
void for_each_slice(const std::filesystem::path& run_dir, const std::function<void(const SliceRow&)>& f);

// The run directory's own name ("runs/a/" -> "a").
std::string run_name(const std::filesystem::path& run_dir);

}  // namespace cstsim::trace
