// Operator graphs run end to end (issue 13): repeats pass the register-level check through the
// memory hierarchy, decode is bound by moving weights and gains utilization with the batch, and
// the KV cache's bytes grow with the context.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/sim/cli_fixture.h"

namespace {

class GraphRuns : public Cli {
 protected:
  nlohmann::json summary(const fs::path& workload, const std::string& flags = "") {
    const fs::path out = dir_ / "graph-run";
    const Result r = cstsim("run -q --no-trace --arch " + src("configs/arch/npu-128-hbm3.yaml") + " --workload " +
                            workload.string() + " --out " + out.string() + " --force " + flags);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.status == 0 ? nlohmann::json::parse(slurp(out / "summary.json")) : nlohmann::json();
  }
  // The plan's layers (its vector kernels, in between, counted in `kernels`).
  nlohmann::json plan(const fs::path& workload, size_t* kernels = nullptr) {
    const Result r = cstsim("plan --json --arch " + src("configs/arch/npu-128-hbm3.yaml") + " --workload " +
                            workload.string());
    EXPECT_EQ(r.status, 0) << r.err;
    nlohmann::json layers = nlohmann::json::array();
    size_t vector = 0;
    if (r.status == 0)
      for (const auto& entry : nlohmann::json::parse(r.out)) {
        if (entry.value("kind", "") == "vector") ++vector;
        else layers.push_back(entry);
      }
    if (kernels) *kernels = vector;
    return layers;
  }
  // A decoder block's decode step: batch B, a context of L tokens in the KV cache (d 1024, 8 heads
  // of 128 in 4 KV heads, feed-forward 2048).
  fs::path decode(int B, int L) {
    return file(fmt::format("decode-b{}-l{}.yaml", B, L),
                fmt::format("tensors:\n"
                            "  - {{name: x, shape: [{0}, 1, 1024], dtype: int8, role: activation}}\n"
                            "  - {{name: wq, shape: [1024, 1024], dtype: int8, role: weight}}\n"
                            "  - {{name: wkv, shape: [1024, 512], dtype: int8, role: weight}}\n"
                            "  - {{name: kc, shape: [{0}, {1}, 512], dtype: int8, role: kv_cache}}\n"
                            "  - {{name: vc, shape: [{0}, {1}, 512], dtype: int8, role: kv_cache}}\n"
                            "  - {{name: w1, shape: [1024, 2048], dtype: int8, role: weight}}\n"
                            "  - {{name: w2, shape: [2048, 1024], dtype: int8, role: weight}}\n"
                            "ops:\n"
                            "  - {{name: q, op: matmul, in: [x, wq], out: q}}\n"
                            "  - {{name: k, op: matmul, in: [x, wkv], out: k}}\n"
                            "  - {{name: ka, op: kv_append, in: [kc, k], out: k_all}}\n"
                            "  - {{name: va, op: kv_append, in: [vc, k], out: v_all}}\n"
                            "  - {{name: attn, op: attention, in: [q, k_all, v_all], out: ctx, heads: 8, "
                            "kv_heads: 4}}\n"
                            "  - {{name: ffn1, op: matmul, in: [ctx, w1], out: f}}\n"
                            "  - {{name: act, op: silu, in: [f], out: fa}}\n"
                            "  - {{name: ffn2, op: matmul, in: [fa, w2], out: y}}\n",
                            B, L));
  }
};

// Groups, images, padding, dilation, GQA heads and a batched product: every repeat's events,
// values and SRAM words match the register-level array through HBM, NoC and scratchpad.
TEST_F(GraphRuns, RepeatsPassTheRegisterLevelCheck) {
  const fs::path g = file("g.yaml",
                          "tensors:\n"
                          "  - {name: img, shape: [2, 12, 12, 16], dtype: int8, role: activation}\n"
                          "  - {name: k3, shape: [3, 3, 4, 24], dtype: int8, role: weight}\n"
                          "  - {name: dw, shape: [3, 3, 1, 24], dtype: int8, role: weight}\n"
                          "  - {name: q, shape: [1, 24, 64], dtype: int8, role: activation}\n"
                          "  - {name: kv, shape: [1, 40, 32], dtype: int8, role: activation}\n"
                          "ops:\n"
                          "  - {name: grouped, op: conv2d, in: [img, k3], out: a, padding: 1, groups: 4}\n"
                          "  - {name: depthwise, op: conv2d, in: [a, dw], out: b, groups: 24, dilation: 2}\n"
                          "  - {name: attn, op: attention, in: [q, kv, kv], out: o, heads: 4, kv_heads: 2}\n");
  const auto s = summary(g, "--verify");
  ASSERT_TRUE(s.contains("layers"));
  ASSERT_EQ(s["layers"].size(), 4u);
  EXPECT_EQ(s["layers"][0]["repeats"], 8);   // 2 images x 4 groups
  EXPECT_EQ(s["layers"][1]["repeats"], 48);  // 2 images x 24 channels
  EXPECT_EQ(s["layers"][1]["macs"], 2 * 8 * 8 * 24 * 9);  // 12 - 2 x 2 = 8 rows and columns
  EXPECT_EQ(s["layers"][2]["macs"], 4 * 24 * 40 * 16);
  for (const auto& l : s["layers"]) EXPECT_TRUE(l.at("verify").at("passed").get<bool>()) << l["name"];
  // The scale and the softmax run on the vector unit: nothing is left unsimulated. (This line read
  // a missing key through const operator[], undefined behaviour that passed in Release; the
  // sanitizer build, asserts on, stopped at it.)
  EXPECT_FALSE(s.at("workload").contains("not_simulated"));
  std::vector<std::string> kernels;
  for (const auto& k : s.at("vector").at("kernels")) kernels.push_back(k.at("name").get<std::string>());
  EXPECT_EQ(kernels, (std::vector<std::string>{"attn.scale", "attn.softmax"}));
}

// Attention's heads spread over the clusters when there are at least as many (8 heads on 4
// clusters): each cluster streams two whole heads and their K and V rows, rather than its share of
// every head's columns (the context GEMM of a head, 1 x 128 x L, is one column fold: three of four
// clusters would idle). Same MACs, same KV bytes, values and events through the shared memory
// (--verify), and the context step about as many times faster as there are clusters.
TEST_F(GraphRuns, HeadsSpreadAcrossClusters) {
  const fs::path w = decode(1, 256);
  const std::string four = "--set clusters=4 --set noc.cluster_x=0 --set noc.cluster_y=1";
  const auto one = summary(w), spread = summary(w, "--verify " + four);
  ASSERT_TRUE(spread.contains("layers") && one.contains("layers"));
  EXPECT_TRUE(spread["verify"]["passed"].get<bool>());
  const Result p = cstsim("plan --json --arch " + src("configs/arch/npu-128-hbm3.yaml") + " --workload " + w.string() +
                          " " + four);
  ASSERT_EQ(p.status, 0) << p.err;
  int spread_layers = 0;
  for (const auto& l : nlohmann::json::parse(p.out)) spread_layers += l.value("repeats_across_clusters", false);
  EXPECT_EQ(spread_layers, 2);  // scores and context
  int64_t context1 = 0, context4 = 0;
  for (size_t i = 0; i < one["layers"].size(); ++i) {
    const auto &a = one["layers"][i], &b = spread["layers"][i];
    EXPECT_EQ(a["macs"], b["macs"]) << a["name"];
    if (a["name"] == "attn.context") {
      EXPECT_EQ(a["memory"]["hbm_bytes_read"], b["memory"]["hbm_bytes_read"]);  // K, V and the probabilities, once
      context1 = a["cycles"].get<int64_t>();
      context4 = b["cycles"].get<int64_t>();
    }
  }
  EXPECT_LT(4 * context4, 2 * context1) << context4 << " vs " << context1;  // more than twice as fast
}

// Decode moves every weight once per step: the projections take the cycles of their weight path
// (the array's weight loads; stalls under 10 %) whatever the batch, so utilization rises with B.
// Attention does not share that way: each sequence and head reads its own K and V.
TEST_F(GraphRuns, DecodeIsBoundByWeightsAndUtilizationRisesWithTheBatch) {
  double util1 = 0, previous = 0;
  int64_t projections1 = 0;
  for (int B : {1, 4, 16}) {
    const auto s = summary(decode(B, 64));
    ASSERT_TRUE(s.contains("total"));
    const double util = s["total"]["utilization"].get<double>();
    int64_t projections = 0, stalls = 0;
    for (const auto& l : s["layers"])
      if (l["name"] != "attn.scores" && l["name"] != "attn.context") {
        projections += l["cycles"].get<int64_t>();
        stalls += l["stall_cycles"].get<int64_t>();
      }
    EXPECT_LT(double(stalls), 0.1 * double(projections)) << "B " << B;
    if (B == 1) {
      util1 = util;
      projections1 = projections;
      EXPECT_LT(util, 0.01);
    } else {
      EXPECT_GT(util, previous) << "B " << B;
      EXPECT_GT(util, 0.25 * B * util1) << "B " << B;  // measured: B = 16, 6.2 x
      EXPECT_LT(double(projections), 1.2 * double(projections1)) << "B " << B;
    }
    previous = util;
  }
}

// The cache is a tensor of HBM: its bytes, and what attention reads of it, grow linearly with L.
TEST_F(GraphRuns, KvCacheBytesGrowLinearlyWithTheContext) {
  std::vector<double> cache, read;
  for (int L : {512, 1024, 2048}) {
    size_t kernels = 0;
    const auto p = plan(decode(1, L), &kernels);
    ASSERT_EQ(p.size(), 6u);
    EXPECT_EQ(kernels, 5u);  // the two appends, attention's scale and softmax, the SiLU
    const auto& scores = p[2].contains("simulated") ? p[2]["simulated"] : p[2];
    const auto& context = p[3].contains("simulated") ? p[3]["simulated"] : p[3];
    ASSERT_EQ(scores["name"], "attn.scores");
    EXPECT_EQ(scores["hbm_tensors"]["B"]["tensor"], "kc");  // the cache the append wrote into
    cache.push_back(scores["hbm_tensors"]["B"]["bytes"].get<double>() + context["hbm_tensors"]["B"]["bytes"].get<double>());
    read.push_back(scores["hbm_bytes_read"].get<double>() + context["hbm_bytes_read"].get<double>());
  }
  for (const auto* v : {&cache, &read}) {
    const double step1 = (*v)[1] - (*v)[0], step2 = (*v)[2] - (*v)[1];  // L + 512, then L + 1024
    EXPECT_NEAR(step2, 2 * step1, 0.02 * step2);
    EXPECT_GT((*v)[0], 2 * 512 * 512 * 0.99);  // K and V of 512 tokens, 512 bytes each
  }
}

}  // namespace

