// The post-processor on hand-made traces: exact integrals, the shape of a run
// (Θ_CST) versus its volume (V_CST), energy, V_CST* and bad inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "core/input_error.h"
#include "traces/post/energy_table.h"
#include "traces/post/integrate.h"
#include "traces/post/post.h"
#include "traces/reader.h"
#include "traces/sink.h"
#include "tests/trace_util.h"

using namespace cstsim;
using namespace cstsim::trace;
namespace fs = std::filesystem;

namespace {

class Post : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("cstsim-post-" + std::to_string(::getpid()) + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A run directory as `cstsim run` leaves it, around a trace the test writes.
  fs::path run_dir(const std::string& name, double clock_hz = 1e9, int rows = 4, int cols = 4, int clusters = 1) {
    const fs::path d = dir_ / name;
    fs::create_directories(d);
    nlohmann::json s = {{"version", "test"}, {"config_hash", "0"}, {"mode", "timing"},
                        {"arch", {{"rows", rows}, {"cols", cols}, {"clock_hz", clock_hz}, {"operand_bits", 8},
                                  {"accumulator_bits", 32}, {"dataflow", "ws"}, {"clusters", clusters}}}};
    std::ofstream(d / "summary.json") << s.dump();
    std::ofstream(d / "energy.yaml") << "name: t\ntemperature_K: 300\nactions:\n"
                                        "  mac.int8: {pJ: 1.0, per: MAC, source: test}\n"
                                        "  sram.read: {pJ: 2.0, per: byte, source: test}\n"
                                        "static_power:\n  chip: {W: 0.5, source: test}\n";
    return d;
  }
  fs::path dir_;
};

double v(const nlohmann::json& q) { return q.at("value").get<double>(); }

TEST_F(Post, IntegralsAreExactSumsOfValueTimesDuration) {
  const fs::path run = run_dir("exact");
  {
    TraceSink sink({run / "trace", 1e9, 4, 64, {}});
    const ResourceId pe = sink.declare({0, "a.pe", ResourceClass::Compute, "PE", 16, "a", ""});
    const ResourceId mem = sink.declare({0, "a.mem", ResourceClass::Memory, "byte", 1000, "a", "sram"});
    sink.begin_layer(0, "L0", 0);
    sink.set(2, pe, 5);    // 5 PEs over [2, 7)
    sink.add(7, pe, 3);    // 8 PEs over [7, 10)
    sink.set(10, pe, 0);
    sink.add(0, mem, 100);   // 100 B over [0, 12)
    sink.add(5, mem, 100);   // two overlapping announcements merge: 200 B over [5, 12)
    sink.begin_layer(1, "L1", 12);
    sink.set(12, mem, 0);
    sink.set(15, pe, 16);  // 16 PEs over [15, 20)
    sink.advance(20);
    sink.finish(20);
    cstsim::testing_util::tie_summary(run, sink);
  }
  TraceReader reader(run / "trace");
  EXPECT_EQ(reader.header().end_cycle, 20u);
  const post::Integrals in = post::integrate(reader);
  EXPECT_EQ(double(in.total.resources[0].integral), 5 * 5 + 8 * 3 + 16 * 5);
  EXPECT_EQ(double(in.total.resources[1].integral), 100 * 5 + 200 * 7);
  EXPECT_EQ(in.total.resources[0].peak, 16);
  EXPECT_EQ(in.total.resources[1].peak, 200);
  EXPECT_EQ(double(in.layers[0].resources[0].integral), 5 * 5 + 8 * 3);
  EXPECT_EQ(double(in.layers[1].resources[0].integral), 16 * 5);
  EXPECT_EQ(in.layers[1].resources[1].peak, 0);
  EXPECT_EQ(in.total.resources[0].busy_cycles, 8 + 5);
  EXPECT_EQ(in.total.peak_memory_by_level.at("sram"), 200);
}

TEST_F(Post, SinkWritesOnlyChangesInOrder) {
  const fs::path run = run_dir("changes");
  {
    TraceSink sink({run / "trace", 1e9, 4, 2, {}});  // tiny buffer: several flushes
    const ResourceId a = sink.declare({0, "a", ResourceClass::Compute, "PE", 9, "m", ""});
    const ResourceId b = sink.declare({0, "b", ResourceClass::Network, "link", 9, "m", ""});
    sink.begin_layer(0, "L", 0);
    sink.set(3, b, 2);
    sink.set(1, a, 4);
    sink.set(1, a, 4);   // repeated value: no record
    sink.add(4, a, 1);
    sink.add(4, a, -1);  // net zero within one cycle: no record
    sink.set(6, a, 0);
    sink.finish(8);
    cstsim::testing_util::tie_summary(run, sink);
  }
  TraceReader reader(run / "trace");
  std::vector<Record> got;
  Record r;
  while (reader.next(r)) got.push_back(r);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].cycle, 1u);
  EXPECT_EQ(got[0].resource, 0u);
  EXPECT_EQ(got[1].cycle, 3u);
  EXPECT_EQ(got[2].cycle, 6u);
  EXPECT_EQ(got[2].value, 0);
}

