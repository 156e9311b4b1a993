// The vector unit (models/vector) run end to end: the bytes of fused and unfused chains are the
// seed-002 ledger's, its cycles follow its lanes and rates where it is compute-bound and the DMA
// where it is memory-bound, and its operations are priced.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/sim/cli_fixture.h"

namespace {

class VectorUnit : public Cli {
 protected:
  nlohmann::json run(const std::string& arch, const fs::path& workload, const std::string& flags = "",
                     bool trace = false) {
    const fs::path out = dir_ / "vector-run";
    const Result r = cstsim("run -q " + std::string(trace ? "" : "--no-trace ") + "--arch " +
                            src("configs/arch/" + arch + ".yaml") + " --workload " + workload.string() + " --out " +
                            out.string() + " --force " + flags);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.status == 0 ? nlohmann::json::parse(slurp(out / "summary.json")) : nlohmann::json();
  }
  // RMSNorm over rows x cols bf16 with a weight vector (seed 002's shape is 4096 x 4096).
  fs::path rmsnorm(int64_t rows, int64_t cols) {
    return file(fmt::format("rms-{}x{}.yaml", rows, cols),
                fmt::format("tensors:\n"
                            "  - {{name: x, shape: [{}, {}], dtype: bf16, role: activation}}\n"
                            "  - {{name: w, shape: [{}], dtype: bf16, role: weight}}\n"
                            "ops:\n"
                            "  - {{name: norm, op: rmsnorm, in: [x, w], out: y}}\n",
                            rows, cols, cols));
  }
  // Self-attention of `heads` heads of d over S bf16 tokens; `attrs` adds keys to the op.
  fs::path attention(const std::string& name, int64_t heads, int64_t S, int64_t d, const std::string& attrs) {
    return file(name, fmt::format("tensors:\n"
                                  "  - {{name: q, shape: [1, {0}, {1}], dtype: bf16, role: activation}}\n"
                                  "  - {{name: k, shape: [1, {0}, {1}], dtype: bf16, role: activation}}\n"
                                  "  - {{name: v, shape: [1, {0}, {1}], dtype: bf16, role: activation}}\n"
                                  "ops:\n"
                                  "  - {{name: attn, op: attention, in: [q, k, v], out: o, heads: {2}{3}}}\n",
                                  S, heads * d, heads, attrs));
  }
  // The vector kernels' and the layers' HBM bytes, read and written.
  static double all_hbm(const nlohmann::json& s) {
    double n = double(hbm_bytes(s));
    for (const auto& l : s["layers"])
      n += double(l["memory"]["hbm_bytes_read"].get<int64_t>() + l["memory"]["hbm_bytes_written"].get<int64_t>());
    return n;
  }
  static int64_t sum(const nlohmann::json& causes) {
    int64_t n = 0;
    for (const auto& [cause, cycles] : causes.items()) n += cycles.get<int64_t>();
    return n;
  }
  // The run's cycles split exactly: every kernel's waits by root cause, and the total's.
  static void expect_split(const nlohmann::json& s) {
    if (s.contains("vector")) {
      for (const auto& k : s["vector"]["kernels"]) {
        EXPECT_EQ(sum(k["stalls"]), k["cycles"].get<int64_t>() - k["compute_cycles"].get<int64_t>()) << k["name"];
      }
    }
    if (s.contains("flash_attention")) {
      for (const auto& f : s["flash_attention"]) {
        EXPECT_EQ(sum(f["stalls"]), f["cycles"].get<int64_t>() - f["array_cycles"].get<int64_t>() -
                                        f["vector_cycles"].get<int64_t>());
      }
    }
    const auto& t = s["total"];
    EXPECT_EQ(t["cycles"].get<int64_t>(), t["ideal_cycles"].get<int64_t>() + t["stall_cycles"].get<int64_t>());
    EXPECT_EQ(sum(t["stalls"]), t["stall_cycles"].get<int64_t>());
  }
  static int64_t hbm_bytes(const nlohmann::json& s) {
    const auto& t = s["vector"]["total"];
    return t["hbm_bytes_read"].get<int64_t>() + t["hbm_bytes_written"].get<int64_t>();
  }
  // Seed 002's ledger (`cstsim ledger`): unfused 7 E b + 24 R + C b (row statistics fp32), fused 2 E b + C b.
  static double ledger_split(double r, double c) { return 7 * r * c * 2 + 24 * r + c * 2; }
  static double ledger_fused(double r, double c) { return 2 * r * c * 2 + c * 2; }
};

// Through HBM, NoC and DMA: the six kernels of the unfused form write and re-read their
// intermediates, the fused kernel reads x and w once and writes y; both within 1 % of the ledger.
TEST_F(VectorUnit, RmsNormMovesTheLedgersBytesFusedAndUnfused) {
  const fs::path g = rmsnorm(512, 4096);
  const nlohmann::json split = run("npu-128-hbm3", g, "--set vector.fusion=none");
  const nlohmann::json fused = run("npu-128-hbm3", g, "--set vector.fusion=op");
  ASSERT_EQ(split["vector"]["kernels"].size(), 6u);
  ASSERT_EQ(fused["vector"]["kernels"].size(), 1u);
  EXPECT_EQ(fused["vector"]["kernels"][0]["steps"].size(), 6u);
  EXPECT_NEAR(double(hbm_bytes(split)) / ledger_split(512, 4096), 1.0, 0.01) << hbm_bytes(split);
  EXPECT_NEAR(double(hbm_bytes(fused)) / ledger_fused(512, 4096), 1.0, 0.01) << hbm_bytes(fused);
  // Every byte is an HBM access the DMA made: the fused kernel reads 4 MiB + 8 KiB and writes 4 MiB.
  EXPECT_EQ(fused["vector"]["total"]["hbm_bytes_written"], 512 * 4096 * 2);
  // Fewer bytes, fewer cycles: the kernels wait for memory.
  EXPECT_LT(fused["total"]["cycles"].get<int64_t>() * 2, split["total"]["cycles"].get<int64_t>());
  EXPECT_GT(fused["vector"]["total"]["memory_cycles"].get<int64_t>(), 0);
  expect_split(split);
  expect_split(fused);
  // The run's cycles are the kernels' (there is no layer).
  EXPECT_EQ(fused["total"]["cycles"], fused["total"]["vector_cycles"]);
  EXPECT_EQ(fused["layers"].size(), 0u);
}

// Seed 002's shape itself: 234.99 MB split, 67.12 MB fused, each within 5 %.
TEST_F(VectorUnit, LongRmsNormAtTheSeedsShape) {
  const fs::path g = rmsnorm(4096, 4096);
  const double split = double(hbm_bytes(run("npu-128-hbm3", g, "--set vector.fusion=none")));
  const double fused = double(hbm_bytes(run("npu-128-hbm3", g)));
  EXPECT_NEAR(split / 234.99e6, 1.0, 0.05) << split;
  EXPECT_NEAR(fused / 67.12e6, 1.0, 0.05) << fused;
}

// Operands on chip (memory: ideal): a kernel's cycles are its tiles' compute, set by the lanes and
// each class's rate: double the lanes, half the cycles; quarter the transcendental rate of a
// softmax, and its special operations take four times the cycles.
TEST_F(VectorUnit, ComputeBoundCyclesFollowLanesAndRates) {
  const fs::path g = file("sm.yaml",
                          "tensors:\n"
                          "  - {name: s, shape: [256, 1024], dtype: bf16, role: activation}\n"
                          "ops:\n"
                          "  - {name: sm, op: softmax, in: [s], out: p}\n");
  const std::string base = "--set sram.ifmap_kib=4096 --set sram.ofmap_kib=4096 --set vector.latency=0 "
                           "--set vector.port_bytes=1048576 --set vector.add_per_lane=1 --set vector.mul_per_lane=1 ";
  auto cycles = [&](const std::string& more) {
    const nlohmann::json s = run("npu-128", g, base + more);
    return s.is_null() ? int64_t(-1) : s["vector"]["kernels"][0]["cycles"].get<int64_t>();
  };
  // Per row of 1024: 3 x 1024 adds, 1024 multiplies, 1024 + 1 transcendentals; 4 tiles of 64 rows.
  const int64_t rows = 64, per_tile_128 = (3 * 1024 * rows + 127) / 128 + (1024 * rows + 127) / 128 +
                                          int64_t(std::ceil(double(1025 * rows) / (128 * 0.25)));
  EXPECT_EQ(cycles("--set vector.lanes=128 --set vector.special_per_lane=0.25"), 4 * per_tile_128);
  EXPECT_EQ(cycles("--set vector.lanes=256 --set vector.special_per_lane=0.25") * 2,
            cycles("--set vector.lanes=128 --set vector.special_per_lane=0.25"));
  const int64_t fast = cycles("--set vector.lanes=128 --set vector.special_per_lane=1");
  const int64_t slow = cycles("--set vector.lanes=128 --set vector.special_per_lane=0.25");
  EXPECT_EQ(slow - fast, 4 * (int64_t(std::ceil(double(1025 * rows) / 32)) - (1025 * rows + 127) / 128));
  // The unit's own ports bind when they are narrower than the work: 64 rows x 4 KiB in and out.
  EXPECT_EQ(cycles("--set vector.lanes=4096 --set vector.special_per_lane=1 --set vector.port_bytes=64"),
            4 * (64 * 1024 * 2 * 2 / 64) + 0);
}

// Memory-bound: the fused norm waits for its operands, and on npu-128-hbm3 what binds is the
// cluster's one NoC port (128 B flits: 128 B per cycle each way, below the HBM's 819): its reads
// take at least read bytes / 128 cycles. Twice the flit width moves it; no run beats either bound.
TEST_F(VectorUnit, MemoryBoundKernelFollowsTheNocPort) {
  const fs::path g = rmsnorm(512, 4096);
  const nlohmann::json narrow = run("npu-128-hbm3", g);
  const nlohmann::json wide = run("npu-128-hbm3", g, "--set noc.flit_bytes=256");
  const int64_t c_narrow = narrow["total"]["cycles"], c_wide = wide["total"]["cycles"];
  EXPECT_LT(double(c_wide), 0.75 * double(c_narrow)) << c_wide << " vs " << c_narrow;
  const int64_t read = narrow["vector"]["total"]["hbm_bytes_read"];
  EXPECT_GE(c_narrow, read / 128);
  EXPECT_GE(c_wide, read / 256);
  const double peak_bytes_per_cycle = wide["arch"]["hbm"]["peak_bytes_per_s"].get<double>() / 1e9;
  EXPECT_GT(double(c_wide), double(hbm_bytes(wide)) / peak_bytes_per_cycle);
  EXPECT_EQ(hbm_bytes(narrow), hbm_bytes(wide));  // the same bytes either way
  // The lanes waited for most of the run: memory, not compute, sets its length, and the split says
  // where: the NoC's bandwidth more than anything else.
  EXPECT_GT(narrow["vector"]["total"]["memory_cycles"].get<int64_t>(), c_narrow / 2);
  expect_split(narrow);
  const auto& causes = narrow["vector"]["kernels"][0]["stalls"];
  for (const auto& [cause, cycles] : causes.items())
    EXPECT_LE(cycles.get<int64_t>(), causes["noc_bandwidth"].get<int64_t>()) << cause;
}

// fusion: chain runs RMSNorm, RoPE and quantization as one kernel: it reads x, w and the cos/sin
// table and writes the int8 result and its scales, nothing between (seed 002: 3 kernels vs fused).
TEST_F(VectorUnit, ChainFusionKeepsIntermediatesOnChip) {
  const fs::path g = file("chain.yaml",
                          "tensors:\n"
                          "  - {name: x, shape: [256, 4096], dtype: bf16, role: activation}\n"
                          "  - {name: w, shape: [4096], dtype: bf16, role: weight}\n"
                          "  - {name: cs, shape: [256, 4096], dtype: bf16, role: activation}\n"
                          "ops:\n"
                          "  - {name: norm, op: rmsnorm, in: [x, w], out: h}\n"
                          "  - {name: rot, op: rope, in: [h, cs], out: h2}\n"
                          "  - {name: q, op: quantize, in: [h2], out: y, dtype: int8}\n");
  const nlohmann::json op = run("npu-128-hbm3", g);
  const nlohmann::json chain = run("npu-128-hbm3", g, "--set vector.fusion=chain");
  ASSERT_EQ(op["vector"]["kernels"].size(), 3u);
  ASSERT_EQ(chain["vector"]["kernels"].size(), 1u);
  EXPECT_EQ(chain["vector"]["kernels"][0]["name"], "norm..q");
  const int64_t e = 256 * 4096;
  // x + w + cs read, y (int8) + one fp32 scale per row written.
  EXPECT_EQ(chain["vector"]["total"]["bytes_read"], 2 * e + 2 * e);
  EXPECT_EQ(chain["vector"]["total"]["bytes_written"], e + 256 * 4);
  EXPECT_NEAR(double(hbm_bytes(chain)), double(2 * e + 4096 * 2 + 2 * e + e + 256 * 4), 0.01 * double(e));
  // One kernel per op writes h and h2 and reads them back: 4 E bytes more.
  EXPECT_NEAR(double(hbm_bytes(op) - hbm_bytes(chain)), double(4 * 2 * e), 0.01 * double(e));
}

// Materialized attention moves seed 003's bytes: Q K^T writes the scores, the scale and the softmax
// each read and write them (one kernel each, as eager attention runs), P V reads them:
// 6 B H S^2 b + 4 B H S d b (the ledger's prefill-materialized row). fusion: chain runs the scale
// and the softmax as one kernel: 4 passes over the scores instead of 6.
TEST_F(VectorUnit, MaterializedAttentionMovesTheLedgersBytes) {
  const int64_t H = 4, S = 512, d = 64;
  const fs::path g = attention("attn.yaml", H, S, d, "");
  const double scores = double(H * S * S * 2), qkvo = double(H * S * d * 2);
  const nlohmann::json eager = run("npu-128-hbm3", g);
  EXPECT_NEAR(all_hbm(eager) / (6 * scores + 4 * qkvo), 1.0, 0.10) << all_hbm(eager);
  const nlohmann::json chained = run("npu-128-hbm3", g, "--set vector.fusion=chain");
  EXPECT_NEAR(all_hbm(chained) / (4 * scores + 4 * qkvo), 1.0, 0.10) << all_hbm(chained);
  EXPECT_LT(chained["total"]["cycles"].get<int64_t>(), eager["total"]["cycles"].get<int64_t>());
}

// Flash attention keeps the scores on chip: only Q, K, V and O move through HBM (seed 003's
// prefill-flash row, 4 B H S d b), it is faster than the materialized form, and it computes the same
// MACs; causal masking skips the key blocks above the diagonal where K and V come in blocks.
TEST_F(VectorUnit, FlashAttentionMovesOnlyQkvoAndBeatsMaterialized) {
  const int64_t H = 4, S = 512, d = 64;
  auto graph = [&](const std::string& name, const std::string& attrs) { return attention(name, H, S, d, attrs); };
  const nlohmann::json flash = run("npu-128-hbm3", graph("flash.yaml", ", tiling: flash"));
  const nlohmann::json eager = run("npu-128-hbm3", graph("eager.yaml", ""));
  ASSERT_EQ(flash["flash_attention"].size(), 1u);
  const auto& f = flash["flash_attention"][0];
  const int64_t qkvo = H * S * d * 2;
  EXPECT_EQ(f["memory"]["hbm_bytes_read"], 3 * qkvo);
  EXPECT_EQ(f["memory"]["hbm_bytes_written"], qkvo);
  EXPECT_EQ(f["macs"], 2 * H * S * S * d);
  EXPECT_EQ(flash["total"]["macs"], eager["total"]["macs"]);
  EXPECT_LT(flash["total"]["cycles"].get<int64_t>(), eager["total"]["cycles"].get<int64_t>());
  EXPECT_EQ(flash["total"]["cycles"], f["cycles"]);
  EXPECT_GT(f["array_cycles"].get<int64_t>(), 0);
  EXPECT_GT(f["vector_cycles"].get<int64_t>(), 0);
  expect_split(flash);
  expect_split(eager);
  // K and V in blocks of 128 keys (a 64 KiB ifmap partition), queries in blocks of 128 (128 KiB of
  // scores): each query block reads them anew; causal computes 10 of the 16 block pairs.
  const fs::path g = graph("causal.yaml", ", tiling: flash, causal: true");
  const std::string small = "--set sram.ifmap_kib=64 --set sram.ofmap_kib=128 --set scratchpad.banks=11";
  const nlohmann::json blocked = run("npu-128-hbm3", graph("blocked.yaml", ", tiling: flash"), small);
  const nlohmann::json causal = run("npu-128-hbm3", g, small);
  const auto &b = blocked["flash_attention"][0], &c = causal["flash_attention"][0];
  EXPECT_FALSE(b["kv_resident"].get<bool>());
  EXPECT_GT(b["memory"]["hbm_bytes_read"].get<int64_t>(), 3 * qkvo);
  EXPECT_EQ(b["q_block"], 128);
  EXPECT_EQ(b["kv_block"], 128);
  EXPECT_EQ(b["memory"]["hbm_bytes_read"], qkvo + 4 * 2 * qkvo);  // Q once, K and V once per query block
  EXPECT_EQ(c["tiles"], 4 * 10);  // per head
  EXPECT_EQ(c["macs"].get<int64_t>() * 16, b["macs"].get<int64_t>() * 10);
  EXPECT_LT(c["memory"]["hbm_bytes_read"].get<int64_t>(), b["memory"]["hbm_bytes_read"].get<int64_t>());
  // Grouped-query attention: heads of one KV head read its K and V once (8 query heads, 2 KV heads).
  const fs::path gqa = file("gqa.yaml", fmt::format("tensors:\n"
                                                    "  - {{name: q, shape: [1, {0}, {1}], dtype: bf16, role: activation}}\n"
                                                    "  - {{name: k, shape: [1, {0}, {2}], dtype: bf16, role: activation}}\n"
                                                    "  - {{name: v, shape: [1, {0}, {2}], dtype: bf16, role: activation}}\n"
                                                    "ops:\n"
                                                    "  - {{name: attn, op: attention, in: [q, k, v], out: o, heads: 8, "
                                                    "kv_heads: 2, tiling: flash}}\n",
                                                    S, 8 * d, 2 * d));
  const nlohmann::json grouped = run("npu-128-hbm3", gqa);
  EXPECT_EQ(grouped["flash_attention"][0]["memory"]["hbm_bytes_read"], (8 + 2 + 2) * S * d * 2);
  EXPECT_EQ(grouped["flash_attention"][0]["memory"]["hbm_bytes_written"], 8 * S * d * 2);
  // No vector unit, or --verify: an input error naming the op.
  const Result none = cstsim("run -q --no-trace --arch " + src("configs/arch/npu-128-hbm3.yaml") + " --workload " +
                             g.string() + " --out " + (dir_ / "none").string() + " --set vector.lanes=0");
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find(g.string() + ":6: attn: flash attention runs its online softmax on the vector unit"),
            std::string::npos) << none.err;
  const Result verify = cstsim("run -q --no-trace --verify --arch " + src("configs/arch/npu-128.yaml") + " --workload " +
                               g.string() + " --out " + (dir_ / "verify").string());
  EXPECT_EQ(verify.status, 2);
  EXPECT_NE(verify.err.find("tiling: materialized to verify"), std::string::npos) << verify.err;
}

