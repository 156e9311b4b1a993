// Sweep specs: expansion order, hash stability, constraints, explicit points,
// ranges, batch sizes, every malformed-spec error (one line, file:line:key);
// and the Pareto dominance rule. No simulation runs here.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/input_error.h"
#include "sim/sweep/constraint.h"
#include "core/csv.h"
#include "sim/sweep/pareto.h"
#include "sim/sweep/spec.h"
#include "sim/sweep/sweep_dir.h"
#include "sim/workload/workload.h"

namespace fs = std::filesystem;
using namespace cstsim;
using namespace cstsim::sweep;

namespace {

class SweepSpec : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cstsim-sweepspec-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    file("a.yaml", "layers:\n  - {name: g, M: 20, N: 12, K: 30}\n");
    file("b.csv", "Layer,M,N,K,\nx,40,10,10,\n");
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string file(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  static std::string base() { return std::string(CSTSIM_SOURCE_DIR) + "/configs/arch/npu-128.yaml"; }
  std::string spec(const std::string& body) { return file("spec.yaml", "base: " + base() + "\n" + body); }

  // Expanding `body` fails with one line naming spec.yaml:line: key.
  void expect_error(const std::string& body, int line, const std::string& key, const std::string& words = "") {
    const std::string s = spec(body);
    try {
      expand(s);
      ADD_FAILURE() << "no error for:\n" << body;
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_EQ(e.file(), s) << what;
      EXPECT_EQ(e.line(), line) << what;
      EXPECT_EQ(e.key(), key) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos);
      EXPECT_NE(what.find(words), std::string::npos) << what;
    }
  }
  static std::string row(const Plan& p, const Task& t) {
    std::string s = p.variants[t.variant].name + "/b" + std::to_string(p.variants[t.variant].batch);
    for (const std::string& v : t.params) s += "/" + v;
    return s;
  }
  fs::path dir_;
};

TEST_F(SweepSpec, ProductOrderIsWorkloadThenBatchThenGridWithTheLastKeyFastest) {
  const Plan p = expand(spec("workloads: [a.yaml, b.csv]\nbatch: [1, 2]\n"
                             "grid:\n  array.rows: [8, 16]\n  dataflow: [ws, os]\n"));
  ASSERT_EQ(p.tasks.size(), 16u);
  EXPECT_EQ(p.param_keys, (std::vector<std::string>{"array.rows", "dataflow"}));
  const char* want[] = {"a/b1/8/ws", "a/b1/8/os", "a/b1/16/ws", "a/b1/16/os", "a/b2/8/ws", "a/b2/8/os",
                        "a/b2/16/ws", "a/b2/16/os", "b/b1/8/ws", "b/b1/8/os"};
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(row(p, p.tasks[i]), want[i]) << i;
    EXPECT_EQ(p.tasks[i].index, int(i));
  }
  const std::string csv = tasks_csv(p);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "index,workload,batch,array.rows,dataflow,hash");
  EXPECT_NE(csv.find("\n0,a,1,8,ws,"), std::string::npos);
  // Every point is a distinct simulation.
  std::set<std::string> hashes;
  for (const Task& t : p.tasks) hashes.insert(t.hash);
  EXPECT_EQ(hashes.size(), 16u);
}

