// io::JsonArraySpool: a document written with its array spooled to disk is byte for byte the
// document dumped whole, at any depth, and the spool leaves no file behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/json_spool.h"
#include "core/out_file.h"
#include "tests/test_util.h"

namespace {

using nlohmann::ordered_json;
namespace fs = std::filesystem;

std::string spooled_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ordered_json spool_element(int i) {
  return {{"name", "layer " + std::to_string(i) + " \"quoted\"\nnewline"},
          {"cycles", i * 7},
          {"nested", {{"list", {1, 2, {{"deep", i}}}}, {"empty", ordered_json::object()}, {"none", nullptr}}},
          {"value", i / 3.0}};
}

// Spools `n` elements under doc.at(path...) and compares with dump(2) of the whole tree.
void expect_same_as_whole(int n, bool nested) {
  cstsim::testing_util::TempDir dir;
  ordered_json whole = {{"version", "x"}, {"total", {{"cycles", 12}}}};
  ordered_json doc = whole;
  cstsim::io::JsonArraySpool spool(dir.path);
  ordered_json array = ordered_json::array();
  for (int i = 0; i < n; ++i) {
    array.push_back(spool_element(i));
    spool.push(spool_element(i));
  }
  if (nested) {
    whole["chips"]["split"]["layers"] = array;
    doc["chips"]["split"]["layers"] = cstsim::io::JsonArraySpool::placeholder();
  } else {
    whole["layers"] = array;
    doc["layers"] = cstsim::io::JsonArraySpool::placeholder();
  }
  whole["trace"] = {{"records", 3}};
  doc["trace"] = {{"records", 3}};
  EXPECT_EQ(spool.size(), n);
  spool.write_document(dir.path / "out.json", doc);
  EXPECT_EQ(spooled_text(dir.path / "out.json"), whole.dump(2) + "\n") << n << (nested ? " nested" : "");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()), 1);  // out.json only
}

TEST(JsonSpool, DocumentIsByteForByteTheWholeDump) {
  for (bool nested : {false, true})
    for (int n : {0, 1, 2, 5000}) expect_same_as_whole(n, nested);
}

TEST(JsonSpool, ExactlyOnePlaceholder) {
  cstsim::testing_util::TempDir dir;
  cstsim::io::JsonArraySpool spool(dir.path);
  spool.push(spool_element(1));
  EXPECT_THROW(spool.write_document(dir.path / "a.json", ordered_json{{"layers", 1}}), std::logic_error);
  const ordered_json twice = {{"a", cstsim::io::JsonArraySpool::placeholder()}, {"b", cstsim::io::JsonArraySpool::placeholder()}};
  EXPECT_THROW(spool.write_document(dir.path / "b.json", twice), std::logic_error);
  EXPECT_TRUE(fs::is_empty(dir.path));  // nothing written, no temporary left
}

TEST(JsonSpool, UnwritableDirectoryIsAnOutputError) {
  EXPECT_THROW(cstsim::io::JsonArraySpool(fs::path("/nonexistent-cstsim-dir")), cstsim::io::OutputError);
}

}  // namespace