// The array computing in bf16 (precision.operand, so the tensors' bf16 is the PE's type, not only
// their width in memory) keeps the seed-002/003 byte counts: RMSNorm split and fused within 1 % of
// the ledger, materialized attention within 10 %, flash attention exactly Q, K, V read and O written.
TEST_F(VectorUnit, LedgerBytesHoldWhenThePesComputeInBf16) {
  const std::string bf16 = "--set precision.operand=bf16";
  const fs::path norm = rmsnorm(512, 4096);
  EXPECT_NEAR(double(hbm_bytes(run("npu-128-hbm3", norm, bf16 + " --set vector.fusion=none"))) / ledger_split(512, 4096),
              1.0, 0.01);
  EXPECT_NEAR(double(hbm_bytes(run("npu-128-hbm3", norm, bf16 + " --set vector.fusion=op"))) / ledger_fused(512, 4096),
              1.0, 0.01);
  const int64_t H = 4, S = 512, d = 64;
  auto graph = [&](const std::string& name, const std::string& attrs) { return attention(name, H, S, d, attrs); };
  const nlohmann::json eager = run("npu-128-hbm3", graph("eager.yaml", ""), bf16);
  ASSERT_EQ(eager["arch"]["operand"], "bf16");
  const double moved = all_hbm(eager);
  const double scores = double(H * S * S * 2), qkvo = double(H * S * d * 2);
  EXPECT_NEAR(moved / (6 * scores + 4 * qkvo), 1.0, 0.10) << moved;
  const nlohmann::json flash = run("npu-128-hbm3", graph("flash.yaml", ", tiling: flash"), bf16);
  EXPECT_EQ(flash["flash_attention"][0]["memory"]["hbm_bytes_read"], 3 * H * S * d * 2);
  EXPECT_EQ(flash["flash_attention"][0]["memory"]["hbm_bytes_written"], H * S * d * 2);
  EXPECT_LT(flash["total"]["cycles"].get<int64_t>(), eager["total"]["cycles"].get<int64_t>());
  EXPECT_EQ(flash["total"]["macs"], eager["total"]["macs"]);
}

