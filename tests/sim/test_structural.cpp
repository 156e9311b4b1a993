// The structural reference mode (models/array/structural/): PEs as sc_modules wired by
// sc_signals, stepped beside the register grid and compared with it every cycle (WS, OS, IS:
// register_array.h; row stationary: rs_grid.h). One process per TEST (one sc_start each): the
// random tests elaborate every grid their cases need, then one thread runs them all.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <regex>
#include <cstring>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <systemc>

#include "models/array/gemm_data.h"
#include "models/array/register_array.h"
#include "models/array/rs_grid.h"
#include "models/array/rs_memory.h"
#include "models/array/rs_timing.h"
#include "models/array/structural/rs_structural_grid.h"
#include "models/array/structural/structural_grid.h"
#include "tests/sim/cli_fixture.h"

namespace cstsim {
namespace {

using structural::StructuralGrid;
using structural::StructuralMismatch;

const sc_core::sc_time kStructuralPeriod(1, sc_core::SC_NS);

// Runs `body` in one SystemC thread.
struct StructuralThread : sc_core::sc_module {
  std::function<void()> body;
  SC_HAS_PROCESS(StructuralThread);
  StructuralThread(const sc_core::sc_module_name& n, std::function<void()> f) : sc_module(n), body(std::move(f)) {
    SC_THREAD(run);
  }
  void run() { body(); }
};

struct StructuralCase {
  Dataflow dataflow = Dataflow::WS;
  FoldPipeline pipeline = FoldPipeline::Overlapped;
  int R = 1, C = 1;
  Precision types;
  bool conv = false;
  bool grid_2_4 = false;  // on PEs that also take 2:4 weights (the data says whether this layer has them)
  GemmData data;
  std::string name;
};

// A small convolution lowered by im2col: A's rows are the output pixels of every image, its
// columns the (channel, r, s) taps, so neighbouring rows share ifmap values; B holds the filters.
GemmData structural_conv(std::mt19937_64& rng, const Precision& p, std::string& name) {
  auto pick = [&](int lo, int hi) { return int(std::uniform_int_distribution<int>(lo, hi)(rng)); };
  const int images = pick(1, 2), channels = pick(1, 3), H = pick(2, 6), W = pick(2, 6);
  const int Rf = pick(1, std::min(3, H)), Sf = pick(1, std::min(3, W)), filters = pick(1, 6), stride = pick(1, 2);
  const int E = (H - Rf) / stride + 1, F = (W - Sf) / stride + 1;
  // Values of the operand type: drawn as a GEMM of the ifmap's size, then placed by im2col.
  const GemmData values = make_random_gemm(1, int64_t(images) * channels * H * W, 1, rng(), p);
  GemmData d = make_random_gemm(int64_t(images) * E * F, filters, int64_t(channels) * Rf * Sf, rng(), p);
  for (int n = 0; n < images; ++n)
    for (int e = 0; e < E; ++e)
      for (int f = 0; f < F; ++f)
        for (int c = 0; c < channels; ++c)
          for (int r = 0; r < Rf; ++r)
            for (int s = 0; s < Sf; ++s) {
              const int64_t m = (int64_t(n) * E + e) * F + f, k = (int64_t(c) * Rf + r) * Sf + s;
              const int64_t h = e * stride + r, w = f * stride + s;
              d.A[size_t(m * d.K + k)] = values.B[size_t(((int64_t(n) * channels + c) * H + h) * W + w)];
            }
  name = fmt::format("conv {}x{}x{}x{} * {}x{}x{} stride {}", images, channels, H, W, filters, Rf, Sf, stride);
  return d;
}

std::vector<StructuralCase> structural_cases(int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int lo, int hi) { return int(std::uniform_int_distribution<int>(lo, hi)(rng)); };
  std::vector<StructuralCase> cases;
  for (int i = 0; i < count; ++i) {
    StructuralCase c;
    c.dataflow = std::array{Dataflow::WS, Dataflow::OS, Dataflow::IS}[size_t(i % 3)];
    c.pipeline = pick(0, 3) == 0 ? FoldPipeline::ScaleSim : FoldPipeline::Overlapped;
    c.R = pick(1, 8);
    c.C = pick(1, 8);
    switch ((i / 3) % 4) {  // int8, bf16 (fp32 sums), fp32 (fused), int8 two to a word
      case 0: c.types = {NumType::Int8, NumType::Int32, 1}; break;
      case 1: c.types = {NumType::Bf16, NumType::Fp32, 1}; break;
      case 2: c.types = {NumType::Fp32, NumType::Fp32, 1}; break;
      default: c.types = {NumType::Int8, NumType::Int32, 2}; break;
    }
    c.conv = (i / 12) % 2 == 1;
    if (c.conv) {
      c.data = structural_conv(rng, c.types, c.name);
    } else {
      const int M = pick(1, 20), N = pick(1, 20), K = pick(1, 24);
      c.data = make_random_gemm(M, N, K, rng(), c.types);
      c.name = fmt::format("gemm {}x{}x{}", M, N, K);
    }
    c.name = fmt::format("case {}: {} on {} {}x{} {} x{} ({})", i, c.name, to_string(c.dataflow), c.R, c.C,
                         to_string(c.types.operand), c.types.pack, to_string(c.pipeline));
    cases.push_back(std::move(c));
  }
  return cases;
}

// The grids the cases need, one per PE kind (WS/IS share one), size and lanes.
class StructuralGrids {
 public:
  explicit StructuralGrids(const std::vector<StructuralCase>& cases) {
    for (const StructuralCase& c : cases) {
      const Key key = key_of(c);
      if (grids_.count(key)) continue;
      const std::string name = fmt::format("g{}", grids_.size());
      grids_[key] = structural::make_structural_grid(name.c_str(), std::get<0>(key), c.R, c.C, c.types.pack,
                                                     kStructuralPeriod, c.grid_2_4);
    }
  }
  StructuralGrid& of(const StructuralCase& c) { return *grids_.at(key_of(c)); }
  size_t size() const { return grids_.size(); }

