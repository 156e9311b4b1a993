#pragma once
// trace/manifest.json: what the sink wrote, so that a reader can tell a whole trace from a damaged
// one. For every file its size and CRC-32 (rt.bin: of its records, the header being checked field
// by field), the row counts, the record count and the end cycle. summary.json repeats the record
// count, the end cycle and the manifest's own CRC-32, tying the run's report to its trace.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "core/crc32.h"
#include <nlohmann/json_fwd.hpp>

namespace cstsim::trace {

struct FileCheck {
  uint64_t bytes = 0;
  uint32_t crc32 = 0;
  uint64_t rows = 0;  // CSV data rows (header excluded); rt.bin: records
};

struct Manifest {
  uint64_t end_cycle = 0;
  uint64_t records = 0;
  std::map<std::string, FileCheck> files;  // by file name within trace/
  uint32_t own_crc32 = 0;                  // of manifest.json itself, as read

  std::string json() const;
  // Reads dir/manifest.json; InputError naming the file and key on anything missing or malformed.
  static Manifest read(const std::filesystem::path& dir);
  // summary.json's "trace" entry (records, end_cycle, manifest_crc32) must be this trace's: a
  // trace from another run, or one damaged and re-counted, is refused (InputError).
  void check_summary(const std::filesystem::path& summary_path, const nlohmann::json& summary) const;
  // The entry for `name`; InputError if the manifest has none.
  const FileCheck& file(const std::filesystem::path& dir, const std::string& name) const;
};

// A run's summary.json as the trace readers need it (arch, mode, version, its "trace" entry):
// without its per-layer lists, which are never held (a run of many layers writes megabytes of
// them). InputError if missing or malformed JSON.
nlohmann::json read_run_summary(const std::filesystem::path& summary_path);

// The CRC-32 of `text` (IEEE 802.3, as zlib's crc32).
uint32_t crc32_of(const std::string& text);

// Checks a file's bytes against its manifest entry: InputError "FILE: damaged: ..." naming what differs.
void check_file(const std::filesystem::path& path, const FileCheck& expected, uint64_t bytes, uint32_t crc);

// The same for a file too large to hold: read once in blocks (before its rows are used, so that
// nothing is computed from a damaged file).
void check_streamed(const std::filesystem::path& path, const FileCheck& expected);

}  // namespace cstsim::trace