// Without a vector unit the graph's vector ops are listed, not run; a kernel whose rows cannot fit
// its scratchpad partitions is an input error naming the op.
TEST_F(VectorUnit, NoUnitListsTheOpsAndRowsThatCannotFitAreErrors) {
  const fs::path g = rmsnorm(64, 4096);
  const nlohmann::json off = run("npu-128-hbm3", g, "--set vector.lanes=0");
  EXPECT_FALSE(off.contains("vector"));
  ASSERT_EQ(off["workload"]["not_simulated"].size(), 1u);
  EXPECT_EQ(off["workload"]["not_simulated"][0]["steps"], 6);
  EXPECT_EQ(off["total"]["cycles"], 0);
  const Result tight = cstsim("run -q --no-trace --arch " + src("configs/arch/npu-128-hbm3.yaml") + " --workload " +
                              g.string() + " --out " + (dir_ / "tight").string() + " --set sram.ifmap_kib=8");
  EXPECT_EQ(tight.status, 2);
  EXPECT_NE(tight.err.find(g.string() + ":5: norm:"), std::string::npos) << tight.err;
  EXPECT_FALSE(fs::exists(dir_ / "tight"));
  const Result stray = cstsim("run -q --no-trace --arch " + src("configs/arch/tpu-v1.yaml") + " --workload " +
                              g.string() + " --out " + (dir_ / "stray").string() + " --set vector.fusion=none");
  EXPECT_EQ(stray.status, 2);
  EXPECT_NE(stray.err.find("vector.fusion: applies only with a vector unit"), std::string::npos) << stray.err;
}