 private:
  using Key = std::tuple<Dataflow, int, int, int, bool>;
  static Key key_of(const StructuralCase& c) {
    return {c.dataflow == Dataflow::OS ? Dataflow::OS : Dataflow::WS, c.R, c.C, c.types.pack, c.grid_2_4};
  }
  std::map<Key, std::unique_ptr<StructuralGrid>> grids_;
};

// Steps the register grid of `c` to its end with the structural grid beside it. `fault`: called
// after each step with the cycle just stepped (to corrupt the register grid). Returns the
// mismatch's message, "" if none.
std::string run_structural_case(const StructuralCase& c, StructuralGrid& grid, int64_t start,
                                const std::function<void(RegisterArray&, int64_t)>& fault = {}) {
  FoldPlan plan = make_fold_plan(c.dataflow, c.R, c.C, c.data.M, c.data.N, c.data.sparse_2_4 ? c.data.K / 2 : c.data.K,
                                 c.types.pack);
  plan.sparse_2_4 = c.data.sparse_2_4;
  const auto reg = make_register_array(plan, c.pipeline, start, c.data);
  try {
    grid.begin(*reg, c.data);
    while (!reg->done()) {
      reg->step();
      if (fault) fault(*reg, reg->now() - 1);
      grid.cycle();
      sc_core::wait(kStructuralPeriod);
    }
  } catch (const StructuralMismatch& e) {
    return e.what();
  }
  return "";
}

int structural_case_count() {
  const char* n = std::getenv("CSTSIM_STRUCTURAL_CASES");  // another count on demand (timing it, hunting a bug)
  return n ? std::atoi(n) : 240;
}

void run_random_structural_cases(int count, uint64_t seed) {
  const std::vector<StructuralCase> cases = structural_cases(count, seed);
  StructuralGrids grids(cases);
  std::vector<std::string> failures;
  std::map<std::string, int> covered;
  int64_t cycles = 0;
  StructuralThread thread("cases", [&] {
    for (const StructuralCase& c : cases) {
      StructuralGrid& g = grids.of(c);
      const int64_t before = g.cycles_compared();
      const std::string problem = run_structural_case(c, g, int64_t(c.R) * 3);
      if (!problem.empty()) failures.push_back(c.name + ": " + problem);
      cycles += g.cycles_compared() - before;
      ++covered[fmt::format("{} {} {}", to_string(c.dataflow), c.conv ? "conv" : "gemm", to_string(c.types.operand))];
    }
  });
  sc_core::sc_start();
  EXPECT_TRUE(failures.empty()) << failures.size() << " of " << cases.size() << " cases differ; first: "
                                << failures.front();
  // Every dataflow met GEMMs and convolutions in an integer and a float type, and every case was compared.
  for (const char* df : {"ws", "os", "is"})
    for (const char* kind : {"gemm", "conv"})
      for (const char* type : {"int8", "bf16", "fp32"})
        EXPECT_GT(covered[fmt::format("{} {} {}", df, kind, type)], 0) << df << " " << kind << " " << type;
  EXPECT_GT(cycles, int64_t(count) * 5);
  std::cout << cases.size() << " cases on " << grids.size() << " structural grids, " << cycles
            << " cycles compared\n";
}

TEST(StructuralPes, EqualTheRegisterGridOnRandomGemmsAndConvolutions) {
  run_random_structural_cases(structural_case_count(), 40);
}

TEST(StructuralPes, LongEqualTheRegisterGridOnThousandsOfCases) { run_random_structural_cases(2000, 4040); }

// WS GEMMs with 2:4-compressed weights (K a multiple of 4) on PEs that take them, int8 one and two
// to a word, bf16, fp32; every fourth case a dense layer on the same PEs (a layer --sparsity
// leaves dense).
std::vector<StructuralCase> structural_2_4_cases(int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int lo, int hi) { return int(std::uniform_int_distribution<int>(lo, hi)(rng)); };
  std::vector<StructuralCase> cases;
  for (int i = 0; i < count; ++i) {
    StructuralCase c;
    c.grid_2_4 = true;
    c.pipeline = pick(0, 3) == 0 ? FoldPipeline::ScaleSim : FoldPipeline::Overlapped;
    c.R = pick(1, 8);
    c.C = pick(1, 8);
    const Precision types[] = {{NumType::Int8, NumType::Int32, 1}, {NumType::Int8, NumType::Int32, 2},
                               {NumType::Bf16, NumType::Fp32, 1}, {NumType::Fp32, NumType::Fp32, 1}};
    c.types = types[i % 4];
    const bool sparse = i % 4 != 3;
    const int M = pick(1, 16), N = pick(1, 16), K = sparse ? 4 * pick(1, 8) : pick(1, 24);
    c.data = make_random_gemm(M, N, K, rng(), c.types, sparse);
    c.name = fmt::format("case {}: gemm {}x{}x{} {} on ws {}x{} {} x{} ({})", i, M, N, K, sparse ? "2:4" : "dense", c.R,
                         c.C, to_string(c.types.operand), c.types.pack, to_string(c.pipeline));
    cases.push_back(std::move(c));
  }
  return cases;
}