TEST_F(SweepSpec, HashesAreStableAndIndependentOfSpelling) {
  const Plan a = expand(spec("workloads: [a.yaml]\ngrid:\n  array.rows: [8, 16]\n  dataflow: [ws, os]\n"));
  const Plan a2 = expand(spec("workloads: [a.yaml]\ngrid:\n  array.rows: [8, 16]\n  dataflow: [ws, os]\n"));
  EXPECT_EQ(tasks_csv(a), tasks_csv(a2));
  // Same points written differently (flow style, comments, another value order) hash the same.
  const Plan b = expand(spec("# comment\nworkloads: [a.yaml]\ngrid: {dataflow: [os, ws], array.rows: [16, 8]}\n"));
  std::map<std::string, std::string> ha, hb;
  for (const Task& t : a.tasks) ha[t.params[0] + t.params[1]] = t.hash;
  for (const Task& t : b.tasks) hb[t.params[1] + t.params[0]] = t.hash;
  EXPECT_EQ(ha, hb);
  for (const auto& [k, h] : ha) EXPECT_EQ(h.size(), 16u);
  // Canonical values: 1e9 and 1000000000 are the same clock.
  const Plan c = expand(spec("workloads: [a.yaml]\ngrid: {clock_hz: [1e9, 5.0e8]}\n"));
  EXPECT_EQ(c.tasks[0].params[0], "1000000000");
  EXPECT_EQ(c.tasks[1].params[0], "500000000");
}

TEST_F(SweepSpec, ConstraintsFilterTheGrid) {
  const Plan p = expand(spec("workloads: [a.yaml, b.csv]\nbatch: [1, 4]\n"
                             "grid:\n  array.rows: [8, 16, 32]\n  array.cols: [8, 16, 32]\n  dataflow: [ws, os, is]\n"
                             "constraints:\n  - array.rows == array.cols\n  - array.rows * array.cols <= 256\n"
                             "  - dataflow != 'is' || batch == 1\n  - workload == 'a' || array.rows == 8\n"));
  EXPECT_EQ(p.grid_points, 2 * 2 * 27);
  for (const Task& t : p.tasks) {
    const auto& v = p.variants[t.variant];
    EXPECT_EQ(t.params[0], t.params[1]);
    EXPECT_NE(t.params[0], "32");
    if (t.params[2] == "is") {
      EXPECT_EQ(v.batch, 1);
    }
    if (v.name == "b") {
      EXPECT_EQ(t.params[0], "8");
    }
  }
  // a: b1 {8,16}x3 + b4 {8,16}x2 = 10; b: b1 8x3 + b4 8x2 = 5
  EXPECT_EQ(p.tasks.size(), 15u);
  EXPECT_EQ(p.rejected, p.grid_points - 15);
}

TEST_F(SweepSpec, ConstraintParser) {
  auto is_key = [](const std::string& k) { return k == "a" || k == "b" || k == "s"; };
  std::map<std::string, std::string> v{{"a", "4"}, {"b", "8"}, {"s", "ws"}};
  auto val = [&](const std::string& k) { return v.at(k); };
  auto holds = [&](const std::string& t) { return Constraint::parse(t, "f", 3, is_key).holds(val); };
  EXPECT_TRUE(holds("a < b"));
  EXPECT_TRUE(holds("a * 2 == b"));
  EXPECT_TRUE(holds("a*a >= 16 && s == 'ws'"));
  EXPECT_FALSE(holds("a > b || s != \"ws\""));
  EXPECT_TRUE(holds("a > b || s == 'ws' && b == 8"));
  EXPECT_TRUE(holds("a == 4.0"));
  // Arithmetic with C's precedence, parentheses, unary minus and !.
  EXPECT_TRUE(holds("a + b * 2 == 20"));
  EXPECT_TRUE(holds("(a + b) * 2 == 24"));
  EXPECT_TRUE(holds("b / a - 1 == 1 && -a == 0 - 4"));
  EXPECT_TRUE(holds("(a + b + 4) * 1024 <= 16 * 1024"));  // an SRAM budget
  EXPECT_TRUE(holds("!(a > b) && !(s == 'os')"));
  EXPECT_FALSE(holds("(a > b || s == 'ws') && b != 8"));
  EXPECT_TRUE(holds("a > b || (s == 'ws' && b == 8)"));
  EXPECT_TRUE(holds("a * 2.5e1 == 100"));
  for (const char* bad : {"", "a", "a = b", "a == ", "rows == cols", "a == b c", "'x' == 'y'", "s < 'ws'",
                          "a == 'unterminated", "a # b", "a + 's' == 1", "(a == 1) + 2 == 3", "a && b", "!a",
                          "inf == a", "(a == 1", "a == 1)", "(a < b) == (b < a)", "-'x' == a"}) {
    try {
      Constraint::parse(bad, "f", 3, is_key);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(e.line(), 3);
      EXPECT_EQ(e.key(), "constraints");
    }
  }
  EXPECT_THROW(holds("s * 2 == 4"), InputError);  // a product of a non-number
  EXPECT_THROW(holds("s < b"), InputError);       // ordering a non-number
}

