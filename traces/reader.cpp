#include "traces/reader.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "core/csv.h"
#include "core/input_file.h"
#include "core/input_error.h"
#include "core/text.h"

namespace cstsim::trace {
namespace fs = std::filesystem;

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::vector<std::string>> rows;
  if (!csv::parse(line, rows)) throw std::runtime_error("unterminated quoted field in: " + line);
  return rows.empty() ? std::vector<std::string>{""} : rows.front();
}

namespace {

// Every number in the trace's CSV files: a whole integer within [lo, hi], or an error naming the
// file, line and column.
int64_t field(const fs::path& path, int line, const char* column, const std::string& text, int64_t lo, int64_t hi) {
  const std::optional<int64_t> v = text::parse_int(text);
  if (!v || *v < lo || *v > hi)
    throw InputError(path.string(), line, column,
                     fmt::format("expected an integer from {} to {}, got {}", lo, hi, text::quoted(text)));
  return *v;
}

// A small CSV file, whole: checked against the manifest, then split into rows of `fields`.
std::vector<std::vector<std::string>> read_checked(const fs::path& path, const FileCheck& check, size_t fields) {
  const std::string text = read_input(path.string());
  check_file(path, check, text.size(), crc32_of(text));
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(text);
  std::string line;
  for (int n = 1; std::getline(lines, line); ++n) {
    if (n == 1 || line.empty()) continue;  // header
    std::vector<std::vector<std::string>> parsed;
    if (!csv::parse(line, parsed) || parsed.size() != 1 || parsed[0].size() != fields)
      throw InputError(path.string(), n, "", fmt::format("expected {} fields", fields));
    rows.push_back(std::move(parsed[0]));
  }
  if (rows.size() != check.rows)
    throw InputError(path.string(), 0, "", fmt::format("damaged: {} rows where manifest.json has {}", rows.size(), check.rows));
  return rows;
}

}  // namespace

TraceReader::TraceReader(fs::path trace_dir) : dir_(std::move(trace_dir)) {
  if (!fs::is_directory(dir_)) throw InputError(dir_.string(), 0, "", "no trace folder here");
  manifest_ = Manifest::read(dir_);
  const int64_t end = int64_t(std::min<uint64_t>(manifest_.end_cycle, INT64_MAX));
  const fs::path res = dir_ / "resources.csv";
  int n = 1;
  for (auto& f : read_checked(res, manifest_.file(dir_, "resources.csv"), 9)) {
    ++n;
    Resource r;
    r.id = uint32_t(field(res, n, "id", f[0], int64_t(resources_.size()), int64_t(resources_.size())));
    r.name = f[1];
    if (f[2].size() != 1 || std::string("CMNS").find(f[2][0]) == std::string::npos)
      throw InputError(res.string(), n, "class", "expected C, M, N or S, got " + text::quoted(f[2]));
    r.cls = class_from_letter(f[2][0]);
    r.unit = f[3];
    r.capacity = field(res, n, "capacity", f[4], 0, INT64_MAX);
    r.owner = f[5];
    r.level = f[6];
    r.edge = f[7];
    r.carries = f[8];
    resources_.push_back(r);
  }
  const fs::path lay = dir_ / "layers.csv";
  n = 1;
  for (auto& f : read_checked(lay, manifest_.file(dir_, "layers.csv"), 4)) {
    ++n;
    LayerRow l{int(field(lay, n, "layer", f[0], layers_.empty() ? -1 : layers_.back().index + 1, INT32_MAX)), f[1],
               field(lay, n, "start_cycle", f[2], layers_.empty() ? 0 : layers_.back().end_cycle + 1, end), 0};
    l.end_cycle = field(lay, n, "end_cycle", f[3], l.start_cycle - 1, end - 1);
    layers_.push_back(std::move(l));
  }
  const fs::path rt = dir_ / "rt.bin";
  rt_ = fopen_input(rt.string());
  if (std::fread(&header_, sizeof header_, 1, rt_) != 1 || std::memcmp(header_.magic, kMagic, 8) != 0)
    throw InputError(rt.string(), 0, "", "not a cstsim trace");
  if (header_.version != kVersion || header_.record_bytes != kRecordBytes || header_.header_bytes != kHeaderBytes)
    throw InputError(rt.string(), 0, "", fmt::format("unsupported trace version {}", header_.version));
  if (header_.resource_count != resources_.size())
    throw InputError(rt.string(), 0, "resource_count",
                     fmt::format("{} in the header, {} in resources.csv", header_.resource_count, resources_.size()));
  if (!(header_.clock_hz > 0) || !std::isfinite(header_.clock_hz) || !(header_.period_s > 0) ||
      !std::isfinite(header_.period_s) || std::abs(header_.clock_hz * header_.period_s - 1) > 1e-9)
    throw InputError(rt.string(), 0, "clock_hz",
                     fmt::format("clock {} Hz with period {} s: not a positive clock and its period", header_.clock_hz,
                                 header_.period_s));
  if (header_.end_cycle != manifest_.end_cycle || header_.record_count != manifest_.records)
    throw InputError(rt.string(), 0, "",
                     fmt::format("damaged: header has {} records to cycle {}, manifest.json {} to cycle {}",
                                 header_.record_count, header_.end_cycle, manifest_.records, manifest_.end_cycle));
  const FileCheck& check = manifest_.file(dir_, "rt.bin");
  std::error_code ec;
  const uint64_t bytes = fs::file_size(rt, ec);
  if (ec || bytes != check.bytes || bytes != kHeaderBytes + header_.record_count * kRecordBytes)
    throw InputError(rt.string(), 0, "",
                     fmt::format("damaged: {} bytes where its {} records need {} (cut short or appended to)", bytes,
                                 header_.record_count, kHeaderBytes + header_.record_count * kRecordBytes));
  buffer_.reserve(8192);
}