// A row too long for its partitions: an elementwise kernel cuts its rows into pieces (the SwiGLU
// product of Llama's 11008 features on npu-128's 64 KiB partitions), a reducing one cannot.
TEST_F(VectorUnit, ElementwiseKernelsCutRowsThatDoNotFit) {
  const fs::path g = file("mul.yaml",
                          "tensors:\n"
                          "  - {name: a, shape: [2, 20000], dtype: bf16, role: activation}\n"
                          "  - {name: b, shape: [2, 20000], dtype: bf16, role: activation}\n"
                          "ops:\n"
                          "  - {name: gate_mul, op: mul, in: [a, b], out: y}\n"
                          "  - {name: norm, op: softmax, in: [y], out: z}\n");
  const Result plan = cstsim("plan --json --arch " + src("configs/arch/npu-128.yaml") + " --workload " + g.string() +
                             " --set vector.fusion=none");
  EXPECT_EQ(plan.status, 2);  // the product's rows are cut; softmax's (20000 bf16, 40 KB) stay whole
  EXPECT_NE(plan.err.find("norm.max: one row reads 40000 bytes"), std::string::npos) << plan.err;
  EXPECT_NE(plan.err.find("it reduces along its rows"), std::string::npos) << plan.err;
  const fs::path alone = file("mul-alone.yaml",
                              "tensors:\n"
                              "  - {name: a, shape: [2, 11008], dtype: bf16, role: activation}\n"
                              "  - {name: b, shape: [2, 11008], dtype: bf16, role: activation}\n"
                              "ops:\n"
                              "  - {name: gate_mul, op: mul, in: [a, b], out: y}\n");
  const nlohmann::json s = run("npu-128", alone);
  ASSERT_FALSE(s.is_null());
  const auto& k = s["vector"]["kernels"][0];
  EXPECT_EQ(k["rows"].get<int64_t>() * k["cols"].get<int64_t>(), 2 * 11008);
  EXPECT_GT(k["rows"].get<int64_t>(), 2);
  EXPECT_EQ(k["operations"]["mul"], 2 * 11008);
  EXPECT_EQ(k["bytes_read"], 2 * 2 * 11008 * 2);
}