TEST_F(SweepSpec, ExplicitPointsRangesSetAndDuplicates) {
  const Plan p = expand(spec("workloads: [a.yaml, b.csv]\n"
                             "grid:\n  array.rows: {from: 8, to: 32, times: 2}\n"
                             "set: {array.cols: 16, fold_pipeline: scalesim}\n"
                             "points:\n"
                             "  - {array.rows: 64, dataflow: is}\n"
                             "  - {array.rows: 8, workload: b}\n"        // equal to a grid point: dropped
                             "  - {array.rows: 128, workload: a, batch: 3}\n"));
  EXPECT_EQ(p.param_keys, (std::vector<std::string>{"array.rows", "dataflow", "array.cols", "fold_pipeline"}));
  std::vector<std::string> rows;
  for (const Task& t : p.tasks) rows.push_back(row(p, t));
  const std::vector<std::string> want{"a/b1/8/ws/16/scalesim",  "a/b1/16/ws/16/scalesim", "a/b1/32/ws/16/scalesim",
                                      "b/b1/8/ws/16/scalesim",  "b/b1/16/ws/16/scalesim", "b/b1/32/ws/16/scalesim",
                                      "a/b1/64/is/16/scalesim", "b/b1/64/is/16/scalesim", "a/b3/128/ws/16/scalesim"};
  EXPECT_EQ(rows, want);
  EXPECT_EQ(p.duplicates, 1);
  // --set carries only what the spec sets, in order: set first, then the point's values.
  EXPECT_EQ(p.tasks[6].overrides,
            (Overrides{{"array.cols", "16"}, {"fold_pipeline", "scalesim"}, {"array.rows", "64"}, {"dataflow", "is"}}));
  const std::vector<std::string> args = point_args(p, p.tasks[8], "/sweep");
  EXPECT_EQ(args[5], "/sweep/workloads/a-b3.yaml");
  EXPECT_EQ(args[7], "/sweep/points/8");
}

TEST_F(SweepSpec, BatchScalesMOfEveryLayer) {
  const Plan p = expand(spec("workloads: [b.csv]\nbatch: [1, 3]\n"));
  ASSERT_EQ(p.variants.size(), 2u);
  EXPECT_EQ(p.variants[0].file, (dir_ / "b.csv").string());
  EXPECT_EQ(p.variants[1].file, "workloads/b-b3.yaml");
  EXPECT_NE(p.variants[1].derived_text.find("{name: \"x\", M: 120, N: 10, K: 10}"), std::string::npos)
      << p.variants[1].derived_text;
  EXPECT_NE(p.tasks[0].hash, p.tasks[1].hash);
  // The derived file is what the point runs; it is written into the sweep directory.
  prepare_dir(p, dir_ / "sw");
  EXPECT_EQ(io::read_file(dir_ / "sw" / "workloads" / "b-b3.yaml"), p.variants[1].derived_text);
  EXPECT_EQ(plan_difference(load_plan(dir_ / "sw"), p), "");
  // Another plan in the same directory is refused, and nothing is changed.
  const Plan q = expand(spec("workloads: [b.csv]\nbatch: [1, 2]\n"));
  EXPECT_THROW(prepare_dir(q, dir_ / "sw"), InputError);
  EXPECT_FALSE(fs::exists(dir_ / "sw" / "workloads" / "b-b2.yaml"));
}