void run_2_4_structural_cases(int count, uint64_t seed) {
  const std::vector<StructuralCase> cases = structural_2_4_cases(count, seed);
  StructuralGrids grids(cases);
  std::vector<std::string> failures;
  int64_t cycles = 0;
  StructuralThread thread("sparse_cases", [&] {
    for (const StructuralCase& c : cases) {
      StructuralGrid& g = grids.of(c);
      const int64_t before = g.cycles_compared();
      const std::string problem = run_structural_case(c, g, int64_t(c.R) * 2);
      if (!problem.empty()) failures.push_back(c.name + ": " + problem);
      cycles += g.cycles_compared() - before;
    }
  });
  sc_core::sc_start();
  EXPECT_TRUE(failures.empty()) << failures.size() << " of " << cases.size() << " 2:4 cases differ; first: "
                                << failures.front();
  EXPECT_GT(cycles, int64_t(count) * 5);
  std::cout << cases.size() << " 2:4 cases on " << grids.size() << " structural grids, " << cycles
            << " cycles compared\n";
}

TEST(StructuralPes, EqualTheRegisterGridWith24Weights) { run_2_4_structural_cases(80, 24); }

TEST(StructuralPes, LongEqualTheRegisterGridWith24WeightsOnAThousandCases) { run_2_4_structural_cases(1000, 2424); }

// A PE of a 2:4 grid that adds wrong once, caught at its cycle, PE and signal.
TEST(StructuralPes, CatchA24PeThatAddsWrongOnce) {
  StructuralCase c;
  c.grid_2_4 = true;
  c.R = 3, c.C = 2, c.types = {NumType::Int8, NumType::Int32, 1};
  c.data = make_random_gemm(6, 2, 8, 3, c.types, true);
  StructuralGrids grids({c});
  std::string clean, planted;
  StructuralThread thread("sparse_fault", [&] {
    clean = run_structural_case(c, grids.of(c), 0);
    grids.of(c).plant_fault(9, 1, 1);
    planted = run_structural_case(c, grids.of(c), 0);
  });
  sc_core::sc_start();
  EXPECT_EQ(clean, "");
  EXPECT_TRUE(std::regex_search(planted, std::regex("cycle 9, PE\\(1,1\\) signal psum:"))) << planted;
}

// A PE that adds wrong once, in the structural grid or in the register grid: the comparison names
// the cycle, the PE and the signal at once, in each PE kind.
TEST(StructuralPes, CatchAPeThatAddsWrongOnce) {
  std::vector<StructuralCase> cases = structural_cases(3, 7);  // ws, os, is
  for (StructuralCase& c : cases) {
    c.R = 4, c.C = 3, c.types = {NumType::Int8, NumType::Int32, 1};
    c.data = make_random_gemm(9, 5, 10, 11, c.types);
  }
  StructuralGrids grids(cases);
  std::vector<std::string> planted, corrupted, clean;
  StructuralThread thread("faults", [&] {
    for (const StructuralCase& c : cases) {
      clean.push_back(run_structural_case(c, grids.of(c), 0));
      grids.of(c).plant_fault(12, 2, 1);
      planted.push_back(run_structural_case(c, grids.of(c), 0));
      grids.of(c).plant_fault(-1, 0, 0);
      corrupted.push_back(run_structural_case(c, grids.of(c), 0, [](RegisterArray& reg, int64_t cycle) {
        if (cycle == 9) reg.corrupt(1, 2);
      }));
    }
  });
  sc_core::sc_start();
  for (size_t i = 0; i < cases.size(); ++i) {
    // OS: a PE whose word is its output's last puts the sum on the bus (res) and keeps zero.
    const std::string sum = cases[i].dataflow == Dataflow::OS ? "(acc|res)" : "psum";
    EXPECT_EQ(clean[i], "") << cases[i].name;
    EXPECT_TRUE(std::regex_search(planted[i], std::regex("cycle 12, PE\\(2,1\\) signal " + sum + ":"))) << planted[i];
    EXPECT_TRUE(std::regex_search(corrupted[i], std::regex("cycle 9, PE\\(1,2\\) signal " + sum + ":"))) << corrupted[i];
  }
}