// Several clusters: each vector unit takes a share of a kernel's tiles and each array a share of flash
// attention's (batch, head) groups, side by side on the shared memory: fewer cycles, the same MACs,
// the same bytes but the once-read weight vector, which every cluster loads.
TEST_F(VectorUnit, ClustersShareTheKernels) {
  const fs::path norm = rmsnorm(256, 4096);
  const fs::path flash = file("flash.yaml",
                              "tensors:\n"
                              "  - {name: q, shape: [1, 512, 256], dtype: bf16, role: activation}\n"
                              "  - {name: k, shape: [1, 512, 256], dtype: bf16, role: activation}\n"
                              "  - {name: v, shape: [1, 512, 256], dtype: bf16, role: activation}\n"
                              "ops:\n"
                              "  - {name: attn, op: attention, in: [q, k, v], out: o, heads: 4, tiling: flash}\n");
  const nlohmann::json n1 = run("npu-128-hbm3", norm), n2 = run("npu-128-hbm3", norm, "--set clusters=2");
  EXPECT_LT(n2["total"]["cycles"].get<int64_t>() * 4, n1["total"]["cycles"].get<int64_t>() * 3);
  EXPECT_EQ(n2["vector"]["total"]["hbm_bytes_read"].get<int64_t>() - n1["vector"]["total"]["hbm_bytes_read"].get<int64_t>(),
            4096 * 2);  // the weight vector, once more
  EXPECT_EQ(n2["vector"]["kernels"][0]["operations"], n1["vector"]["kernels"][0]["operations"]);
  expect_split(n2);
  const nlohmann::json f1 = run("npu-128-hbm3", flash), f2 = run("npu-128-hbm3", flash, "--set clusters=2");
  EXPECT_LT(f2["total"]["cycles"].get<int64_t>() * 4, f1["total"]["cycles"].get<int64_t>() * 3);
  EXPECT_EQ(f2["total"]["macs"], f1["total"]["macs"]);
  EXPECT_EQ(f2["flash_attention"][0]["memory"]["hbm_bytes_read"], f1["flash_attention"][0]["memory"]["hbm_bytes_read"]);
  expect_split(f2);
}