// The small attention block and CNN of tests/data, their MACs at batch B computed here from the shapes
// as written (not from the simulator's lowering).
constexpr int64_t kS = 16, kD = 32, kH = 4;
int64_t block_macs(int64_t B) { return 3 * B * kS * kD * kD + 2 * B * kH * kS * kS * (kD / kH); }
// conv1: 18x18 out (padding 1), conv2: 5x5 out from the 9x9 pool (stride 2, padding 1).
int64_t cnn_macs(int64_t B) { return B * (18 * 18 * 16 * 9 * 8 + 5 * 5 * 16 * 9 * 16 + 16 * 10); }

TEST_F(SweepSpec, BatchOnAGraphScalesItsBatchDimensionAndKeepsEveryOp) {
  file("blk.yaml", io::read_file(std::string(CSTSIM_SOURCE_DIR) + "/tests/data/attention-block.yaml"));
  file("cnn.yaml", io::read_file(std::string(CSTSIM_SOURCE_DIR) + "/tests/data/small-cnn.yaml"));
  const Plan p = expand(spec("workloads: [blk.yaml, cnn.yaml]\nbatch: [1, 2, 4]\n"));
  ASSERT_EQ(p.variants.size(), 6u);
  std::map<std::string, Workload> one;
  for (const WorkloadVariant& v : p.variants) {
    const Workload w = v.batch == 1 ? load_workload(v.file) : read_workload_text(v.file, v.derived_text);
    if (v.batch == 1) one[v.name] = w;
    const Workload& w1 = one.at(v.name);
    int64_t macs = 0;
    for (const Layer& l : w.layers) macs += l.macs();
    EXPECT_EQ(macs, v.name == "blk" ? block_macs(v.batch) : cnn_macs(v.batch)) << v.name << " b" << v.batch;
    EXPECT_TRUE(w.is_graph) << v.derived_text;
    // Every layer and vector op is still there, in order, with its dtypes.
    ASSERT_EQ(w.layers.size(), w1.layers.size()) << v.name;
    for (size_t i = 0; i < w.layers.size(); ++i) {
      EXPECT_EQ(w.layers[i].name, w1.layers[i].name);
      EXPECT_EQ(w.layers[i].dtypes, w1.layers[i].dtypes);
      EXPECT_EQ(w.layers[i].conv.has_value(), w1.layers[i].conv.has_value());
    }
    ASSERT_EQ(w.vector_steps.size(), w1.vector_steps.size()) << v.name;
    for (size_t i = 0; i < w.vector_steps.size(); ++i) {
      EXPECT_EQ(w.vector_steps[i].name, w1.vector_steps[i].name);
      EXPECT_EQ(w.vector_steps[i].rows, v.batch * w1.vector_steps[i].rows) << w.vector_steps[i].name;
    }
  }
  std::vector<std::string> ops;  // every vector op of the block, each once
  for (const VectorStep& step : one.at("blk").vector_steps)
    if (ops.empty() || ops.back() != step.op) ops.push_back(step.op);
  EXPECT_EQ(ops, (std::vector<std::string>{"norm", "attn.scale", "attn.softmax", "res", "act"}));
  // The derived graph keeps the attributes and the weights as written.
  const std::string& blk4 = p.variants[2].derived_text;
  for (const char* kept : {"{name: x, shape: [4, 16, 32], dtype: int8, role: activation}",
                           "{name: wq, shape: [32, 32], dtype: int8, role: weight}", "heads: 4, causal: true"})
    EXPECT_NE(blk4.find(kept), std::string::npos) << kept << "\n" << blk4;
  EXPECT_NE(p.variants[4].derived_text.find("shape: [2, 16]"), std::string::npos) << p.variants[4].derived_text;
}