// Changes announced far ahead and near, out of order, across many advances: the sink
// applies them as one stable sort by cycle of everything announced would (announcement
// order within a cycle: a set and an add of one cycle do not commute).
TEST_F(Post, SinkAppliesChangesInCycleThenAnnouncementOrder) {
  const fs::path run = run_dir("order");
  struct Announced {
    int64_t cycle;
    uint32_t id;
    int64_t value;
    bool delta;
  };
  std::vector<Announced> all;
  std::mt19937_64 rng(3);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int64_t end = 0;
  {
    TraceSink sink({run / "trace", 1e9, 16, 64, {}});
    std::vector<ResourceId> ids;
    for (int k = 0; k < 3; ++k)
      ids.push_back(sink.declare({0, "r" + std::to_string(k), ResourceClass::Memory, "byte", int64_t(1) << 40, "m", ""}));
    sink.begin_layer(0, "L", 0);
    for (int64_t now = 0; now < 4000; now += pick(1, 40)) {
      // Mostly near changes, now and then a burst far ahead (a memory pass announced at once).
      const int n = pick(0, 9) == 0 ? int(pick(50, 400)) : int(pick(0, 6));
      const int64_t reach = n > 50 ? 3000 : 60;
      for (int i = 0; i < n; ++i) {
        const Announced c{now + pick(0, reach), uint32_t(pick(0, 2)), pick(0, 1000), pick(0, 1) == 1};
        all.push_back(c);
        end = std::max(end, c.cycle + 1);
        if (c.delta)
          sink.add(c.cycle, ids[c.id], c.value);
        else
          sink.set(c.cycle, ids[c.id], c.value);
      }
      sink.advance(now);
    }
    sink.finish(end);
    cstsim::testing_util::tie_summary(run, sink);
  }
  // The reference: one stable sort, then each cycle's changes resource by resource.
  std::stable_sort(all.begin(), all.end(), [](const Announced& a, const Announced& b) { return a.cycle < b.cycle; });
  std::vector<Record> expected;
  int64_t value[3] = {0, 0, 0};
  for (size_t i = 0; i < all.size();) {
    const int64_t cycle = all[i].cycle;
    int64_t next[3] = {value[0], value[1], value[2]};
    for (; i < all.size() && all[i].cycle == cycle; ++i)
      next[all[i].id] = all[i].delta ? next[all[i].id] + all[i].value : all[i].value;
    for (uint32_t k = 0; k < 3; ++k)
      if (next[k] != value[k]) {
        expected.push_back({uint64_t(cycle), k, 0, next[k]});
        value[k] = next[k];
      }
  }
  TraceReader reader(run / "trace");
  std::vector<Record> got;
  Record r;
  while (reader.next(r)) got.push_back(r);
  ASSERT_GT(all.size(), 2000u);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].cycle, expected[i].cycle) << i;
    EXPECT_EQ(got[i].resource, expected[i].resource) << i;
    ASSERT_EQ(got[i].value, expected[i].value) << i;
  }
}