// The PE signals go to a VCD file under the names the mismatch messages use.
TEST(StructuralPes, TraceEveryPeSignalToVcd) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("cstsim-structural-vcd-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::vector<StructuralCase> cases = structural_cases(3, 3);
  for (StructuralCase& c : cases) c.R = 2, c.C = 3, c.types = {NumType::Int8, NumType::Int32, 1};
  StructuralGrids grids(cases);
  sc_core::sc_trace_file* vcd = sc_core::sc_create_vcd_trace_file((dir / "pes").c_str());
  vcd->set_time_unit(1, sc_core::SC_PS);
  grids.of(cases[0]).trace(vcd);
  grids.of(cases[1]).trace(vcd);
  std::string problem = "not run";
  StructuralThread thread("vcd", [&] { problem = run_structural_case(cases[0], grids.of(cases[0]), 0); });
  sc_core::sc_start();
  sc_core::sc_close_vcd_trace_file(vcd);
  EXPECT_EQ(problem, "");
  const std::string text = slurp(dir / "pes.vcd");
  std::filesystem::remove_all(dir);
  // "$var wire 32 <id> psum [31:0] $end" under "$scope module pe_0_0 $end"
  for (const char* signal : {"clk", "rst", "load", "x", "xtag", "xbank", "psum", "ptag", "w0", "w1", "a", "atag",
                             "alast", "b", "btag", "acc", "res", "res_valid"})
    EXPECT_TRUE(std::regex_search(text, std::regex(std::string("\\$var wire +[0-9]+ +[^ ]+ +") + signal +
                                                   "( \\[31:0\\])? +\\$end")))
        << signal;
  for (const char* scope : {"g0", "g1", "pe_0_0", "pe_1_2"})
    EXPECT_NE(text.find(std::string("$scope module ") + scope + " $end"), std::string::npos) << scope;
  EXPECT_NE(text.find("#"), std::string::npos);  // value changes over time
}

// ---- Row stationary ----

using structural::RsStructuralGrid;

struct RsStructuralCase {
  RsShape shape;
  RsLimits limits;
  NumType operand = NumType::Int16;
  double density = 1.0;            // < 1: zeros in the ifmap, gated MACs compared
  double channel_bytes = 0;        // > 0: a DRAM channel delays the passes' starts
  int64_t channel_latency = 0;
  bool gemm = false;               // a GEMM as a 1 x 1 convolution
  RsLayerPlan plan;
  RsData data;
  std::string name;
};

// Random small convolutions and GEMMs on arrays of 1..8 x 1..8 PEs with random scratchpads (so
// the mapping replicates, folds filter rows, strip-mines, segments and reduces channels in the
// global buffer), in int8, int16, bf16 and fp32, some with zero gating, some over a DRAM channel.
std::vector<RsStructuralCase> rs_structural_cases(int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  std::vector<RsStructuralCase> cases;
  for (int i = 0; int(cases.size()) < count; ++i) {
    if (i > 20 * count) throw std::logic_error("too many random RS cases had no mapping");
    RsStructuralCase k;
    RsShape& s = k.shape;
    k.gemm = i % 4 == 3;
    if (k.gemm) {  // M x N x K: one image of 1 x M pixels, K channels, N filters
      s.W = pick(1, 12);
      s.C = pick(1, 10);
      s.M = pick(1, 8);
    } else {
      s.R = pick(1, 3);
      s.S = pick(1, 3);
      s.U = pick(1, 2);
      s.H = s.R + pick(0, 6);
      s.W = s.S + pick(0, 5);
      s.C = pick(1, 4);
      s.M = pick(1, 6);
      s.N = pick(1, 2);
      s.groups = pick(1, 6) == 1 ? 2 : 1;
    }
    RsLimits& l = k.limits;
    l.rows = int(pick(1, 8));
    l.cols = int(pick(1, 8));
    l.ifmap_spad = pick(s.S, 12);
    l.filter_spad = pick(s.S, 64);
    l.psum_spad = pick(1, 8);
    l.glb_bits = 16 * (pick(0, 2) == 0 ? 1 << 20 : pick(s.W * s.H, 3 * s.W * s.H + 200));
    const RsPlanResult planned = plan_rs(s, l);
    if (!planned.why_not.empty()) continue;
    k.plan = make_rs_layer_plan(s, planned.mapping);
    const NumType types[] = {NumType::Int8, NumType::Bf16, NumType::Int16, NumType::Fp32};
    k.operand = types[cases.size() % 4];
    const bool fp = is_float(k.operand);
    if (pick(0, 4) == 0) k.density = double(pick(2, 8)) / 10;
    k.plan.gating_density = k.density;
    if (pick(0, 2) == 0) k.channel_bytes = double(pick(4, 64)) / 8, k.channel_latency = pick(0, 12);
    k.data = make_random_rs_data(s, rng(), {k.operand, k.operand, k.operand, fp ? NumType::Fp32 : NumType::Int32},
                                 k.density);
    const RsMapping& m = planned.mapping;
    k.name = fmt::format("rs case {}: {} N{} C{} M{} g{} {}x{} * {}x{} stride {} on {}x{} (n {} p {} q {} r {} t {}, "
                         "{} passes) {}{}{}",
                         cases.size(), k.gemm ? "gemm" : "conv", s.N, s.C, s.M, s.groups, s.H, s.W, s.R, s.S, s.U,
                         l.rows, l.cols, m.n, m.p, m.q, m.r, m.t, k.plan.passes.size(), to_string(k.operand),
                         k.density < 1 ? " gated" : "", k.channel_bytes > 0 ? " channel" : "");
    cases.push_back(std::move(k));
  }
  return cases;
}