TEST_F(SweepSpec, BatchIsRefusedWhereAWorkloadHasNoBatchDimension) {
  file("flat.yaml", "tensors:\n  - {name: x, shape: [64], dtype: int8, role: activation}\n"
                    "  - {name: n, shape: [64], dtype: int8, role: weight}\nops:\n"
                    "  - {name: norm, op: rmsnorm, in: [x, n], out: y}\n");
  file("weights.yaml", "tensors:\n  - {name: a, shape: [8, 8], dtype: int8, role: weight}\n"
                       "  - {name: b, shape: [8, 8], dtype: int8, role: weight}\nops:\n"
                       "  - {name: mm, op: matmul, in: [a, b], out: c}\n");
  file("cls.yaml", "tensors:\n  - {name: x, shape: [1, 4, 16], dtype: int8, role: activation}\n"
                   "  - {name: cls, shape: [1, 1, 16], dtype: int8, role: weight}\nops:\n"
                   "  - {name: join, op: concat, in: [cls, x], out: y, axis: 1}\n");
  file("conv.csv", "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n"
                   "c1, 10, 10, 3, 3, 4, 8, 1,\n");
  expect_error("workloads: [flat.yaml]\nbatch: [1, 2]\n", 3, "batch", "flat.yaml:2: x: the activation has one dimension");
  expect_error("workloads: [weights.yaml]\nbatch: [2]\n", 3, "batch", "no activation or KV cache among its inputs");
  expect_error("workloads: [cls.yaml]\nbatch: [1, 4]\n", 3, "batch", "concat 'join': cls and x differ off the axis");
  expect_error("workloads: [conv.csv]\npoints:\n  - {batch: 2}\n", 4, "batch", "conv.csv:2: c1: a convolution row");
  // At batch 1 every one of them runs as written.
  for (const char* w : {"flat.yaml", "weights.yaml", "cls.yaml", "conv.csv"})
    EXPECT_EQ(expand(spec(std::string("workloads: [") + w + "]\nbatch: [1]\n")).tasks.size(), 1u) << w;
}

TEST_F(SweepSpec, BatchOfALayerListKeepsInputAndDensity) {
  file("l.yaml", "layers:\n  - {name: a, M: 4, N: 8, K: 8, input_density: 0.25}\n"
                 "  - {name: b, M: 4, N: 8, K: 8, input: none}\n");
  const Plan p = expand(spec("workloads: [l.yaml]\nbatch: [3]\n"));
  const Workload w = read_workload_text(p.variants[0].file, p.variants[0].derived_text);
  ASSERT_EQ(w.layers.size(), 2u);
  EXPECT_EQ(w.layers[0].M, 12);
  EXPECT_EQ(w.layers[0].input_density, 0.25);
  ASSERT_TRUE(w.layers[1].reads_previous.has_value());
  EXPECT_FALSE(*w.layers[1].reads_previous);
}