// A byte counter kept in bits (a 4-bit word per link-cycle): each window writes the whole bytes
// reached, the rest carried to the next, so the total is exact; a bytes counter of the same name
// is a model bug.
TEST_F(Post, SinkCountsBelowAByteInBits) {
  const fs::path run = run_dir("bits");
  {
    TraceSink sink({run / "trace", 1e9, 4, 64, {}});  // windows of 4 cycles
    const ResourceId link = sink.declare({0, "l", ResourceClass::Network, "link", 4, "m", "", "a>b", "link_cycle:0.5"});
    const ActionId bytes = sink.declare_action_in_bits("link.bytes");
    EXPECT_EQ(sink.declare_action_in_bits("link.bytes"), bytes);
    EXPECT_THROW(sink.declare_action("link.bytes", "byte"), std::logic_error);
    sink.bind(bytes, link, 4);
    sink.begin_layer(0, "L", 0);
    sink.set(0, link, 1);  // one link busy for cycles 0..2 (12 bits), and cycle 5 (4 bits)
    sink.set(3, link, 0);
    sink.set(5, link, 1);
    sink.set(6, link, 0);
    sink.finish(8);
    cstsim::testing_util::tie_summary(run, sink);
  }
  const std::vector<ActionRow> rows = TraceReader(run / "trace").actions();
  std::vector<int64_t> got;
  for (const ActionRow& r : rows) got.push_back(r.count);
  // Windows [0,4) and [4,8): 12 bits -> 1 byte, 4 carried; 4 + 4 bits -> 1 byte: 16 bits in all.
  EXPECT_EQ(got, (std::vector<int64_t>{1, 1}));
}

TEST_F(Post, SinkRefusesOverCapacityAndLateChanges) {
  const fs::path run = run_dir("bad");
  TraceSink sink({run / "trace", 1e9, 4, 64, {}});
  const ResourceId a = sink.declare({0, "a", ResourceClass::Compute, "PE", 4, "m", ""});
  sink.advance(3);
  EXPECT_THROW(sink.set(2, a, 1), std::logic_error);  // behind simulated time
  sink.set(5, a, 5);
  EXPECT_THROW(sink.advance(6), std::logic_error);  // 5 > capacity 4
}

// Seed 000 §35-37: one device busy 80 cycles and eight devices busy 10 cycles
// do the same work: equal V_C, different shape.
TEST_F(Post, SameVolumeDifferentShape) {
  auto make = [&](const std::string& name, int devices, int64_t cycles) {
    const fs::path run = run_dir(name, 1e9, 4, 4, devices);
    TraceSink sink({run / "trace", 1e9, 8, 64, {}});
    std::vector<ResourceId> dev, pe;
    for (int d = 0; d < devices; ++d) {
      dev.push_back(sink.declare({0, "u" + std::to_string(d) + ".busy", ResourceClass::Compute, "device", 1,
                                  "u" + std::to_string(d), ""}));
      pe.push_back(sink.declare({0, "u" + std::to_string(d) + ".pes", ResourceClass::Compute, "PE", 16,
                                 "u" + std::to_string(d), ""}));
    }
    const ActionId mac = sink.declare_action("mac.int8.executed", "MAC");
    for (int d = 0; d < devices; ++d) sink.bind(mac, pe[size_t(d)], 1);
    sink.begin_layer(0, "work", 0);
    for (int d = 0; d < devices; ++d) {
      sink.set(0, dev[size_t(d)], 1);
      sink.set(0, pe[size_t(d)], 16);
      sink.set(cycles, dev[size_t(d)], 0);
      sink.set(cycles, pe[size_t(d)], 0);
    }
    sink.finish(cycles);
    cstsim::testing_util::tie_summary(run, sink);
    post::PostOptions o;
    o.run_dir = run;
    return post::post_process(o).report["total"];
  };
  const auto one = make("one", 1, 80);
  const auto eight = make("eight", 8, 10);
  EXPECT_DOUBLE_EQ(v(one["V_CST"]["V_C"]["device_s"]), 80e-9);
  EXPECT_DOUBLE_EQ(v(eight["V_CST"]["V_C"]["device_s"]), 80e-9);
  EXPECT_DOUBLE_EQ(v(one["V_CST"]["V_C"]["PE_s"]), v(eight["V_CST"]["V_C"]["PE_s"]));
  EXPECT_DOUBLE_EQ(v(one["C_P"]["O"]["ops"]), v(eight["C_P"]["O"]["ops"]));
  EXPECT_DOUBLE_EQ(v(one["Theta_CST"]["T_wall"]), 80e-9);
  EXPECT_DOUBLE_EQ(v(eight["Theta_CST"]["T_wall"]), 10e-9);
  EXPECT_DOUBLE_EQ(v(one["Theta_CST"]["P_parallel"]["devices"]), 1.0);
  EXPECT_DOUBLE_EQ(v(eight["Theta_CST"]["P_parallel"]["devices"]), 8.0);
  EXPECT_DOUBLE_EQ(v(one["Theta_CST"]["D_peak"]), 1.0);
  EXPECT_DOUBLE_EQ(v(eight["Theta_CST"]["D_peak"]), 8.0);
  EXPECT_DOUBLE_EQ(v(one["Theta_CST"]["T_serial"]), 80e-9);
  EXPECT_DOUBLE_EQ(v(eight["Theta_CST"]["T_serial"]), 0.0);
  // Static power over a shorter run: less base energy for the same marginal energy.
  EXPECT_DOUBLE_EQ(v(one["energy"]["E_marg"]), v(eight["energy"]["E_marg"]));
  EXPECT_GT(v(one["energy"]["E_base"]), v(eight["energy"]["E_base"]));
}

