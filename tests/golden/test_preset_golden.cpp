// The regression set: every shipped arch preset x every shipped workload, and the
// SCALE-Sim golden inputs, run through the real binary and held against a golden file
// per case (tests/golden/presets/<arch>__<workload>.json), DRAMSys-style: field by
// field where the golden keeps the field, and a digest of every output file.
//
// A golden keeps summary.json whole, report.json's totals and its first and last
// layers, and FNV-1a digests of summary.json, report.json, layers.csv,
// energy_windows.csv and trace/{rt.bin,actions.csv,resources.csv,layers.csv}. The
// fields that name the build or the hash rule (version, config_hash, commit) are left
// out of both. Regenerate after an intended change:
//   CSTSIM_REGENERATE_GOLDEN=1 build/tests/cstsim_tests --gtest_filter='GoldenPreset*'
// and say in the commit why the numbers moved.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/cli_util.h"
#include "tests/test_util.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kSource = CSTSIM_SOURCE_DIR;
const fs::path kGolden = kSource / "tests" / "golden" / "presets";
constexpr const char* kVolatile[] = {"version", "config_hash", "commit"};
constexpr size_t kLayersKept = 3;  // from each end of report.json's layer list

struct Case {
  std::string name, arch, workload;  // paths relative to the source tree
  std::string options = "";          // more run options (--set ...)
};

std::vector<Case> cases(bool long_ones) {
  std::vector<Case> out;
  std::vector<fs::path> archs, workloads;
  for (const auto& e : fs::directory_iterator(kSource / "configs" / "arch")) archs.push_back(e.path());
  // The operator-graph models (workloads/models/) are checked by tests/unit/test_graph.cpp and
  // tests/sim/test_graph_runs.cpp; at their sizes a run per preset would take minutes.
  for (const auto& e : fs::directory_iterator(kSource / "configs" / "workloads"))
    if (e.is_regular_file()) workloads.push_back(e.path());
  std::sort(archs.begin(), archs.end());
  std::sort(workloads.begin(), workloads.end());
  for (const fs::path& a : archs)
    for (const fs::path& w : workloads) {
      // The full hierarchy on the big workloads takes seconds each: the `long` label.
      const bool slow = a.stem() == "npu-128-hbm3" && w.stem() != "gemm-512" && w.stem() != "gemm-1024";
      if (slow == long_ones)
        out.push_back({a.stem().string() + "__" + w.stem().string(), fs::relative(a, kSource).string(),
                       fs::relative(w, kSource).string()});
    }
  // Several clusters share one memory system: the same-cycle order of their DMA engines' events
  // (request ids, which the mesh's arbitration sees) is held here.
  const std::string hbm3 = "configs/arch/npu-128-hbm3.yaml";
  if (long_ones)
    out.push_back({"npu-128-hbm3-x2__bert-base-layer", hbm3, "configs/workloads/bert-base-layer.yaml", "--set clusters=2"});
  else
    out.push_back({"npu-128-hbm3-x4__gemm-512", hbm3, "configs/workloads/gemm-512.csv", "--set clusters=4"});
  if (!long_ones) {
    const std::string in = "tests/golden/scalesim-v2/inputs/";
    for (const char* cfg : {"a8_ws_calc", "a8_os_calc", "a8_is_calc"})
      out.push_back({std::string("scalesim_") + cfg + "__gemm16", in + cfg + ".cfg", in + "gemm16.csv"});
    for (const char* cfg : {"a32_ws_calc", "a32_os_calc", "a32_is_calc"})
      out.push_back({std::string("scalesim_") + cfg + "__gemm512", in + cfg + ".cfg", in + "gemm512.csv"});
    out.push_back({"scalesim_scale__resnet18", in + "scale.cfg", in + "Resnet18.csv"});
  }
  return out;
}

std::string fnv1a(const std::string& bytes) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return fmt::format("{:016x}", h);
}

json without_volatile(json j) {
  for (const char* k : kVolatile) j.erase(k);
  return j;
}