TEST_F(SweepSpec, MalformedSpecsAreOneLineErrorsWithFileLineKey) {
  // (base is line 1 of every spec below)
  expect_error("workloads: [a.yaml]\ngird: {dataflow: [ws]}\n", 3, "gird", "unknown key");
  expect_error("workloads: [a.yaml]\ngrid:\n  array.rowz: [8]\n", 4, "array.rowz", "unknown config key");
  expect_error("workloads: [a.yaml]\ngrid:\n  dataflow: []\n", 4, "dataflow", "empty");
  expect_error("workloads: []\n", 2, "workloads", "empty");
  expect_error("workloads: [a.yaml]\nbatch: []\n", 3, "batch", "empty");
  expect_error("workloads: [a.yaml]\ngrid:\n  array.rows: [8, 16]\n  array.cols: [32]\n"
               "constraints:\n  - array.rows == array.cols\n",
               6, "constraints", "no point satisfies");
  expect_error("workloads: [a.yaml]\ngrid: {array.rows: [8]}\nconstraints:\n  - array.rows = 8\n", 5, "constraints",
               "bad constraint");
  expect_error("workloads: [a.yaml]\ngrid: {array.rows: [8]}\nconstraints: [rows == cols]\n", 4, "constraints",
               "unknown key 'rows'");
  expect_error("workloads: [a.yaml]\ngrid: {dataflow: [ws]}\nconstraints: [\"dataflow < 3\"]\n", 4, "constraints",
               "needs numbers");
  expect_error("workloads: [a.yaml]\ngrid:\n  array.rows: [8,\n    0]\n", 5, "array.rows", "positive");
  expect_error("workloads: [a.yaml]\ngrid:\n  dataflow: [ws, xs]\n", 4, "dataflow", "");
  expect_error("workloads: [a.yaml]\ngrid:\n  dataflow: [ws, ws]\n", 4, "dataflow", "twice");
  expect_error("workloads: [a.yaml]\ngrid:\n  batch: [1]\n", 4, "batch", "top level");
  expect_error("workloads: [a.yaml]\nbatch: [1, 0]\n", 3, "batch", "positive");
  expect_error("workloads: [a.yaml, a.yaml]\n", 2, "workloads", "two workloads");
  expect_error("workloads: [nope.yaml]\n", 2, "workloads", "cannot open");
  expect_error("workloads: [a.yaml]\nrun: {timeout: -1}\n", 3, "run.timeout", "");
  expect_error("workloads: [a.yaml]\nrun: {retries: 2}\n", 3, "run.retries", "unknown key");
  expect_error("workloads: [a.yaml]\nrun:\n  fidelity: rough\n", 4, "run.fidelity", "exact, sampled or auto");
  expect_error("workloads: [a.yaml]\nrun:\n  fidelity: sampled\n", 4, "run.fidelity", "run.trace: false");
  expect_error("workloads: [a.yaml]\nset: {dataflow: ws}\ngrid: {dataflow: [os]}\n", 3, "dataflow", "both");
  expect_error("workloads: [a.yaml]\npoints:\n  - {array.rows: 8, color: red}\n", 4, "color", "unknown config key");
  expect_error("workloads: [a.yaml]\npoints:\n  - {workload: zz}\n", 4, "workload", "not one of");
  expect_error("workloads: [a.yaml]\ngrid: {array.rows: {from: 8, to: 64}}\n", 3, "array.rows", "range");
  expect_error("workloads: [a.yaml]\ngrid: {array.rows: [8]}\ngrid: {array.cols: [8]}\n", 4, "grid", "duplicate");
  expect_error("grid: {array.rows: [8]}\n", 0, "workloads", "required");
  {  // no base
    const std::string s = file("nobase.yaml", "workloads: [a.yaml]\n");
    try {
      expand(s);
      ADD_FAILURE();
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), "base");
    }
  }
  {  // malformed YAML
    const std::string s = file("bad.yaml", "base: x\nworkloads: [a.yaml\n");
    EXPECT_THROW(expand(s), InputError);
  }
}

TEST(SweepCsv, QuotesAndParsesBack) {
  const std::string r = csv::row({"a", "b,c", "say \"hi\"", "x\ny", ""});
  EXPECT_EQ(r, "a,\"b,c\",\"say \"\"hi\"\"\",\"x\ny\",\n");
  std::vector<std::vector<std::string>> rows;
  ASSERT_TRUE(csv::parse("h1,h2\r\n" + r, rows));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1], (std::vector<std::string>{"a", "b,c", "say \"hi\"", "x\ny", ""}));
  EXPECT_FALSE(csv::parse("a,\"b\n", rows));
  EXPECT_EQ(ranges({0, 1, 2, 5, 7, 8}), "0-2,5,7-8");
}

