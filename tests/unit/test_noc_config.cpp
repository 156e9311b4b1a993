// NoC config: the shipped preset equals the built-in defaults; every bad input is
// one InputError line naming the file, the 1-based line and the key.
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <unistd.h>

#include <gtest/gtest.h>

#include "models/noc/noc_config.h"
#include "models/noc/routing.h"
#include "core/input_error.h"
#include "tests/test_util.h"

namespace fs = std::filesystem;
using namespace cstsim;
using namespace cstsim::noc;

namespace {

const std::string kPreset = std::string(CSTSIM_SOURCE_DIR) + "/configs/noc/mesh-4x4.yaml";

struct TempYaml {
  std::string path;
  explicit TempYaml(const std::string& text) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path = (fs::temp_directory_path() /
            ("cstsim_noc_" + std::string(info->name()) + "_" + std::to_string(getpid()) + ".yaml"))
               .string();
    std::ofstream(path) << text;
  }
  ~TempYaml() { fs::remove(path); }
};

using cstsim::testing_util::error_of;
using cstsim::testing_util::is_error;

// A valid file with one line replaced (1-based), to aim errors at known lines.
std::string base_yaml() {
  return "name: t\n"                      // 1
         "mesh:\n"                        // 2
         "  cols: 4\n"                    // 3
         "  rows: 4\n"                    // 4
         "routing: xy\n"                  // 5
         "flit_bytes: 16\n"               // 6
         "router_latency: 1\n"            // 7
         "link_latency: 1\n"              // 8
         "credit_latency: 1\n"            // 9
         "buffer_depth: 4\n"              // 10
         "vnets: 2\n"                     // 11
         "vcs_per_vnet: 2\n"              // 12
         "clock_hz: 1e9\n"                // 13
         "edge_nodes:\n"                  // 14
         "  - {side: west, index: 1}\n"   // 15
         "  - {side: east, index: 2}\n";  // 16
}

std::string with_line(int line, const std::string& text) {
  std::string out, row;
  std::istringstream in(base_yaml());
  for (int n = 1; std::getline(in, row); ++n) out += (n == line ? text : row) + "\n";
  return out;
}

}  // namespace

TEST(NocConfig, PresetEqualsBuiltInDefaults) {
  const NocConfig c = load_noc_config(kPreset);
  const NocConfig d;
  EXPECT_EQ(c.name, "mesh-4x4");
  EXPECT_EQ(c.cols, d.cols);
  EXPECT_EQ(c.rows, d.rows);
  EXPECT_EQ(c.routing, d.routing);
  EXPECT_EQ(c.flit_bytes, d.flit_bytes);
  EXPECT_EQ(c.router_latency, d.router_latency);
  EXPECT_EQ(c.link_latency, d.link_latency);
  EXPECT_EQ(c.credit_latency, d.credit_latency);
  EXPECT_EQ(c.buffer_depth, d.buffer_depth);
  EXPECT_EQ(c.vnets, d.vnets);
  EXPECT_EQ(c.vcs_per_vnet, d.vcs_per_vnet);
  EXPECT_EQ(c.vc_reuse, d.vc_reuse);
  EXPECT_EQ(c.arbitration, d.arbitration);
  EXPECT_DOUBLE_EQ(c.clock_hz, d.clock_hz);
  ASSERT_EQ(c.edge_nodes.size(), 4u);  // four HBM controller ports on the west and east edges
  EXPECT_EQ(c.edge_nodes[0].side, Side::West);
  EXPECT_EQ(c.edge_nodes[3].index, 2);
  EXPECT_GE(c.buffer_depth, c.full_rate_depth());  // the preset streams at full rate
  const Mesh mesh(c.cols, c.rows, c.edge_nodes);
  EXPECT_EQ(mesh.nodes(), 20);
  EXPECT_EQ(mesh.edge_node(Side::East, 1), 18);
  EXPECT_EQ(mesh.endpoint(18).router, mesh.node(3, 1));
  EXPECT_EQ(mesh.endpoint(18).port, kEast);
}