TEST_F(Post, EnergyVectorAndScalarOnlyWithNormalization) {
  const fs::path run = run_dir("energy", 2e9);
  {
    TraceSink sink({run / "trace", 2e9, 10, 64, {}});
    const ResourceId pe = sink.declare({0, "a.pe", ResourceClass::Compute, "PE", 16, "a", ""});
    const ResourceId mem = sink.declare({0, "a.mem", ResourceClass::Memory, "byte", 64, "a", "sram"});
    const ResourceId link = sink.declare({0, "a.link.in_rows", ResourceClass::Network, "link", 4, "a", ""});
    sink.bind(sink.declare_action("mac.int8.executed", "MAC"), pe, 1);
    sink.bind(sink.declare_action("mac.int8.nominal", "MAC"), pe, 1);
    sink.bind(sink.declare_action("sram.read.ifmap", "byte"), link, 1);
    sink.begin_layer(0, "L", 0);
    sink.set(0, pe, 10);
    sink.set(0, mem, 32);
    sink.set(0, link, 4);
    sink.finish(100);
    cstsim::testing_util::tie_summary(run, sink);
  }
  post::PostOptions o;
  o.run_dir = run;
  const auto rep = post::post_process(o).report;
  const auto& t = rep["total"];
  // 1000 MACs x 1 pJ + 400 bytes x 2 pJ; static 0.5 W x 50 ns.
  EXPECT_NEAR(v(t["energy"]["E_marg"]), 1000e-12 + 800e-12, 1e-24);
  EXPECT_NEAR(v(t["energy"]["E_base"]), 0.5 * 50e-9, 1e-20);
  EXPECT_NEAR(v(t["energy"]["E_gross"]), v(t["energy"]["E_marg"]) + v(t["energy"]["E_base"]), 1e-24);
  EXPECT_EQ(t["energy"]["E_marg"]["unit"], "J");
  EXPECT_NEAR(v(t["V_CST"]["V_M"]["sram"]), 32 * 50e-9, 1e-18);
  EXPECT_EQ(t["V_CST"]["V_M"]["sram"]["unit"], "byte·s");
  EXPECT_NEAR(v(t["C_P"]["O"]["by_precision"]["int8"]["nominal"]), 1000, 0);
  EXPECT_EQ(rep["boundary"], "accelerator-only");
  EXPECT_EQ(rep["grade"], "simulation");
  EXPECT_FALSE(rep.contains("V_CST_star"));
  std::ofstream(dir_ / "norm.yaml") << "boundary: accelerator-only\n"
                                      "reference:\n  C_ref: {value: 16, unit: PE}\n  M_ref: {value: 64, unit: byte}\n"
                                      "  N_ref: {value: 4, unit: link}\n  S_ref: {value: 1, unit: byte}\n"
                                      "weights: {w_C: 1, w_M: 2, w_N: 0.5, w_S: 0}\n";
  o.normalization = (dir_ / "norm.yaml").string();
  const auto star = post::post_process(o).report["V_CST_star"];
  // T = 50 ns: 1*(10/16) + 2*(32/64) + 0.5*(4/4) = 2.125, times 50 ns.
  EXPECT_NEAR(star["value"].get<double>(), 2.125 * 50e-9, 1e-20);
  EXPECT_EQ(star["boundary"], "accelerator-only");
  EXPECT_EQ(star["weights"]["w_M"], 2);
  EXPECT_EQ(star["reference"]["C_ref"]["unit"], "PE");
}

