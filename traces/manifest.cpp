#include "traces/manifest.h"

#include <fstream>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/input_error.h"
#include "core/input_file.h"

namespace cstsim::trace {
namespace fs = std::filesystem;

std::string Manifest::json() const {
  nlohmann::ordered_json j;
  j["format"] = 1;
  j["end_cycle"] = end_cycle;
  j["records"] = records;
  for (const auto& [name, f] : files) j["files"][name] = {{"bytes", f.bytes}, {"crc32", f.crc32}, {"rows", f.rows}};
  return j.dump(2) + "\n";
}

Manifest Manifest::read(const fs::path& dir) {
  const fs::path path = dir / "manifest.json";
  if (!fs::exists(path))
    throw InputError(path.string(), 0, "", "missing: the trace cannot be checked (a trace of cstsim before 2026-12, or damaged)");
  const std::string text = read_input(path.string());
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path.string(), 0, "", std::string("malformed JSON: ") + e.what());
  }
  auto count = [&](const nlohmann::json& at, const std::string& key, const std::string& where) -> uint64_t {
    if (!at.is_object() || !at.contains(key) || !at[key].is_number_unsigned())
      throw InputError(path.string(), 0, where + key, "missing or not a non-negative integer");
    return at[key].get<uint64_t>();
  };
  Manifest m;
  m.own_crc32 = crc32_of(text);
  if (count(j, "format", "") != 1) throw InputError(path.string(), 0, "format", "unknown manifest format");
  m.end_cycle = count(j, "end_cycle", "");
  m.records = count(j, "records", "");
  if (!j.contains("files") || !j["files"].is_object()) throw InputError(path.string(), 0, "files", "missing");
  for (const auto& [name, f] : j["files"].items()) {
    const std::string where = "files." + name + ".";
    const uint64_t crc = count(f, "crc32", where);
    if (crc > 0xffffffffu) throw InputError(path.string(), 0, where + "crc32", "larger than 32 bits");
    m.files[name] = {count(f, "bytes", where), uint32_t(crc), count(f, "rows", where)};
  }
  return m;
}

const FileCheck& Manifest::file(const fs::path& dir, const std::string& name) const {
  const auto it = files.find(name);
  if (it == files.end()) throw InputError((dir / "manifest.json").string(), 0, "files." + name, "missing");
  return it->second;
}

uint32_t crc32_of(const std::string& text) {
  Crc32 crc;
  crc.process_bytes(text.data(), text.size());
  return crc.checksum();
}

void check_file(const fs::path& path, const FileCheck& expected, uint64_t bytes, uint32_t crc) {
  if (bytes != expected.bytes)
    throw InputError(path.string(), 0, "",
                     fmt::format("damaged: {} bytes where manifest.json has {} (cut short or appended to)", bytes,
                                 expected.bytes));
  if (crc != expected.crc32)
    throw InputError(path.string(), 0, "",
                     fmt::format("damaged: its CRC-32 is {:08x} where manifest.json has {:08x}", crc, expected.crc32));
}

void check_streamed(const fs::path& path, const FileCheck& expected) {
  InputStream in(path.string());
  Crc32 crc;
  uint64_t bytes = 0;
  std::vector<char> block(1 << 16);
  while (in.read(block.data(), std::streamsize(block.size())) || in.gcount() > 0) {
    crc.process_bytes(block.data(), size_t(in.gcount()));
    bytes += uint64_t(in.gcount());
  }
  check_file(path, expected, bytes, crc.checksum());
}

// summary.json's "trace" entry (the record count, the end cycle and manifest.json's CRC-32) must
// be the trace's: a trace from another run, or one damaged and re-counted, is refused.
void Manifest::check_summary(const fs::path& summary_path, const nlohmann::json& summary) const {
  const Manifest& m = *this;
  const nlohmann::json* entry = summary.contains("trace") ? &summary["trace"] : nullptr;
  auto get = [&](const char* key) -> uint64_t {
    if (!entry || !entry->is_object() || !entry->contains(key) || !(*entry)[key].is_number_unsigned())
      throw InputError(summary_path.string(), 0, std::string("trace.") + key,
                       "missing or not a non-negative integer: summary.json does not describe its trace");
    return (*entry)[key].get<uint64_t>();
  };
  if (get("records") != m.records || get("end_cycle") != m.end_cycle || get("manifest_crc32") != m.own_crc32)
    throw InputError(summary_path.string(), 0, "trace",
                     fmt::format("{} records to cycle {} (manifest {:08x}), but trace/ holds {} records to cycle {} "
                                 "(manifest {:08x}): the trace is not this run's, or was changed",
                                 get("records"), get("end_cycle"), get("manifest_crc32"), m.records, m.end_cycle,
                                 m.own_crc32));
}

nlohmann::json read_run_summary(const fs::path& summary_path) {
  if (!is_file(summary_path)) throw InputError(summary_path.string(), 0, "", "missing: not a run directory, or damaged");
  // Dropped as they are read: the top level's "layers" (the parser builds none of their values).
  const nlohmann::json::parser_callback_t skip_layers = [](int depth, nlohmann::json::parse_event_t event,
                                                           nlohmann::json& parsed) {
    return !(depth == 1 && event == nlohmann::json::parse_event_t::key && parsed == "layers");
  };
  try {
    InputStream in(summary_path.string());
    return nlohmann::json::parse(in, skip_layers);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(summary_path.string(), 0, "", std::string("malformed JSON: ") + e.what());
  }
}

}  // namespace cstsim::trace