// Calls the structural grid after every cycle of the register grid, a clock period apart.
// `view`: what the structural grid is shown (the register grid itself unless a test lies).
class RsStructuralProbe final : public RsGridProbe {
 public:
  RsStructuralProbe(RsStructuralGrid& grid, std::function<const RsGridView&(const RsGridView&)> view = {})
      : grid_(grid), view_(std::move(view)) {}
  void stepped(const RsGridView& g) override {
    grid_.cycle(view_ ? view_(g) : g);
    sc_core::wait(kStructuralPeriod);
  }

 private:
  RsStructuralGrid& grid_;
  std::function<const RsGridView&(const RsGridView&)> view_;
};

// One grid per array size, with the largest scratchpads the cases draw.
class RsStructuralGrids {
 public:
  explicit RsStructuralGrids(const std::vector<RsStructuralCase>& cases) {
    for (const RsStructuralCase& c : cases) {
      const auto key = std::make_pair(c.limits.rows, c.limits.cols);
      if (grids_.count(key)) continue;
      const std::string name = fmt::format("rs{}", grids_.size());
      grids_[key] = std::make_unique<RsStructuralGrid>(name.c_str(), key.first, key.second,
                                                       structural::RsPeSizes{64, 12, 8}, kStructuralPeriod);
    }
  }
  RsStructuralGrid& of(const RsStructuralCase& c) { return *grids_.at({c.limits.rows, c.limits.cols}); }
  size_t size() const { return grids_.size(); }

 private:
  std::map<std::pair<int, int>, std::unique_ptr<RsStructuralGrid>> grids_;
};

// Steps the register grid of `c` to its end with the structural grid beside it; the mismatch's
// message, "" if none.
std::string run_rs_structural_case(const RsStructuralCase& c, RsStructuralGrid& grid, int64_t start,
                                   std::function<const RsGridView&(const RsGridView&)> view = {}) {
  std::unique_ptr<RsChannel> memory;
  if (c.channel_bytes > 0) memory = std::make_unique<RsChannel>(c.plan, c.channel_bytes, c.channel_latency, start);
  RsStructuralProbe probe(grid, std::move(view));
  try {
    grid.begin(c.plan, c.data);
    const RsRegisterRun run = run_rs_register_level(c.plan, start, c.data, memory.get(), &probe);
    grid.finish();
    const bool fp = is_float(c.operand);
    if (run.result != (fp ? reference_rs(c.plan, c.data) : reference_conv(c.data))) return "the register grid's result is wrong";
  } catch (const structural::StructuralMismatch& e) {
    return e.what();
  }
  return "";
}

int rs_structural_case_count() {
  const char* n = std::getenv("CSTSIM_RS_STRUCTURAL_CASES");  // another count on demand
  return n ? std::atoi(n) : 200;
}

