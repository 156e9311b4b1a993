// `cstsim export` (traces/export/export_cli.h) on hand-made traces written with
// TraceSink: CSV rows, Perfetto JSON events, VCD accepted by GTKWave's vcd2fst
// and read back, one-line errors with exit status 2 and no partial output; and
// the Python plot scripts in traces/plot/ on a hand-made run directory.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/out_file.h"
#include "traces/export/export_cli.h"
#include "traces/export/exporter.h"
#include "traces/export/trace_input.h"
#include "traces/reader.h"
#include "perfetto_trace.pb.h"
#include "traces/sink.h"
#include "tests/trace_util.h"

namespace {
namespace fs = std::filesystem;
using cstsim::export_command;
using namespace cstsim::trace;

// A fresh directory per test, removed afterwards.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("cstsim-export-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// ------------------------------------------------------------ the hand-made trace

struct Spec {
  const char* name;
  ResourceClass cls;
  const char* unit;
  int64_t capacity;
  const char* owner;
  const char* level;
};
const std::vector<Spec> kResources = {
    {"array.active_pes", ResourceClass::Compute, "PE", 64, "top.array", ""},
    {"sram.ifmap.bytes", ResourceClass::Memory, "byte", 4096, "top.sram", "sram"},
    {"noc.busy_links", ResourceClass::Network, "link", 8, "top.noc", ""},
    {"io.dma_busy", ResourceClass::Storage, "device", 2, "top.io", ""},
};

struct Change {
  uint64_t cycle;
  uint32_t id;
  int64_t value;
};
// In file order: by cycle, then resource id.
const std::vector<Change> kChanges = {
    {0, 0, 16},  {5, 1, 1024},  {5, 2, 3},  {10, 0, 64}, {20, 3, 1},  {30, 3, 2},
    {40, 1, 2048}, {40, 2, 0}, {60, 0, 0},  {75, 0, 32}, {80, 3, 0},
};
constexpr int64_t kEnd = 100;
struct ExportLayer {
  int index;
  const char* name;
  int64_t start, end;  // end inclusive, as in layers.csv
};
const std::vector<ExportLayer> kExportLayers = {{0, "conv1", 0, 49}, {1, "fc2", 50, 99}};

int64_t value_at(uint32_t id, uint64_t cycle) {
  int64_t v = 0;
  for (const Change& c : kChanges)
    if (c.id == id && c.cycle <= cycle) v = c.value;
  return v;
}

// Writes <root>/run/trace with the resources, changes and layers above.
fs::path make_run(const fs::path& root, double clock_hz, bool folds = false) {
  const fs::path run = root / "run";
  TraceSink::Options o;
  o.dir = run / "trace";
  o.clock_hz = clock_hz;
  o.window = 16;
  TraceSink sink(o);
  for (const Spec& s : kResources) {
    Resource r;
    r.name = s.name;
    r.cls = s.cls;
    r.unit = s.unit;
    r.capacity = s.capacity;
    r.owner = s.owner;
    r.level = s.level;
    sink.declare(r);
  }
  const ActionId mac = sink.declare_action("mac.int8.nominal", "MAC");
  sink.bind(mac, 0, 1);
  for (const ExportLayer& l : kExportLayers) sink.begin_layer(l.index, l.name, l.start);
  for (const Change& c : kChanges) sink.set(int64_t(c.cycle), c.id, c.value);
  if (folds)  // fold slices on the array's track, booked as a run books them (slices.csv)
    for (const auto& [name, start, end] : {std::tuple{"conv1 fold 0", 0, 19}, std::tuple{"conv1 fold 1", 20, 49},
                                           std::tuple{"fc2 fold 0", 50, 99}})
      sink.slice("top.array.folds", name, start, end);
  sink.finish(kEnd);
  cstsim::testing_util::tie_summary(run, sink);
  EXPECT_EQ(sink.records_written(), kChanges.size());
  return run;
}

struct Captured {
  int status;
  std::string out, err;
};
// Runs export_command with std::cout / std::cerr captured.
Captured run_export(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  std::streambuf* old_out = std::cout.rdbuf(out.rdbuf());
  std::streambuf* old_err = std::cerr.rdbuf(err.rdbuf());
  int status = -1;
  try {
    status = export_command(args);
  } catch (...) {
    std::cout.rdbuf(old_out);
    std::cerr.rdbuf(old_err);
    throw;
  }
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  return {status, out.str(), err.str()};
}

// Asserts a one-line "error: export: ..." with status 2 naming `what`.
void expect_error(const Captured& r, const std::string& what) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err.rfind("error: export: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << "expected '" << what << "' in: " << r.err;
}

void expect_no_temp_files(const fs::path& dir) {
  if (!fs::exists(dir)) return;
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << "left behind: " << e.path();
}

// ------------------------------------------------------------ CSV

TEST(Export, CsvHasOneRowPerRecord) {
  for (const double hz : {1e9, 7e8}) {
    SCOPED_TRACE(hz);
    TempDir tmp;
    const fs::path run = make_run(tmp.path, hz);
    const Captured r = run_export({"csv", run.string()});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    const auto lines = lines_of(slurp(run / "trace" / "rt.csv"));
    ASSERT_EQ(lines.size(), kChanges.size() + 1);
    EXPECT_EQ(lines[0], "cycle,time_s,resource,name,value");
    for (size_t i = 0; i < kChanges.size(); ++i) {
      SCOPED_TRACE(lines[i + 1]);
      const auto f = split_csv(lines[i + 1]);
      ASSERT_EQ(f.size(), 5u);
      const Change& c = kChanges[i];
      EXPECT_EQ(std::stoull(f[0]), c.cycle);
      const double t = std::stod(f[1]);
      EXPECT_NEAR(t, double(c.cycle) / hz, 1e-14 * double(c.cycle) / hz);
      EXPECT_EQ(uint64_t(std::llround(t * hz)), c.cycle);  // the time gives the cycle back
      EXPECT_EQ(std::stoul(f[2]), c.id);
      EXPECT_EQ(f[3], kResources[c.id].name);
      EXPECT_EQ(std::stoll(f[4]), c.value);
    }
    expect_no_temp_files(run / "trace");
  }
}

TEST(Export, CsvOutOption) {
  TempDir tmp;
  const fs::path run = make_run(tmp.path, 1e9);
  const fs::path out = tmp.path / "events.csv";
  ASSERT_EQ(run_export({"csv", run.string(), "--out", out.string()}).status, 0);
  EXPECT_EQ(lines_of(slurp(out)).size(), kChanges.size() + 1);
  EXPECT_FALSE(fs::exists(run / "trace" / "rt.csv"));
  ASSERT_EQ(run_export({"csv", "--out=" + out.string(), run.string()}).status, 0);  // options before the dir too
}

// ------------------------------------------------------------ Perfetto

// --format proto: Perfetto's own trace format, read back with the same schema: a process track
// per owner with its resources' counter tracks, every record a counter value in time order, the
// layers as slices, timestamps in ns.
TEST(Export, PerfettoProtoTracksPerOwnerCountersAndSlices) {
  for (const double hz : {1e9, 7e8}) {
    SCOPED_TRACE(hz);
    TempDir tmp;
    const fs::path run = make_run(tmp.path, hz);
    const Captured r = run_export({"perfetto", run.string(), "--format", "proto"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("perfetto.pftrace (perfetto proto export"), std::string::npos) << r.out;
    cstsim::perfetto::Trace t;
    ASSERT_TRUE(t.ParseFromString(slurp(run / "trace" / "perfetto.pftrace")));
    const auto ns = [&](int64_t cycle) { return uint64_t(std::llround(double(cycle) * 1e9 / hz)); };
    std::map<uint64_t, std::string> processes;                    // uuid -> name
    std::map<uint64_t, std::pair<std::string, uint64_t>> counters;  // uuid -> (resource, parent)
    std::map<std::string, std::vector<std::pair<uint64_t, int64_t>>> values;
    std::vector<std::tuple<uint64_t, bool, std::string>> slices;
    uint64_t previous = 0;
    for (const auto& p : t.packet()) {
      EXPECT_EQ(p.trusted_packet_sequence_id(), 1u);
      if (p.has_track_descriptor()) {
        const auto& d = p.track_descriptor();
        if (d.has_process()) processes[d.uuid()] = d.process().process_name();
        if (d.has_counter()) counters[d.uuid()] = {d.name(), d.parent_uuid()};
        continue;
      }
      ASSERT_TRUE(p.has_track_event());
      const auto& e = p.track_event();
      if (e.type() == cstsim::perfetto::TrackEvent::TYPE_COUNTER) {
        EXPECT_GE(p.timestamp(), previous) << "counters in time order";
        previous = p.timestamp();
        ASSERT_TRUE(counters.count(e.track_uuid()));
        values[counters[e.track_uuid()].first].push_back({p.timestamp(), e.counter_value()});
      } else {
        slices.emplace_back(p.timestamp(), e.type() == cstsim::perfetto::TrackEvent::TYPE_SLICE_BEGIN, e.name());
      }
    }
    ASSERT_EQ(counters.size(), kResources.size());
    for (const Spec& s : kResources) {
      SCOPED_TRACE(s.name);
      const auto it = std::find_if(counters.begin(), counters.end(), [&](const auto& c) { return c.second.first == s.name; });
      ASSERT_NE(it, counters.end());
      EXPECT_EQ(processes.at(it->second.second), s.owner);  // under its owner's process
      const uint32_t id = uint32_t(&s - kResources.data());
      const auto& v = values[s.name];
      ASSERT_FALSE(v.empty());
      EXPECT_EQ(v.front().first, 0u);
      EXPECT_EQ(v.back().first, ns(kEnd));  // the last value's extent
      for (const auto& [when, value] : v) {
        int64_t cycle = 0;
        while (ns(cycle) < when) ++cycle;
        EXPECT_EQ(value, value_at(id, uint64_t(cycle))) << "at " << when << " ns";
      }
    }
    ASSERT_EQ(slices.size(), 2 * kExportLayers.size());
    EXPECT_EQ(slices[0], std::make_tuple(ns(0), true, std::string("conv1")));
    EXPECT_EQ(slices[1], std::make_tuple(ns(50), false, std::string()));
    EXPECT_EQ(slices[2], std::make_tuple(ns(50), true, std::string("fc2")));
    EXPECT_EQ(slices[3], std::make_tuple(ns(100), false, std::string()));
    // A small trace's default is the JSON form.
    ASSERT_EQ(run_export({"perfetto", run.string()}).status, 0);
    EXPECT_TRUE(fs::exists(run / "trace" / "perfetto.json"));
  }
}

// Every event packet in time order, the folds' slices merged with the counters and the layers (they
// used to follow the counters, starting again from 0).
TEST(Export, PerfettoProtoPacketsInTimeOrder) {
  TempDir tmp;
  const fs::path run = make_run(tmp.path, 1e9, true);
  const Captured r = run_export({"perfetto", run.string(), "--format", "proto"});
  ASSERT_EQ(r.status, 0) << r.err;
  cstsim::perfetto::Trace t;
  ASSERT_TRUE(t.ParseFromString(slurp(run / "trace" / "perfetto.pftrace")));
  uint64_t previous = 0;
  size_t events = 0, fold_slices = 0;
  bool descriptors_done = false;
  for (const auto& p : t.packet()) {
    if (p.has_track_descriptor()) {
      EXPECT_FALSE(descriptors_done) << "a track described after the first event";
      continue;
    }
    descriptors_done = true;
    ++events;
    EXPECT_GE(p.timestamp(), previous) << "packet " << events << " steps back in time";
    previous = p.timestamp();
    if (p.track_event().name().find(" fold ") != std::string::npos) ++fold_slices;
  }
  EXPECT_EQ(fold_slices, 3u);
  EXPECT_GT(events, kChanges.size());
}

TEST(Export, PerfettoCountersAndLayerSlices) {
  for (const double hz : {1e9, 7e8}) {
    SCOPED_TRACE(hz);
    TempDir tmp;
    const fs::path run = make_run(tmp.path, hz);
    const Captured r = run_export({"perfetto", run.string()});
    ASSERT_EQ(r.status, 0) << r.err;
    const fs::path file = run / "trace" / "perfetto.json";
    nlohmann::json j;
    ASSERT_NO_THROW(j = nlohmann::json::parse(slurp(file)));
    ASSERT_TRUE(j.contains("traceEvents") && j["traceEvents"].is_array());
    const double us = 1e6 / hz;  // microseconds per cycle

    std::map<int, std::string> thread_names;
    std::map<std::string, std::vector<std::pair<double, int64_t>>> counters;  // name -> (ts, value)
    std::map<std::string, int> counter_tid;
    std::vector<nlohmann::json> slices;
    bool process_named = false;
    for (const auto& e : j["traceEvents"]) {
      ASSERT_TRUE(e.contains("ph")) << e.dump();
      EXPECT_EQ(e.at("pid"), 1) << e.dump();
      const std::string ph = e["ph"];
      if (ph == "M") {
        if (e["name"] == "thread_name") thread_names[e["tid"].get<int>()] = e["args"]["name"];
        if (e["name"] == "process_name") process_named = true;
      } else if (ph == "C") {
        const std::string name = e["name"];
        const auto spec = std::find_if(kResources.begin(), kResources.end(),
                                       [&](const Spec& s) { return name == s.name; });
        ASSERT_NE(spec, kResources.end()) << name;
        ASSERT_EQ(e["args"].size(), 1u) << e.dump();
        ASSERT_TRUE(e["args"].contains(spec->unit)) << e.dump();  // the value is keyed by the unit
        counters[name].emplace_back(e["ts"].get<double>(), e["args"][spec->unit].get<int64_t>());
        counter_tid[name] = e["tid"].get<int>();
      } else if (ph == "X") {
        slices.push_back(e);
      } else {
        ADD_FAILURE() << "unexpected event " << e.dump();
      }
    }
    EXPECT_TRUE(process_named);

    // Counters: 0 at ts 0 (or the cycle-0 value), every change, and a last sample at end_cycle.
    ASSERT_EQ(counters.size(), kResources.size());
    for (uint32_t id = 0; id < kResources.size(); ++id) {
      SCOPED_TRACE(kResources[id].name);
      std::vector<std::pair<uint64_t, int64_t>> want;
      if (value_at(id, 0) == 0) want.emplace_back(0, 0);
      for (const Change& c : kChanges)
        if (c.id == id) want.emplace_back(c.cycle, c.value);
      want.emplace_back(kEnd, value_at(id, kEnd - 1));
      auto got = counters[kResources[id].name];
      std::stable_sort(got.begin(), got.end(), [](auto& a, auto& b) { return a.first < b.first; });
      ASSERT_EQ(got.size(), want.size());
      for (size_t k = 0; k < want.size(); ++k) {
        EXPECT_NEAR(got[k].first, double(want[k].first) * us, 1e-12 * (1 + double(want[k].first) * us));
        EXPECT_EQ(got[k].second, want[k].second) << "at cycle " << want[k].first;
      }
      // The counter's tid is its owner module's thread.
      EXPECT_EQ(thread_names[counter_tid[kResources[id].name]], kResources[id].owner);
    }

    // One complete slice per layer on the "layers" thread, spanning [start, end + 1).
    ASSERT_EQ(slices.size(), kExportLayers.size());
    for (size_t k = 0; k < kExportLayers.size(); ++k) {
      const auto& e = slices[k];
      EXPECT_EQ(e["name"], kExportLayers[k].name);
      EXPECT_EQ(thread_names[e["tid"].get<int>()], "layers");
      EXPECT_NEAR(e["ts"].get<double>(), double(kExportLayers[k].start) * us, 1e-12);
      EXPECT_NEAR(e["dur"].get<double>(), double(kExportLayers[k].end + 1 - kExportLayers[k].start) * us, 1e-12);
      EXPECT_EQ(e["args"]["layer"], kExportLayers[k].index);
    }
  }
}

// ------------------------------------------------------------ VCD

struct Vcd {
  std::string timescale;  // spaces removed: "1ns"
  std::map<std::string, std::string> code_to_name;  // hierarchical, dotted
  std::map<std::string, int> width;
  std::vector<uint64_t> times;  // every #time, in file order
  // code -> (time, value) changes; nullopt for x/z
  std::map<std::string, std::vector<std::pair<uint64_t, std::optional<int64_t>>>> changes;
  bool dumpvars = false;
};

Vcd parse_vcd(const std::string& text) {
  Vcd v;
  std::istringstream in(text);
  std::vector<std::string> scope;
  std::string tok;
  const auto until_end = [&] {
    std::vector<std::string> words;
    while (in >> tok && tok != "$end") words.push_back(tok);
    return words;
  };
  // Header.
  while (in >> tok) {
    if (tok == "$enddefinitions") {
      until_end();
      break;
    }
    if (tok == "$timescale") {
      for (const auto& w : until_end()) v.timescale += w;
    } else if (tok == "$scope") {
      const auto w = until_end();
      if (w.size() != 2) throw std::runtime_error("bad $scope");
      scope.push_back(w[1]);
    } else if (tok == "$upscope") {
      until_end();
      if (scope.empty()) throw std::runtime_error("$upscope without $scope");
      scope.pop_back();
    } else if (tok == "$var") {
      const auto w = until_end();  // type size code name
      if (w.size() != 4) throw std::runtime_error("bad $var");
      std::string name;
      for (const auto& s : scope) name += s + ".";
      v.code_to_name[w[2]] = name + w[3];
      v.width[w[2]] = std::stoi(w[1]);
    } else if (tok[0] == '$') {
      until_end();  // $date, $version, $comment
    } else {
      throw std::runtime_error("unexpected header token " + tok);
    }
  }
  if (!scope.empty()) throw std::runtime_error("unclosed $scope");
  // Body.
  std::optional<uint64_t> now;
  while (in >> tok) {
    if (tok[0] == '#') {
      now = std::stoull(tok.substr(1));
      v.times.push_back(*now);
    } else if (tok == "$dumpvars") {
      v.dumpvars = true;
    } else if (tok == "$end" || tok == "$dumpall" || tok == "$dumpon" || tok == "$dumpoff") {
    } else if (tok[0] == 'b' || tok[0] == 'B') {
      std::string code;
      if (!(in >> code)) throw std::runtime_error("value without identifier");
      if (!v.code_to_name.count(code)) throw std::runtime_error("undeclared identifier " + code);
      if (!now) throw std::runtime_error("value change before the first #time");
      const std::string bits = tok.substr(1);
      std::optional<int64_t> value;
      if (bits.find_first_of("xXzZ") == std::string::npos) value = int64_t(std::stoull(bits, nullptr, 2));
      v.changes[code].emplace_back(*now, value);
    } else {
      throw std::runtime_error("unexpected token " + tok);
    }
  }
  return v;
}

// Value of the signal named `name` at `time` (the last change at or before it).
std::optional<int64_t> vcd_value(const Vcd& v, const std::string& name, uint64_t time) {
  for (const auto& [code, n] : v.code_to_name)
    if (n == name) {
      std::optional<int64_t> value;
      bool seen = false;
      for (const auto& [t, x] : v.changes.at(code))
        if (t <= time) {
          value = x;
          seen = true;
        }
      if (!seen) throw std::runtime_error(name + " has no value at time " + std::to_string(time));
      return value;
    }
  throw std::runtime_error("no signal " + name);
}

std::string vcd_signal(const Spec& s) {
  std::string name = s.name;
  std::replace(name.begin(), name.end(), '.', '_');
  return std::string("cstsim.") + s.owner + "." + name;
}

// Checks every resource and the layer index at every cycle of [0, kEnd).
void check_vcd_values(const Vcd& v, uint64_t (*time_of)(uint64_t)) {
  ASSERT_EQ(v.code_to_name.size(), kResources.size() + 1);
  for (uint64_t c = 0; c < uint64_t(kEnd); ++c) {
    for (uint32_t id = 0; id < kResources.size(); ++id)
      ASSERT_EQ(vcd_value(v, vcd_signal(kResources[id]), time_of(c)), value_at(id, c))
          << kResources[id].name << " at cycle " << c;
    ASSERT_EQ(vcd_value(v, "cstsim.layer", time_of(c)), c < 50 ? 0 : 1) << "at cycle " << c;
  }
}

uint64_t time_1ghz(uint64_t c) { return c; }  // $timescale 1 ns
uint64_t time_700mhz(uint64_t c) { return uint64_t(std::llround(double(c) * 1e12 / 7e8)); }  // 1 ps

TEST(Export, VcdAcceptedByVcd2fstAndReadsBack) {
  if (!fs::exists("/usr/bin/vcd2fst"))
    FAIL() << "/usr/bin/vcd2fst is missing: install the gtkwave package (apt-get install gtkwave; the Makefile installs it)";
  struct Case {
    double hz;
    const char* timescale;
    uint64_t (*time_of)(uint64_t);
  };
  for (const Case& k : {Case{1e9, "1ns", time_1ghz}, Case{7e8, "1ps", time_700mhz}}) {
    SCOPED_TRACE(k.hz);
    TempDir tmp;
    const fs::path run = make_run(tmp.path, k.hz);
    const Captured r = run_export({"vcd", run.string()});
    ASSERT_EQ(r.status, 0) << r.err;
    const fs::path vcd = run / "trace" / "rt.vcd";
    const std::string text = slurp(vcd);

    // Our own reading of the text.
    Vcd v;
    ASSERT_NO_THROW(v = parse_vcd(text)) << text;
    EXPECT_EQ(v.timescale, k.timescale);
    EXPECT_TRUE(v.dumpvars);
    ASSERT_FALSE(v.times.empty());
    EXPECT_EQ(v.times.front(), 0u);
    for (size_t i = 1; i < v.times.size(); ++i) EXPECT_LT(v.times[i - 1], v.times[i]) << "times must increase";
    EXPECT_EQ(v.times.back(), k.time_of(kEnd)) << "a last #time at end_cycle";
    for (const auto& [code, name] : v.code_to_name) {
      for (char ch : code) EXPECT_TRUE(ch >= 33 && ch <= 126 && ch != '$') << code;
      EXPECT_EQ(v.width[code], name == "cstsim.layer" ? 32 : 64);
    }
    check_vcd_values(v, k.time_of);
    // Exactly the changes of the trace (plus the initial values), none repeated.
    size_t n = 0;
    for (const auto& [code, list] : v.changes)
      if (v.code_to_name[code] != "cstsim.layer") n += list.size();
    size_t zero_records = 0;
    for (const Change& c : kChanges) zero_records += c.cycle == 0;
    EXPECT_EQ(n, kChanges.size() - zero_records + kResources.size());

    // GTKWave's converter accepts it; its FST, dumped back to VCD, holds the same values.
    const fs::path fst = tmp.path / "rt.fst", log = tmp.path / "vcd2fst.log";
    const std::string cmd = "/usr/bin/vcd2fst " + vcd.string() + " " + fst.string() + " >" + log.string() + " 2>&1";
    const int rc = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << cmd << "\n" << slurp(log);
    ASSERT_TRUE(fs::exists(fst) && fs::file_size(fst) > 0) << slurp(log);
    if (fs::exists("/usr/bin/fst2vcd")) {
      const fs::path back = tmp.path / "back.vcd";
      const std::string cmd2 = "/usr/bin/fst2vcd " + fst.string() + " >" + back.string() + " 2>" + log.string();
      ASSERT_EQ(std::system(cmd2.c_str()), 0) << slurp(log);
      Vcd b;
      ASSERT_NO_THROW(b = parse_vcd(slurp(back))) << slurp(back);
      EXPECT_EQ(b.timescale, k.timescale);
      check_vcd_values(b, k.time_of);
    }
  }
}

// Two exports of one run are the same bytes: no wall-clock $date, and the run named relative to the
// VCD's directory, whatever spelling of the run directory the command was given.
TEST(Export, VcdHeaderReproducible) {
  TempDir tmp;
  const fs::path run = make_run(tmp.path, 1e9);
  const fs::path a = tmp.path / "a.vcd", b = tmp.path / "b.vcd";
  ASSERT_EQ(run_export({"vcd", run.string(), "--out", a.string()}).status, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // a clock in the header would tick
  ASSERT_EQ(run_export({"vcd", (run / "trace" / "..").string(), "--out", b.string()}).status, 0);
  const std::string text = slurp(a);
  EXPECT_EQ(text, slurp(b));
  EXPECT_EQ(text.find("$date"), std::string::npos);
  EXPECT_NE(text.find("run run (seen from"), std::string::npos) << text.substr(0, 300);  // relative to tmp/
  EXPECT_EQ(text.find(tmp.path.string()), std::string::npos);
}

// Over 93 resources the identifier codes take two characters; all stay distinct.
TEST(Export, VcdManyResources) {
  if (!fs::exists("/usr/bin/vcd2fst"))
    FAIL() << "/usr/bin/vcd2fst is missing: install the gtkwave package (apt-get install gtkwave; the Makefile installs it)";
  TempDir tmp;
  const fs::path run = tmp.path / "run";
  constexpr uint32_t kCount = 300;
  {
    TraceSink::Options o;
    o.dir = run / "trace";
    o.clock_hz = 1e9;
    TraceSink sink(o);
    for (uint32_t i = 0; i < kCount; ++i) {
      Resource r;
      r.name = "unit" + std::to_string(i) + ".busy";
      r.unit = "device";
      r.capacity = 1000;
      r.owner = i % 2 ? "top.odd" : "";  // an empty owner goes to "unowned"
      sink.declare(r);
    }
    sink.begin_layer(0, "g", 0);
    for (uint32_t i = 0; i < kCount; ++i) sink.set(i % 7, i, i + 1);
    sink.finish(10);
    cstsim::testing_util::tie_summary(run, sink);
  }
  ASSERT_EQ(run_export({"vcd", run.string()}).status, 0);
  const fs::path vcd = run / "trace" / "rt.vcd";
  const fs::path fst = tmp.path / "rt.fst", back = tmp.path / "back.vcd", log = tmp.path / "log";
  ASSERT_EQ(std::system(("/usr/bin/vcd2fst " + vcd.string() + " " + fst.string() + " >" + log.string() + " 2>&1").c_str()), 0)
      << slurp(log);
  std::vector<fs::path> files = {vcd};
  if (fs::exists("/usr/bin/fst2vcd")) {
    ASSERT_EQ(std::system(("/usr/bin/fst2vcd " + fst.string() + " >" + back.string() + " 2>" + log.string()).c_str()), 0);
    files.push_back(back);
  }
  for (const fs::path& f : files) {
    SCOPED_TRACE(f);
    const Vcd v = parse_vcd(slurp(f));
    ASSERT_EQ(v.code_to_name.size(), kCount + 1);
    for (uint32_t i = 0; i < kCount; ++i) {
      const std::string name = std::string("cstsim.") + (i % 2 ? "top.odd" : "unowned") + ".unit" + std::to_string(i) + "_busy";
      EXPECT_EQ(vcd_value(v, name, 9), int64_t(i + 1)) << name;
      if (i % 7) {
        EXPECT_EQ(vcd_value(v, name, i % 7 - 1), 0) << name;
      }
    }
  }
}

TEST(Export, VcdTimebase) {
  auto tb = vcd_timebase(1.0 / 1e9);
  EXPECT_EQ(tb.unit, "1 ns");
  EXPECT_TRUE(tb.exact);
  EXPECT_EQ(tb.time_of(12345), 12345u);
  tb = vcd_timebase(1.0 / 2.5e9);  // 400 ps
  EXPECT_EQ(tb.unit, "100 ps");
  EXPECT_EQ(tb.time_of(3), 12u);
  tb = vcd_timebase(1.0 / 1e8);  // 10 ns
  EXPECT_EQ(tb.unit, "10 ns");
  EXPECT_EQ(tb.time_of(7), 7u);
  tb = vcd_timebase(1.0 / 7e8);  // 1428.571... ps: rounded per cycle, never accumulated
  EXPECT_EQ(tb.unit, "1 ps");
  EXPECT_FALSE(tb.exact);
  EXPECT_EQ(tb.time_of(7), 10000u);
  EXPECT_EQ(tb.time_of(7000000000ull), 10000000000000ull);
  EXPECT_EQ(tb.time_of(1), 1429u);
}

// ------------------------------------------------------------ streaming many records

TEST(Export, ManyRecordsStreamThroughAllFormats) {
  TempDir tmp;
  const fs::path run = tmp.path / "run";
  constexpr int64_t kToggles = 200000;
  {
    TraceSink::Options o;
    o.dir = run / "trace";
    o.clock_hz = 1e9;
    o.buffer_records = 4096;
    TraceSink sink(o);
    Resource r;
    r.name = "array.active_pes";
    r.unit = "PE";
    r.capacity = 255;
    r.owner = "array";
    sink.declare(r);
    sink.begin_layer(0, "g", 0);
    for (int64_t c = 1; c <= kToggles; ++c) {
      sink.set(c, 0, 1 + c % 2);  // 2, 1, 2, ...: every cycle a change
      sink.advance(c);
    }
    sink.finish(kToggles + 10);
    cstsim::testing_util::tie_summary(run, sink);
  }
  ASSERT_EQ(run_export({"csv", run.string()}).status, 0);
  EXPECT_EQ(lines_of(slurp(run / "trace" / "rt.csv")).size(), size_t(kToggles + 1));
  ASSERT_EQ(run_export({"perfetto", run.string()}).status, 0);
  const auto j = nlohmann::json::parse(slurp(run / "trace" / "perfetto.json"));
  size_t counters = 0;
  for (const auto& e : j["traceEvents"]) counters += e["ph"] == "C";
  EXPECT_EQ(counters, size_t(kToggles + 2));  // the zero at ts 0, every change, the end sample
  ASSERT_EQ(run_export({"vcd", run.string()}).status, 0);
  const Vcd v = parse_vcd(slurp(run / "trace" / "rt.vcd"));
  EXPECT_EQ(v.times.size(), size_t(kToggles + 2));
  EXPECT_EQ(v.changes.begin()->second.size() + v.changes.rbegin()->second.size(), size_t(kToggles + 1 + 1));
}

// ------------------------------------------------------------ errors

TEST(Export, ErrorsAreOneLineWithStatus2AndWriteNothing) {
  TempDir tmp;
  const fs::path run = make_run(tmp.path, 1e9);
  const fs::path missing = tmp.path / "no-such-run";

  for (const char* format : {"csv", "perfetto", "vcd"}) {
    SCOPED_TRACE(format);
    expect_error(run_export({format, missing.string()}), "does not exist");
    EXPECT_FALSE(fs::exists(missing));
    expect_error(run_export({format}), "missing <run-dir>");
    expect_error(run_export({format, run.string(), "--frob"}), "unknown option '--frob'");
    expect_error(run_export({format, run.string(), "--out"}), "--out");
    expect_error(run_export({format, run.string(), run.string()}), "unexpected argument");
    expect_error(run_export({format, run.string(), "--out", (tmp.path / "nodir" / "x").string()}),
                 "does not exist");
    expect_error(run_export({format, run.string(), "--out", (run / "trace" / "rt.bin").string()}),
                 "would overwrite");
  }
  expect_error(run_export({}), "missing format");
  expect_error(run_export({"pdf", run.string()}), "unknown format 'pdf'");
  expect_error(run_export({"--frob"}), "unknown option '--frob'");
  for (const char* out : {"rt.csv", "perfetto.json", "rt.vcd"}) EXPECT_FALSE(fs::exists(run / "trace" / out));

  // A run directory without trace/, then trace files missing one by one.
  fs::create_directories(tmp.path / "bare");
  expect_error(run_export({"csv", (tmp.path / "bare").string()}), "no trace folder");
  EXPECT_FALSE(fs::exists(tmp.path / "bare" / "trace"));
  for (const char* file : {"rt.bin", "resources.csv", "layers.csv"}) {
    SCOPED_TRACE(file);
    const fs::path copy = tmp.path / (std::string("missing-") + file);
    fs::copy(run, copy, fs::copy_options::recursive);
    fs::remove(copy / "trace" / file);
    for (const char* format : {"csv", "perfetto", "vcd"}) {
      expect_error(run_export({format, copy.string()}), file);
      expect_no_temp_files(copy / "trace");
    }
    for (const char* out : {"rt.csv", "perfetto.json", "rt.vcd"}) EXPECT_FALSE(fs::exists(copy / "trace" / out));
  }

  // A truncated rt.bin fails mid-stream: the partial output is removed.
  const fs::path cut = tmp.path / "truncated";
  fs::copy(run, cut, fs::copy_options::recursive);
  fs::resize_file(cut / "trace" / "rt.bin", fs::file_size(cut / "trace" / "rt.bin") - kRecordBytes);
  for (const char* format : {"csv", "perfetto", "vcd"}) {
    SCOPED_TRACE(format);
    expect_error(run_export({format, cut.string()}), "truncated");
  }
  for (const char* out : {"rt.csv", "perfetto.json", "rt.vcd"}) EXPECT_FALSE(fs::exists(cut / "trace" / out));
  expect_no_temp_files(cut / "trace");

  // A record naming an undeclared resource.
  const fs::path bad = tmp.path / "bad-id";
  fs::copy(run, bad, fs::copy_options::recursive);
  {
    std::fstream f(bad / "trace" / "rt.bin", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(kHeaderBytes + 8);
    const uint32_t id = 99;
    f.write(reinterpret_cast<const char*>(&id), sizeof id);
  }
  expect_error(run_export({"vcd", bad.string()}), "resource id 99 out of range");
  EXPECT_FALSE(fs::exists(bad / "trace" / "rt.vcd"));

  // Help goes to stdout with status 0.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--help"}, {"-h"}, {"vcd", "--help"}}) {
    const Captured h = run_export(args);
    EXPECT_EQ(h.status, 0);
    EXPECT_NE(h.out.find("usage: cstsim export"), std::string::npos);
    EXPECT_TRUE(h.err.empty());
  }
}

// ------------------------------------------------------------ plots

constexpr const char* kPython = "/usr/bin/python3";

TEST(Export, Plots) {
  if (!fs::exists(kPython)) FAIL() << kPython << " is missing: install python3 and python3-matplotlib (Debian)";
  TempDir tmp;
  const fs::path probe_log = tmp.path / "probe.log";
  if (std::system((std::string(kPython) + " -c 'import matplotlib' >" + probe_log.string() + " 2>&1").c_str()) != 0)
    FAIL() << kPython << " cannot import matplotlib: install the Debian package python3-matplotlib "
           << "(the default python3 on PATH may be another interpreter without it)\n" << slurp(probe_log);

  const fs::path run = make_run(tmp.path, 1e9);
  std::ofstream(run / "energy_windows.csv")
      << "layer,window_start,window_end,time_start_s,time_end_s,e_marg_J,e_base_J,e_gross_J\n"
         "0,0,16,0,1.6e-08,3.2e-09,1.6e-09,4.8e-09\n"
         "0,16,32,1.6e-08,3.2e-08,6.4e-09,1.6e-09,8e-09\n"
         "0,32,48,3.2e-08,4.8e-08,6.4e-09,1.6e-09,8e-09\n"
         "0,48,50,4.8e-08,5e-08,8e-10,2e-10,1e-09\n"
         "1,50,64,5e-08,6.4e-08,1.4e-09,1.4e-09,2.8e-09\n"
         "1,64,80,6.4e-08,8e-08,2.4e-09,1.6e-09,4e-09\n"
         "1,80,96,8e-08,9.6e-08,4.8e-09,1.6e-09,6.4e-09\n"
         "1,96,100,9.6e-08,1e-07,1.2e-09,4e-10,1.6e-09\n";
  std::ofstream(run / "report.json") << R"({
  "machine": {"peak_ops_per_s": {"value": 1.28e11, "unit": "op/s"},
              "bandwidth": {"value": 1.6e10, "unit": "B/s"}},
  "layers": [
    {"name": "conv1", "roofline": {"I_A": {"value": 2.5, "unit": "op/B"},
                                   "achieved_ops_per_s": {"value": 3.0e10, "unit": "op/s"}}},
    {"name": "fc2", "roofline": {"I_A": {"value": 40.0, "unit": "op/B"},
                                 "achieved_ops_per_s": {"value": 9.0e10, "unit": "op/s"}}}
  ]
})";

  // A second run with another machine, for a two-run roofline.
  fs::create_directories(tmp.path / "run2");
  std::ofstream(tmp.path / "run2" / "report.json") << R"({
  "machine": {"peak_ops_per_s": {"value": 2.56e11}, "bandwidth": {"value": 6.4e10}},
  "layers": [{"name": "conv1", "roofline": {"I_A": {"value": 2.0}, "achieved_ops_per_s": {"value": 1.0e11}}}]
})";

  const std::string dir = std::string(CSTSIM_SOURCE_DIR) + "/traces/plot/";
  struct Script {
    const char* file;
    std::string args;
  };
  const std::vector<Script> scripts = {
      {"plot_rt.py", run.string()},
      {"plot_energy.py", run.string()},
      {"plot_roofline.py", run.string() + " " + (tmp.path / "run2").string()},
  };
  for (const Script& s : scripts) {
    SCOPED_TRACE(s.file);
    const fs::path prefix = tmp.path / (std::string("fig-") + s.file);
    const fs::path log = tmp.path / "plot.log";
    const std::string cmd = std::string(kPython) + " " + dir + s.file + " " + s.args + " --out " + prefix.string() +
                            " >" + log.string() + " 2>&1";
    const int rc = std::system(cmd.c_str());
    EXPECT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << cmd << "\n" << slurp(log);
    for (const char* ext : {".png", ".pdf"}) {
      const fs::path f = prefix.string() + ext;
      EXPECT_TRUE(fs::exists(f) && fs::file_size(f) > 0) << f;
    }
  }
}

