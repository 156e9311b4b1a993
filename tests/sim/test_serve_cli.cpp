// `cstsim serve` end to end on a small Llama-shaped model (tests/data/serve/): the files it
// writes, the laws its logs obey, and its pricing (parts on a grid) against every iteration
// simulated whole.
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/csv.h"
#include "tests/sim/cli_fixture.h"

namespace serve_cli_test {

const std::string kSrc = CSTSIM_SOURCE_DIR;
const std::string kArch = kSrc + "/configs/arch/npu-128-hbm3.yaml";
const std::string kModel = kSrc + "/tests/data/serve/tiny-model.yaml";
const std::string kBurst = kSrc + "/tests/data/serve/burst.csv";

std::vector<std::map<std::string, std::string>> table(const fs::path& p) {
  std::vector<std::vector<std::string>> rows;
  EXPECT_TRUE(cstsim::csv::parse(slurp(p), rows)) << p;
  std::vector<std::map<std::string, std::string>> out;
  for (size_t i = 1; i < rows.size(); ++i) {
    std::map<std::string, std::string> r;
    for (size_t k = 0; k < rows[0].size() && k < rows[i].size(); ++k) r[rows[0][k]] = rows[i][k];
    out.push_back(r);
  }
  return out;
}

class ServeCli : public Cli {};

TEST_F(ServeCli, WritesItsLogsAndTheyAgree) {
  const fs::path out = dir_ / "serve";
  const Result r = cstsim("serve -q --arch " + kArch + " --model " + kModel + " --requests " + kBurst +
                          " --token-budget 256 --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto reqs = table(out / "requests.csv");
  const auto its = table(out / "iterations.csv");
  ASSERT_EQ(reqs.size(), 6u);
  // Each request: arrival <= scheduled < first token <= finish; TTFT and TPOT from them.
  for (const auto& q : reqs) {
    const double a = std::stod(q.at("arrival_s")), s = std::stod(q.at("scheduled_s")), f = std::stod(q.at("first_token_s")),
                 e = std::stod(q.at("finish_s"));
    EXPECT_LE(a, s);
    EXPECT_LT(s, f);
    EXPECT_LE(f, e);
    EXPECT_NEAR(std::stod(q.at("ttft_s")), f - a, 1e-12);
    const int64_t n = std::stoll(q.at("output_tokens"));
    if (n > 1) EXPECT_NEAR(std::stod(q.at("tpot_s")), (e - f) / double(n - 1), 1e-12);
  }
  // The iterations tile the run: each starts where the one before ended (all six arrive at once).
  double t = 0;
  int64_t tokens = 0;
  for (const auto& it : its) {
    EXPECT_NEAR(std::stod(it.at("start_s")), t, 1e-12);
    t += std::stod(it.at("seconds"));
    tokens += std::stoll(it.at("tokens"));
    EXPECT_LE(std::stoll(it.at("tokens")), 256);
  }
  // Prompts 717 tokens, outputs 42: every prompt token and every output token but each last.
  EXPECT_EQ(tokens, 717 + 42 - 6);
  const nlohmann::json s = nlohmann::json::parse(slurp(out / "summary.json"));
  EXPECT_NEAR(s["makespan_s"].get<double>(), t, 1e-12);
  EXPECT_EQ(s["requests"]["output_tokens"], 42);
  EXPECT_NEAR(s["throughput"]["output_tokens_per_s"].get<double>(), 42 / t, 1e-6 * 42 / t);
  EXPECT_EQ(s["pricing"]["estimate"], true);
  // The first iteration is the 200-token prompt and the 40-token one (budget 256, the 96 does not
  // fit): priced as layers x (dense(240) + attention(200, 0) + attention(40, 0)) + head(2), each
  // part interpolated between its simulated grid points.
  std::map<std::string, double> p;
  for (const auto& row : table(out / "pricing.csv")) p[row.at("part") + ":" + row.at("q") + ":" + row.at("context")] = std::stod(row.at("seconds"));
  auto lerp = [&](const std::string& part, int lo, int hi, int x) {
    const double a = p.at(part + ":" + std::to_string(lo) + ":0"), b = p.at(part + ":" + std::to_string(hi) + ":0");
    return a + (b - a) * double(x - lo) / double(hi - lo);
  };
  const double first = 2 * (lerp("dense", 128, 256, 240) + lerp("attention", 128, 256, 200) + lerp("attention", 16, 64, 40)) +
                       lerp("head", 1, 16, 2);
  ASSERT_GE(its.size(), 1u);
  EXPECT_NEAR(std::stod(its[0].at("seconds")), first, 1e-9 * first);
  EXPECT_EQ(its[0].at("seqs"), "2");
  // The trace: one span per phase per request, counters of the KV cache.
  const nlohmann::json tr = nlohmann::json::parse(slurp(out / "trace" / "serve.json"));
  int spans = 0, counters = 0;
  for (const auto& e : tr["traceEvents"]) {
    spans += e["ph"] == "X" && e["pid"] == 1;
    counters += e["ph"] == "C" && e["name"] == "kv_cache_bytes";
  }
  EXPECT_EQ(spans, 6 * 2 + 4);  // prefill and decode each; the four not in the first iteration queued
  EXPECT_EQ(counters, int(its.size()));
}

TEST_F(ServeCli, PlotsItsFigures) {
  const fs::path out = dir_ / "serve";
  Result r = cstsim("serve -q --arch " + kArch + " --model " + kModel + " --requests " + kBurst + " --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  r = cstsim("plot " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("plot: [1/1] serving (latency CDFs, KV cache, throughput)"), std::string::npos) << r.out;
  for (const char* f : {"serve-latency", "serve-kv", "serve-throughput"})
    for (const char* ext : {".png", ".pdf"}) EXPECT_GT(fs::file_size(out / "figures" / (std::string(f) + ext)), 1000u) << f << ext;
}

// The KV cache's capacity is a knob with its physics. Four requests of 20 + 60 tokens arrive at
// once: a cache of 40 blocks of 4 tokens admits all four (5 blocks each) but cannot hold them
// grown (20 each), so requests are preempted and recomputed, and the same work takes longer; the
// cache the arch's HBM leaves never fills.
TEST_F(ServeCli, ASmallerKvCacheForcesPreemptions) {
  const fs::path trace = file("four.csv", "arrival_s,prompt_tokens,output_tokens\n0,20,60\n0,20,60\n0,20,60\n0,20,60\n");
  auto run = [&](const std::string& name, const std::string& extra) {
    const Result r = cstsim("serve -q --no-check --block-tokens 4 --cache " + (dir_ / "cache").string() + " --arch " + kArch +
                            " --model " + kModel + " --requests " + trace.string() + " --out " + (dir_ / name).string() + " " + extra);
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(slurp(dir_ / name / "summary.json"));
  };
  // The model's K and V: 2 layers x 2 x 128 values x 2 B = 1 KiB a token, 4 KiB a block.
  const nlohmann::json big = run("big", ""), small = run("small", "--kv-gib 0.000152587890625");  // 160 KiB: 40 blocks
  EXPECT_EQ(small["kv_cache"]["blocks"], 40);
  EXPECT_EQ(big["preemptions"], 0);
  EXPECT_GT(small["preemptions"].get<int>(), 0);
  EXPECT_GT(small["recomputed_tokens"].get<int>(), 0);
  EXPECT_LE(small["kv_cache"]["peak_blocks"].get<int>(), 40);
  EXPECT_EQ(big["kv_cache"]["peak_blocks"], 80);
  EXPECT_GT(small["makespan_s"].get<double>(), big["makespan_s"].get<double>());
}

// Simulating the grid's points two at a time first (-j 2) prices every iteration the same.
TEST_F(ServeCli, ParallelPricingGivesTheSameRun) {
  for (const char* j : {"1", "2"}) {
    const Result r = cstsim(std::string("serve -q --no-check -j ") + j + " --arch " + kArch + " --model " + kModel +
                            " --requests " + kBurst + " --token-budget 256 --out " + (dir_ / j).string());
    ASSERT_EQ(r.status, 0) << r.err;
  }
  EXPECT_EQ(slurp(dir_ / "1" / "iterations.csv"), slurp(dir_ / "2" / "iterations.csv"));
  EXPECT_EQ(slurp(dir_ / "1" / "requests.csv"), slurp(dir_ / "2" / "requests.csv"));
}

TEST_F(ServeCli, BadInputsAreOneLineAndWriteNothing) {
  const fs::path out = dir_ / "serve";
  auto run = [&](const std::string& args) { return cstsim("serve -q --arch " + kArch + " --out " + out.string() + " " + args); };
  Result r = run("--model " + kModel + " --requests " + file("r.csv", "arrival_s,prompt_tokens,output_tokens\n0,10,x\n").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("r.csv:2: output_tokens: must be a whole number"), std::string::npos) << r.err;
  r = run("--model " + file("m.yaml", "name: m\nlayers: 2\nhidden: 64\nheads: 3\nffn: 128\nvocab: 100\n").string() + " --requests " + kBurst);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("m.yaml:4: heads: 3 does not divide hidden (64)"), std::string::npos) << r.err;
  r = run("--model " + kModel + " --requests " + kBurst + " --kv-gib 0.0001");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("burst.csv:2: request 0 (200 + 6 tokens) needs 13 KV blocks of 16 tokens; the cache holds 6"), std::string::npos) << r.err;
  r = run("--model " + kModel + " --requests " + kBurst + " --pricing guess");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--pricing: must be parts or iteration"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

// The pricing's estimate against its reference: every iteration's whole graph simulated exactly.
// Measured on this case: makespan -2.1 %, the worst iteration -4.3 % (decode iterations, where
// each of a block's many small parts is simulated alone; the parts' sum misses what a whole
// iteration spends between them).
TEST_F(ServeCli, LongPartsAgreeWithWholeIterationsSimulatedExactly) {
  auto run = [&](const std::string& name, const std::string& args) {
    const fs::path out = dir_ / name;
    const Result r = cstsim("serve -q --arch " + kArch + " --model " + kModel + " --requests " + kBurst +
                            " --token-budget 256 --out " + out.string() + " " + args);
    EXPECT_EQ(r.status, 0) << r.err;
    std::vector<double> s;
    for (const auto& it : table(out / "iterations.csv")) s.push_back(std::stod(it.at("seconds")));
    return s;
  };
  const std::vector<double> parts = run("parts", ""), whole = run("whole", "--pricing iteration --fidelity exact");
  ASSERT_EQ(parts.size(), whole.size());
  double a = 0, b = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    a += parts[i];
    b += whole[i];
    EXPECT_NEAR(parts[i] / whole[i], 1.0, 0.05) << "iteration " << i;
  }
  EXPECT_NEAR(a / b, 1.0, 0.025) << "makespan";
}

}  // namespace serve_cli_test