TraceReader::~TraceReader() {
  if (rt_) std::fclose(rt_);
}

bool TraceReader::next(Record& record) {
  if (pos_ == buffer_.size()) {
    if (read_ >= header_.record_count) return false;
    const size_t want = size_t(std::min<uint64_t>(8192, header_.record_count - read_));
    buffer_.resize(want);
    const fs::path rt = dir_ / "rt.bin";
    if (std::fread(buffer_.data(), sizeof(Record), want, rt_) != want) throw InputError(rt.string(), 0, "", "truncated");
    crc_.process_bytes(buffer_.data(), want * sizeof(Record));
    for (size_t i = 0; i < want; ++i) check_record(buffer_[i], read_ + i);
    read_ += want;
    pos_ = 0;
    if (read_ == header_.record_count) {
      if (crc_.checksum() != manifest_.file(dir_, "rt.bin").crc32)
        throw InputError(rt.string(), 0, "",
                         fmt::format("damaged: its records' CRC-32 is {:08x} where manifest.json has {:08x}",
                                     crc_.checksum(), manifest_.file(dir_, "rt.bin").crc32));
    }
  }
  record = buffer_[pos_++];
  return true;
}

// The bounds traces/FORMAT.md promises: ids in range, cycles in order and within the trace,
// values from 0 to the resource's capacity.
void TraceReader::check_record(const Record& r, uint64_t index) {
  // The path is made only for a message: this runs once per record.
  auto rt = [&] { return dir_ / "rt.bin"; };
  if (r.resource >= resources_.size())
    throw InputError(rt().string(), 0, "",
                     fmt::format("record {}: resource id {} out of range (resources.csv has {})", index, r.resource,
                                 resources_.size()));
  if (r.cycle < last_cycle_ || r.cycle > header_.end_cycle)
    throw InputError(rt().string(), 0, "",
                     fmt::format("record {}: cycle {} outside {}..{} (records in cycle order, within the trace)",
                                 index, r.cycle, last_cycle_, header_.end_cycle));
  const Resource& res = resources_[r.resource];
  if (r.value < 0 || r.value > res.capacity)
    throw InputError(rt().string(), 0, "",
                     fmt::format("record {}: {} = {} outside 0..{} (its capacity)", index, res.name, r.value,
                                 res.capacity));
  last_cycle_ = r.cycle;
}

void TraceReader::rewind() {
  std::fseek(rt_, long(sizeof(FileHeader)), SEEK_SET);
  buffer_.clear();
  pos_ = 0;
  read_ = 0;
  last_cycle_ = 0;
  crc_ = {};
}

std::vector<ActionRow> TraceReader::actions() const {
  std::vector<ActionRow> out;
  for_each_action([&](const ActionRow& a) { out.push_back(a); });
  return out;
}

void TraceReader::for_each_action(const std::function<void(const ActionRow&)>& visit) const {
  const fs::path path = dir_ / "actions.csv";
  const FileCheck& check = manifest_.file(dir_, "actions.csv");
  check_streamed(path, check);  // damage is found before any row is handed on
  InputStream in(path.string());
  const int64_t end = int64_t(header_.end_cycle);
  const int first_layer = layers_.empty() ? -1 : layers_.front().index;
  const int last_layer = layers_.empty() ? -1 : layers_.back().index;
  std::string line;
  int n = 0;
  uint64_t rows = 0;
  ActionRow row;
  while (std::getline(in, line)) {
    if (++n == 1 || line.empty()) continue;
    const auto f = split_csv(line);
    if (f.size() != 6) throw InputError(path.string(), n, "", fmt::format("expected 6 fields, found {}", f.size()));
    row.layer = int(field(path, n, "layer", f[0], std::min(first_layer, -1), last_layer));
    row.window_start = field(path, n, "window_start", f[1], 0, end);
    row.window_end = field(path, n, "window_end", f[2], row.window_start, end);
    row.action = f[3];
    row.unit = f[4];
    row.count = field(path, n, "count", f[5], 0, INT64_MAX);
    ++rows;
    visit(row);
  }
  if (rows != check.rows)
    throw InputError(path.string(), 0, "", fmt::format("damaged: {} rows where manifest.json has {}", rows, check.rows));
}

}  // namespace cstsim::trace
