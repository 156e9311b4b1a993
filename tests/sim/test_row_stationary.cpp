// dataflow: rs end to end: the Eyeriss preset runs AlexNet's convolutions as the chip's
// Table V reports them (JSSC 2017), --verify checks the register-level grid against the
// convolution, the knobs an architect turns move the result the way they must, and what cannot
// be mapped says why.
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/sim/cli_fixture.h"

namespace {

using nlohmann::json;

class RowStationary : public Cli {
 protected:
  json run(const std::string& arch, const std::string& workload, const std::string& flags = "") {
    const fs::path out = dir_ / ("run" + std::to_string(runs_++));
    const Result r = cstsim("run --arch " + arch + " --workload " + workload + " --no-trace " + flags + " --out " +
                            out.string());
    EXPECT_EQ(r.status, 0) << r.err;
    return json::parse(slurp(out / "summary.json"));
  }
  json alexnet(const std::string& flags = "") {
    return run(src("configs/arch/eyeriss.yaml"), src("configs/workloads/models/alexnet-conv-b4.yaml"), flags);
  }
  // The Eyeriss preset with ideal memory (`extra`: more keys).
  fs::path eyeriss_ideal(const std::string& extra = "") {
    return file("eyeriss-ideal.yaml", "array: {rows: 12, cols: 14}\ndataflow: rs\nclock_hz: 2.0e8\n"
                                      "precision: {operand: int16, accumulator: int16, macs_per_pe: {int16: 1}}\n"
                                      "rs: {filter_spad: 224, ifmap_spad: 12, psum_spad: 24, glb_kib: 100" + extra + "}\n");
  }
  // A small int16 row-stationary array on the memory hierarchy (hbm2-2000, the npu mesh): `array`
  // and `rs` are the YAML maps' insides, `sram` the partitions' (KiB), `banks` 32-byte banks.
  fs::path rs_hierarchy(const std::string& name, const std::string& array, const std::string& rs,
                        const std::string& sram, int banks) {
    return file(name, "array: {" + array + "}\ndataflow: rs\nprecision: {operand: int16, accumulator: int32}\n"
                      "rs: {" + rs + "}\nmemory: hierarchy\nsram: {" + sram + "}\n"
                      "hbm: {spec: " + src("configs/memory/hbm2-2000.yaml") + "}\n"
                      "noc: {spec: " + src("configs/noc/npu-mesh-4x4.yaml") + "}\n"
                      "scratchpad: {banks: " + std::to_string(banks) + ", word_bytes: 32}\n");
  }
  static double total(const json& s, const char* what) {
    double sum = 0;
    for (const json& l : s["layers"]) sum += l[what].get<double>();
    return sum;
  }
  static int64_t dram(const json& s) {
    int64_t sum = 0;
    for (const json& l : s["layers"]) sum += l["rs"]["dram_bytes"]["total"].get<int64_t>();
    return sum;
  }
  int runs_ = 0;
};

TEST_F(RowStationary, EyerissRunsAlexNetAsTableVReports) {
  const json s = alexnet();
  ASSERT_EQ(s["layers"].size(), 5u);
  // MACs of AlexNet's grouped convolutions at batch 4: 2,663 M.
  const int64_t macs[] = {421660800, 895795200, 598081536, 448561152, 299040768};
  const int64_t pes[] = {154, 135, 156, 156, 156};  // the published placement
  int64_t sum = 0;
  for (size_t i = 0; i < 5; ++i) {
    const json& l = s["layers"][i];
    EXPECT_EQ(l["macs"].get<int64_t>(), macs[i]) << i;
    EXPECT_EQ(l["rs"]["mapping"]["active_pes"].get<int64_t>(), pes[i]) << i;
    sum += l["macs"].get<int64_t>();
  }
  EXPECT_EQ(sum, 2663139456);
  // The planner, weighing throughput and access energy, picks CONV1's mapping as the chip did
  // (JSSC 2017 Table III): 7-wide strips, two filter sets side by side, 16 filters per PE, all 96
  // filters' psums in the global buffer.
  const json& m = s["layers"][0]["rs"]["mapping"];
  EXPECT_EQ(m["e"], 7);
  EXPECT_EQ(m["t"], 2);
  EXPECT_EQ(m["p"], 16);
  EXPECT_EQ(m["m"], 96);
  // Latency within 15 % of 115.3 ms and DRAM traffic within 15 % of 15.4 MB (Table V, batch 4).
  EXPECT_NEAR(total(s, "time_s"), 0.1153, 0.15 * 0.1153);
  EXPECT_NEAR(double(dram(s)), 15.4e6, 0.15 * 15.4e6);
}

TEST_F(RowStationary, KnobsMoveTheResultAsPhysicsSays) {
  const json base = alexnet();
  // Half the DRAM link: the same bytes, more of the time waiting for them.
  const json slow = alexnet("--set channel.bandwidth_gbps=0.24");
  EXPECT_EQ(dram(slow), dram(base));
  EXPECT_GT(total(slow, "stall_cycles"), 1.8 * total(base, "stall_cycles"));
  EXPECT_EQ(total(slow, "ideal_cycles"), total(base, "ideal_cycles"));
  // Ideal memory: no stalls, and the channel run's ideal cycles exactly.
  const json ideal = run(eyeriss_ideal().string(), src("configs/workloads/models/alexnet-conv-b4.yaml"));
  EXPECT_EQ(total(ideal, "stall_cycles"), 0);
  EXPECT_EQ(total(ideal, "cycles"), total(base, "ideal_cycles"));
  // Raw feature maps: more DRAM bytes; the first layer's input is raw either way.
  const json raw = alexnet("--set rs.rlc=false");
  EXPECT_GT(dram(raw), dram(base) + 3000000);
  EXPECT_EQ(raw["layers"][0]["rs"]["dram_bytes"]["ifmap_reads"], base["layers"][0]["rs"]["dram_bytes"]["ifmap_reads"]);
  // CONV3's input is 72.5 % zeros: coded, 0.275 x 21.33 / 16 of its raw bytes (three 21-bit pairs per 64 bits).
  const double coded = base["layers"][2]["rs"]["dram_bytes"]["ifmap_reads"].get<double>();
  EXPECT_NEAR(coded / raw["layers"][2]["rs"]["dram_bytes"]["ifmap_reads"].get<double>(), 0.275 * 64 / 3 / 16, 0.01);
  // A smaller global buffer holds fewer psums: more passes over the ifmaps, more DRAM traffic.
  const json small = alexnet("--set rs.glb_kib=40");
  EXPECT_GT(dram(small), dram(base));
  // 8-bit values (a topology without dtypes of its own): fewer bytes over the link, less waiting
  // for them, and the link is what the waits are blamed on.
  const std::string csv = src("configs/workloads/resnet18.csv");
  const json wide = run(src("configs/arch/eyeriss.yaml"), csv);
  const json narrow = run(src("configs/arch/eyeriss.yaml"), csv,
                          "--set precision.operand=int8 --set precision.macs_per_pe.int8=1");
  EXPECT_LT(double(dram(narrow)), 0.7 * double(dram(wide)));
  EXPECT_LT(total(narrow, "stall_cycles"), 0.7 * total(wide, "stall_cycles"));
  for (const json& l : narrow["layers"])
    EXPECT_EQ(l["stalls"]["memory_bandwidth"].get<int64_t>(), l["stall_cycles"].get<int64_t>()) << l["name"];
  // Smaller scratchpads: fewer filters per PE, more passes.
  const json spad = alexnet("--set rs.psum_spad=8");
  EXPECT_GT(total(spad, "cycles"), total(base, "cycles"));
  EXPECT_LE(spad["layers"][2]["rs"]["mapping"]["p"].get<int64_t>(), 8);
}

TEST_F(RowStationary, VerifyIsExactOnConvolutionsAndGemms) {
  // Padding, stride 2, a 5 x 3 filter, two groups, three images, and a matmul (a 1 x 1
  // convolution), on a small array whose scratchpads force every loop of the pass nest.
  const fs::path arch = file("a.yaml",
                             "array: {rows: 6, cols: 5}\ndataflow: rs\nprecision: {operand: int16, accumulator: int32}\n"
                             "rs: {filter_spad: 40, ifmap_spad: 8, psum_spad: 5, glb_kib: 4, rlc: true}\n"
                             "memory: channel\nchannel: {bandwidth_gbps: 1.5}\n");
  const fs::path w = file("w.yaml",
                          "name: small\ntensors:\n"
                          "  - {name: x, shape: [3, 13, 11, 4], dtype: int16, role: activation}\n"
                          "  - {name: w1, shape: [5, 3, 2, 6], dtype: int16, role: weight}\n"
                          "  - {name: w2, shape: [3, 3, 6, 7], dtype: int16, role: weight}\n"
                          "  - {name: w3, shape: [7, 5], dtype: int16, role: weight}\n"
                          "ops:\n"
                          "  - {name: c1, op: conv2d, in: [x, w1], out: y1, padding: 1, stride: 2, groups: 2}\n"
                          "  - {name: c2, op: conv2d, in: [y1, w2], out: y2, padding: 1}\n"
                          "  - {name: fc, op: matmul, in: [y2, w3], out: y3}\n");
  const json s = run(arch.string(), w.string(), "--verify");
  ASSERT_EQ(s["layers"].size(), 3u);
  for (const json& l : s["layers"])
    EXPECT_TRUE(l["verify"]["passed"].get<bool>()) << l["name"] << ": " << l["verify"]["detail"];
  EXPECT_GE(s["layers"][0]["rs"]["passes"].get<int64_t>(), 4);  // groups x strips at least
  EXPECT_GT(s["layers"][1]["rs"]["passes"].get<int64_t>(), 4);
  // Floats: bf16 operands, fp32 psums, checked bit for bit in the grid's summation order.
  const json bf16 = run(arch.string(), w.string(),
                        "--verify --set precision.operand=bf16 --set precision.accumulator=fp32 "
                        "--set precision.macs_per_pe.bf16=1");
  for (const json& l : bf16["layers"]) {
    EXPECT_TRUE(l["verify"]["passed"].get<bool>()) << l["name"] << ": " << l["verify"]["detail"];
    EXPECT_LT(l["verify"]["max_relative_error_vs_fp64"].get<double>(), 1e-5) << l["name"];
  }
  // MACs as the layers define them: c1 3 images x 2 groups x 6 x 6 outputs x 3 filters x 2 channels x 15 taps.
  EXPECT_EQ(s["layers"][0]["macs"].get<int64_t>(), 3 * 2 * 6 * 6 * 3 * 2 * 15);
  EXPECT_EQ(s["layers"][2]["macs"].get<int64_t>(), s["layers"][2]["M"].get<int64_t>() * 5 * 7);
}

TEST_F(RowStationary, ZeroGatingIsCountedAndPricedAsTheGridSeesIt) {
  // Eyeriss gates the MAC of a zero ifmap value (JSSC 2017 §V-C): AlexNet's ReLU zeros save energy, not time.
  const json gated = alexnet();
  const json dense = alexnet("--set sparsity.zero_gating=false");
  EXPECT_EQ(total(gated, "cycles"), total(dense, "cycles"));
  const fs::path out = dir_ / "report";
  ASSERT_EQ(cstsim("run --arch " + src("configs/arch/eyeriss.yaml") + " --workload " +
                   src("configs/workloads/models/alexnet-conv-b4.yaml") + " --out " + out.string()).status, 0);
  const json report = json::parse(slurp(out / "report.json"));
  const json& macs = report["total"]["C_P"]["O"]["by_precision"]["int16"];
  // CONV2-5 read 39-79 % zeros: a large share of the executed MACs is gated.
  EXPECT_GT(macs["gated"]["value"].get<double>(), 0.4 * macs["executed"]["value"].get<double>());
  // The grid counts the MACs it ran on a zero value and meets the closed form's count.
  const fs::path arch = file("g.yaml", "array: {rows: 6, cols: 5}\ndataflow: rs\nsparsity: {zero_gating: true}\n"
                                       "precision: {operand: int8, accumulator: int32}\n"
                                       "rs: {filter_spad: 40, ifmap_spad: 8, psum_spad: 5, glb_kib: 4}\n");
  const fs::path w = file("w.yaml", "name: z\ntensors:\n"
                                    "  - {name: x, shape: [2, 9, 9, 3], dtype: int8, role: activation, density: 0.35}\n"
                                    "  - {name: w1, shape: [3, 3, 3, 4], dtype: int8, role: weight}\n"
                                    "ops:\n  - {name: c1, op: conv2d, in: [x, w1], out: y1, stride: 2}\n");
  const json v = run(arch.string(), w.string(), "--verify");
  EXPECT_TRUE(v["layers"][0]["verify"]["passed"].get<bool>()) << v["layers"][0]["verify"]["detail"];
  const int64_t counted = v["layers"][0]["verify"]["gated_lanes_counted"].get<int64_t>();
  EXPECT_GT(counted, 0);
  EXPECT_LT(counted, v["layers"][0]["macs"].get<int64_t>());
}

TEST_F(RowStationary, BeatsTheOtherDataflowsInEnergyPerMacOnEyeriss) {
  // AlexNet's convolutions on Eyeriss's array, types, energy table and zero gating, each dataflow
  // with ideal memory (on-chip energy): RS reuses rows in the array, and a gated MAC skips its
  // filter read, which a systolic array cannot.
  auto energy_per_mac = [&](const std::string& df) {
    const std::string extra = df == "rs" ? "rs: {filter_spad: 224, ifmap_spad: 12, psum_spad: 24, glb_kib: 100}\n" : "";
    const fs::path arch = file(df + ".yaml", "array: {rows: 12, cols: 14}\ndataflow: " + df + "\nclock_hz: 2.0e8\n"
                               "precision: {operand: int16, accumulator: int16, macs_per_pe: {int16: 1}}\n"
                               "sparsity: {zero_gating: true}\n" + extra +
                               "energy: " + src("configs/energy/eyeriss-65nm.yaml") + "\n");
    const fs::path out = dir_ / ("e-" + df);
    const Result r = cstsim("run --arch " + arch.string() + " --workload " +
                            src("configs/workloads/models/alexnet-conv-b4.yaml") + " --out " + out.string());
    EXPECT_EQ(r.status, 0) << r.err;
    const json t = json::parse(slurp(out / "report.json"))["total"];
    return t["energy"]["E_marg"]["value"].get<double>() /
           t["C_P"]["O"]["by_precision"]["int16"]["executed"]["value"].get<double>();
  };
  const double rs = energy_per_mac("rs");
  for (const char* df : {"ws", "os", "is"}) EXPECT_LT(rs, 0.95 * energy_per_mac(df)) << df;
}

TEST_F(RowStationary, RunsThroughTheMemoryHierarchy) {
  // The scratchpad is the global buffer: HBM -> mesh -> DMA -> scratchpad and back, and the
  // register grid on a memory system of its own meets the timing mode's cycles.
  const fs::path arch = rs_hierarchy("h.yaml", "rows: 6, cols: 5", "filter_spad: 40, ifmap_spad: 8, psum_spad: 5, rlc: true",
                                     "ifmap_kib: 2, filter_kib: 1, ofmap_kib: 4", 7);
  const fs::path w = file("w.yaml", "name: two\ntensors:\n"
                                    "  - {name: x, shape: [2, 12, 12, 4], dtype: int16, role: activation}\n"
                                    "  - {name: w1, shape: [3, 3, 4, 6], dtype: int16, role: weight}\n"
                                    "  - {name: w2, shape: [3, 3, 6, 5], dtype: int16, role: weight}\n"
                                    "ops:\n"
                                    "  - {name: c1, op: conv2d, in: [x, w1], out: y1, padding: 1, density: 0.4}\n"
                                    "  - {name: c2, op: conv2d, in: [y1, w2], out: y2, stride: 2}\n");
  const json s = run(arch.string(), w.string(), "--verify");
  for (const json& l : s["layers"]) {
    EXPECT_TRUE(l["verify"]["passed"].get<bool>()) << l["name"] << ": " << l["verify"]["detail"];
    const json& m = l["memory"];
    const json& d = l["rs"]["dram_bytes"];
    // Every byte read from HBM crossed the DMA into the scratchpad, and every ofmap byte back.
    EXPECT_EQ(m["hbm_bytes_read"], m["dma_bytes_delivered"]);
    EXPECT_EQ(m["dma_bytes_delivered"], m["spad_bytes_written"]);
    EXPECT_EQ(m["hbm_bytes_written"], m["dma_bytes_sent"]);
    EXPECT_EQ(m["dma_bytes_sent"], m["spad_bytes_read"]);
    // ... and they are the bytes the passes asked for (64-byte blocks).
    EXPECT_EQ(m["hbm_bytes_read"].get<int64_t>(), d["filter_reads"].get<int64_t>() + d["ifmap_reads"].get<int64_t>());
    EXPECT_EQ(m["hbm_bytes_written"], d["ofmap_writes"]);
    EXPECT_GT(m["noc_flit_hops"].get<int64_t>(), 0);
    // Stalls split by root cause along the DMA's way, adding up to the stall exactly.
    int64_t explained = 0, causes = 0;
    for (const auto& [cause, cycles] : l["stalls"].items()) {
      explained += cycles.get<int64_t>();
      causes += cycles.get<int64_t>() > 0;
    }
    EXPECT_EQ(explained, l["stall_cycles"].get<int64_t>()) << l["name"];
    EXPECT_GE(causes, 3) << l["name"];
    EXPECT_EQ(l["stalls"]["memory_bandwidth"], 0) << l["name"];
  }
  // One DMA read in flight at a time: the same bytes, more waiting for them.
  const json narrow = run(arch.string(), w.string(), "--set hbm.max_outstanding=1");
  EXPECT_EQ(narrow["layers"][0]["memory"]["hbm_bytes_read"], s["layers"][0]["memory"]["hbm_bytes_read"]);
  EXPECT_GT(total(narrow, "stall_cycles"), total(s, "stall_cycles"));
  EXPECT_EQ(total(narrow, "ideal_cycles"), total(s, "ideal_cycles"));
}

// A memory sweep keeps the SRAM fixed for row stationary too: over npu-128-hbm3's sized partitions
// (4 MiB ifmap, 2 MiB ofmap, 512 KiB filter) with memory: ideal, ResNet-50's conv1 maps into them;
// rs.glb_kib's 100 KiB, given in the file, takes a mapping that holds less.
TEST_F(RowStationary, UnderIdealMemoryTheSizedSramIsTheGlobalBuffer) {
  const fs::path w = file("c1.csv", "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, "
                                    "Num Filter, Strides,\nconv1,224,224,7,7,3,64,2,\n");
  const std::string run = "run -q --no-trace --arch " + src("configs/arch/npu-128-hbm3.yaml") +
                          " --set memory=ideal --set dataflow=rs --set array.size=64 --workload " + w.string();
  const Result r = cstsim(run + " --out " + (dir_ / "sized").string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(slurp(dir_ / "sized" / "summary.json"))["total"]["macs"].get<int64_t>(),
            int64_t(110) * 110 * 64 * 7 * 7 * 3);  // 110 x 110 outputs (SCALE-Sim counts the last, partial window)
  // rs.glb_kib in the file wins: its 100 KiB hold one pass group's ifmap rows and psums only with
  // fewer filter sets; the sized partitions hold more.
  const Result small = cstsim(run + " --set rs.glb_kib=100 --out " + (dir_ / "glb").string());
  ASSERT_EQ(small.status, 0) << small.err;
  const auto used = [](const fs::path& out) {
    const json m = nlohmann::json::parse(slurp(out / "summary.json"))["layers"][0]["rs"]["mapping"];
    return m["glb_ifmap_values"].get<int64_t>() * 1 + m["glb_psum_values"].get<int64_t>() * 4;  // int8 ifmap, int32 psums
  };
  EXPECT_LE(used(dir_ / "glb"), 100 * 1024);
  EXPECT_GT(used(dir_ / "sized"), 100 * 1024);
}

// RS passes under the register-level check on random hierarchies: convolutions and GEMMs whose
// filters and channels do not fit the small global buffer at once run in several processing
// passes (filters m and channels c split), each through HBM, mesh and scratchpad; the grid meets
// the timing mode's events and computes the exact convolution in every one.
TEST_F(RowStationary, PassesVerifyOnRandomHierarchies) {
  std::mt19937_64 rng(1412);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int several = 0;
  for (int i = 0; i < 10; ++i) {
    const int rows = pick(3, 8), cols = pick(3, 8), filter_spad = pick(24, 64), psum_spad = pick(4, 16);
    const fs::path arch = rs_hierarchy(fmt::format("rh{}.yaml", i), fmt::format("rows: {}, cols: {}", rows, cols),
                                       fmt::format("filter_spad: {}, ifmap_spad: 8, psum_spad: {}", filter_spad, psum_spad),
                                       "ifmap_kib: 2, filter_kib: 1, ofmap_kib: 4", 7);
    const int f = std::array{1, 3}[size_t(i % 2)], c = pick(2, 12), m = pick(4, 24), h = pick(f + 2, 14);
    const int gemm_m = pick(4, 40), gemm_k = pick(8, 90), stride = pick(1, 2);
    const fs::path w = file(fmt::format("rw{}.yaml", i),
                            i % 3 == 2 ? fmt::format("layers:\n  - {{name: g, M: {}, N: {}, K: {}}}\n", gemm_m, m, gemm_k)
                                       : fmt::format("name: c\ntensors:\n"
                                                     "  - {{name: x, shape: [1, {0}, {0}, {1}], dtype: int16, role: activation}}\n"
                                                     "  - {{name: w, shape: [{2}, {2}, {1}, {3}], dtype: int16, role: weight}}\n"
                                                     "ops:\n  - {{name: conv, op: conv2d, in: [x, w], out: y, stride: {4}}}\n",
                                                     h, c, f, m, stride));
    const json s = run(arch.string(), w.string(), "--verify");
    ASSERT_TRUE(s.contains("layers")) << arch << w;
    for (const json& l : s["layers"]) {
      EXPECT_TRUE(l["verify"]["passed"].get<bool>()) << slurp(arch) << slurp(w) << l["verify"]["detail"];
      several += l["rs"]["passes"].get<int>() > 1;
    }
  }
  EXPECT_GE(several, 6);  // most draws need several passes
}

// A patch embedding (16 x 16 filters at stride 16: the windows do not overlap) has a filter row
// longer than Eyeriss's 12-word ifmap scratchpad; it runs as the GEMM of its patches, with the
// workload's MACs, every ifmap and filter value read from DRAM once, and the exact result.
TEST_F(RowStationary, APatchEmbeddingRunsAsTheGemmOfItsPatches) {
  const fs::path w = file("patch.yaml", "name: patch\ntensors:\n"
                                        "  - {name: x, shape: [1, 32, 32, 3], dtype: int16, role: activation}\n"
                                        "  - {name: w, shape: [16, 16, 3, 8], dtype: int16, role: weight}\n"
                                        "ops:\n  - {name: patch_embed, op: conv2d, in: [x, w], out: y, stride: 16}\n");
  const json s = run(src("configs/arch/eyeriss.yaml"), w.string(), "--verify");
  ASSERT_TRUE(s.contains("layers"));
  const json& l = s["layers"][0];
  EXPECT_TRUE(l["verify"]["passed"].get<bool>()) << l["verify"]["detail"];
  EXPECT_EQ(l["macs"].get<int64_t>(), 2 * 2 * 16 * 16 * 3 * 8);
  EXPECT_EQ(l["rs"]["dram_bytes"]["ifmap_reads"].get<int64_t>(), 32 * 32 * 3 * 2);
  EXPECT_EQ(l["rs"]["dram_bytes"]["filter_reads"].get<int64_t>(), 16 * 16 * 3 * 8 * 2);
}

// When the psums of every filter set the array could hold do not fit the global buffer (a wide
// GEMM on a large array), the mapper replicates fewer filter sets: here 4 of the 32 an 8 x 8 array
// holds, with 1 KiB of psum room. Refused before; now exact under --verify.
TEST_F(RowStationary, FewerFilterSetsWhenTheirPsumsDoNotFit) {
  const fs::path arch = rs_hierarchy("few.yaml", "rows: 8, cols: 8", "filter_spad: 40, ifmap_spad: 8, psum_spad: 1",
                                     "ifmap_kib: 2, filter_kib: 1, ofmap_kib: 1", 4);
  const fs::path w = file("g.yaml", "layers:\n  - {name: g, M: 64, N: 32, K: 2}\n");
  const json s = run(arch.string(), w.string(), "--verify");
  ASSERT_TRUE(s.contains("layers"));
  const json& l = s["layers"][0];
  EXPECT_TRUE(l["verify"]["passed"].get<bool>()) << l["verify"]["detail"];
  EXPECT_EQ(l["rs"]["mapping"]["t"], 4);  // 4 x 64 int32 psums: 1 KiB
  EXPECT_EQ(l["macs"].get<int64_t>(), 64 * 32 * 2);
}

TEST_F(RowStationary, WhatCannotBeMappedSaysWhy) {
  const std::string eyeriss = src("configs/arch/eyeriss.yaml");
  const std::string alexnet = file("conv1.yaml", "name: conv1\ntensors:\n"
                                                 "  - {name: x, shape: [4, 227, 227, 3], dtype: int16, role: activation}\n"
                                                 "  - {name: w, shape: [11, 11, 3, 96], dtype: int16, role: weight}\n"
                                                 "ops:\n  - {name: conv1, op: conv2d, in: [x, w], out: y, stride: 4}\n")
                                  .string();
  expect_input_error("run --arch " + eyeriss_ideal(", rlc: true").string() + " --workload " + alexnet, "rs.rlc");
  expect_input_error("run --arch " + eyeriss + " --workload " + alexnet + " --set rs.glb_kib=2", "conv1");
  expect_input_error("run --arch " + eyeriss + " --workload " + alexnet + " --set rs.ifmap_spad=10", "conv1");
  expect_input_error("run --verify --inject-fault 10,0,0 --arch " + eyeriss + " --workload " + alexnet, "--inject-fault");
  const fs::path ws = file("ws.yaml", "array: {rows: 4, cols: 4}\ndataflow: ws\nrs: {glb_kib: 10}\n");
  expect_input_error("run --arch " + ws.string() + " --workload " + alexnet, "rs.glb_kib");
  const fs::path dil = file("d.yaml", "name: d\ntensors:\n  - {name: x, shape: [1, 9, 9, 2], dtype: int16, role: activation}\n"
                                      "  - {name: w, shape: [3, 3, 2, 4], dtype: int16, role: weight}\n"
                                      "ops:\n  - {name: dilated, op: conv2d, in: [x, w], out: y, dilation: 2}\n");
  expect_input_error("run --arch " + eyeriss + " --workload " + dil.string(), "dilated");
}

}  // namespace