TEST(NocConfig, BaseFileLoads) {
  TempYaml f(base_yaml());
  const NocConfig c = load_noc_config(f.path);
  EXPECT_EQ(c.name, "t");
  EXPECT_EQ(c.edge_nodes.size(), 2u);
  EXPECT_EQ(c.flits_for(0), 1);
  EXPECT_EQ(c.flits_for(16), 1);
  EXPECT_EQ(c.flits_for(17), 2);
}

TEST(NocConfig, ErrorsNameFileLineAndKey) {
  struct Case {
    int line;
    std::string text, key, words;
    int error_line;
  };
  const std::vector<Case> cases = {
      {6, "flit_width: 16", "flit_width", "unknown key", 6},
      {6, "arbitration: oldest", "arbitration", "round_robin, age", 6},
      {3, "  cols: four", "mesh.cols", "integer", 3},
      {3, "  columns: 4", "mesh.columns", "unknown key", 3},
      {7, "router_latency: 0", "router_latency", "1..64", 7},
      {8, "link_latency: -2", "link_latency", "1..64", 8},
      {10, "buffer_depth: 2000", "buffer_depth", "1..1024", 10},
      {5, "routing: west-first", "routing", "unknown routing", 5},
      {11, "vnets:", "vnets", "no value", 11},
      {12, "vcs_per_vnet: [1, 2]", "vcs_per_vnet", "single value", 12},
      {13, "clock_hz: fast", "clock_hz", "Hz", 13},
      {13, "clock_hz: 1.0e13", "clock_hz", "above 100 GHz", 13},
      {13, "clock_hz: 5e5", "clock_hz", "below 1 MHz", 13},
      {15, "  - {side: up, index: 1}", "edge_nodes[0].side", "north, east, south, west", 15},
      {15, "  - {side: west, index: 4}", "edge_nodes[0].index", "0..3", 15},
      {16, "  - {side: west, index: 1}", "edge_nodes[1]", "second edge node", 16},
      {16, "  - {side: east}", "edge_nodes[1]", "side and index", 16},
      {16, "  - {side: east, index: 1, width: 2}", "edge_nodes[1].width", "unknown key", 16},
      {1, "name: a\nname: b", "name", "duplicate", 2},
  };
  for (const Case& k : cases) {
    TempYaml f(with_line(k.line, k.text));
    EXPECT_TRUE(is_error(error_of([&] { load_noc_config(f.path); }), f.path, k.error_line, k.key, k.words))
        << "case: " << k.text;
  }
}

TEST(NocConfig, GroupsMustBeMapsAndLists) {
  TempYaml mesh("name: t\nmesh: [4, 4]\n");
  EXPECT_TRUE(is_error(error_of([&] { load_noc_config(mesh.path); }), mesh.path, 2, "mesh", "expected a map"));
  TempYaml edges("edge_nodes: west\n");
  EXPECT_TRUE(is_error(error_of([&] { load_noc_config(edges.path); }), edges.path, 1, "edge_nodes", "expected a list"));
}

TEST(NocConfig, SourcesMustNameKeys) {
  TempYaml ok(base_yaml() + "sources:\n  flit_bytes: \"Garnet\"\n");
  EXPECT_NO_THROW(load_noc_config(ok.path));
  TempYaml bad(base_yaml() + "sources:\n  flit_size: \"Garnet\"\n");
  EXPECT_TRUE(is_error(error_of([&] { load_noc_config(bad.path); }), bad.path, 18, "sources.flit_size"));
}

TEST(NocConfig, MalformedAndMissingFiles) {
  TempYaml f("mesh: {cols: 4\nrows: 2\n");
  const InputError e = error_of([&] { load_noc_config(f.path); });
  EXPECT_EQ(e.file(), f.path);
  EXPECT_GT(e.line(), 0);
  EXPECT_NE(std::string(e.what()).find("malformed YAML"), std::string::npos);
  EXPECT_TRUE(is_error(error_of([] { load_noc_config("/nonexistent/noc.yaml"); }), "/nonexistent/noc.yaml", 0, "",
                       "cannot open"));
  TempYaml list("- 1\n- 2\n");
  EXPECT_TRUE(is_error(error_of([&] { load_noc_config(list.path); }), list.path, 1, "", "map"));
}

