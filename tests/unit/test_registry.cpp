// Implementations registered by name (core/registry.h): every dataflow the YAML
// accepts has exactly one array implementation, the static library keeps them all
// linked, and an unknown name is refused with the known ones listed.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/registry.h"
#include "models/array/array_dataflow.h"
#include "models/hbm/hbm_spec.h"
#include "models/hbm/refresh/i_refresh.h"
#include "models/hbm/scheduler/i_scheduler.h"
#include "models/memory/tile_source.h"
#include "models/noc/noc_config.h"
#include "models/noc/routing.h"
#include "models/noc/topology.h"
#include "sim/config/arch_schema.h"
#include "traces/export/exporter.h"
#include "plan/dataflow.h"

namespace cstsim {
namespace {

TEST(Registry, EveryDataflowHasOneArrayImplementation) {
  array_dataflow(Dataflow::WS);  // links and registers them all
  std::vector<std::string> names = Registry<ArrayDataflow>::instance().names();
  // Row stationary runs processing passes (models/array/rs_timing.h), not folds: it has no
  // fold implementation, and asking for one is a bug.
  std::vector<std::string> want;
  for (const std::string& name : dataflow_names())
    if (name != "rs") want.push_back(name);
  std::sort(want.begin(), want.end());
  EXPECT_EQ(names, want);
  EXPECT_THROW(array_dataflow(Dataflow::RS), std::logic_error);
  for (const std::string& name : dataflow_names()) {
    const auto d = dataflow_named(name);
    ASSERT_TRUE(d) << name;
    EXPECT_STREQ(to_string(*d), name.c_str());
  }
  EXPECT_FALSE(dataflow_named("xs"));
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

// The refresh policies are implementations registered by name; the HBM file's schema offers
// exactly them, and each carries its own spec rules and schedule.
TEST(Registry, EveryRefreshPolicyIsRegisteredWithItsOwnRules) {
  EXPECT_EQ(hbm::refresh_policy_names(), (std::vector<std::string>{"all_bank", "none", "per_bank"}));
  EXPECT_EQ(hbm::hbm_schema().find("controller.refresh")->choices, hbm::refresh_policy_names());
  try {
    hbm::make_refresh_policy("sometimes");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown refresh policy 'sometimes' (known: all_bank, none, per_bank)");
  }
  const hbm::HbmSpec s = hbm::load_hbm_spec(hbm::preset_dir() + "/hbm3-6400.yaml");
  const hbm::Cycle tREFI = s.t("tREFI");
  const int banks = s.org.banks_per_pc();
  // Steady-state cost: tRFC / tREFI (all-bank), tRFCpb / tREFI (per-bank), 0.
  EXPECT_DOUBLE_EQ(hbm::refresh_policy("all_bank").expected_share(s), double(s.t("tRFC")) / double(tREFI));
  EXPECT_DOUBLE_EQ(hbm::refresh_policy("per_bank").expected_share(s), double(s.t("tRFCpb")) / double(tREFI));
  EXPECT_EQ(hbm::refresh_policy("none").expected_share(s), 0.0);
  EXPECT_EQ(hbm::refresh_policy("all_bank").max_owed(), 1);
  EXPECT_EQ(hbm::refresh_policy("per_bank").max_owed(), 2);
  EXPECT_EQ(hbm::refresh_policy("none").max_owed(), 0);
  // Schedules: all-bank first due at tREFI; per-bank at tREFI, then every tREFI / banks.
  auto all = hbm::make_refresh_policy("all_bank");
  all->configure(s);
  EXPECT_EQ(all->next_due(), tREFI);
  all->start_at(tREFI + 1);  // a pass joining the run after the first REF was due owes the second
  EXPECT_EQ(all->next_due(), 2 * tREFI);
  auto pb = hbm::make_refresh_policy("per_bank");
  pb->configure(s);
  EXPECT_EQ(pb->next_due(), tREFI);
  pb->tick(tREFI);
  EXPECT_EQ(pb->next_due(), tREFI + tREFI / banks);
  // Owed, it picks an idle bank of the round and withholds it; a REFpb frees it again.
  const hbm::PcBanks closed(s.org.bank_groups, s.org.banks_per_group);
  const std::vector<int> queued(size_t(banks), 0), hits(size_t(banks), 0);
  const std::vector<hbm::Cycle> unused(size_t(banks), -1);
  const hbm::PcView view{closed, queued, unused, hits, int(s.org.columns)};
  const std::optional<hbm::RefreshStep> step = pb->next_step(view);
  ASSERT_TRUE(step);
  EXPECT_EQ(step->cmd, hbm::Cmd::REFPB);
  EXPECT_EQ(step->bank, 0);
  EXPECT_EQ(pb->withheld_bank(), 0);
  EXPECT_FALSE(pb->holds_pc());
  pb->issued(hbm::Cmd::REFPB, 0);
  EXPECT_EQ(pb->withheld_bank(), -1);
  EXPECT_FALSE(pb->next_step(view));
  auto none = hbm::make_refresh_policy("none");
  none->configure(s);
  EXPECT_EQ(none->next_due(), hbm::kNever);
}

// NoC topologies are registered implementations too; the NoC file's schema offers exactly them,
// the network is built by the one the config names, and an unknown one is refused.
TEST(Registry, NocTopologiesBuildTheRouterGraph) {
  EXPECT_EQ(noc::topology_names(), (std::vector<std::string>{"mesh"}));
  EXPECT_EQ(noc::noc_schema().find("topology")->choices, noc::topology_names());
  noc::NocConfig c;
  c.cols = 3;
  c.rows = 2;
  const noc::Mesh m = noc::build_topology(c);
  EXPECT_EQ(m.routers(), 6);
  EXPECT_EQ(m.links().size(), 2u * (2 * 2 + 3 * 1));  // both ways: 2 x-links per row, 3 y-links
  c.topology = "torus";
  try {
    noc::validate(c);
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_TRUE(std::string(e.what()).find("topology: unknown topology 'torus' (known: mesh)") != std::string::npos)
        << e.what();
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

// Every `cstsim export` format is a registered row, each its own file name, each recognising an
// export of its own kind only (so one format never replaces another's file without --force).
TEST(Registry, EveryExportFormatIsARowOfItsOwn) {
  EXPECT_EQ(trace::exporter_names(), (std::vector<std::string>{"csv", "perfetto", "vcd"}));
  std::vector<std::string> files;
  for (const std::string& name : trace::exporter_names()) {
    const trace::IExporter& e = trace::exporter(name);
    EXPECT_FALSE(e.help().empty()) << name;
    EXPECT_EQ(e.forms().empty(), e.forms_help().empty()) << name;
    for (const std::string& form : e.forms().empty() ? std::vector<std::string>{""} : e.forms())
      files.push_back(e.default_file(form));
    EXPECT_FALSE(e.recognises("")) << name;
  }
  EXPECT_EQ(files, (std::vector<std::string>{"rt.csv", "perfetto.json", "perfetto.pftrace", "rt.vcd"}));
  EXPECT_TRUE(trace::exporter("csv").recognises("cycle,time_s,resource,name,value\n0,0,1,a,2\n"));
  EXPECT_FALSE(trace::exporter("perfetto").recognises("cycle,time_s,resource,name,value\n"));
  EXPECT_FALSE(trace::exporter("vcd").recognises("cycle,time_s,resource,name,value\n"));
  // The VCD has no $date (reproducible exports): it begins with its $version.
  EXPECT_TRUE(trace::exporter("vcd").recognises("$version\n  cstsim 0.1.0 export vcd\n$end\n"));
  EXPECT_FALSE(trace::exporter("csv").recognises("$version\n  cstsim 0.1.0 export vcd\n$end\n"));
  EXPECT_THROW(trace::exporter("pdf"), std::invalid_argument);
}

}  // namespace
}  // namespace cstsim
