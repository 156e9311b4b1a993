// config_hash covers the HBM and NoC files by content: an edited timing or VC count
// changes it, the same files under another path do not.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "sim/config/config_hash.h"
#include "tests/cli_util.h"
#include "tests/test_util.h"

namespace cstsim {
namespace {

namespace fs = std::filesystem;
using testing_util::slurp;
using testing_util::TempDir;

const std::string kSource = CSTSIM_SOURCE_DIR;

// Copies the preset's HBM and NoC files into `dir` and writes a hierarchy arch that uses them.
std::string hierarchy_in(const TempDir& t, const std::string& dir) {
  fs::create_directories(t.path / dir);
  t.write(dir + "/hbm.yaml", slurp(kSource + "/configs/memory/hbm2-2000.yaml"));
  t.write(dir + "/noc.yaml", slurp(kSource + "/configs/noc/npu-mesh-4x4.yaml"));
  return t.write(dir + "/arch.yaml",
                 "array: {rows: 16, cols: 16}\ndataflow: ws\nmemory: hierarchy\n"
                 "sram: {ifmap_kib: 32, filter_kib: 16, ofmap_kib: 48}\n"
                 "hbm: {spec: hbm.yaml}\nnoc: {spec: noc.yaml}\nscratchpad: {banks: 24, word_bytes: 32}\n");
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(ConfigHash, FollowsTheSubFilesContentsNotTheirPaths) {
  TempDir t;
  Workload w;
  Layer g;
  g.name = "g";
  g.M = g.N = g.K = 64;
  w.layers.push_back(g);
  const std::string a = hierarchy_in(t, "a"), b = hierarchy_in(t, "b");
  const std::string h = config_hash(load_arch(a), w, "timing", 1);
  EXPECT_EQ(config_hash(load_arch(b), w, "timing", 1), h) << "same contents elsewhere";
  EXPECT_EQ(config_text(load_arch(a), w, "timing", 1).find("spec="), std::string::npos);

  t.write("b/hbm.yaml", replaced(slurp(t.path / "b/hbm.yaml"), "tCL: 18ns", "tCL: 20ns"));
  const std::string hbm_edited = config_hash(load_arch(b), w, "timing", 1);
  EXPECT_NE(hbm_edited, h);
  t.write("b/noc.yaml", replaced(slurp(t.path / "b/noc.yaml"), "vcs_per_vnet: 2", "vcs_per_vnet: 4"));
  const std::string noc_edited = config_hash(load_arch(b), w, "timing", 1);
  EXPECT_NE(noc_edited, hbm_edited);
  EXPECT_NE(noc_edited, h);
}

}  // namespace
}  // namespace cstsim