// ------------------------------------------------------------ A format is one registration

// A format that exists only in this file: tab-separated cycle, resource name, value.
class ToyTsvExporter final : public IExporter {
 public:
  std::string help() const override { return "toy: cycle<TAB>name<TAB>value (rt.tsv)"; }
  std::string default_file(const std::string&) const override { return "rt.tsv"; }
  bool recognises(std::string_view head) const override { return head.rfind("cycle\tname\tvalue\n", 0) == 0; }
  void write(const fs::path& run_dir, const fs::path& out_path, const std::string&) const override {
    auto reader = open_trace(run_dir);
    const auto& res = reader->resources();
    cstsim::io::OutFile out(out_path);
    out.put("cycle\tname\tvalue\n");
    stream_records(*reader, run_dir,
                   [&](const Record& r) { out.print("{}\t{}\t{}\n", r.cycle, res[r.resource].name, r.value); });
    out.commit();
  }
};

// The command takes a registered format with no edit of its own: help, dispatch, default file,
// replacing its own export and refusing another's, the error lists. Registered inside the test,
// so Registry.EveryExportFormatIsARowOfItsOwn keeps its list (ctest runs each test alone).
TEST(Export, ARegisteredFormatNeedsNothingElse) {
  ASSERT_TRUE(cstsim::Registry<IExporter>::instance().add("toy_tsv", [] { return std::make_unique<ToyTsvExporter>(); }));
  TempDir tmp;
  const fs::path run = make_run(tmp.path, 1e9);
  for (int pass = 0; pass < 2; ++pass) {  // the second replaces the first
    const Captured r = run_export({"toy_tsv", run.string()});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto lines = lines_of(slurp(run / "trace" / "rt.tsv"));
    ASSERT_EQ(lines.size(), kChanges.size() + 1);
    EXPECT_EQ(lines[0], "cycle\tname\tvalue");
    for (size_t i = 0; i < kChanges.size(); ++i)
      EXPECT_EQ(lines[i + 1], fmt::format("{}\t{}\t{}", kChanges[i].cycle, kResources[kChanges[i].id].name,
                                          kChanges[i].value));
  }
  ASSERT_EQ(run_export({"csv", run.string()}).status, 0);
  expect_error(run_export({"toy_tsv", run.string(), "--out", (run / "trace" / "rt.csv").string()}),
               "is not a cstsim toy_tsv export");
  expect_error(run_export({"toy_tsv", run.string(), "--format", "json"}), "toy_tsv: --format is for perfetto only");
  expect_error(run_export({"pdf", run.string()}), "(formats: csv, perfetto, toy_tsv, vcd)");
  const Captured help = run_export({"--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("toy_tsv"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("toy: cycle<TAB>name<TAB>value (rt.tsv)"), std::string::npos) << help.out;
}

}  // namespace