void run_random_rs_structural_cases(int count, uint64_t seed) {
  const std::vector<RsStructuralCase> cases = rs_structural_cases(count, seed);
  RsStructuralGrids grids(cases);
  std::vector<std::string> failures;
  std::map<std::string, int> covered;
  int64_t cycles = 0;
  StructuralThread thread("rs_cases", [&] {
    for (const RsStructuralCase& c : cases) {
      RsStructuralGrid& g = grids.of(c);
      const int64_t before = g.cycles_compared();
      const std::string problem = run_rs_structural_case(c, g, int64_t(c.limits.rows));
      if (!problem.empty()) failures.push_back(c.name + ": " + problem);
      cycles += g.cycles_compared() - before;
      const RsMapping& m = c.plan.mapping;
      ++covered[c.gemm ? "gemm" : "conv"];
      ++covered[to_string(c.operand)];
      if (m.r * m.t > 1) ++covered["replicated"];
      if (m.r > 1) ++covered["channel sets"];
      if (m.place.row_folds > 1) ++covered["filter-row folds"];
      if (m.place.strips > 1) ++covered["strips"];
      if (m.place.segments > 1) ++covered["segments"];
      if (c.shape.U > 1) ++covered["strided"];
      if (c.density < 1) ++covered["gated"];
      if (c.channel_bytes > 0) ++covered["channel"];
      for (const RsPass& p : c.plan.passes) {
        const RsPassShape sh = rs_pass_shape(c.plan, p);
        if (!p.first_reduction) ++covered["psums back"];
        if (sh.chain > 1) ++covered["chains"];
        if (sh.chain > c.limits.rows) ++covered["chains across columns"];
      }
    }
  });
  sc_core::sc_start();
  EXPECT_TRUE(failures.empty()) << failures.size() << " of " << cases.size() << " RS cases differ; first: "
                                << failures.front();
  for (const char* what : {"gemm", "conv", "int8", "int16", "bf16", "fp32", "replicated", "channel sets",
                           "filter-row folds", "strips", "segments", "strided", "gated", "channel", "psums back",
                           "chains", "chains across columns"})
    EXPECT_GT(covered[what], 0) << what;
  EXPECT_GT(cycles, int64_t(count) * 20);
  std::cout << cases.size() << " RS cases on " << grids.size() << " structural grids, " << cycles
            << " cycles compared\n";
}

TEST(StructuralRsPes, EqualTheRegisterGridOnRandomConvolutionsAndGemms) {
  run_random_rs_structural_cases(rs_structural_case_count(), 4040);
}

TEST(StructuralRsPes, LongEqualTheRegisterGridOnThousandsOfCases) { run_random_rs_structural_cases(5000, 17); }

// Shows the structural grid the register grid with one word wrong: PE (0, 0, 0, 0)'s window
// word 0 at one cycle.
class RsLyingView final : public RsGridView {
 public:
  RsLyingView(const RsGridView& g, int64_t cycle) : g_(g), cycle_(cycle) {}
  int64_t cycle() const override { return g_.cycle(); }
  int64_t pass() const override { return g_.pass(); }
  int64_t started() const override { return g_.started(); }
  const RsCounts& counts() const override { return g_.counts(); }
  int64_t gated() const override { return g_.gated(); }
  const std::vector<ArrayEvent>& events() const override { return g_.events(); }
  RsPeWords pe(int64_t ri, int64_t ti, int64_t y, int64_t x) const override {
    RsPeWords w = g_.pe(ri, ti, y, x);
    if (g_.cycle() == cycle_ && ri == 0 && ti == 0 && y == 0 && x == 0) {
      std::memcpy(window_, w.window, sizeof window_);
      window_[0] ^= 4u;
      w.window = window_;
    }
    return w;
  }
  size_t tokens() const override { return g_.tokens(); }
  RsTokenWords token(size_t i) const override { return g_.token(i); }
  uint32_t glb(size_t index) const override { return g_.glb(index); }

 private:
  const RsGridView& g_;
  int64_t cycle_;
  mutable uint32_t window_[1];
};

// A PE that adds wrong once in the structural grid, and a window word wrong in what the register
// grid shows: each caught at its cycle, PE and signal.
TEST(StructuralRsPes, CatchAPeThatAddsWrongOnce) {
  RsStructuralCase c;
  RsShape& s = c.shape;
  s.C = 3, s.M = 5, s.H = 7, s.W = 6, s.R = 3, s.S = 3;
  c.limits.rows = 5, c.limits.cols = 4, c.limits.ifmap_spad = 6, c.limits.filter_spad = 24, c.limits.psum_spad = 4;
  c.plan = make_rs_layer_plan(s, plan_rs(s, c.limits).mapping);
  c.operand = NumType::Int8;
  c.data = make_random_rs_data(s, 5, {NumType::Int8, NumType::Int8, NumType::Int8, NumType::Int32});
  c.name = "fault";
  std::vector<RsStepTiming> steps;
  compute_rs_timing(c.plan, 0, nullptr, &steps);
  ASSERT_GT(steps.size(), 2u);
  const int64_t first_mac = steps[0].compute_start, later = steps[2].compute_start;
  RsStructuralGrids grids({c});
  RsStructuralGrid& g = grids.of(c);
  std::string clean, planted, lied;
  std::unique_ptr<RsLyingView> lying;
  StructuralThread thread("rs_faults", [&] {
    clean = run_rs_structural_case(c, g, 0);
    g.plant_fault(first_mac, 4, 0);  // the link path's first PE (bottom left): chain 0's bottom
    planted = run_rs_structural_case(c, g, 0);
    g.plant_fault(-1, 0, 0);
    lied = run_rs_structural_case(c, g, 0, [&](const RsGridView& v) -> const RsGridView& {
      lying = std::make_unique<RsLyingView>(v, later);
      return *lying;
    });
  });
  sc_core::sc_start();
  EXPECT_EQ(clean, "");
  EXPECT_TRUE(std::regex_search(planted, std::regex(fmt::format("cycle {}, PE\\(4,0\\) signal psum_0:", first_mac))))
      << planted;
  EXPECT_TRUE(std::regex_search(lied, std::regex(fmt::format("cycle {}, PE\\(4,0\\) signal window_0:", later)))) << lied;
}

