// trace::read_run_summary: the trace readers' view of summary.json is the document without its
// top-level "layers" (never built, whatever their size), everything else as written, and a file
// that is not JSON, in the layers or elsewhere, is still refused with its name.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "traces/manifest.h"
#include "tests/test_util.h"

namespace {

using cstsim::testing_util::TempDir;
using cstsim::testing_util::error_of;
using cstsim::testing_util::is_error;

TEST(RunSummary, DropsTheTopLevelLayersOnly) {
  TempDir dir;
  const std::string path = dir.write("summary.json", R"({
  "version": "1.2.3",
  "layers": [{"name": "a", "cycles": 10, "layers": [1, 2]}, {"name": "b", "nested": {"deep": [3]}}],
  "total": {"cycles": 30, "layers": 2},
  "trace": {"records": 7, "end_cycle": 29, "manifest_crc32": 12345},
  "modules": [{"name": "accelerator", "layers": "kept"}]
})");
  const nlohmann::json s = cstsim::trace::read_run_summary(path);
  EXPECT_FALSE(s.contains("layers"));
  EXPECT_EQ(s.at("version"), "1.2.3");
  EXPECT_EQ(s.at("total").at("layers"), 2);  // a key of that name deeper down stays
  EXPECT_EQ(s.at("trace").at("records"), 7);
  EXPECT_EQ(s.at("trace").at("manifest_crc32"), 12345);
  EXPECT_EQ(s.at("modules").at(0).at("layers"), "kept");
  EXPECT_EQ(s.size(), 4u);
}

TEST(RunSummary, RefusesMalformedJsonInsideTheDroppedLayers) {
  TempDir dir;
  const std::string path = dir.write("summary.json", R"({"layers": [{"name": "a", "cycles": }], "trace": {}})");
  const cstsim::InputError e = error_of([&] { cstsim::trace::read_run_summary(path); });
  EXPECT_TRUE(is_error(e, path, 0, ""));
  EXPECT_NE(std::string(e.what()).find("malformed JSON"), std::string::npos) << e.what();
}

TEST(RunSummary, RefusesAMissingFile) {
  TempDir dir;
  const std::string path = (dir.path / "summary.json").string();
  const cstsim::InputError e = error_of([&] { cstsim::trace::read_run_summary(path); });
  EXPECT_TRUE(is_error(e, path, 0, ""));
  EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos) << e.what();
}

}  // namespace