// --verify with kernels between the layers: the register grids' own memory system carries the
// kernels' traffic too, so every layer after them still matches the closed form, with one cluster
// and with two.
TEST_F(VectorUnit, VerifyPassesAcrossKernels) {
  const fs::path g = file("ver.yaml",
                          "tensors:\n"
                          "  - {name: x, shape: [64, 256], dtype: int8, role: activation}\n"
                          "  - {name: w1, shape: [256, 256], dtype: int8, role: weight}\n"
                          "  - {name: w2, shape: [256, 128], dtype: int8, role: weight}\n"
                          "ops:\n"
                          "  - {name: fc1, op: matmul, in: [x, w1], out: h}\n"
                          "  - {name: act, op: gelu, in: [h], out: a}\n"
                          "  - {name: norm, op: rmsnorm, in: [a], out: n}\n"
                          "  - {name: fc2, op: matmul, in: [n, w2], out: y}\n");
  for (const char* clusters : {"1", "2"}) {
    const nlohmann::json s = run("npu-128-hbm3", g, std::string("--verify --set clusters=") + clusters);
    ASSERT_FALSE(s.is_null()) << clusters;
    EXPECT_TRUE(s["verify"]["passed"].get<bool>()) << clusters;
    EXPECT_EQ(s["vector"]["kernels"].size(), 2u);
  }
}