// The RS PEs' links, registers and the networks' buses in the VCD.
TEST(StructuralRsPes, TraceTheLinksAndBusesToVcd) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("cstsim-rs-structural-vcd-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::vector<RsStructuralCase> cases = rs_structural_cases(1, 9);
  RsStructuralGrids grids(cases);
  sc_core::sc_trace_file* vcd = sc_core::sc_create_vcd_trace_file((dir / "pes").c_str());
  vcd->set_time_unit(1, sc_core::SC_PS);
  grids.of(cases[0]).trace(vcd);
  std::string problem = "not run";
  StructuralThread thread("rs_vcd", [&] { problem = run_rs_structural_case(cases[0], grids.of(cases[0]), 0); });
  sc_core::sc_start();
  sc_core::sc_close_vcd_trace_file(vcd);
  EXPECT_EQ(problem, "");
  const std::string text = slurp(dir / "pes.vcd");
  std::filesystem::remove_all(dir);
  for (const char* signal : {"clk", "rst", "cfg_load", "step_start", "step_tag", "fb_valid_0", "fb_data_3", "ib_valid",
                             "ib_data", "pb_valid_0", "link_valid_0", "link_tag_1", "link_0_0", "link_1_7", "psum_0",
                             "window_11", "fifo", "mac", "computing"})
    EXPECT_TRUE(std::regex_search(text, std::regex(std::string("\\$var wire +[0-9]+ +[^ ]+ +") + signal +
                                                   "( \\[31:0\\])? +\\$end")))
        << signal;
  EXPECT_NE(text.find("$scope module pe_0_0 $end"), std::string::npos);
  EXPECT_NE(text.find("#"), std::string::npos);
}

// `cstsim run --verify=structural`: the structural grid beside every pass, reported in summary.json;
// plain --verify as before; arrays past 16x16 refused with one line.
class StructuralCli : public Cli {};

TEST_F(StructuralCli, VerifyStructuralRunsBesideTheRegisterGrid) {
  const std::string arch = file("a.yaml", "array: {rows: 6, cols: 5}\ndataflow: os\n").string();
  const std::string w = gemm(13, 11, 17);
  const Result r = cstsim("run --arch " + arch + " --workload " + w + " --out " + (dir_ / "s").string() +
                          " --verify=structural --vcd-pes -q");
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json s = nlohmann::json::parse(slurp(dir_ / "s" / "summary.json"));
  EXPECT_TRUE(s["verify"]["structural"]["passed"].get<bool>());
  EXPECT_EQ(s["verify"]["structural"]["pes"].get<int>(), 30);
  EXPECT_GT(s["verify"]["structural"]["cycles_compared"].get<int64_t>(), 30);
  EXPECT_NE(slurp(dir_ / "s" / "pes.vcd").find("pe_5_4"), std::string::npos);
  // The same run with plain --verify: the same summary but for the structural block.
  const Result plain = cstsim("run --arch " + arch + " --workload " + w + " --out " + (dir_ / "p").string() +
                              " --verify -q");
  ASSERT_EQ(plain.status, 0) << plain.err;
  nlohmann::json p = nlohmann::json::parse(slurp(dir_ / "p" / "summary.json"));
  EXPECT_FALSE(p["verify"].contains("structural"));
  EXPECT_EQ(p["total"], s["total"]);
  EXPECT_EQ(p["layers"], s["layers"]);
  EXPECT_FALSE(fs::exists(dir_ / "p" / "pes.vcd"));
}