TEST_F(Post, BadNormalizationAndEnergyTableAreInputErrors) {
  const fs::path run = run_dir("errors");
  {
    TraceSink sink({run / "trace", 1e9, 4, 64, {}});
    const ResourceId pe = sink.declare({0, "a.pe", ResourceClass::Compute, "PE", 16, "a", ""});
    sink.bind(sink.declare_action("reg.read", "byte"), pe, 1);
    sink.begin_layer(0, "L", 0);
    sink.set(0, pe, 1);
    sink.finish(4);
    cstsim::testing_util::tie_summary(run, sink);
  }
  post::PostOptions o;
  o.run_dir = run;
  try {
    post::post_process(o);  // the table has no row for reg.read
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "reg.read");
  }
  std::ofstream(dir_ / "n.yaml") << "boundary: accelerator-only\nreference:\n  C_ref: {value: 16, unit: byte}\n";
  o.normalization = (dir_ / "n.yaml").string();
  std::ofstream(run / "energy.yaml", std::ios::app) << "  reg.read: {pJ: 1, source: x}\n";
  std::ofstream(run / "energy.yaml") << "name: t\nactions:\n  reg.read: {pJ: 1, source: x}\n";
  try {
    post::post_process(o);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "reference.C_ref.unit");
    EXPECT_EQ(e.line(), 3);
  }
  o.normalization.clear();
  o.window = 6;  // not a multiple of the trace's 4-cycle window
  EXPECT_THROW(post::post_process(o), InputError);
}

}  // namespace