TEST(SweepPareto, DominanceRule) {
  const ParetoPoint a{{1, 2}, {}}, b{{2, 2}, {}}, c{{1, 2}, {}}, d{{0, 3}, {}};
  EXPECT_TRUE(dominates(a, b));   // no worse anywhere, strictly better once
  EXPECT_FALSE(dominates(b, a));
  EXPECT_FALSE(dominates(a, c));  // ties dominate neither way
  EXPECT_FALSE(dominates(c, a));
  EXPECT_FALSE(dominates(a, d));  // a trade-off
  EXPECT_FALSE(dominates(d, a));
  // Quality axes are maximised.
  EXPECT_TRUE(dominates(ParetoPoint{{1}, {0.9}}, ParetoPoint{{1}, {0.5}}));
  EXPECT_FALSE(dominates(ParetoPoint{{1}, {0.5}}, ParetoPoint{{2}, {0.9}}));
  const std::vector<int> by = dominated_by({a, b, c, d, ParetoPoint{{5, 5}, {}}});
  EXPECT_EQ(by, (std::vector<int>{-1, 0, -1, -1, 0}));
}

class SweepParetoReport : public SweepSpec {
 protected:
  std::string run(const ParetoOptions& o) {
    ::testing::internal::CaptureStdout();
    pareto_report(o);
    return ::testing::internal::GetCapturedStdout();
  }
};

TEST_F(SweepParetoReport, FrontTiesAndASingleWinner) {
  // Group w=x: 0 and 1 trade off, 2 ties 0 exactly, 3 is dominated by 0; 4 failed.
  // Group w=y: 5 dominates 6 and 7.
  const std::string r = file("results.csv",
                             "index,status,workload,batch,array.rows,hash,cycles,energy.E_gross,utilization\n"
                             "0,done,x,1,8,h0,100,5,0.5\n"
                             "1,done,x,1,16,h1,50,9,0.5\n"
                             "2,done,x,1,8,h2,100,5,0.5\n"
                             "3,done,x,1,32,h3,120,5,0.5\n"
                             "4,failed,x,1,64,h4,,,\n"
                             "5,done,y,1,8,h5,10,1,0.9\n"
                             "6,done,y,1,16,h6,20,1,0.9\n"
                             "7,done,y,1,32,h7,10,2,0.8\n");
  ParetoOptions o;
  o.results = r;
  o.axes = {"cycles", "energy"};
  o.quality = {"utilization"};
  const std::string text = run(o);
  EXPECT_NE(text.find("§140"), std::string::npos);
  EXPECT_NE(text.find("group workload=x batch=1: 4 point(s), 3 on the front"), std::string::npos) << text;
  EXPECT_NE(text.find("no single winner: 3 points trade"), std::string::npos) << text;
  EXPECT_NE(text.find("single winner: point 5 dominates every other point"), std::string::npos) << text;
  EXPECT_NE(text.find("1 row(s) left out"), std::string::npos) << text;
  const std::string out = io::read_file(dir_ / "pareto.csv");
  EXPECT_NE(out.find("index,workload,batch,array.rows,cycles,energy.E_gross,utilization,front,dominated_by,dominates\n"),
            std::string::npos) << out;
  EXPECT_NE(out.find("\n0,x,1,8,100,5,0.5,1,,1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\n2,x,1,8,100,5,0.5,1,,1\n"), std::string::npos) << out;  // tie: both on the front
  EXPECT_NE(out.find("\n3,x,1,32,120,5,0.5,0,0,0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\n7,y,1,32,10,2,0.8,0,5,0\n"), std::string::npos) << out;

  // Only tied points: no winner, and they say so.
  const std::string t = file("ties.csv", "index,cycles\n0,5\n1,5\n");
  o.results = t;
  o.axes = {"cycles"};
  o.quality = {};
  o.out = (dir_ / "p2.csv").string();
  EXPECT_NE(run(o).find("2 points tie on every axis"), std::string::npos);

  // An unknown axis is an input error naming the file and the option.
  o.axes = {"cycles", "watts"};
  try {
    run(o);
    ADD_FAILURE();
  } catch (const InputError& e) {
    ::testing::internal::GetCapturedStdout();
    EXPECT_EQ(e.key(), "--axes");
    EXPECT_NE(std::string(e.what()).find("watts"), std::string::npos);
  }
}

}  // namespace
