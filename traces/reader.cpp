#include "traces/reader.h"

#include "core/csv.h"

#include <cstring>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

namespace cstsim::trace {
namespace fs = std::filesystem;

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::vector<std::string>> rows;
  if (!csv::parse(line, rows)) throw std::runtime_error("unterminated quoted field in: " + line);
  return rows.empty() ? std::vector<std::string>{""} : rows.front();
}

namespace {

std::vector<std::vector<std::string>> read_rows(const fs::path& path, size_t fields) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path.string() + ": cannot open file");
  std::vector<std::vector<std::string>> rows;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (n == 1 || line.empty()) continue;  // header
    auto f = split_csv(line);
    if (f.size() != fields)
      throw std::runtime_error(fmt::format("{}:{}: expected {} fields, found {}", path.string(), n, fields, f.size()));
    rows.push_back(std::move(f));
  }
  return rows;
}

}  // namespace

TraceReader::TraceReader(fs::path trace_dir) : dir_(std::move(trace_dir)) {
  for (auto& f : read_rows(dir_ / "resources.csv", 9)) {
    Resource r;
    r.id = uint32_t(std::stoul(f[0]));
    r.name = f[1];
    r.cls = class_from_letter(f[2].empty() ? '?' : f[2][0]);
    r.unit = f[3];
    r.capacity = std::stoll(f[4]);
    r.owner = f[5];
    r.level = f[6];
    r.edge = f[7];
    r.carries = f[8];
    if (r.id != resources_.size()) throw std::runtime_error((dir_ / "resources.csv").string() + ": ids not in order");
    resources_.push_back(r);
  }
  for (auto& f : read_rows(dir_ / "layers.csv", 4))
    layers_.push_back({std::stoi(f[0]), f[1], std::stoll(f[2]), std::stoll(f[3])});
  const fs::path rt = dir_ / "rt.bin";
  rt_ = std::fopen(rt.c_str(), "rb");
  if (!rt_) throw std::runtime_error(rt.string() + ": cannot open file");
  if (std::fread(&header_, sizeof header_, 1, rt_) != 1 || std::memcmp(header_.magic, kMagic, 8) != 0)
    throw std::runtime_error(rt.string() + ": not a cstsim trace");
  if (header_.version != kVersion || header_.record_bytes != kRecordBytes || header_.header_bytes != kHeaderBytes)
    throw std::runtime_error(fmt::format("{}: unsupported trace version {}", rt.string(), header_.version));
  if (header_.resource_count != resources_.size())
    throw std::runtime_error(rt.string() + ": resource count does not match resources.csv");
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
    if (std::fread(buffer_.data(), sizeof(Record), want, rt_) != want)
      throw std::runtime_error((dir_ / "rt.bin").string() + ": truncated");
    read_ += want;
    pos_ = 0;
  }
  record = buffer_[pos_++];
  return true;
}

void TraceReader::rewind() {
  std::fseek(rt_, long(sizeof(FileHeader)), SEEK_SET);
  buffer_.clear();
  pos_ = 0;
  read_ = 0;
}

std::vector<ActionRow> TraceReader::actions() const {
  std::vector<ActionRow> out;
  for_each_action([&](const ActionRow& a) { out.push_back(a); });
  return out;
}

void TraceReader::for_each_action(const std::function<void(const ActionRow&)>& visit) const {
  const fs::path path = dir_ / "actions.csv";
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path.string() + ": cannot open file");
  std::string line;
  int n = 0;
  ActionRow row;
  while (std::getline(in, line)) {
    if (++n == 1 || line.empty()) continue;
    const auto f = split_csv(line);
    if (f.size() != 6) throw std::runtime_error(fmt::format("{}:{}: expected 6 fields, found {}", path.string(), n, f.size()));
    row = {std::stoi(f[0]), std::stoll(f[1]), std::stoll(f[2]), f[3], f[4], std::stoll(f[5])};
    visit(row);
  }
}

}  // namespace cstsim::trace