namespace {

// npu-llm-hbm3, the preset built for LLM inference: a bf16 decode GEMV streams its 32 MiB of
// weights at >= 85 % of the HBM3 stack's 819.2 B/cycle, and reads exactly the weights once and
// x once per cluster (each of the 8 clusters streams all of A for its column folds).
TEST_F(Cli, LlmPresetStreamsADecodeGemvAtTheStacksPeak) {
  const fs::path out = dir_ / "gemv";
  const Result r = cstsim("run -q --no-trace --arch " + src("configs/arch/npu-llm-hbm3.yaml") + " --workload " +
                          src("configs/workloads/decode-gemv.yaml") + " --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto s = nlohmann::json::parse(slurp(out / "summary.json"));
  const auto& L = s["layers"][0];
  const int64_t bytes = L["memory"]["hbm_bytes_read"].get<int64_t>();
  EXPECT_EQ(bytes, int64_t(4096) * 4096 * 2 + 8 * 4096 * 2);
  EXPECT_EQ(L["memory"]["hbm_bytes_written"].get<int64_t>(), 4096 * 2);  // y, once (its columns split)
  EXPECT_GE(double(bytes) / L["cycles"].get<double>() / 819.2, 0.85) << L["cycles"];
}

// The preset's two memory choices move the GEMV the way their physics says. DMA requests in
// flight: 16 per cluster starve the stack (latency-bound), 48 (the bandwidth-delay product) is the
// fastest, 256 only queue: the stack's rows see more clusters' streams (more activations) and the
// responses back up in the mesh (noc_bandwidth stalls grow). The rowstream map against the 256 B
// interleave of npu-128-hbm3: a 32 KiB block in one row per pseudo-channel, far fewer activations.
TEST_F(Cli, LlmPresetMemoryKnobsMoveTheGemvAsPhysicsSays) {
  auto gemv = [&](const std::string& extra, const std::string& name) {
    const fs::path out = dir_ / name;
    const Result r = cstsim("run -q --no-trace --arch " + src("configs/arch/npu-llm-hbm3.yaml") + " --workload " +
                            src("configs/workloads/decode-gemv.yaml") + extra + " --out " + out.string());
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(slurp(out / "summary.json"))["layers"][0];
  };
  const auto few = gemv(" --set hbm.max_outstanding=16", "o16"), preset = gemv("", "o48"),
             many = gemv(" --set hbm.max_outstanding=256", "o256");
  const auto cycles = [](const nlohmann::json& l) { return l["cycles"].get<double>(); };
  EXPECT_GT(cycles(few), 1.3 * cycles(preset));
  EXPECT_GT(cycles(many), cycles(preset));
  EXPECT_GT(many["memory"]["hbm_activates"].get<int64_t>(), preset["memory"]["hbm_activates"].get<int64_t>());
  EXPECT_GT(many["stalls"]["noc_bandwidth"].get<int64_t>(), 4 * preset["stalls"]["noc_bandwidth"].get<int64_t>());
  EXPECT_EQ(many["memory"]["hbm_bytes_read"], preset["memory"]["hbm_bytes_read"]);  // the same bytes, moved worse
  const auto interleaved = gemv(" --set hbm.controller.address_mapping=ro-ba-co:3-bg-ch-pc-co:2", "map");
  EXPECT_GT(interleaved["memory"]["hbm_activates"].get<int64_t>(), 4 * preset["memory"]["hbm_activates"].get<int64_t>());
  EXPECT_GT(cycles(interleaved), 1.1 * cycles(preset));
}

// A Llama-2-7B decode block (B 1, L 4096, bf16) on npu-llm-hbm3: its GEMMs read exactly the
// weights, the KV cache and the activations (x by every cluster, each head's q and probabilities
// by the cluster that runs the head, rows padded to 64 B), and the run moves them at >= 70 % of
// the stack's peak.
TEST_F(Cli, LongLlmPresetDecodeBlockAtSeventyPercentOfHbmPeak) {
  const fs::path out = dir_ / "block";
  const Result r = cstsim("run -q --no-trace --arch " + src("configs/arch/npu-llm-hbm3.yaml") + " --workload " +
                          src("configs/workloads/models/llama2-7b-decode-b1-l4096.yaml") + " --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;  // the PEs compute the graph's bf16
  const auto s = nlohmann::json::parse(slurp(out / "summary.json"));
  const int64_t d = 4096, ffn = 11008, heads = 32, dh = 128, rows = 4096 + 1, clusters = 8;
  const int64_t weights = 4 * d * d * 2 + 3 * d * ffn * 2;
  const int64_t kv = 2 * heads * rows * dh * 2;
  const int64_t probabilities_row = (rows * 2 + 63) / 64 * 64;
  const int64_t activations = 6 * clusters * d * 2 + clusters * ffn * 2  // q k v o gate up: x / ctx; down: the FFN input
                              + heads * dh * 2 + heads * probabilities_row;  // scores: q; context: probabilities
  int64_t read = 0, cycles = 0;
  for (const auto& L : s["layers"]) {
    read += L["memory"]["hbm_bytes_read"].get<int64_t>();
    cycles += L["cycles"].get<int64_t>();
  }
  EXPECT_EQ(read, weights + kv + activations);
  const int64_t total = s["total"]["cycles"].get<int64_t>();
  EXPECT_GE(double(read) / double(total) / 819.2, 0.70) << total;
  EXPECT_LE(cycles, total);
}

}  // namespace