// With a trace: the lanes' occupancy is in R(t) and the operations are priced by the energy table.
// A traced kernel announces its memory's part of the trace as it goes, as the array's passes do
// fold by fold: the sink holds what is in flight (a tile's traffic), not the kernel. Measured on
// this machine: RMSNorm 2048 x 4096 held 1,547,684 changes at once when the kernel was announced
// whole (198 MB peak RSS), now 139,156 (44 MB); flash attention 8 x 1024 x 64, 604,063 and now
// 43,908. The trace changes no cycle.
TEST_F(VectorUnit, TracedKernelsHoldWhatIsInFlight) {
  const auto peak = [](const nlohmann::json& s) { return s["trace"]["peak_pending_changes"].get<int64_t>(); };
  const fs::path norm = rmsnorm(2048, 4096);
  const nlohmann::json traced = run("npu-128-hbm3", norm, "", true);
  ASSERT_FALSE(traced.is_null());
  EXPECT_LT(peak(traced), 300000);
  EXPECT_EQ(traced["total"]["cycles"], run("npu-128-hbm3", norm)["total"]["cycles"]);
  const fs::path flash = attention("flash.yaml", 8, 1024, 64, ", tiling: flash");
  const nlohmann::json traced_flash = run("npu-128-hbm3", flash, "", true);
  ASSERT_FALSE(traced_flash.is_null());
  EXPECT_LT(peak(traced_flash), 100000);
  EXPECT_EQ(traced_flash["total"]["cycles"], run("npu-128-hbm3", flash)["total"]["cycles"]);
}

