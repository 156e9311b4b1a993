// Implementations registered by name (core/registry.h): every dataflow the YAML
// accepts has exactly one array implementation, the static library keeps them all
// linked, and an unknown name is refused with the known ones listed.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/registry.h"
#include "models/array/array_dataflow.h"
#include "models/hbm/scheduler/i_scheduler.h"
#include "models/memory/tile_source.h"
#include "models/noc/routing.h"
#include "sim/config/arch_schema.h"
#include "plan/dataflow.h"

namespace cstsim {
namespace {

TEST(Registry, EveryDataflowHasOneArrayImplementation) {
  array_dataflow(Dataflow::WS);  // links and registers them all
  std::vector<std::string> names = Registry<ArrayDataflow>::instance().names();
  std::vector<std::string> want = dataflow_names();
  std::sort(want.begin(), want.end());
  EXPECT_EQ(names, want);
  for (const std::string& name : dataflow_names()) {
    const auto d = dataflow_named(name);
    ASSERT_TRUE(d) << name;
    EXPECT_STREQ(to_string(*d), name.c_str());
  }
  EXPECT_FALSE(dataflow_named("rs"));
}

TEST(Registry, DataflowsKeepTheirOwnRules) {
  // SCALE-Sim's fold lengths: T+R+C-2 for OS, 2R+C+T-2 for WS and IS.
  const FoldPlan os = make_fold_plan(Dataflow::OS, 8, 4, 20, 10, 30);
  const FoldPlan ws = make_fold_plan(Dataflow::WS, 8, 4, 20, 10, 30);
  EXPECT_EQ(array_dataflow(Dataflow::OS).scalesim_fold_length(os), 30 + 8 + 4 - 2);
  EXPECT_EQ(array_dataflow(Dataflow::WS).scalesim_fold_length(ws), 2 * 8 + 4 + 20 - 2);
  // OS streams from the cycle it starts; WS first shifts its r weight rows in.
  EXPECT_EQ(array_dataflow(Dataflow::OS).stream_start(os, 0, 100, 0), 100);
  EXPECT_EQ(array_dataflow(Dataflow::WS).stream_start(ws, 0, 100, 0), 100 + ws.folds[0].rows_used);
}

TEST(Registry, UnknownNamesListTheKnownOnes) {
  try {
    Registry<ArrayDataflow>::instance().make("rs", "dataflow");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown dataflow 'rs' (known: is, os, ws)");
  }
  EXPECT_EQ(hbm::scheduler_names(), (std::vector<std::string>{"fcfs", "frfcfs"}));
  try {
    hbm::make_scheduler("lru");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown scheduler 'lru' (known: fcfs, frfcfs)");
  }
  EXPECT_EQ(noc::routing_names(), (std::vector<std::string>{"xy", "yx"}));
  EXPECT_STREQ(noc::make_routing("yx")->name(), "yx");
  try {
    noc::make_routing("west-first");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown routing 'west-first' (known: xy, yx)");
  }
}

// Every value `memory:` accepts has exactly one registered backend.
TEST(Registry, EveryMemoryModeHasOneBackend) {
  std::vector<std::string> accepted = arch_schema().find("memory")->choices;
  std::sort(accepted.begin(), accepted.end());
  EXPECT_EQ(memory_backend_names(), accepted);
  EXPECT_EQ(accepted, (std::vector<std::string>{"channel", "hbm", "hierarchy", "ideal"}));
  AcceleratorSpec ideal;
  EXPECT_EQ(make_tile_source(ideal, make_fold_plan(Dataflow::WS, 4, 4, 8, 8, 8), 0), nullptr);
  AcceleratorSpec hierarchy;
  hierarchy.memory = MemoryMode::Hierarchy;
  EXPECT_THROW(make_tile_source(hierarchy, make_fold_plan(Dataflow::WS, 4, 4, 8, 8, 8), 0), std::logic_error);
}

}  // namespace
}  // namespace cstsim