// What a run directory is held to.
json golden_of(const fs::path& run) {
  using cstsim::testing_util::slurp;
  const json summary = without_volatile(json::parse(slurp(run / "summary.json")));
  const json report = without_volatile(json::parse(slurp(run / "report.json")));
  json kept = report;
  json& layers = kept["layers"];
  if (layers.size() > 2 * kLayersKept) {
    json ends = json::array();
    for (size_t i = 0; i < layers.size(); ++i)
      if (i < kLayersKept || i + kLayersKept >= layers.size()) ends.push_back(layers[i]);
    kept["layers_kept"] = fmt::format("first and last {} of {}", kLayersKept, layers.size());
    layers = ends;
  }
  json digests;
  digests["summary.json"] = fnv1a(summary.dump());
  digests["report.json"] = fnv1a(report.dump());
  for (const char* f : {"layers.csv", "energy_windows.csv", "trace/rt.bin", "trace/actions.csv", "trace/resources.csv",
                        "trace/layers.csv"})
    digests[f] = fnv1a(slurp(run / f));
  return {{"summary", summary}, {"report", kept}, {"digests", digests}};
}

// Every leaf where `got` differs from `want`, as "path: golden X, now Y".
void differences(const json& want, const json& got, const std::string& path, std::vector<std::string>& out) {
  if (want.type() != got.type() || (!want.is_object() && !want.is_array())) {
    if (want != got) out.push_back(fmt::format("{}: golden {}, now {}", path, want.dump(), got.dump()));
    return;
  }
  if (want.is_array()) {
    if (want.size() != got.size()) out.push_back(fmt::format("{}: golden {} entries, now {}", path, want.size(), got.size()));
    for (size_t i = 0; i < std::min(want.size(), got.size()); ++i)
      differences(want[i], got[i], fmt::format("{}[{}]", path, i), out);
    return;
  }
  for (const auto& [k, v] : want.items())
    if (!got.contains(k)) out.push_back(fmt::format("{}.{}: missing now", path, k));
    else differences(v, got[k], path + "." + k, out);
  for (const auto& [k, v] : got.items())
    if (!want.contains(k)) out.push_back(fmt::format("{}.{}: new, not in the golden", path, k));
}

class GoldenPreset : public ::testing::TestWithParam<Case> {};
class GoldenPresetLong : public GoldenPreset {};

void check(const Case& c) {
  cstsim::testing_util::TempDir tmp;
  const fs::path run = tmp.path / "run";
  // From the source tree with relative paths: the paths summary.json records do not
  // depend on where the tree is checked out.
  // --scalesim-reports all: the SCALE-Sim presets' goldens hold the DRAM words its memory replay counts.
  const auto r = cstsim::testing_util::run_cli(
      "run -q --scalesim-reports all --arch " + c.arch + " --workload " + c.workload + " " + c.options + " --out " +
          run.string(), tmp.path,
      "cd " + cstsim::testing_util::shell_word(kSource.string()) + " &&");
  ASSERT_EQ(r.status, 0) << r.err;
  const json got = golden_of(run);
  const fs::path file = kGolden / (c.name + ".json");
  if (std::getenv("CSTSIM_REGENERATE_GOLDEN")) {
    fs::create_directories(kGolden);
    std::ofstream(file, std::ios::binary) << got.dump(1) << "\n";
    GTEST_SKIP() << "wrote " << file;
  }
  ASSERT_TRUE(fs::exists(file)) << file << " is missing (CSTSIM_REGENERATE_GOLDEN=1 writes it)";
  const json want = json::parse(cstsim::testing_util::slurp(file));
  std::vector<std::string> diff;
  differences(want, got, c.name, diff);
  std::string text;
  for (size_t i = 0; i < diff.size() && i < 20; ++i) text += "  " + diff[i] + "\n";
  EXPECT_TRUE(diff.empty()) << diff.size() << " difference(s) from " << file << ":\n" << text;
}

TEST_P(GoldenPreset, MatchesItsGolden) { check(GetParam()); }
TEST_P(GoldenPresetLong, MatchesItsGolden) { check(GetParam()); }

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string n = info.param.name;
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(All, GoldenPreset, ::testing::ValuesIn(cases(false)), case_name);
INSTANTIATE_TEST_SUITE_P(All, GoldenPresetLong, ::testing::ValuesIn(cases(true)), case_name);

}  // namespace