namespace {

// Size-dependent rows: SRAM access energy by bank size (log-log through the sizes around it,
// the end segment beyond), leakage per byte of SRAM and per PE, multiplied out for the
// accelerator as built; each resolved row says at which size.
// The run reports from its table in memory (as_written), `cstsim post` from the energy.yaml it
// wrote: the two must be the same table to the last bit, or the reports would differ.
TEST_F(Post, TheTableAsWrittenIsTheFileReadBack) {
  std::mt19937_64 rng(5);
  int tables = 0;
  for (const auto& e : fs::directory_iterator(fs::path(CSTSIM_SOURCE_DIR) / "configs" / "energy")) {
    if (e.path().extension() != ".yaml") continue;
    const post::EnergyTable raw = post::load_energy_table(e.path().string());
    for (int trial = 0; trial < 4; ++trial) {
      const post::Geometry g{double(1 + rng() % (8 << 20)), double(1024 + rng() % 300000), double(1 + rng() % 70000),
                             double(rng() % 200000)};
      const post::EnergyTable t = post::resolved(raw, g);
      const fs::path file = dir_ / "energy.yaml";
      std::ofstream(file) << post::to_yaml(t);
      const post::EnergyTable back = post::load_energy_table(file.string());
      const post::EnergyTable mem = post::as_written(t, file.string());
      ASSERT_EQ(to_yaml(mem), to_yaml(back));
      EXPECT_EQ(mem.path, back.path);
      EXPECT_EQ(mem.temperature_k, back.temperature_k);
      ASSERT_EQ(mem.actions.size(), back.actions.size());
      for (size_t i = 0; i < mem.actions.size(); ++i) {
        const post::ActionEnergy &m = mem.actions[i], &b = back.actions[i];
        EXPECT_EQ(m.action, b.action);
        EXPECT_EQ(m.pj, b.pj) << m.action;  // bit for bit, not near
        EXPECT_EQ(m.watts, b.watts) << m.action;
        EXPECT_EQ(m.per, b.per);
        EXPECT_EQ(m.source, b.source);
        EXPECT_EQ(m.pj_by_bank_bytes, b.pj_by_bank_bytes);
      }
      ASSERT_EQ(mem.static_power.size(), back.static_power.size());
      for (size_t i = 0; i < mem.static_power.size(); ++i) {
        const post::StaticPower &m = mem.static_power[i], &b = back.static_power[i];
        EXPECT_EQ(m.component, b.component);
        EXPECT_EQ(m.watts, b.watts) << m.component;
        EXPECT_EQ(m.watts_per_byte, b.watts_per_byte);
        EXPECT_EQ(m.watts_per_pe, b.watts_per_pe);
        EXPECT_EQ(m.watts_per_buffer_byte, b.watts_per_buffer_byte);
        EXPECT_EQ(m.source, b.source);
      }
      // Not trivially so: a resolved figure has more digits than the file keeps.
      bool rounded = false;
      for (size_t i = 0; i < t.static_power.size(); ++i) rounded |= t.static_power[i].watts != mem.static_power[i].watts;
      for (size_t i = 0; i < t.actions.size(); ++i) rounded |= t.actions[i].pj != mem.actions[i].pj;
      tables += rounded;
    }
  }
  EXPECT_GT(tables, 0);
}

TEST_F(Post, SizeDependentRowsResolveForTheGeometry) {
  std::ofstream(dir_ / "t.yaml") << "name: t\nactions:\n"
                                    "  sram.read: {pJ_by_bank_bytes: {8192: 1.25, 32768: 2.5, 1048576: 12.5}, per: byte, source: h}\n"
                                    "static_power:\n  sram: {W_per_byte: 2.0e-9, source: c}\n  array: {W_per_PE: 1.0e-6, source: a}\n"
                                    "  noc: {W_per_buffer_byte: 5.0e-7, source: n}\n  chip: {W: 0.25, source: x}\n";
  const post::EnergyTable t = post::load_energy_table((dir_ / "t.yaml").string());
  EXPECT_FALSE(t.resolved());
  auto at = [&](double bank) {
    post::Geometry g{6.5 * 1024 * 1024, bank, 16384, 147456};
    return post::resolved(t, g);
  };
  const post::EnergyTable r = at(131072);
  EXPECT_TRUE(r.resolved());
  EXPECT_NEAR(r.find("sram.read.ifmap")->pj, 2.5 * std::pow(5.0, std::log(4.0) / std::log(32.0)), 1e-12);  // 4.759
  EXPECT_NE(r.find("sram.read")->source.find("131072 B banks"), std::string::npos);
  EXPECT_DOUBLE_EQ(at(32768).find("sram.read")->pj, 2.5);
  EXPECT_NEAR(at(4096).find("sram.read")->pj, 1.25 / std::sqrt(2.0), 1e-12);  // below the table: the 8-32 KB slope (x2 per x4)
  EXPECT_GT(at(262144).find("sram.read")->pj, r.find("sram.read")->pj);  // bigger banks cost more per access
  for (const post::StaticPower& p : r.static_power) {
    if (p.component == "sram") EXPECT_DOUBLE_EQ(p.watts, 2.0e-9 * 6.5 * 1024 * 1024);
    if (p.component == "array") EXPECT_DOUBLE_EQ(p.watts, 1.0e-6 * 16384);
    if (p.component == "noc") EXPECT_DOUBLE_EQ(p.watts, 5.0e-7 * 147456);
    if (p.component == "chip") EXPECT_DOUBLE_EQ(p.watts, 0.25);
  }
  EXPECT_EQ(r.static_power.size(), 4u);
  // The resolved table is a plain one: it round-trips through the run directory's file.
  std::ofstream(dir_ / "r.yaml") << post::to_yaml(r);
  EXPECT_TRUE(post::load_energy_table((dir_ / "r.yaml").string()).resolved());

  auto error = [&](const std::string& row) {
    std::ofstream(dir_ / "bad.yaml") << "name: b\nactions:\n  sram.read: " << row << "\n";
    try {
      post::load_energy_table((dir_ / "bad.yaml").string());
    } catch (const InputError& e) {
      return e.key() + ": " + e.what();
    }
    return std::string("no error");
  };
  EXPECT_NE(error("{pJ: 1, pJ_by_bank_bytes: {1: 1, 2: 2}, source: s}").find("exactly one of"), std::string::npos);
  EXPECT_NE(error("{pJ_by_bank_bytes: {8192: 1}, source: s}").find("at least two"), std::string::npos);
  EXPECT_NE(error("{pJ_by_bank_bytes: {8192: 1, 4096: 2}, source: s}").find("must increase"), std::string::npos);
  std::ofstream(dir_ / "bad.yaml") << "name: b\nactions:\n  mac.int8: {pJ: 1, source: x}\nstatic_power:\n  noc: {W: 1, W_per_buffer_byte: 1.0e-7, source: s}\n";
  try {
    post::load_energy_table((dir_ / "bad.yaml").string());
    ADD_FAILURE() << "two power figures in one row accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "static_power.noc");
    EXPECT_NE(std::string(e.what()).find("W_per_buffer_byte"), std::string::npos) << e.what();
  }
  // A table with unresolved rows is no run's table: post refuses it.
  const fs::path run = run_dir("unresolved");
  std::ofstream(run / "energy.yaml") << "name: t\nactions:\n  mac.int8: {pJ: 1, source: x}\n"
                                        "static_power:\n  sram: {W_per_byte: 1.0e-9, source: c}\n";
  post::PostOptions o;
  o.run_dir = run;
  EXPECT_THROW(post::post_process(o), InputError);
}

}  // namespace