TEST(NocConfig, OverridesAreCheckedLikeTheFile) {
  NocConfig c;
  apply_overrides(c, {{"mesh.cols", "8"}, {"buffer_depth", "6"}, {"routing", "yx"}});
  EXPECT_EQ(c.cols, 8);
  EXPECT_EQ(c.buffer_depth, 6);
  EXPECT_EQ(c.routing, "yx");
  NocConfig d;
  EXPECT_TRUE(is_error(error_of([&] { apply_overrides(d, {{"vnets", "0"}}); }), "--set", 0, "vnets", "1..8"));
  EXPECT_TRUE(is_error(error_of([&] { apply_overrides(d, {{"cols", "4"}}); }), "--set", 0, "cols", "unknown key"));
  EXPECT_TRUE(is_error(error_of([&] { apply_overrides(d, {{"flit_bytes", "x"}}); }), "--set", 0, "flit_bytes"));
}

TEST(NocConfig, ValidateRejectsCodeBuiltConfigs) {
  NocConfig c;
  c.vcs_per_vnet = 0;
  EXPECT_TRUE(is_error(error_of([&] { validate(c); }), "<noc config>", 0, "vcs_per_vnet"));
  NocConfig e;
  e.edge_nodes = {{Side::North, 9, 0}};
  EXPECT_TRUE(is_error(error_of([&] { validate(e); }), "<noc config>", 0, "edge_nodes[0].index"));
}

TEST(NocRouting, XyAndYxRoutesAndRegistry) {
  const Mesh mesh(4, 3);
  const XyRouting xy;
  const YxRouting yx;
  const int a = mesh.node(0, 0), b = mesh.node(3, 2);
  EXPECT_EQ(xy.route(mesh, a, b), kEast);
  EXPECT_EQ(yx.route(mesh, a, b), kNorth);
  EXPECT_EQ(xy.route(mesh, mesh.node(3, 0), b), kNorth);
  EXPECT_EQ(xy.route(mesh, b, a), kWest);
  EXPECT_EQ(yx.route(mesh, b, a), kSouth);
  EXPECT_EQ(std::string(make_routing("xy")->name()), "xy");
  EXPECT_EQ(std::string(make_routing("yx")->name()), "yx");
  try {
    make_routing("odd-even");
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("known: xy, yx"), std::string::npos);
  }
}

TEST(NocRouting, MeshTopologyAndEdgeNodes) {
  const Mesh mesh(3, 2, {{Side::South, 1}, {Side::West, 0}});
  EXPECT_EQ(mesh.routers(), 6);
  EXPECT_EQ(mesh.nodes(), 8);
  EXPECT_EQ(mesh.links().size(), size_t(2 * (2 * 2 + 3 * 1)));  // 2 * (rows*(cols-1) + cols*(rows-1))
  EXPECT_EQ(mesh.neighbour(mesh.node(0, 0), kWest), -1);
  EXPECT_EQ(mesh.neighbour(mesh.node(0, 0), kNorth), mesh.node(0, 1));
  EXPECT_EQ(mesh.edge_node(Side::South, 1), 6);
  EXPECT_EQ(mesh.edge_node(Side::West, 0), 7);
  EXPECT_EQ(mesh.edge_node(Side::East, 0), -1);
  EXPECT_EQ(mesh.endpoint_at(mesh.node(1, 0), kSouth), 6);
  EXPECT_EQ(mesh.endpoint(7).name, "west0");
  EXPECT_EQ(mesh.hops(6, 7), 2);  // (1,0) -> (0,0): one link, two routers
  EXPECT_EQ(mesh.hops(mesh.node(2, 1), 6), 3);
  for (const LinkInfo& l : mesh.links()) EXPECT_EQ(mesh.neighbour(l.to, l.to_port), l.from);
}