TEST_F(VectorUnit, OperationsAreOnTheTraceAndPriced) {
  const fs::path g = rmsnorm(128, 4096);
  const nlohmann::json s = run("npu-128-hbm3", g, "", true);
  ASSERT_FALSE(s.is_null());
  const nlohmann::json report = nlohmann::json::parse(slurp(dir_ / "vector-run" / "report.json"));
  const std::string text = report.dump();
  for (const char* action : {"vector.add", "vector.mul", "vector.special", "hbm.read.kernel", "hbm.write.kernel"})
    EXPECT_NE(text.find(action), std::string::npos) << action;
  const std::string actions = slurp(dir_ / "vector-run" / "trace" / "actions.csv");
  EXPECT_NE(actions.find("vector.mul"), std::string::npos);
  EXPECT_EQ(s["vector"]["kernels"][0]["operations"]["mul"], 3 * 128 * 4096);
  // R(t)'s busy lanes integrate to the lane-cycles the operations took (class C, in lane·s).
  const auto& k = s["vector"]["kernels"][0];
  const double lane_cycles = k["lane_utilization"].get<double>() * 512 * k["cycles"].get<double>();
  EXPECT_NEAR(report["total"]["V_CST"]["V_C"]["lane_s"]["value"].get<double>() * 1e9 / lane_cycles, 1.0, 0.01);
  EXPECT_EQ(s["vector"]["kernels"][0]["operations"]["special"], 128);
}

}  // namespace

namespace {

// A kernel with one row (one cluster's share, the others idle) and then a GEMM, on several
// clusters of the full hierarchy. An idle cluster's kernel ends the cycle before it began (-1 for
// the run's first step): its sequencer once waited for "cycle -1", which wrapped SystemC time
// past 2^64 ps, and the memory's processes, which step in that time, then ran the next step's
// memory ahead of its clusters (exit 3: "transfer enqueued for cycle 114, already simulated to
// tick ..."). Every cluster count now runs the graph's MACs.
TEST_F(VectorUnit, IdleClustersOfAKernelWaitNoTime) {
  const fs::path graph = file("g.yaml", "tensors:\n"
                                        "  - {name: x, shape: [1, 256], dtype: bf16, role: activation}\n"
                                        "  - {name: w, shape: [256], dtype: bf16, role: weight}\n"
                                        "  - {name: W, shape: [256, 512], dtype: bf16, role: weight}\n"
                                        "ops:\n"
                                        "  - {name: norm, op: rmsnorm, in: [x, w], out: y}\n"
                                        "  - {name: proj, op: matmul, in: [y, W], out: z}\n");
  int64_t one = 0;
  for (int clusters : {1, 2, 4}) {
    SCOPED_TRACE(clusters);
    const auto s = run("npu-128-hbm3", graph, "--set clusters=" + std::to_string(clusters));
    ASSERT_FALSE(s.is_null());
    EXPECT_EQ(s["total"]["macs"].get<int64_t>(), 256 * 512);
    const int64_t cycles = s["total"]["cycles"].get<int64_t>();
    if (clusters == 1) one = cycles;
    EXPECT_LT(cycles, 2 * one);  // a few thousand cycles, not a wrapped clock
  }
}

}  // namespace