// 2:4 weights on PEs that skip them (a 2:4 layer and one --sparsity leaves dense, two int8 to a
// word): the selects in pes.vcd, the run otherwise as with --verify.
TEST_F(StructuralCli, VerifyStructuralRuns24Weights) {
  const std::string arch = file("a.yaml", "array: {rows: 6, cols: 5}\ndataflow: ws\n").string();
  const std::string w = file("g2.yaml", "name: g\nlayers:\n  - {name: fc, M: 13, N: 11, K: 24}\n"
                                        "  - {name: fc2, M: 7, N: 9, K: 17}\n").string();
  const std::string set = " --sparsity 2:4 --set sparsity.skip_2_4=true --set precision.operand=int8"
                          " --set precision.macs_per_pe.int8=2 -q";
  const Result r = cstsim("run --arch " + arch + " --workload " + w + " --out " + (dir_ / "s").string() +
                          " --verify=structural --vcd-pes" + set);
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json s = nlohmann::json::parse(slurp(dir_ / "s" / "summary.json"));
  EXPECT_TRUE(s["verify"]["structural"]["passed"].get<bool>());
  EXPECT_EQ(s["verify"]["structural"]["passes"].get<int>(), 2);
  EXPECT_NE(slurp(dir_ / "s" / "pes.vcd").find(" s1_1 "), std::string::npos);
  const Result plain = cstsim("run --arch " + arch + " --workload " + w + " --out " + (dir_ / "p").string() +
                              " --verify" + set);
  ASSERT_EQ(plain.status, 0) << plain.err;
  const nlohmann::json p = nlohmann::json::parse(slurp(dir_ / "p" / "summary.json"));
  EXPECT_EQ(p["total"], s["total"]);
  EXPECT_EQ(p["layers"], s["layers"]);
}

// Row stationary on the Eyeriss preset (12 x 14 PEs, over its DRAM channel, zero gating): a
// convolution and a GEMM, with the PE signals in pes.vcd, and the run otherwise as with --verify.
TEST_F(StructuralCli, VerifyStructuralRunsRowStationary) {
  const std::string w = file("c.csv", "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, "
                                      "Num Filter, Strides,\nc1,9,9,3,3,3,5,1,\nc2,8,8,2,2,4,3,2,\n").string();
  const std::string arch = src("configs/arch/eyeriss.yaml");
  const Result r = cstsim("run --arch " + arch + " --workload " + w + " --out " + (dir_ / "s").string() +
                          " --verify=structural --vcd-pes -q");
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json s = nlohmann::json::parse(slurp(dir_ / "s" / "summary.json"));
  EXPECT_TRUE(s["verify"]["passed"].get<bool>());
  EXPECT_TRUE(s["verify"]["structural"]["passed"].get<bool>());
  EXPECT_EQ(s["verify"]["structural"]["pes"].get<int>(), 168);
  int64_t passes = 0;
  for (const auto& l : s["layers"]) passes += l["rs"]["passes"].get<int64_t>();
  EXPECT_EQ(s["verify"]["structural"]["passes"].get<int64_t>(), passes);  // processing passes
  EXPECT_GT(s["verify"]["structural"]["cycles_compared"].get<int64_t>(), 500);
  const std::string vcd = slurp(dir_ / "s" / "pes.vcd");
  for (const char* name : {"$scope module pe_11_13 $end", "link_valid_0", "step_start", "ib_data"})
    EXPECT_NE(vcd.find(name), std::string::npos) << name;
  const Result plain = cstsim("run --arch " + arch + " --workload " + w + " --out " + (dir_ / "p").string() +
                              " --verify -q");
  ASSERT_EQ(plain.status, 0) << plain.err;
  const nlohmann::json p = nlohmann::json::parse(slurp(dir_ / "p" / "summary.json"));
  EXPECT_EQ(p["total"], s["total"]);
  EXPECT_EQ(p["layers"], s["layers"]);
  const Result g = cstsim("run --arch " + arch + " --workload " + gemm(13, 7, 9) + " --out " + (dir_ / "g").string() +
                          " --verify=structural -q");
  ASSERT_EQ(g.status, 0) << g.err;
  EXPECT_TRUE(nlohmann::json::parse(slurp(dir_ / "g" / "summary.json"))["verify"]["structural"]["passed"].get<bool>());
}

TEST_F(StructuralCli, VerifyStructuralRefusesLargeArraysAndScratchpads) {
  const std::string w = gemm(8, 8, 8);
  expect_input_error("run --arch " + file("big.yaml", "array: {rows: 17, cols: 4}\ndataflow: ws\n").string() +
                         " --workload " + w + " --verify=structural",
                     "--verify: structural mode elaborates one sc_module per PE and takes arrays up to 16x16; this "
                     "one is 17x4");
  expect_input_error("run --arch " +
                         file("spad.yaml", "array: {rows: 4, cols: 4}\ndataflow: rs\n"
                                           "rs: {psum_spad: 300, filter_spad: 400}\n").string() +
                         " --workload " + w + " --verify=structural",
                     "--verify: structural mode's row-stationary PEs hold up to 256 psums and 256 ifmap words a PE; "
                     "this arch allows 300 and 12 (rs.psum_spad, rs.ifmap_spad)");
  const std::string small = file("a.yaml", "array: {rows: 4, cols: 4}\ndataflow: is\n").string();
  expect_input_error("run --arch " + small + " --workload " + w + " --verify=gates", "--verify: takes no value");
  expect_input_error("run --arch " + small + " --workload " + w + " --verify --vcd-pes",
                     "--vcd-pes: needs --verify=structural");
}

}  // namespace
}  // namespace cstsim
