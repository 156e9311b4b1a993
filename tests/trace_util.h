#pragma once
// Traces made by hand in a test (a TraceSink, no run): summary.json gets the "trace" entry a run
// writes (sim/run/run.cpp), so that post and export accept the trace as the run's.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "traces/sink.h"

namespace cstsim::testing_util {

inline void tie_summary(const std::filesystem::path& run, const trace::TraceSink& sink) {
  const std::filesystem::path path = run / "summary.json";
  nlohmann::json summary = nlohmann::json::object();
  if (std::filesystem::exists(path)) {
    std::ifstream in(path);
    summary = nlohmann::json::parse(in);
  }
  summary["trace"] = {{"records", sink.manifest().records},
                      {"end_cycle", sink.manifest().end_cycle},
                      {"manifest_crc32", sink.manifest_crc32()}};
  std::ofstream(path) << summary.dump(2) << "\n";
}

// After a test edits a trace file on purpose (not damage): the manifest and summary.json take its
// new contents, as if the run had written them.
inline void reseal(const std::filesystem::path& run, const std::string& file) {
  const std::filesystem::path dir = run / "trace";
  trace::Manifest m = trace::Manifest::read(dir);
  std::stringstream text;
  text << std::ifstream(dir / file, std::ios::binary).rdbuf();
  m.files[file].bytes = text.str().size();
  m.files[file].crc32 = trace::crc32_of(text.str());
  const std::string manifest = m.json();
  std::ofstream(dir / "manifest.json", std::ios::binary) << manifest;
  std::ifstream in(run / "summary.json");
  nlohmann::ordered_json summary = nlohmann::ordered_json::parse(in);
  summary["trace"]["manifest_crc32"] = trace::crc32_of(manifest);
  std::ofstream(run / "summary.json") << summary.dump(2) << "\n";
}

}  // namespace cstsim::testing_util
