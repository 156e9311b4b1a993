// --fidelity sampled against the exact run it estimates (models/array/sampled_source.h): the
// cycles within 1 % in total and 3 % a layer on the presets' cases, the interval reported, bytes
// and MACs exact (the workload's, not the estimate's), and the asked-for errors. The long label
// runs 200 random hierarchies and records where the mode stands there (below).
#include <gtest/gtest.h>

#include <map>
#include <random>

#include <nlohmann/json.hpp>

#include "tests/sim/cli_fixture.h"

using nlohmann::json;

namespace {

class Sampled : public Cli {
 protected:
  struct Pair {
    json exact, sampled;
  };
  // The same run exact and sampled (no trace: sampled has none yet).
  Pair both(const fs::path& arch, const std::string& workload, const std::string& extra = "") {
    Pair p;
    for (const char* f : {"exact", "sampled"}) {
      const fs::path out = dir_ / f;
      const Result r = cstsim(std::string("run -q --force --no-trace --fidelity ") + f + " --arch " + arch.string() +
                              " --workload " + workload + " " + extra + " --out " + out.string());
      EXPECT_EQ(r.status, 0) << r.err;
      (std::string(f) == "exact" ? p.exact : p.sampled) = json::parse(slurp(out / "summary.json"));
    }
    return p;
  }
  // A workload of n layers of one GEMM shape ("M: 1, N: 2048, K: 4096"), g0 ... g<n-1>.
  std::string equal_layers(int n, const std::string& shape) {
    std::string layers;
    for (int i = 0; i < n; ++i) layers += "  - {name: g" + std::to_string(i) + ", " + shape + "}\n";
    return file("equal" + std::to_string(n) + ".yaml", "name: equal\nlayers:\n" + layers).string();
  }
  // Within `total` in all and `layer` a layer (the bar: 1 % and 3 %); bytes and MACs as
  // the exact run has them (the workload's); returns the sampled layers' (|error|, interval) for
  // the coverage count.
  struct LayerError {
    double err, ci;  // |sampled - exact| cycles, and the reported half-width
    std::string name;
    bool repeat;
    double rel;  // (sampled - exact) / exact
  };
  std::vector<LayerError> expect_close(const Pair& p, const std::string& what, double total = 0.01, double layer = 0.03) {
    const json &e = p.exact["total"], &s = p.sampled["total"];
    const double err = double(s["cycles"].get<int64_t>() - e["cycles"].get<int64_t>()) / e["cycles"].get<double>();
    EXPECT_LE(std::abs(err), total) << what << ": total " << e["cycles"] << " exact, " << s["cycles"] << " sampled";
    EXPECT_EQ(s["macs"], e["macs"]) << what;
    EXPECT_EQ(s["dram_bytes"], e["dram_bytes"]) << what;
    EXPECT_EQ(s["dram_bytes_written"], e["dram_bytes_written"]) << what;
    EXPECT_EQ(p.exact["fidelity"]["result"], "exact") << what;
    std::vector<LayerError> out;
    for (size_t i = 0; i < p.exact["layers"].size(); ++i) {
      const json &le = p.exact["layers"][i], &ls = p.sampled["layers"][i];
      const int64_t ce = le["cycles"], cs = ls["cycles"];
      // A layer of a few thousand cycles after sampled ones moves by up to a few hundred with its
      // start (the previous layers' estimate moves it, and with it the refresh phase and the rows
      // it finds open; measured: +251 cycles on a 315-cycle layer): 3 % or 400 cycles. Its
      // interval says so (one refresh more or less), and is counted below.
      EXPECT_LE(std::abs(double(cs - ce)), std::max(layer * double(ce), 400.0))
          << what << ": layer " << le["name"] << " " << ce << " exact, " << cs;
      EXPECT_EQ(ls["macs"], le["macs"]) << what;
      if (le.contains("memory")) {
        EXPECT_EQ(ls["memory"]["hbm_bytes_read"], le["memory"]["hbm_bytes_read"]) << what << " " << le["name"];
        EXPECT_EQ(ls["memory"]["hbm_bytes_written"], le["memory"]["hbm_bytes_written"]) << what << " " << le["name"];
      }
      // A layer without an interval is the exact run's to the cycle: nothing before it was
      // estimated. One with is sampled, a repeat, or simulated whole after an estimate.
      if (!ls.contains("sampling")) EXPECT_EQ(cs, ce) << what << ": layer " << le["name"] << " reported exact";
      if (ls.contains("sampling")) {
        EXPECT_LE(ls["sampling"]["detailed_folds"].get<int64_t>(), ls["sampling"]["folds"].get<int64_t>());
        EXPECT_GT(ls["sampling"]["ci95_cycles"].get<double>(), 0) << "an estimate is never certain";
        out.push_back({std::abs(double(cs - ce)), ls["sampling"]["ci95_cycles"].get<double>(), le["name"],
                       ls["sampling"]["repeats"].get<int64_t>() > 0, double(cs - ce) / double(ce)});
      }
    }
    return out;
  }
  // A random hierarchy and workload: array, dataflow, HBM, FIFO depth, clusters, overlap, the
  // operand type, and GEMMs long enough to sample beside short ones and repeats.
  std::pair<fs::path, std::string> random_case(std::mt19937_64& rng, int k) {
    // 32, and 64 with few rows of A: folds too short to sample (min_period), run exact.
    const int side = std::array{32, 64, 128, 128}[rng() % 4];
    const char* dataflow = std::array{"ws", "ws", "os", "is"}[rng() % 4];
    const char* hbm = rng() % 2 ? "hbm2-2000.yaml" : "hbm3-6400.yaml";
    const int clusters = rng() % 6 == 0 ? 2 : 1;
    const char* overlap = std::array{"none", "none", "none", "prefetch"}[rng() % 4];
    const char* operand = rng() % 3 == 0 ? "bf16" : "int8";
    const fs::path arch = file("a" + std::to_string(k) + ".yaml",
                               "array: {rows: " + std::to_string(side) + ", cols: " + std::to_string(side) +
                                   "}\ndataflow: " + dataflow + "\nmemory: hierarchy\nclusters: " + std::to_string(clusters) +
                                   "\noverlap: " + overlap + "\nprecision: {operand: " + operand +
                                   "}\nsram: {ifmap_kib: 4096, filter_kib: 512, ofmap_kib: 2048}\n"
                                   "hbm: {spec: " + src("configs/memory/" + std::string(hbm)) + ", fifo_tiles: " +
                                   std::to_string(2 + rng() % 3) + "}\nnoc: {spec: " + src("configs/noc/npu-mesh-4x4.yaml") +
                                   "}\nscratchpad: {banks: 52, word_bytes_per_edge: 1}\n");
    std::string layers;
    const int n = 1 + int(rng() % 2);
    for (int i = 0; i < n; ++i) {
      // 336-864 folds of the array, most with room for 6 windows; M from a vector to a block of rows.
      const int64_t folds_k = 14 + int64_t(rng() % 11), folds_n = 24 + int64_t(rng() % 13);
      const int64_t M = std::array<int64_t, 5>{1, 32, 128, 128, 512}[rng() % 5];
      const std::string shape = "M: " + std::to_string(M) + ", N: " + std::to_string(folds_n * side) +
                                ", K: " + std::to_string(folds_k * side);
      layers += "  - {name: l" + std::to_string(i) + ", " + shape + "}\n";
      if (rng() % 2) layers += "  - {name: l" + std::to_string(i) + "r, " + shape + "}\n";  // a repeat
    }
    layers += "  - {name: short, M: 8, N: " + std::to_string(2 * side) + ", K: " + std::to_string(2 * side) + "}\n";
    return {arch, file("w" + std::to_string(k) + ".yaml", "name: w\nlayers:\n" + layers).string()};
  }
  // A random vector kernel with room for its windows (128-1024 tiles): RMSNorm, add or SiLU of
  // 2048-4096 rows of 2048-4096 bf16, a 128 KiB ifmap partition (256 KiB for the larger ones), 64-512 lanes (memory-bound
  // to nearly compute-bound). Runs it exact and sampled; returns (|error|, interval) in cycles.
  std::pair<double, double> random_kernel(std::mt19937_64& rng, int k) {
    const int64_t R = rng() % 2 ? 2048 : 4096, C = rng() % 2 ? 2048 : 4096;
    const int64_t ifmap = R * C >= 2048 * 4096 && rng() % 2 ? 256 : 128;  // 128 tiles or more
    const int lanes = std::array{64, 256, 512}[rng() % 3];
    const int op = int(rng() % 3);
    std::string g = "tensors:\n  - {name: x, shape: [" + std::to_string(R) + ", " + std::to_string(C) +
                    "], dtype: bf16, role: activation}\n";
    if (op == 0)
      g += "  - {name: w, shape: [" + std::to_string(C) + "], dtype: bf16, role: weight}\nops:\n"
           "  - {name: k, op: rmsnorm, in: [x, w], out: y}\n";
    else if (op == 1)
      g += "  - {name: z, shape: [" + std::to_string(R) + ", " + std::to_string(C) +
           "], dtype: bf16, role: activation}\nops:\n  - {name: k, op: add, in: [x, z], out: y}\n";
    else
      g += "ops:\n  - {name: k, op: silu, in: [x], out: y}\n";
    const std::string what = "kernel case " + std::to_string(k) + ":\n" + g + " ifmap " + std::to_string(ifmap) +
                             " KiB, " + std::to_string(lanes) + " lanes";
    const Pair p = both(src("configs/arch/npu-128-hbm3.yaml"), file("k" + std::to_string(k) + ".yaml", g).string(),
                        "--set sram.ifmap_kib=" + std::to_string(ifmap) + " --set scratchpad.banks=" +
                            std::to_string((ifmap + 2560) / 128) + " --set vector.lanes=" + std::to_string(lanes));
    const json &e = p.exact["vector"]["kernels"][0], &s = p.sampled["vector"]["kernels"][0];
    EXPECT_TRUE(s.contains("sampling")) << what;
    if (!s.contains("sampling")) return {0, 0};
    const double err = std::abs(double(s["cycles"].get<int64_t>() - e["cycles"].get<int64_t>()));
    EXPECT_LE(err, 0.03 * e["cycles"].get<double>()) << what << ": " << e["cycles"] << " exact, " << s["cycles"];
    EXPECT_EQ(s["memory"]["hbm_bytes_read"], e["memory"]["hbm_bytes_read"]) << what;
    EXPECT_EQ(s["memory"]["hbm_bytes_written"], e["memory"]["hbm_bytes_written"]) << what;
    EXPECT_EQ(s["compute_cycles"], e["compute_cycles"]) << what;
    EXPECT_GT(s["sampling"]["ci95_cycles"].get<double>(), 0) << what;
    return {err, s["sampling"]["ci95_cycles"].get<double>()};
  }
};

TEST_F(Sampled, DecodeGemvOnThePresetWithinItsInterval) {
  const Pair p = both(src("configs/arch/npu-128-hbm3.yaml"), gemm(1, 4096, 4096), "--set precision.operand=bf16");
  const auto layers = expect_close(p, "GEMV 1x4096x4096 bf16");
  ASSERT_EQ(layers.size(), 1u);
  const json& s = p.sampled["layers"][0]["sampling"];
  EXPECT_LE(s["detailed_folds"].get<int64_t>() * 4, s["folds"].get<int64_t>()) << "at most a quarter simulated";
  EXPECT_GE(s["windows"].get<int>(), 6);
  EXPECT_EQ(p.sampled["fidelity"]["result"], "sampled");
  EXPECT_GT(p.sampled["fidelity"]["estimated_share"].get<double>(), 0.7);
  EXPECT_DOUBLE_EQ(p.sampled["total"]["cycles_ci95"].get<double>(), p.sampled["fidelity"]["ci95_cycles"].get<double>());
  EXPECT_DOUBLE_EQ(p.exact["total"]["cycles_ci95"].get<double>(), 0.0);
}

// The estimate moves with the memory as the exact run does, and names the same binding resource.
TEST_F(Sampled, SlowerMemoryMovesTheEstimateAsExactAndTheSameResourceBinds) {
  const fs::path arch = src("configs/arch/npu-128-hbm3.yaml");
  const std::string w = gemm(1, 4096, 4096);
  std::map<std::string, Pair> by;
  for (const char* spec : {"hbm3-6400", "hbm2-2000"})
    by[spec] = both(arch, w, "--set precision.operand=bf16 --set hbm.spec=" + src("configs/memory/" + std::string(spec) + ".yaml"));
  auto cycles = [](const json& s) { return s["total"]["cycles"].get<double>(); };
  auto binding = [](const json& s) {
    std::string top;
    int64_t most = -1;
    for (const auto& [cause, n] : s["total"]["stalls"].items())
      if (n.get<int64_t>() > most) top = cause, most = n.get<int64_t>();
    return top;
  };
  const double exact_rise = cycles(by["hbm2-2000"].exact) / cycles(by["hbm3-6400"].exact);
  const double sampled_rise = cycles(by["hbm2-2000"].sampled) / cycles(by["hbm3-6400"].sampled);
  EXPECT_GT(exact_rise, 1.01) << "the slower stack costs cycles";
  EXPECT_NEAR(sampled_rise, exact_rise, 0.01);
  for (auto& [spec, p] : by) {
    expect_close(p, spec);
    EXPECT_EQ(binding(p.sampled), binding(p.exact)) << spec;
  }
}

TEST_F(Sampled, ARepeatedLayerIsTakenFromTheFirstAfterItsCheck) {
  const std::string w = file("r.yaml", "name: r\nlayers:\n  - {name: a, M: 1, N: 4096, K: 4096}\n"
                                       "  - {name: b, M: 1, N: 4096, K: 4096}\n  - {name: c, M: 1, N: 4096, K: 4096}\n")
                            .string();
  const Pair p = both(src("configs/arch/npu-128-hbm3.yaml"), w);
  expect_close(p, "three equal GEMVs");
  const json& first = p.sampled["layers"][0]["sampling"];
  EXPECT_EQ(first["repeats"], 0);
  for (int i : {1, 2}) {
    const json& s = p.sampled["layers"][size_t(i)]["sampling"];
    EXPECT_EQ(s["repeats"], 1) << i;
    EXPECT_EQ(s["detailed_folds"], 65)
        << "its check (the first column fold's 32 row folds), its first window (32) and its cool-down (1)";
    EXPECT_GT(s["ci95_cycles"].get<double>(), 0);
  }
}

// Repeats of a pass simulated whole follow it fold by fold. On a 256 x 256 array a 1 x 4097 x 128
// bf16 GEMV is 17 folds, the last a single column whose drain depends on the fold before it (the
// decode block's attention-score heads at this size): timed at the reference's mean extra cycles
// a fold from their check on, every repeat came out about 120 cycles short (the run -1.3 %
// against an interval of 0.9 %, measured); following the reference, within a few tens.
TEST_F(Sampled, RepeatsOfAWholePassFollowItFoldByFold) {
  const Pair p = both(src("configs/arch/npu-128-hbm3.yaml"), equal_layers(12, "M: 1, N: 4097, K: 128"),
                      "--set array.size=256 --set precision.operand=bf16");
  const auto sampled = expect_close(p, "twelve 17-fold GEMVs", 0.003, 0.03);
  const int64_t e = p.exact["total"]["cycles"], s = p.sampled["total"]["cycles"];
  EXPECT_LE(std::abs(double(s - e)), p.sampled["total"]["cycles_ci95"].get<double>()) << "the total inside its interval";
  for (const LayerError& l : sampled) EXPECT_LE(l.err, l.ci) << l.name << " inside its interval";
  int64_t sum = 0;  // the repeats' signed errors, cycles
  int repeats = 0;
  for (size_t i = 0; i < p.sampled["layers"].size(); ++i) {
    const json& ls = p.sampled["layers"][i];
    if (!ls.contains("sampling") || ls["sampling"]["repeats"].get<int64_t>() == 0) continue;
    sum += ls["cycles"].get<int64_t>() - p.exact["layers"][i]["cycles"].get<int64_t>();
    ++repeats;
  }
  ASSERT_GE(repeats, 8) << "the later GEMVs are repeats of the first";
  EXPECT_LE(std::abs(double(sum) / repeats), 50.0) << "the repeats' mean error, cycles";
}

// Ten equal GEMVs: the second and third check theirs, then, their key confirmed, the repeats
// simulate nothing but every 8th (systematic checks), and the run stays within its bar.
TEST_F(Sampled, ConfirmedRepeatsAreCheckedSystematically) {
  const Pair p = both(src("configs/arch/npu-128-hbm3.yaml"), equal_layers(10, "M: 1, N: 2048, K: 4096"),
                      "--set precision.operand=bf16");
  const auto sampled = expect_close(p, "ten equal GEMVs", 0.005, 0.01);
  ASSERT_EQ(sampled.size(), 10u);
  std::vector<int64_t> detailed;
  for (const json& l : p.sampled["layers"]) detailed.push_back(l["sampling"]["detailed_folds"]);
  EXPECT_GT(detailed[0], 100) << "the first occurrence, sampled";
  // A check may disagree (its pass then simulated as any, and the key's reference); once two in
  // a row agreed, the repeats simulate nothing but every 8th of the key's.
  int agreed = 0, unchecked = 0;
  for (int i = 1; i < 10; ++i) {
    const json& s = p.sampled["layers"][size_t(i)]["sampling"];
    if (detailed[size_t(i)] == 0) {
      EXPECT_GE(agreed, 2) << "repeat " << i << " unchecked before two checks agreed";
      EXPECT_EQ(s["repeats"], 1) << i;
      EXPECT_NE(i % 8, 0) << "the key's 8th repeat is checked";
      ++unchecked;
    } else {
      agreed = s["repeats"] == 1 ? agreed + 1 : 0;
    }
  }
  // Which checks agree depends on the state each repeat meets (measured: 3 or 4 of the 9 repeats
  // unchecked, as the previous windows' refresh phases fall).
  EXPECT_GE(unchecked, 3) << "repeats between the systematic checks simulate nothing";
  // Every repeat shares the key's pooled mean: the run's interval adds their shares linearly,
  // so it is wider than the layers' in quadrature (which it would equal were they independent;
  // measured 1.15x, the repeats' own parts, their checks' gaps, being most of each layer's).
  double quadrature = 0;
  for (const LayerError& l : sampled) quadrature += l.ci * l.ci;
  EXPECT_GT(p.sampled["total"]["cycles_ci95"].get<double>(), 1.1 * std::sqrt(quadrature));
}

// A layer simulated whole after a sampled one starts from another clock, refresh phase and rows
// than in the exact run: it reports an interval of one refresh more or less; one before any
// estimate is the exact run's to the cycle and reports none.
TEST_F(Sampled, ALayerAfterAnEstimateCarriesOneRefreshOfInterval) {
  const std::string w = file("after.yaml", "name: after\nlayers:\n  - {name: before, M: 8, N: 256, K: 256}\n"
                                           "  - {name: big, M: 1, N: 4096, K: 4096}\n  - {name: after, M: 8, N: 256, K: 256}\n")
                            .string();
  const Pair p = both(src("configs/arch/npu-128-hbm3.yaml"), w);
  expect_close(p, "a short layer each side of a sampled one");
  const json& L = p.sampled["layers"];
  EXPECT_FALSE(L[0].contains("sampling"));
  EXPECT_EQ(L[0]["cycles"], p.exact["layers"][0]["cycles"]);
  ASSERT_TRUE(L[1].contains("sampling"));
  EXPECT_LT(L[1]["sampling"]["detailed_folds"].get<int64_t>(), L[1]["sampling"]["folds"].get<int64_t>());
  ASSERT_TRUE(L[2].contains("sampling"));
  EXPECT_EQ(L[2]["sampling"]["detailed_folds"], L[2]["sampling"]["folds"]) << "simulated whole";
  // HBM3's per-bank refresh: (tRFCpb 320 + tRC 72 + tRCD_RD 31 + tCL 20 CK) x 0.625 ns, 1 GHz array.
  EXPECT_NEAR(L[2]["sampling"]["ci95_cycles"].get<double>(), 276.875, 1e-6);
  EXPECT_LE(std::abs(L[2]["cycles"].get<double>() - p.exact["layers"][2]["cycles"].get<double>()),
            L[2]["sampling"]["ci95_cycles"].get<double>());
}

TEST_F(Sampled, ShortPassesAndClustersStayExact) {
  // 32 folds: too short to sample, and alone (no repeat): simulated whole, reported exact.
  const Pair p = both(src("configs/arch/npu-128-hbm3.yaml"), gemm(64, 512, 1024));
  EXPECT_EQ(p.sampled["layers"][0]["cycles"], p.exact["layers"][0]["cycles"]);
  EXPECT_FALSE(p.sampled["layers"][0].contains("sampling"));
  EXPECT_EQ(p.sampled["fidelity"]["result"], "exact");
  EXPECT_EQ(p.sampled["fidelity"]["requested"], "sampled");
  // Several clusters share one memory: not sampled either.
  const Pair c = both(src("configs/arch/npu-128-hbm3.yaml"), gemm(1, 4096, 4096), "--set clusters=2");
  EXPECT_EQ(c.sampled["total"]["cycles"], c.exact["total"]["cycles"]);
  EXPECT_EQ(c.sampled["fidelity"]["result"], "exact");
}

TEST_F(Sampled, AutoSamplesOnlyBigPassesWithoutATrace) {
  const fs::path arch = src("configs/arch/npu-128-hbm3.yaml");
  const std::string w = gemm(1, 4096, 4096);  // 1024 folds
  ASSERT_EQ(cstsim("run -q --no-trace --fidelity auto --arch " + arch.string() + " --workload " + w + " --out " +
                   (dir_ / "a").string()).status, 0);
  EXPECT_EQ(json::parse(slurp(dir_ / "a" / "summary.json"))["fidelity"]["result"], "sampled");
  // With the trace auto stays exact (sampled has no trace yet).
  ASSERT_EQ(cstsim("run -q --fidelity auto --arch " + arch.string() + " --workload " + w + " --out " +
                   (dir_ / "t").string()).status, 0);
  const json t = json::parse(slurp(dir_ / "t" / "summary.json"));
  EXPECT_EQ(t["fidelity"]["result"], "exact");
  EXPECT_EQ(t["fidelity"]["requested"], "auto");
}

// A vector kernel of many tiles is a stratum too (models/vector/vector_unit.h): its head, tail and
// windows simulated, the rest at the windows' mean wait. RMSNorm 2048 x 4096 bf16 with a 256 KiB
// ifmap partition: 128 tiles of 16 rows, memory-bound.
TEST_F(Sampled, VectorKernelsAreSampledWithTheirBytesExact) {
  const std::string w = file("norm.yaml", "tensors:\n"
                                          "  - {name: x, shape: [2048, 4096], dtype: bf16, role: activation}\n"
                                          "  - {name: g, shape: [4096], dtype: bf16, role: weight}\n"
                                          "ops:\n"
                                          "  - {name: norm, op: rmsnorm, in: [x, g], out: y}\n").string();
  const Pair p = both(src("configs/arch/npu-128-hbm3.yaml"), w, "--set sram.ifmap_kib=256 --set scratchpad.banks=22");
  const json &e = p.exact["vector"]["kernels"][0], &s = p.sampled["vector"]["kernels"][0];
  ASSERT_TRUE(s.contains("sampling")) << s.dump();
  EXPECT_FALSE(e.contains("sampling"));
  const json& k = s["sampling"];
  EXPECT_EQ(k["tiles"], e["tiles"]);
  EXPECT_GE(k["tiles"].get<int64_t>(), 100);
  EXPECT_LE(k["detailed_tiles"].get<int64_t>() * 2, k["tiles"].get<int64_t>()) << "at most half simulated";
  EXPECT_GE(k["windows"].get<int>(), 4);
  EXPECT_GT(k["ci95_cycles"].get<double>(), 0) << "an estimate is never certain";
  const double err = double(s["cycles"].get<int64_t>() - e["cycles"].get<int64_t>()) / e["cycles"].get<double>();
  EXPECT_LE(std::abs(err), 0.03) << e["cycles"] << " exact, " << s["cycles"] << " sampled";
  // Bytes exact; the counted operations too (the tiles' compute is not estimated).
  EXPECT_EQ(s["memory"]["hbm_bytes_read"], e["memory"]["hbm_bytes_read"]);
  EXPECT_EQ(s["memory"]["hbm_bytes_written"], e["memory"]["hbm_bytes_written"]);
  EXPECT_EQ(s["operations"], e["operations"]);
  EXPECT_EQ(s["compute_cycles"], e["compute_cycles"]);
  EXPECT_EQ(p.sampled["fidelity"]["result"], "sampled");
  EXPECT_EQ(p.sampled["fidelity"]["kernel_tiles"], k["tiles"]);
  EXPECT_DOUBLE_EQ(p.sampled["total"]["cycles_ci95"].get<double>(), k["ci95_cycles"].get<double>());
  // The run's stalls still add up: cycles = compute + waits, split by cause.
  int64_t causes = 0;
  for (const auto& [cause, n] : s["stalls"].items()) causes += n.get<int64_t>();
  EXPECT_EQ(causes, s["cycles"].get<int64_t>() - s["compute_cycles"].get<int64_t>());
}

TEST_F(Sampled, AskedWronglyIsAnInputError) {
  const std::string base = "run --arch " + src("configs/arch/npu-128-hbm3.yaml") + " --workload " + gemm(1, 512, 512);
  expect_input_error(base + " --fidelity sampled", "--fidelity");                      // the trace is on
  expect_input_error(base + " --no-trace --verify --fidelity sampled", "--fidelity");  // --verify checks cycle by cycle
  expect_input_error(base + " --no-trace --fidelity rough", "--fidelity");
  expect_input_error(base + " --scalesim-reports some", "--scalesim-reports");
}

TEST_F(Sampled, RandomHierarchiesShortSample) {
  std::mt19937_64 rng(42);
  for (int k = 0; k < 4; ++k) {
    const auto [arch, workload] = random_case(rng, k);
    expect_close(both(arch, workload), "case " + std::to_string(k) + " (" + slurp(arch) + slurp(workload) + ")");
  }
}

TEST_F(Sampled, RandomKernelsShortSample) {
  std::mt19937_64 rng(11);
  for (int k = 0; k < 2; ++k) random_kernel(rng, k);
}

// Random vector kernels, 24 of them: each within 3 %, bytes exact; measured on this seed with
// 4 warm-up tiles a window, the kernels inside their interval are printed and must be 75 % or more
// (12 of 15 on a first seed; with 2 warm-up tiles it was 10 of 15, the misses all memory-bound).
TEST_F(Sampled, LongRandomKernelsAndCoverage) {
  std::mt19937_64 rng(2026);
  int covered = 0;
  const int n = 24;
  for (int k = 0; k < n; ++k) {
    const auto [err, ci] = random_kernel(rng, k);
    covered += err <= ci;
    if (err > ci) std::cout << "outside: kernel case " << k << " off by " << err << " cycles, interval " << ci << "\n";
  }
  std::cout << "sampled kernels inside their 95 % interval: " << covered << " of " << n << "\n";
  EXPECT_GE(double(covered), 0.75 * n);
}

// The sampled mode on random hierarchies against the bar (1 % in total, 3 % a layer, 95 %
// coverage): measured on this seed, 200 cases, 61 of them sampled, every total within 0.91 %,
// sampled layers within 1.6 % (short layers after them move by up to 307 cycles with the refresh
// phase, inside their interval but for one), and 188 of 191 layers with an interval inside it
// (98.4 %; the misses are printed; every other layer exact to the cycle).
TEST_F(Sampled, LongRandomHierarchiesAndCoverage) {
  std::mt19937_64 rng(2026);
  int layers = 0, covered = 0, sampled_cases = 0;
  double worst_total = 0, worst_layer = 0;
  for (int k = 0; k < 200; ++k) {
    const auto [arch, workload] = random_case(rng, k);
    const Pair p = both(arch, workload);
    const double total = p.exact["total"]["cycles"].get<double>();
    const double off = (p.sampled["total"]["cycles"].get<double>() - total) / total;
    worst_total = std::max(worst_total, std::abs(off));
    if (std::abs(off) > 0.01)
      std::cout << "past 1 %: case " << k << " total " << 100 * off << " %, interval "
                << 100 * p.sampled["total"]["cycles_ci95"].get<double>() / total << " %\n";
    for (const LayerError& l : expect_close(p, "case " + std::to_string(k) + " (" + slurp(arch) + ")")) {
      worst_layer = std::max(worst_layer, std::abs(l.rel));
      ++layers;
      covered += l.err <= l.ci;
      if (l.err > l.ci)
        std::cout << "outside: case " << k << " " << l.name << (l.repeat ? " (repeat)" : "") << " off by " << l.err
                  << " cycles (" << 100 * l.rel << " %), interval " << l.ci << " (" << arch.filename().string() << ")\n";
    }
    sampled_cases += p.sampled["fidelity"]["result"] == "sampled";
  }
  EXPECT_GE(sampled_cases, 55);
  ASSERT_GT(layers, 100);
  EXPECT_GE(double(covered), 0.95 * layers) << covered << " of " << layers << " layers inside their interval";
  std::cout << "layers inside their 95 % interval: " << covered << " of " << layers << "; worst total "
            << 100 * worst_total << " %, worst layer with an interval " << 100 * worst_layer << " %\n";
}

}  // namespace
