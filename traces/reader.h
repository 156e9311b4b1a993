#pragma once
// Reads a run's trace/ folder (traces/FORMAT.md) as a stream: memory does not
// grow with the number of records.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "traces/format.h"
#include "traces/manifest.h"

namespace cstsim::trace {

struct LayerRow {
  int index = 0;
  std::string name;
  int64_t start_cycle = 0;
  int64_t end_cycle = 0;  // inclusive
};

struct ActionRow {
  int layer = 0;
  int64_t window_start = 0, window_end = 0;
  std::string action, unit;
  int64_t count = 0;
};

class TraceReader {
 public:
  // `trace_dir` is <run-dir>/trace. Every file is checked against manifest.json (size, CRC-32,
  // rows) and every field against its bounds; InputError naming the file (and line) on any
  // problem. Records and actions.csv rows are checked as they are streamed, rt.bin's CRC once
  // the last record is read.
  explicit TraceReader(std::filesystem::path trace_dir);
  ~TraceReader();
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;

  const FileHeader& header() const { return header_; }
  const Manifest& manifest() const { return manifest_; }
  const std::vector<Resource>& resources() const { return resources_; }
  const std::vector<LayerRow>& layers() const { return layers_; }
  std::vector<ActionRow> actions() const;  // the whole actions.csv (tests, small traces)
  // Streams actions.csv row by row (memory independent of the number of windows).
  void for_each_action(const std::function<void(const ActionRow&)>& visit) const;

  // Next change record in file order; false at the end. rewind() starts over.
  bool next(Record& record);
  void rewind();

 private:
  std::filesystem::path dir_;
  std::FILE* rt_ = nullptr;
  FileHeader header_{};
  std::vector<Resource> resources_;
  std::vector<LayerRow> layers_;
  std::vector<Record> buffer_;
  size_t pos_ = 0;
  uint64_t read_ = 0;
  uint64_t last_cycle_ = 0;
  Crc32 crc_;  // of the records read so far
  Manifest manifest_;
  void check_record(const Record& r, uint64_t index);
};

// Splits one CSV line (RFC 4180: a quoted field may hold commas and doubled quotes; core/csv.h).
std::vector<std::string> split_csv(const std::string& line);

}  // namespace cstsim::trace
