// The cstsim binary end to end: outputs, --verify, and one-line errors with
// exit status 2 and no output directory for every kind of bad input.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <map>
#include <vector>

#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/array/fold_timing.h"
#include "sim/config/arch_spec.h"
#include "tests/trace_util.h"
#include "sim/mapper/dma_plan.h"
#include "tests/sim/cli_fixture.h"
#include "tests/trace_util.h"

namespace fs = std::filesystem;

namespace {

const char* kGoodArch = "array: {rows: 8, cols: 8}\ndataflow: ws\n";
const char* kGoodGemm = "Layer,M,N,K,\nG,20,12,30,\n";

TEST_F(Cli, HelpAndVersion) {
  EXPECT_EQ(cstsim("--help").status, 0);
  const Result r = cstsim("run --help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("--verify"), std::string::npos);
  EXPECT_NE(cstsim("--version").out.find("cstsim "), std::string::npos);
  EXPECT_NE(cstsim("--version").out.find(" (commit "), std::string::npos);  // a git commit, or "unknown"
  EXPECT_EQ(cstsim("frobnicate").status, 2);
  EXPECT_EQ(cstsim("run --arch x.yaml").status, 2);  // --workload and --out missing
}

TEST_F(Cli, ScaleSimCfgRunWritesComparableReports) {
  const fs::path out = dir_ / "run";
  const Result r = cstsim("run -q --arch " + src("tests/golden/scalesim-v2/inputs/a32_os_calc.cfg") +
                          " --workload " + src("tests/golden/scalesim-v2/inputs/gemm512.csv") + " --out " +
                          out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto s = nlohmann::json::parse(slurp(out / "summary.json"));
  EXPECT_EQ(s["layers"][0]["cycles"], 146943);
  EXPECT_EQ(s["layers"][0]["M"], 512);
  EXPECT_EQ(s["layers"][0]["dataflow"], "os");
  EXPECT_EQ(s["layers"][0]["sram"]["ofmap_writes_scalesim"], 278528);
  EXPECT_EQ(s["total"]["macs"], 512LL * 512 * 512);
  EXPECT_EQ(s["arch"]["fold_pipeline"], "scalesim");
  EXPECT_EQ(s["config_hash"].get<std::string>().size(), 16u);
  for (const char* key : {"version", "commit", "config_hash", "arch", "layers", "total"}) EXPECT_TRUE(s.contains(key)) << key;
  for (const char* key : {"name", "M", "N", "K", "dataflow", "cycles", "macs", "utilization", "mapping_efficiency"})
    EXPECT_TRUE(s["layers"][0].contains(key)) << key;
  EXPECT_NE(slurp(out / "COMPUTE_REPORT.csv").find("0, 146943, 0,"), std::string::npos);
  EXPECT_NE(slurp(out / "layers.csv").find("GEMM_512,512,512,512,os,256,"), std::string::npos);
}

TEST_F(Cli, SetOverridesTheCfgPipeline) {
  const fs::path out = dir_ / "run";
  ASSERT_EQ(cstsim("run -q --arch " + src("tests/golden/scalesim-v2/inputs/a32_ws_calc.cfg") + " --workload " +
                   src("tests/golden/scalesim-v2/inputs/gemm512.csv") + " --set fold_pipeline=overlapped --out " +
                   out.string())
                .status,
            0);
  const auto s = nlohmann::json::parse(slurp(out / "summary.json"));
  EXPECT_EQ(s["arch"]["fold_pipeline"], "overlapped");
  EXPECT_LT(s["layers"][0]["cycles"].get<int64_t>(), 155135);
  EXPECT_FALSE(fs::exists(out / "COMPUTE_REPORT.csv"));
}

TEST_F(Cli, VerifyPassesForEveryDataflowAndPipeline) {
  const fs::path wl = file("w.yaml",
                           "layers:\n  - {name: a, M: 37, N: 19, K: 70}\n  - {name: b, M: 1, N: 9, K: 5}\n"
                           "  - {name: c, M: 16, N: 1, K: 1}\n");
  for (const char* df : {"ws", "os", "is"}) {
    for (const char* pipe : {"scalesim", "overlapped"}) {
      const fs::path out = dir_ / (std::string("run-") + df + pipe);
      const Result r = cstsim(std::string("run -q --verify --arch ") + file("a.yaml", kGoodArch).string() +
                              " --set dataflow=" + df + " --set fold_pipeline=" + pipe + " --workload " +
                              wl.string() + " --out " + out.string());
      ASSERT_EQ(r.status, 0) << df << " " << pipe << ": " << r.err;
      const auto s = nlohmann::json::parse(slurp(out / "summary.json"));
      EXPECT_EQ(s["mode"], "reference");
      EXPECT_TRUE(s["verify"]["passed"].get<bool>());
      EXPECT_EQ(s["layers"].size(), 3u);
    }
  }
}

TEST_F(Cli, TimingAndReferenceModesReportTheSameCycles) {
  const std::string common = " -q --arch " + src("configs/arch/scalesim-32.yaml") + " --workload " +
                             file("w.csv", "Layer,M,N,K,\nG,100,70,90,\nH,33,64,5,\n").string();
  ASSERT_EQ(cstsim("run" + common + " --out " + (dir_ / "t").string()).status, 0);
  ASSERT_EQ(cstsim("run --verify" + common + " --out " + (dir_ / "r").string()).status, 0);
  const auto t = nlohmann::json::parse(slurp(dir_ / "t" / "summary.json"));
  const auto r = nlohmann::json::parse(slurp(dir_ / "r" / "summary.json"));
  EXPECT_EQ(t["total"]["cycles"], r["total"]["cycles"]);
  EXPECT_EQ(t["layers"][1]["end_cycle"], r["layers"][1]["end_cycle"]);
  EXPECT_EQ(t["total"]["sram"], r["total"]["sram"]);
}

TEST_F(Cli, SameInputGivesByteIdenticalOutputs) {
  const std::string common = " -q --arch " + src("configs/arch/npu-128.yaml") + " --workload " +
                             src("configs/workloads/resnet18.csv") + " --out ";
  ASSERT_EQ(cstsim("run" + common + (dir_ / "a").string()).status, 0);
  ASSERT_EQ(cstsim("run" + common + (dir_ / "b").string()).status, 0);
  for (const char* f : {"summary.json", "layers.csv", "report.json", "report.txt", "energy_windows.csv",
                        "trace/rt.bin", "trace/actions.csv", "trace/resources.csv", "trace/layers.csv"})
    EXPECT_EQ(slurp(dir_ / "a" / f), slurp(dir_ / "b" / f)) << f;
}

TEST_F(Cli, MissingFile) {
  expect_input_error("run --arch /nonexistent/a.yaml --workload " + file("w.csv", kGoodGemm).string(),
                     "/nonexistent/a.yaml: cannot open file");
}

TEST_F(Cli, MalformedYaml) {
  const fs::path a = file("a.yaml", "array: {rows: 8, cols: [8\ndataflow: ws\n");
  expect_input_error("run --arch " + a.string() + " --workload " + file("w.csv", kGoodGemm).string(),
                     a.string() + ":2: ");
}

TEST_F(Cli, UnknownKey) {
  const fs::path a = file("a.yaml", std::string(kGoodArch) + "clock_mhz: 700\n");
  expect_input_error("run --arch " + a.string() + " --workload " + file("w.csv", kGoodGemm).string(),
                     a.string() + ":3: clock_mhz: unknown key");
}

TEST_F(Cli, NonPositiveSize) {
  const fs::path a = file("a.yaml", "array: {rows: 8, cols: -4}\ndataflow: ws\n");
  expect_input_error("run --arch " + a.string() + " --workload " + file("w.csv", kGoodGemm).string(),
                     a.string() + ":1: array.cols: must be a positive integer");
  const fs::path w = file("w.yaml", "layers:\n  - {name: g, M: 4, N: 0, K: 2}\n");
  expect_input_error("run --arch " + file("b.yaml", kGoodArch).string() + " --workload " + w.string(),
                     w.string() + ":2: N: must be a positive integer");
}

TEST_F(Cli, UnknownDataflow) {
  const fs::path a = file("a.yaml", "array: {rows: 8, cols: 8}\ndataflow: rs2\n");
  expect_input_error("run --arch " + a.string() + " --workload " + file("w.csv", kGoodGemm).string(),
                     a.string() + ":2: dataflow: must be one of ws, os, is");
  expect_input_error("run --arch " + file("b.yaml", kGoodArch).string() + " --set dataflow=xy --workload " +
                         file("w.csv", kGoodGemm).string(),
                     "--set: dataflow:");
}

TEST_F(Cli, CsvRowWithWrongFieldCount) {
  const fs::path w = file("w.csv", "Layer,M,N,K,\nG,1,2,3,\nH,4,5,\n");
  expect_input_error("run --arch " + file("a.yaml", kGoodArch).string() + " --workload " + w.string(),
                     w.string() + ":3: expected 4 fields, found 3");
  const fs::path c = file("c.csv",
                          "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num "
                          "Filter, Strides,\nConv1,224,224,7,7,3,64,2,\nConv2,56,56,3,3,64,\n");
  expect_input_error("run --arch " + file("a.yaml", kGoodArch).string() + " --workload " + c.string(),
                     c.string() + ":3: ");
}

TEST_F(Cli, UnknownSetKeyAndMissingOut) {
  expect_input_error("run --arch " + file("a.yaml", kGoodArch).string() + " --set array.depth=3 --workload " +
                         file("w.csv", kGoodGemm).string(),
                     "--set: array.depth");
  const Result r = cstsim("run --arch " + file("b.yaml", kGoodArch).string() + " --workload " +
                          file("w.csv", kGoodGemm).string());
  EXPECT_EQ(r.status, 2);
}

}  // namespace

namespace {

TEST_F(Cli, VerifyNamesTheElementThatDiffered) {
  // A 4x4 WS array, one 4x4x4 GEMM: weights load in cycles 0-3, X[t] meets PE(i,j)
  // at 4+t+i+j. Flipping PE(2,2)'s psum after cycle 8 corrupts C[0][2] on its way down.
  const fs::path a = file("a.yaml", "array: {rows: 4, cols: 4}\ndataflow: ws\n");
  const fs::path w = file("w.csv", "Layer,M,N,K,\nG,4,4,4,\n");
  const Result r = cstsim("run -q --verify --inject-fault 8,2,2 --arch " + a.string() + " --workload " +
                          w.string() + " --out " + (dir_ / "run").string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("C[0][2]"), std::string::npos) << r.err;
  const auto s = nlohmann::json::parse(slurp(dir_ / "run" / "summary.json"));
  EXPECT_FALSE(s["verify"]["passed"].get<bool>());
  // OS: PE(1,1) accumulates C[1][1] in cycles 2..5; a flip after cycle 3 survives.
  const Result os = cstsim("run -q --verify --inject-fault 3,1,1 --set dataflow=os --arch " + a.string() +
                           " --workload " + w.string() + " --out " + (dir_ / "os").string());
  EXPECT_EQ(os.status, 1);
  EXPECT_NE(os.err.find("C[1][1]"), std::string::npos) << os.err;
}

}  // namespace

namespace {

// The timing mode's closed-form occupancy must be the register grid's, cycle for
// cycle: byte-identical rt.bin and actions.csv over random multi-layer workloads.
TEST_F(Cli, TimingAndReferenceTracesAreIdentical) {
  std::mt19937_64 rng(5);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (const char* df : {"ws", "os", "is"}) {
    for (const char* pipe : {"scalesim", "overlapped"}) {
      for (int rep = 0; rep < 3; ++rep) {
        std::string wl = "layers:\n";
        for (int l = 0; l < 3; ++l)
          wl += "  - {name: l" + std::to_string(l) + ", M: " + std::to_string(pick(1, 40)) +
                ", N: " + std::to_string(pick(1, 40)) + ", K: " + std::to_string(pick(1, 60)) + "}\n";
        const std::string arch = "array: {rows: " + std::to_string(pick(1, 12)) +
                                 ", cols: " + std::to_string(pick(1, 12)) + "}\ndataflow: " + df +
                                 "\nfold_pipeline: " + pipe + "\n";
        const std::string common = " -q --window 16 --arch " + file("a.yaml", arch).string() + " --workload " +
                                   file("w.yaml", wl).string() + " --out ";
        ASSERT_EQ(cstsim("run" + common + (dir_ / "t").string()).status, 0);
        ASSERT_EQ(cstsim("run --verify" + common + (dir_ / "r").string()).status, 0);
        for (const char* f : {"trace/rt.bin", "trace/actions.csv", "trace/resources.csv", "trace/layers.csv"})
          ASSERT_EQ(slurp(dir_ / "t" / f), slurp(dir_ / "r" / f)) << f << "\n" << arch << wl;
      }
    }
  }
}

}  // namespace

namespace {

double value(const nlohmann::json& q) { return q.at("value").get<double>(); }

// On real runs: V_C in PE·s is the active-PE cycles times the period, which is
// one per MAC, so V_C x clock = sum of M*N*K; MACs per layer = M*N*K; every
// layer's simulated time is at or above its roofline bound; peaks within capacity.
TEST_F(Cli, ReportConservesWorkAndRespectsBounds) {
  for (const char* df : {"ws", "os", "is"}) {
    const fs::path out = dir_ / df;
    ASSERT_EQ(cstsim(std::string("run -q --set dataflow=") + df + " --arch " + src("configs/arch/scalesim-32.yaml") +
                     " --set fold_pipeline=overlapped --workload " + src("configs/workloads/resnet18.csv") +
                     " --out " + out.string())
                  .status,
              0);
    const auto sum = nlohmann::json::parse(slurp(out / "summary.json"));
    const auto rep = nlohmann::json::parse(slurp(out / "report.json"));
    const double clock = sum["arch"]["clock_hz"].get<double>();
    double macs = 0;
    ASSERT_EQ(rep["layers"].size(), sum["layers"].size());
    for (size_t i = 0; i < sum["layers"].size(); ++i) {
      const auto& s = sum["layers"][i];
      const auto& l = rep["layers"][i];
      const double mnk = double(s["M"].get<int64_t>()) * s["N"].get<int64_t>() * s["K"].get<int64_t>();
      macs += mnk;
      EXPECT_EQ(value(l["C_P"]["O"]["by_precision"]["int8"]["executed"]), mnk) << s["name"];
      EXPECT_EQ(value(l["C_P"]["O"]["by_precision"]["int8"]["nominal"]), mnk) << s["name"];
      EXPECT_NEAR(value(l["V_CST"]["V_C"]["PE_s"]) * clock, mnk, mnk * 1e-12) << s["name"];
      EXPECT_GE(l["roofline"]["ratio_to_bound"].get<double>(), 1.0) << s["name"];
      EXPECT_NEAR(value(l["Theta_CST"]["T_wall"]) * clock, double(s["end_cycle"].get<int64_t>() - s["start_cycle"].get<int64_t>() + 1), 1e-6);
      EXPECT_LE(value(l["H_peak"]["M_peak"]), 4.0 * 32 * 32);  // OS: one int32 accumulator per PE
      EXPECT_LE(value(l["H_peak"]["N_peak"]), 32.0 * 3);
    }
    const auto& t = rep["total"];
    EXPECT_NEAR(value(t["V_CST"]["V_C"]["PE_s"]) * clock, macs, macs * 1e-12);
    EXPECT_NEAR(value(t["V_CST"]["V_C"]["device_s"]), value(t["Theta_CST"]["T_wall"]), 1e-15);
    EXPECT_GE(t["roofline"]["ratio_to_bound"].get<double>(), 1.0);
    // SRAM bytes in the report are the summary's words times their width.
    const auto& sram = sum["total"]["sram"];
    EXPECT_EQ(value(t["C_P"]["B_M"]["sram"]),
              double(sram["ifmap_reads"].get<int64_t>() + sram["filter_reads"].get<int64_t>() +
                     4 * sram["ofmap_writes"].get<int64_t>() + 4 * sram["psum_reads"].get<int64_t>()));
  }
}

TEST_F(Cli, PostAloneReproducesTheReport) {
  const fs::path out = dir_ / "run";
  ASSERT_EQ(cstsim("run -q --arch " + src("configs/arch/npu-128.yaml") + " --workload " +
                   src("configs/workloads/bert-base-layer.yaml") + " --out " + out.string())
                .status,
            0);
  const std::string report = slurp(out / "report.json");
  const Result r = cstsim("post " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(out / "report.json"), report);
  EXPECT_NE(r.out.find("V_C "), std::string::npos);
  ASSERT_EQ(cstsim("post " + out.string() + " --window 4096").status, 0);
  EXPECT_EQ(nlohmann::json::parse(slurp(out / "report.json"))["windows"]["cycles"], 4096);
  const Result bad = cstsim("post " + out.string() + " --window 1000");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("multiple"), std::string::npos);
  const Result missing = cstsim("post " + (dir_ / "nope").string());
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1);
}

TEST_F(Cli, BadEnergyTableOrNormalization) {
  expect_input_error("run --arch " + file("a.yaml", kGoodArch).string() + " --workload " +
                         file("w.csv", kGoodGemm).string() + " --energy /nonexistent/e.yaml",
                     "/nonexistent/e.yaml: cannot open file");
  const fs::path e = file("e.yaml", "name: x\nactions:\n  mac.int8: {pJ: -1, source: s}\n");
  expect_input_error("run --arch " + file("a.yaml", kGoodArch).string() + " --workload " +
                         file("w.csv", kGoodGemm).string() + " --energy " + e.string(),
                     e.string() + ":3: actions.mac.int8.pJ: must not be negative");
  // A table built on another: the base must be a file name that exists; a row needs pJ or W, not both.
  for (const auto& [text, says] : std::vector<std::pair<std::string, std::string>>{
           {"base: [horowitz-45nm.yaml]\n", ":1: base: expected a table file name"},
           {"base: nothing.yaml\n", ":1: base: no such file"},
           {"base: " + src("configs/energy/horowitz-45nm.yaml") + "\nactions:\n  hbm_bg: {pJ: 1, W: 1, source: s}\n",
            ":3: actions.hbm_bg: needs exactly one of pJ (per unit), W (per unit held a cycle) or pJ_by_bank_bytes"}}) {
    const fs::path t = file("t.yaml", text);
    expect_input_error("run --arch " + file("a.yaml", kGoodArch).string() + " --workload " +
                           file("w.csv", kGoodGemm).string() + " --energy " + t.string(),
                       t.string() + says);
  }
  const fs::path n = file("n.yaml", "boundary: galaxy\n");
  expect_input_error("run --arch " + file("a.yaml", kGoodArch).string() + " --workload " +
                         file("w.csv", kGoodGemm).string() + " --normalization " + n.string(),
                     n.string() + ":1: boundary:");
}

TEST_F(Cli, NormalizationAddsTheScalarWithItsReferences) {
  const fs::path n = file("n.yaml",
                          "boundary: accelerator-only\nreference:\n  C_ref: {value: 1024, unit: PE}\n"
                          "  M_ref: {value: 2048, unit: byte}\n  N_ref: {value: 96, unit: link}\n"
                          "  S_ref: {value: 1, unit: byte}\nweights: {w_C: 1, w_M: 1, w_N: 1, w_S: 1}\n");
  const fs::path out = dir_ / "run";
  ASSERT_EQ(cstsim("run -q --arch " + src("configs/arch/scalesim-32.yaml") + " --workload " +
                   file("w.csv", kGoodGemm).string() + " --normalization " + n.string() + " --out " + out.string())
                .status,
            0);
  const auto rep = nlohmann::json::parse(slurp(out / "report.json"));
  ASSERT_TRUE(rep.contains("V_CST_star"));
  const auto& t = rep["total"];
  double m = 0;
  for (const auto& [level, q] : t["V_CST"]["V_M"].items()) m += value(q);
  const double expect = value(t["V_CST"]["V_C"]["PE_s"]) / 1024 + m / 2048 + value(t["V_CST"]["V_N"]) / 96;
  EXPECT_NEAR(rep["V_CST_star"]["value"].get<double>(), expect, expect * 1e-12);
  EXPECT_EQ(rep["V_CST_star"]["boundary"], "accelerator-only");
}

}  // namespace

namespace {

// TPU-v1-like preset with its 34 GB/s weight channel (issue 4): an MLP layer at
// batch 200 is memory-bound with most of its time in weight stalls; a large
// convolution reaches >= 90 % of peak.
TEST_F(Cli, TpuV1WeightChannelStallsAndPeak) {
  const std::string arch = " -q --arch " + src("configs/arch/tpu-v1-ddr3.yaml");
  const fs::path mlp = dir_ / "mlp", conv = dir_ / "conv";
  ASSERT_EQ(cstsim("run" + arch + " --workload " + src("configs/workloads/mlp-tpu.yaml") + " --out " + mlp.string())
                .status,
            0);
  ASSERT_EQ(cstsim("run" + arch + " --workload " + src("configs/workloads/cnn-large-conv.csv") + " --out " +
                   conv.string())
                .status,
            0);
  const auto m = nlohmann::json::parse(slurp(mlp / "summary.json"));
  const auto mr = nlohmann::json::parse(slurp(mlp / "report.json"));
  const double stall_share = double(m["total"]["stall_cycles"].get<int64_t>()) / m["total"]["cycles"].get<int64_t>();
  EXPECT_GT(stall_share, 0.5);
  EXPECT_EQ(m["total"]["stalls"]["memory_bandwidth"], m["total"]["stall_cycles"]);
  EXPECT_LT(m["total"]["utilization"].get<double>(), 0.2);
  EXPECT_EQ(mr["total"]["roofline"]["bound_by"], "memory");
  EXPECT_EQ(mr["total"]["roofline"]["level"], "hbm");
  EXPECT_NEAR(value(mr["total"]["roofline"]["I_A"]), 400.0, 1e-9);  // 2 ops x batch 200 per weight byte
  // Bytes conserved: every weight byte crossed the channel once, into the array's weight chain.
  EXPECT_EQ(m["total"]["dram_bytes"], m["total"]["sram"]["filter_reads"]);
  EXPECT_EQ(value(mr["total"]["C_P"]["B_M"]["hbm"]), m["total"]["dram_bytes"].get<double>());
  // Γ_comm: the DRAM edge carried those bytes; the array's edges carried its SRAM words.
  int dram_edges = 0;
  for (const auto& e : mr["total"]["Theta_CST"]["Gamma_comm"]["edges"]) {
    if (e["src"] == "dram") {
      ++dram_edges;
      EXPECT_EQ(value(e["bytes"]), m["total"]["dram_bytes"].get<double>());
    }
    if (e["links"] == "array.link.in_rows") {
      EXPECT_EQ(value(e["bytes"]), m["total"]["sram"]["ifmap_reads"].get<double>());
    }
    if (e["links"] == "array.link.out") {
      EXPECT_EQ(value(e["bytes"]), 4.0 * m["total"]["sram"]["ofmap_writes"].get<double>());
    }
  }
  EXPECT_EQ(dram_edges, 1);
  const auto c = nlohmann::json::parse(slurp(conv / "summary.json"));
  EXPECT_GE(c["total"]["utilization"].get<double>(), 0.90);
}

// The register grid waits for the channel on its own and must land on the closed form's cycles.
TEST_F(Cli, VerifyWithChannelMemory) {
  const fs::path a = file("a.yaml",
                          "array: {rows: 8, cols: 8}\ndataflow: ws\nclock_hz: 1.0e9\nmemory: channel\n"
                          "channel: {bandwidth_gbps: 4, latency_ns: 30, fifo_tiles: 2}\n");
  const fs::path w = file("w.yaml", "layers:\n  - {name: a, M: 20, N: 30, K: 40}\n  - {name: b, M: 3, N: 17, K: 9}\n");
  for (const char* df : {"ws", "is"}) {
    const Result r = cstsim(std::string("run -q --verify --set dataflow=") + df + " --arch " + a.string() +
                            " --workload " + w.string() + " --out " + (dir_ / df).string());
    ASSERT_EQ(r.status, 0) << r.err;
    const auto s = nlohmann::json::parse(slurp(dir_ / df / "summary.json"));
    EXPECT_TRUE(s["verify"]["passed"].get<bool>());
    EXPECT_GT(s["total"]["stall_cycles"].get<int64_t>(), 0);
  }
}

}  // namespace

namespace {

// memory: hbm — the weight path through the bank-level HBM model: the register grid
// and the closed form agree with HBM in the loop, bytes are conserved, and the
// stall appears under its cause.
TEST_F(Cli, HbmWeightPath) {
  const fs::path a = file("a.yaml", "array: {rows: 16, cols: 16}\ndataflow: ws\nmemory: hbm\nhbm:\n  spec: " +
                                        src("configs/memory/hbm2-2000.yaml") + "\n  fifo_tiles: 2\n");
  const fs::path w = file("w.yaml", "layers:\n  - {name: a, M: 40, N: 70, K: 90}\n  - {name: b, M: 9, N: 33, K: 20}\n");
  for (const char* df : {"ws", "is", "os"}) {
    const Result r = cstsim(std::string("run -q --verify --set dataflow=") + df + " --arch " + a.string() +
                            " --workload " + w.string() + " --out " + (dir_ / df).string());
    ASSERT_EQ(r.status, 0) << r.err;
    const auto s = nlohmann::json::parse(slurp(dir_ / df / "summary.json"));
    const auto rep = nlohmann::json::parse(slurp(dir_ / df / "report.json"));
    EXPECT_TRUE(s["verify"]["passed"].get<bool>());
    EXPECT_GT(s["total"]["stalls"]["hbm"].get<int64_t>(), 0);
    EXPECT_EQ(s["total"]["stalls"]["hbm"], s["total"]["stall_cycles"]);
    // Every byte of the FIFO's operand the array took in crossed the HBM once: the
    // stationary tiles (WS: B, IS: A), or under OS each fold's block of B.
    const auto& sram = s["total"]["sram"];
    EXPECT_EQ(s["total"]["dram_bytes"], std::string(df) == "is" ? sram["ifmap_reads"] : sram["filter_reads"]);
    EXPECT_EQ(value(rep["total"]["C_P"]["B_M"]["hbm"]), s["total"]["dram_bytes"].get<double>());
    // The level is the tightest ceiling: the stack, or the array's own schedule (ideal memory).
    const auto& roof = rep["total"]["roofline"];
    std::string tightest;
    double longest = -1;
    for (const auto& [level, c] : roof["ceilings"].items())
      if (value(c["time"]) > longest) longest = value(c["time"]), tightest = level;
    EXPECT_EQ(roof["level"], tightest);
    EXPECT_DOUBLE_EQ(value(roof["ceilings"]["array"]["time"]), s["total"]["ideal_cycles"].get<double>() * 1e-9);
  }
  const fs::path bad = file("b.yaml", "array: {rows: 16, cols: 16}\ndataflow: ws\nmemory: hbm\nhbm: {spec: nope.yaml}\n");
  expect_input_error("run --arch " + bad.string() + " --workload " + w.string(), bad.string() + ":4: hbm.spec: no such file");
}

}  // namespace

namespace {

// The run's tensors lie side by side in HBM, so together they must fit the stack: two GEMVs of
// 16 MiB of weights each on a stack cut to 32 MiB (64 rows per bank) stop before anything runs,
// naming the layer whose tensor ends past the stack.
TEST_F(Cli, TensorsThatDoNotFitTheHbmStopTheRun) {
  const fs::path w = file("two.yaml", "layers:\n  - {name: a, M: 1, N: 4096, K: 4096}\n  - {name: b, M: 1, N: 4096, K: 4096}\n");
  const std::string run = "run -q --arch " + src("configs/arch/npu-128-hbm3.yaml") + " --workload " + w.string() +
                          " --out " + (dir_ / "o").string();
  const Result r = cstsim(run + " --set hbm.organization.rows=64");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("organization: the workload's tensors need 33562624 bytes of HBM (layer b's B ends there), "
                       "the stack holds 33554432"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "o"));
  const Result plan = cstsim("plan --json --arch " + src("configs/arch/npu-128-hbm3.yaml") + " --workload " + w.string());
  ASSERT_EQ(plan.status, 0) << plan.err;
  const auto layers = nlohmann::json::parse(plan.out);
  // a: A at 0 (4 KiB), B at 4,096 (16 MiB), C at 16,781,312; b reads a's 4,096 outputs where a
  // wrote them, and its B follows a's C.
  EXPECT_EQ(layers[1]["hbm_tensors"]["A"]["hbm_addr"], layers[0]["hbm_tensors"]["C"]["hbm_addr"]);
  EXPECT_EQ(layers[1]["hbm_tensors"]["A"]["output_of"], "a");
  EXPECT_EQ(layers[1]["hbm_tensors"]["B"]["hbm_addr"].get<uint64_t>(), 16785408u);
}

// memory: hierarchy end to end through the CLI: both modes agree with the whole
// memory system in the loop, bytes are conserved at every level, stalls add up,
// and HBM, NoC and scratchpad occupancy are in the trace and the report.
TEST_F(Cli, HierarchyFullPath) {
  const fs::path a = small_hierarchy("a.yaml");
  const fs::path w = file("w.yaml", "layers:\n  - {name: a, M: 300, N: 70, K: 90}\n  - {name: b, M: 9, N: 33, K: 20}\n");
  for (const char* df : {"ws", "is", "os"}) {
    const Result r = cstsim(std::string("run -q --verify --set dataflow=") + df + " --arch " + a.string() +
                            " --workload " + w.string() + " --out " + (dir_ / df).string());
    ASSERT_EQ(r.status, 0) << r.err;
    const auto s = nlohmann::json::parse(slurp(dir_ / df / "summary.json"));
    const auto rep = nlohmann::json::parse(slurp(dir_ / df / "report.json"));
    EXPECT_TRUE(s["verify"]["passed"].get<bool>()) << s["layers"][0]["verify"];
    // The cluster's router as resolved: the 4 x 4 mesh's centre, not the unset marker.
    EXPECT_EQ(s["arch"]["noc"]["cluster_x"], 2);
    EXPECT_EQ(s["arch"]["noc"]["cluster_y"], 2);
    int64_t hbm_bytes = 0;
    for (const auto& L : s["layers"]) {
      const auto& m = L["memory"];
      EXPECT_EQ(m["hbm_bytes_read"], m["dma_bytes_delivered"]);
      EXPECT_EQ(m["dma_bytes_delivered"], m["spad_bytes_written"]);
      EXPECT_EQ(m["hbm_bytes_written"], m["dma_bytes_sent"]);
      EXPECT_EQ(m["dma_bytes_sent"], m["spad_bytes_read"]);
      EXPECT_GE(m["hbm_bytes_read"].get<int64_t>(), (L["M"].get<int64_t>() + L["N"].get<int64_t>()) * L["K"].get<int64_t>());
      EXPECT_GE(m["hbm_bytes_written"].get<int64_t>(), L["M"].get<int64_t>() * L["N"].get<int64_t>());
      EXPECT_EQ(m["writeback_end_cycle"], L["end_cycle"]);
      int64_t causes = 0;
      for (const auto& [cause, n] : L["stalls"].items()) causes += n.get<int64_t>();
      EXPECT_EQ(causes, L["stall_cycles"].get<int64_t>());
      hbm_bytes += m["hbm_bytes_read"].get<int64_t>() + m["hbm_bytes_written"].get<int64_t>();
    }
    EXPECT_GT(s["total"]["stall_cycles"].get<int64_t>(), 0);
    EXPECT_EQ(value(rep["total"]["C_P"]["B_M"]["hbm"]), double(hbm_bytes));
    const std::string resources = slurp(dir_ / df / "trace" / "resources.csv");
    for (const char* name : {"hbm.ch00.busy", "hbm.ch07.row_buffers", "noc.links_busy", "spad.ifmap", "spad.filter", "spad.ofmap"})
      EXPECT_TRUE(resources.find(name) != std::string::npos) << name;
    EXPECT_GT(value(rep["total"]["energy"]["E_marg_by_action"]["noc.hop"]), 0) << rep["total"]["energy"].dump();
  }
  // The stationary FIFO is as deep as the filter partition allows, up to hbm.fifo_tiles: 100 tiles
  // of 16 x 16 int8 (256 B) do not fit 16 KiB, 64 do, and the run is the one asked for 64 outright
  // (the summary says which depth each layer ran with). A shallower FIFO is never faster.
  auto run_fifo = [&](int tiles, const std::string& out, const std::string& extra = "") {
    const Result r = cstsim("run -q --no-trace --verify --set hbm.fifo_tiles=" + std::to_string(tiles) + extra +
                            " --arch " + a.string() + " --workload " + w.string() + " --out " + (dir_ / out).string());
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(slurp(dir_ / out / "summary.json"));
  };
  const auto deep = run_fifo(100, "fifo100"), exact = run_fifo(64, "fifo64");
  EXPECT_EQ(deep["layers"][0]["memory"]["fifo_tiles"], 64);
  EXPECT_EQ(deep["total"]["cycles"], exact["total"]["cycles"]);
  int64_t previous = INT64_MAX;
  for (int tiles : {1, 2, 4, 11, 100}) {  // OS: blocks of B of 90 x 16, 1,472 B with their padding: 11 fit
    const auto s = run_fifo(tiles, "os" + std::to_string(tiles), " --set dataflow=os");
    EXPECT_EQ(s["layers"][0]["memory"]["fifo_tiles"], std::min(tiles, 11));
    const int64_t cycles = s["total"]["cycles"].get<int64_t>();
    EXPECT_LE(cycles, previous) << tiles << " tiles";
    previous = cycles;
  }
  // A filter partition too small for one block of B (1 KiB against 1,472 B): OS streams each
  // output tile's K in chunks that alternate in it, the sums staying in the PEs. Same MACs,
  // values (--verify) and array edge words; but a chunk of B cannot wait in the partition for
  // the next row fold, so each of layer a's 19 row folds reads B again.
  const Result r = cstsim("run -q --no-trace --verify --set dataflow=os --set sram.filter_kib=1 --set scratchpad.banks=162 "
                          "--arch " + a.string() + " --workload " + w.string() + " --out " + (dir_ / "chunks").string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto chunked = nlohmann::json::parse(slurp(dir_ / "chunks" / "summary.json"));
  const auto whole = nlohmann::json::parse(slurp(dir_ / "os11" / "summary.json"));
  EXPECT_TRUE(chunked["verify"]["passed"].get<bool>());
  const auto& L = chunked["layers"][0];
  EXPECT_EQ(L["folds"]["k_chunks"], 3);  // two chunks of 30 x 16 (512 B with padding) fill 1 KiB
  EXPECT_EQ(L["folds"]["count"], 3 * whole["layers"][0]["folds"]["count"].get<int>());
  EXPECT_EQ(L["macs"], whole["layers"][0]["macs"]);
  EXPECT_EQ(L["sram"]["filter_reads"], whole["layers"][0]["sram"]["filter_reads"]);
  EXPECT_EQ(L["sram"]["ofmap_writes"], whole["layers"][0]["sram"]["ofmap_writes"]);
  EXPECT_EQ(L["memory"]["hbm_bytes_read"], L["memory"]["spad_bytes_written"]);
  EXPECT_GE(L["memory"]["hbm_bytes_read"].get<int64_t>() - whole["layers"][0]["memory"]["hbm_bytes_read"].get<int64_t>(),
            18 * 90 * 70);  // B (90 x 70 int8) 18 more times
  // A stream too long for its partition runs in passes: same work, more weight traffic.
  const Result passes = cstsim("run -q --verify --set sram.ofmap_kib=16 --set sram.ifmap_kib=8 --set scratchpad.banks=20 --arch " +
                               a.string() + " --workload " + w.string() + " --out " + (dir_ / "passes").string());
  ASSERT_EQ(passes.status, 0) << passes.err;
  const auto p = nlohmann::json::parse(slurp(dir_ / "passes" / "summary.json"));
  const auto one = nlohmann::json::parse(slurp(dir_ / "ws" / "summary.json"));
  EXPECT_GT(p["layers"][0]["memory"]["stream_passes"].get<int>(), 1);
  EXPECT_TRUE(p["verify"]["passed"].get<bool>());
  EXPECT_EQ(p["layers"][0]["macs"], one["layers"][0]["macs"]);
  EXPECT_GT(p["layers"][0]["memory"]["hbm_bytes_read"].get<int64_t>(),
            one["layers"][0]["memory"]["hbm_bytes_read"].get<int64_t>());
  EXPECT_EQ(p["layers"][0]["memory"]["hbm_bytes_read"], p["layers"][0]["memory"]["spad_bytes_written"]);
}

}  // namespace

namespace {

// clusters: N — a layer split by column folds: with ideal memory the layer takes
// exactly as long as its largest share alone; under the hierarchy the shared HBM
// counts every cluster's bytes once, equal to the sum of the clusters' DMA and
// scratchpad bytes, and each cluster reads the whole streamed operand.
TEST_F(Cli, ClustersSplitLayersByColumnFolds) {
  const fs::path w = file("w.yaml", "layers:\n  - {name: a, M: 200, N: 70, K: 90}\n  - {name: b, M: 9, N: 10, K: 20}\n");
  const fs::path ideal = file("i.yaml", "array: {rows: 16, cols: 16}\ndataflow: ws\nclusters: 3\n");
  Result r = cstsim("run -q --arch " + ideal.string() + " --workload " + w.string() + " --out " + (dir_ / "i").string());
  ASSERT_EQ(r.status, 0) << r.err;
  auto s = nlohmann::json::parse(slurp(dir_ / "i" / "summary.json"));
  EXPECT_EQ(s["arch"]["clusters"], 3);
  // Layer a: N = 70 is 5 column folds of 16 -> shares of 1, 2, 2 folds = 16, 32, 22 columns.
  cstsim::ArchSpec a = cstsim::load_arch(ideal.string());
  int64_t longest = 0;
  for (int k = 0; k < 3; ++k) {
    const cstsim::ClusterShare share = cstsim::cluster_share(a, 200, 70, 90, k);
    EXPECT_EQ(share.N, std::vector<int64_t>({16, 32, 22})[size_t(k)]);
    const auto plan = cstsim::make_fold_plan(a.dataflow, 16, 16, share.M, share.N, share.K);
    longest = std::max(longest, cstsim::compute_layer_timing(plan, a.fold_pipeline, 0).reported_cycles);
  }
  EXPECT_EQ(s["layers"][0]["cycles"].get<int64_t>(), longest);
  EXPECT_EQ(s["layers"][0]["macs"].get<int64_t>(), 200 * 70 * 90);
  EXPECT_EQ(s["layers"][1]["macs"].get<int64_t>(), 9 * 10 * 20);  // one fold: two clusters idle
  EXPECT_EQ(s["layers"][1]["start_cycle"].get<int64_t>(), s["layers"][0]["end_cycle"].get<int64_t>() + 1);

  const fs::path hier = small_hierarchy("h.yaml", "clusters: 2\n");
  r = cstsim("run -q --arch " + hier.string() + " --workload " + w.string() + " --out " + (dir_ / "h").string());
  ASSERT_EQ(r.status, 0) << r.err;
  s = nlohmann::json::parse(slurp(dir_ / "h" / "summary.json"));
  a = cstsim::load_arch(hier.string());
  for (int i = 0; i < 2; ++i) {
    const auto& L = s["layers"][size_t(i)];
    const auto& m = L["memory"];
    int64_t planned_read = 0, planned_write = 0;
    for (int k = 0; k < 2; ++k) {
      const cstsim::ClusterShare share = cstsim::cluster_share(a, L["M"], L["N"], L["K"], k);
      if (share.empty()) continue;
      const auto plan = cstsim::make_fold_plan(a.dataflow, 16, 16, share.M, share.N, share.K);
      const cstsim::LayerDmaPlan d = cstsim::make_dma_plan(a, plan, "x");
      planned_read += d.read_bytes();
      planned_write += d.write_bytes();
    }
    EXPECT_EQ(m["hbm_bytes_read"].get<int64_t>(), planned_read) << i;
    EXPECT_EQ(m["hbm_bytes_written"].get<int64_t>(), planned_write) << i;
    EXPECT_EQ(m["dma_bytes_delivered"], m["hbm_bytes_read"]) << i;
    EXPECT_EQ(m["spad_bytes_written"], m["hbm_bytes_read"]) << i;
    EXPECT_EQ(m["spad_bytes_read"], m["hbm_bytes_written"]) << i;
    EXPECT_EQ(L["macs"].get<int64_t>(), L["M"].get<int64_t>() * L["N"].get<int64_t>() * L["K"].get<int64_t>());
  }
  const std::string resources = slurp(dir_ / "h" / "trace" / "resources.csv");
  for (const char* name : {"cluster0.busy", "cluster1.busy", "cluster0.spad.ifmap", "cluster1.spad.ofmap", "hbm.ch03.busy"})
    EXPECT_NE(resources.find(name), std::string::npos) << name;
  // Each cluster's edge links carry its own bytes; together, every streamed word the clusters read.
  const auto rep = nlohmann::json::parse(slurp(dir_ / "h" / "report.json"));
  double rows_bytes = 0;
  int row_edges = 0;
  for (const auto& e : rep["total"]["Theta_CST"]["Gamma_comm"]["edges"]) {
    const std::string links = e["links"];
    if (links.size() > 13 && links.compare(links.size() - 13, 13, ".link.in_rows") == 0) {
      rows_bytes += value(e["bytes"]);
      ++row_edges;
    }
  }
  EXPECT_EQ(row_edges, 2);
  EXPECT_EQ(rows_bytes, s["total"]["sram"]["ifmap_reads"].get<double>());  // int8: one byte per word
  // Same input, same bytes: the shared memory is driven deterministically.
  r = cstsim("run -q --arch " + hier.string() + " --workload " + w.string() + " --out " + (dir_ / "h2").string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(dir_ / "h" / "trace" / "rt.bin"), slurp(dir_ / "h2" / "trace" / "rt.bin"));

  // --verify: each cluster's register grid steps in lockstep with the others on a second
  // shared memory system and must land on the closed form's cycles, values exact.
  r = cstsim("run -q --verify --arch " + hier.string() + " --workload " + w.string() + " --out " + (dir_ / "v").string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto v = nlohmann::json::parse(slurp(dir_ / "v" / "summary.json"));
  EXPECT_TRUE(v["verify"]["passed"].get<bool>());
  EXPECT_EQ(v["layers"][0]["cycles"], s["layers"][0]["cycles"]);
  expect_input_error("run --set clusters=9 --arch " + hier.string() + " --workload " + w.string(),
                     hier.string() + ": clusters: 9 clusters from router (2, 2) on, row by row, do not fit the 4x4 mesh");
  const fs::path chan = file("c.yaml", "array: {rows: 16, cols: 16}\ndataflow: ws\nclusters: 2\nmemory: channel\n"
                                       "channel: {bandwidth_gbps: 10}\n");
  expect_input_error("run --arch " + chan.string() + " --workload " + w.string(), chan.string() + ":3: clusters: clusters > 1 needs");
}

}  // namespace

namespace {

// `cstsim plan` shows the DMA program the hierarchy will run, passes included.
// Every dataflow splits a layer's column folds (roles().Sc) between clusters: OS
// (Sc = N) used to run the whole layer on every cluster (MACs x N, no speed-up).
TEST_F(Cli, EveryDataflowSplitsALayerBetweenClusters) {
  const fs::path w = file("w.yaml", "layers:\n  - {name: g, M: 256, N: 256, K: 96}\n");
  const fs::path hierarchy = small_hierarchy("h.yaml");
  for (const char* memory : {"ideal", "hierarchy"})
  for (const char* df : {"os", "ws", "is"}) {
    SCOPED_TRACE(std::string(df) + " " + memory);
    int64_t one = 0;
    for (int clusters : {1, 4}) {
      const fs::path arch = std::string(memory) == "ideal"
                                ? file(std::string(df) + ".yaml", "array: {rows: 32, cols: 32}\n")
                                : hierarchy;
      const fs::path out = dir_ / fmt::format("{}{}{}", df, clusters, memory);
      const Result r = cstsim(fmt::format("run -q --no-trace --verify --set dataflow={} --set clusters={} --arch {} "
                                          "--workload {} --out {}", df, clusters, arch.string(), w.string(),
                                          out.string()));
      ASSERT_EQ(r.status, 0) << r.err;
      const auto s = nlohmann::json::parse(slurp(out / "summary.json"));
      EXPECT_EQ(s["total"]["macs"].get<int64_t>(), 256 * 256 * 96);
      const int64_t cycles = s["total"]["cycles"].get<int64_t>();
      if (clusters == 1) one = cycles;
      else EXPECT_LT(cycles * 3, one) << "8 column folds over 4 clusters: well over 3x faster";
    }
  }
}

// --verify checks every cluster's grid: a fault in any one of them fails the run and
// the error names the cluster, its share of the layer, the element and both values.
TEST_F(Cli, VerifyFailsWhenAnyClusterMismatches) {
  const fs::path w = file("w.yaml", "layers:\n  - {name: g, M: 64, N: 64, K: 40}\n");
  const fs::path arch = file("a.yaml", "array: {rows: 8, cols: 8}\ndataflow: ws\nclusters: 4\n");
  for (int cluster : {0, 1, 3}) {
    const Result r = cstsim(fmt::format("run -q --no-trace --verify --inject-fault 20,2,3,{} --arch {} --workload {} --out {}",
                                        cluster, arch.string(), w.string(), (dir_ / "v").string()));
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find(fmt::format("verify failed in cluster {} (its share: N {}..{} of the layer", cluster,
                                     16 * cluster, 16 * cluster + 15)),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("reference GEMM gives"), std::string::npos) << r.err;
  }
  const Result r = cstsim("run -q --no-trace --verify --inject-fault 20,2,3,4 --arch " + arch.string() + " --workload " +
                          w.string() + " --out " + (dir_ / "v").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--inject-fault: cluster 4 outside 0..3"), std::string::npos) << r.err;
}

// --set reaches every key of the resolved tree: hbm.<key of the HBM file>, noc.<key of
// the NoC file>. Each knob moves the result the way physics says, and enters the hash.
TEST_F(Cli, SetReachesHbmAndNocFileKeysAndTheyMoveTheResult) {
  const fs::path w = file("w.yaml", "layers:\n  - {name: g, M: 256, N: 256, K: 256}\n");
  fs::path w_used = w;
  nlohmann::json last_stalls;
  auto run = [&](const std::string& sets) {
    const fs::path out = dir_ / "o";
    const Result r = cstsim("run -q --no-trace --arch " + src("configs/arch/npu-128-hbm3.yaml") + " --workload " +
                            w_used.string() + " --out " + out.string() + " " + sets);
    EXPECT_EQ(r.status, 0) << sets << ": " << r.err;
    const auto s = nlohmann::json::parse(slurp(out / "summary.json"));
    last_stalls = s["total"]["stalls"];
    return std::make_pair(s["total"]["cycles"].get<int64_t>(), s["config_hash"].get<std::string>());
  };
  // Two reads in flight: the DMA is latency-bound, so CAS latency adds per round trip,
  // and the stalls say so: most of the extra cycles are the HBM's column access latency
  // (the requests wait for their slots on the trips of the ones before them).
  const auto fast = run("--set hbm.max_outstanding=2 --set hbm.timing.tCL=14ns");
  const int64_t fast_cas = last_stalls["hbm_latency"].get<int64_t>();
  const auto slow = run("--set hbm.max_outstanding=2 --set hbm.timing.tCL=60ns");
  EXPECT_GT(double(slow.first), 1.5 * double(fast.first));
  EXPECT_NE(slow.second, fast.second);
  EXPECT_GT(double(last_stalls["hbm_latency"].get<int64_t>() - fast_cas), 0.6 * double(slow.first - fast.first));
  for (const auto& [cause, cycles] : last_stalls.items())
    EXPECT_LE(cycles.get<int64_t>(), last_stalls["hbm_latency"].get<int64_t>()) << cause;
  // On a weight-streaming GEMV (4 MiB of weights, 85 B/cycle at the array's pace) the mesh
  // carries 128 B flits at one per cycle when its buffers cover the credit round trip
  // (D >= link + router + credit latency). 16-cycle links with 4-flit buffers are
  // credit-bound (4 flits per 18 cycles per VC) and slow the run; 18-flit buffers give the
  // rate back and the long links cost only their latency. 64 B flits halve what the
  // cluster's one ejection port can take (64 B/cycle < 85 B/cycle): the run follows bytes/64.
  // VC count does not bind here (one VC streams when D >= RT) but enters the hash.
  const fs::path gemv = file("gemv.yaml", "layers:\n  - {name: v, M: 1, N: 2048, K: 2048}\n");
  w_used = gemv;
  const int64_t short_links = run("--set noc.link_latency=1").first;
  EXPECT_GT(double(run("--set noc.link_latency=16").first), 1.3 * double(short_links));
  EXPECT_LT(double(run("--set noc.link_latency=16 --set noc.buffer_depth=18").first), 1.02 * double(short_links));
  EXPECT_GE(run("--set noc.flit_bytes=64").first, (int64_t(2048) * 2048) / 64);
  EXPECT_GT(last_stalls["noc_bandwidth"].get<int64_t>(), 10000);
  const auto one_vc = run("--set noc.vcs_per_vnet=1"), four_vcs = run("--set noc.vcs_per_vnet=4");
  EXPECT_NEAR(double(one_vc.first), double(four_vcs.first), 0.01 * double(four_vcs.first));
  EXPECT_NE(one_vc.second, four_vcs.second);
  w_used = w;
  // A misspelt key names the nearest real ones; a sub-file key without that sub-file is refused.
  for (const auto& [set, says] : std::vector<std::pair<std::string, std::string>>{
           {"hbm.timing.tCLL=3ns", "hbm.timing.tCLL: unknown key of the HBM file"},
           {"hbm.timing.tCLL=3ns", "(nearest: hbm.timing.tCL, "},
           {"noc.vcs_per_vnt=3", "(nearest: noc.vcs_per_vnet, "},
           {"hbm.timing.tCL=-3ns", "--set: hbm.timing.tCL: must not be negative"}}) {
    const Result r = cstsim("run -q --arch " + src("configs/arch/npu-128-hbm3.yaml") + " --workload " + w.string() +
                            " --out " + (dir_ / "bad").string() + " --set " + set);
    EXPECT_EQ(r.status, 2) << set;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  }
  const Result r = cstsim("run -q --arch " + src("configs/arch/npu-128.yaml") + " --workload " + w.string() +
                          " --out " + (dir_ / "bad").string() + " --set hbm.timing.tCL=3ns");
  EXPECT_NE(r.err.find("hbm.timing.tCL: applies only with memory: hbm or hierarchy"), std::string::npos) << r.err;
}

// post attributes bytes to edges from what the models declared with each resource
// (edge, carries), never from its name: renaming every resource leaves report.json's
// edges as they were, and a trace without the columns is refused in one line.
TEST_F(Cli, PostReadsEdgesFromTheTraceNotFromNames) {
  const fs::path arch = small_hierarchy("h.yaml");
  const fs::path w = file("w.yaml", "layers:\n  - {name: a, M: 40, N: 70, K: 30}\n");
  const fs::path run = dir_ / "r";
  ASSERT_EQ(cstsim("run -q --arch " + arch.string() + " --workload " + w.string() + " --out " + run.string()).status, 0);
  const auto before = nlohmann::json::parse(slurp(run / "report.json"))["total"]["Theta_CST"]["Gamma_comm"]["edges"];
  // Rename every resource (second column) to rK.
  const fs::path res = run / "trace" / "resources.csv";
  std::istringstream in(slurp(res));
  std::string out, line;
  for (int n = 0; std::getline(in, line); ++n) {
    if (n > 0) {
      const size_t a = line.find(','), b = line.find(',', a + 1);
      line = line.substr(0, a + 1) + "r" + std::to_string(n) + line.substr(b);
    }
    out += line + "\n";
  }
  { std::ofstream(res) << out; }
  cstsim::testing_util::reseal(run, "resources.csv");  // an edit on purpose, not damage
  const Result p = cstsim("post " + run.string() + " --force");
  ASSERT_EQ(p.status, 0) << p.err;
  const auto after = nlohmann::json::parse(slurp(run / "report.json"))["total"]["Theta_CST"]["Gamma_comm"]["edges"];
  ASSERT_EQ(before.size(), after.size());
  double hbm_bytes = 0;
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(before[i]["src"], after[i]["src"]) << i;
    EXPECT_EQ(before[i]["dst"], after[i]["dst"]) << i;
    EXPECT_EQ(before[i]["bytes"], after[i]["bytes"]) << i;
    if (after[i]["src"] == "hbm") hbm_bytes += value(after[i]["bytes"]);
  }
  EXPECT_GT(hbm_bytes, 0);
  // A trace without the edge columns (an older cstsim's) is refused.
  std::string old;
  std::istringstream again(out);
  while (std::getline(again, line)) old += line.substr(0, line.rfind(',', line.rfind(',') - 1)) + "\n";
  { std::ofstream(res) << old; }
  cstsim::testing_util::reseal(run, "resources.csv");
  const Result q = cstsim("post " + run.string() + " --force");
  EXPECT_EQ(q.status, 2) << q.err;
  EXPECT_NE(q.err.find("resources.csv:2: expected 9 fields"), std::string::npos) << q.err;
}

// memory.hbm_refreshes counts every refresh command, per-bank ones included (it used to
// count all-bank REF only, so it read 0 under per-bank refresh): on GEMM 512^3 (18.5 us
// at 1 GHz, 4.7 tREFI of 3.9 us) each of HBM3's 32 PCs refreshes all 16 of its banks
// about 4.7 times, or issues about 5 all-bank REFs.
TEST_F(Cli, RefreshCountersCountEveryRefresh) {
  std::map<std::string, std::pair<int64_t, int64_t>> seen;
  for (const char* policy : {"per_bank", "all_bank", "none"}) {
    const fs::path out = dir_ / policy;
    const Result r = cstsim(std::string("run -q --no-trace --set hbm.controller.refresh=") + policy + " --arch " +
                            src("configs/arch/npu-128-hbm3.yaml") + " --workload " + src("configs/workloads/gemm-512.csv") +
                            " --out " + out.string());
    ASSERT_EQ(r.status, 0) << r.err;
    const auto s = nlohmann::json::parse(slurp(out / "summary.json"));
    const auto& m = s["layers"][0]["memory"];
    seen[policy] = {m["hbm_refreshes"].get<int64_t>(), m["hbm_bank_refreshes"].get<int64_t>()};
    const double tREFI_cycles = 3900.0;  // HBM3-6400 tREFI 3.9 us at the array's 1 GHz
    const double intervals = double(s["total"]["cycles"].get<int64_t>()) / tREFI_cycles;
    if (std::string(policy) == "per_bank") {
      EXPECT_NEAR(double(seen[policy].first), 32 * 16 * intervals, 32 * 16);
    }
    if (std::string(policy) == "all_bank") {
      EXPECT_NEAR(double(seen[policy].first), 32 * intervals, 32);
    }
  }
  EXPECT_EQ(seen["per_bank"].first, seen["per_bank"].second);  // all of them REFpb
  EXPECT_EQ(seen["all_bank"].second, 0);
  EXPECT_EQ(seen["none"], std::make_pair(int64_t(0), int64_t(0)));
}

// The HBM protocol checker hears every command of every run (memory: hbm | hierarchy)
// and changes nothing it watches: with --no-hbm-check the outputs are the same bytes.
TEST_F(Cli, HbmCheckerWatchesWithoutChangingAnything) {
  const fs::path arch = small_hierarchy("h.yaml", "clusters: 2\n");
  const fs::path w = file("w.yaml", "layers:\n  - {name: a, M: 300, N: 70, K: 90}\n");
  for (const char* flag : {"", " --no-hbm-check"}) {
    const fs::path out = dir_ / (std::string(flag).empty() ? "checked" : "unchecked");
    const Result r = cstsim("run -q" + std::string(flag) + " --arch " + arch.string() + " --workload " + w.string() +
                            " --out " + out.string());
    ASSERT_EQ(r.status, 0) << r.err;
  }
  for (const char* f : {"summary.json", "report.json", "trace/rt.bin"})
    EXPECT_EQ(slurp(dir_ / "checked" / f), slurp(dir_ / "unchecked" / f)) << f;
}

// hbm.request_bytes is what the DMA asks for per request: 256 B moves the same bytes in a
// quarter of the requests of 64 B (each split into its per-channel pieces), where it used
// to be cut at the first channel boundary and act as 64 B.
TEST_F(Cli, RequestBytesAboveTheInterleaveAreHonoured) {
  const fs::path arch = small_hierarchy("h.yaml");
  const fs::path w = file("w.yaml", "layers:\n  - {name: a, M: 64, N: 64, K: 64}\n");
  std::map<int, nlohmann::json> m;
  for (int bytes : {64, 256}) {
    const fs::path out = dir_ / std::to_string(bytes);
    const Result r = cstsim(fmt::format("run -q --no-trace --verify --set hbm.request_bytes={} --arch {} --workload {} --out {}",
                                        bytes, arch.string(), w.string(), out.string()));
    ASSERT_EQ(r.status, 0) << r.err;
    m[bytes] = nlohmann::json::parse(slurp(out / "summary.json"))["layers"][0]["memory"];
  }
  EXPECT_EQ(m[64]["hbm_bytes_read"], m[256]["hbm_bytes_read"]);
  EXPECT_EQ(m[64]["dma_pieces"], m[64]["dma_requests"]);  // 64 B: one channel each
  const int64_t small = m[64]["dma_requests"].get<int64_t>(), large = m[256]["dma_requests"].get<int64_t>();
  EXPECT_NEAR(double(large), double(small) / 4, double(small) / 16) << small << " vs " << large;
  EXPECT_EQ(m[256]["dma_pieces"], m[64]["dma_pieces"]);  // the same 64 B pieces, four to a request
}

// `run --describe` prints the schema the reader uses, a section of it, and with --arch
// the resolved keys of the HBM and NoC files as --set spells them.
TEST_F(Cli, DescribePrintsTheSchema) {
  const Result all = cstsim("run --describe");
  ASSERT_EQ(all.status, 0) << all.err;
  EXPECT_NE(all.out.find("array.rows "), std::string::npos) << all.out;
  EXPECT_NE(all.out.find("positive integer (PE)"), std::string::npos) << all.out;
  const size_t ports = all.out.find("\nscratchpad.ports_per_bank ");
  ASSERT_NE(ports, std::string::npos) << all.out;
  EXPECT_NE(all.out.substr(ports, all.out.find('\n', ports + 1) - ports).find(" integer 1..16 (ports) "), std::string::npos);
  const Result spad = cstsim("run --describe scratchpad");
  ASSERT_EQ(spad.status, 0);
  EXPECT_EQ(spad.out.find("array.rows"), std::string::npos);
  EXPECT_NE(spad.out.find("scratchpad.banks"), std::string::npos);
  const Result hbm = cstsim("run --describe hbm.timing --arch " + src("configs/arch/npu-128-hbm3.yaml") +
                            " --set hbm.timing.tCL=30ck");
  ASSERT_EQ(hbm.status, 0) << hbm.err;
  EXPECT_NE(hbm.out.find("hbm.timing.tCL"), std::string::npos) << hbm.out;
  EXPECT_NE(hbm.out.find("30ck"), std::string::npos) << hbm.out;
  EXPECT_EQ(hbm.out.find("hbm.organization"), std::string::npos) << hbm.out;
  expect_input_error("run --describe nope", "--describe: nope: no such section");
}

// A run that is not on a terminal prints a progress line per --progress-every seconds
// (the thread reads where cluster 0 is); -q and 0 print none; a negative interval is refused.
TEST_F(Cli, RunsShowProgressOffATerminal) {
  const std::string args = " --no-trace --arch " + src("configs/arch/npu-128-hbm3.yaml") + " --workload " +
                           src("configs/workloads/resnet18.csv") + " --out ";
  const Result r = cstsim("run --progress-every 0.02" + args + (dir_ / "p").string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto at = r.err.find("progress: layer ");
  ASSERT_NE(at, std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/21 ", at), std::string::npos) << r.err;  // ResNet-18's 21 layers
  EXPECT_NE(r.err.find(" %, ", at), std::string::npos) << r.err;
  EXPECT_EQ(cstsim("run -q --progress-every 0.02" + args + (dir_ / "q").string()).err.find("progress:"), std::string::npos);
  EXPECT_EQ(cstsim("run --progress-every 0" + args + (dir_ / "z").string()).err.find("progress:"), std::string::npos);
  const Result bad = cstsim("run --progress-every -1" + args + (dir_ / "b").string());
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--progress-every"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(dir_ / "b"));
}

// The run is a SystemC module hierarchy: summary.json lists it and -v prints it as a tree.
TEST_F(Cli, HierarchyRunListsItsModules) {
  const fs::path arch = small_hierarchy("h.yaml", "clusters: 2\n");
  const fs::path w = file("w.yaml", "layers:\n  - {name: a, M: 40, N: 70, K: 30}\n");
  const Result r = cstsim("run -v --no-trace --arch " + arch.string() + " --workload " + w.string() + " --out " +
                          (dir_ / "r").string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto s = nlohmann::json::parse(slurp(dir_ / "r" / "summary.json"));
  std::map<std::string, std::string> kind;
  for (const auto& m : s["modules"]) kind[m["name"]] = m["kind"];
  for (int k = 0; k < 2; ++k) {
    const std::string c = fmt::format("accelerator.cluster{}", k);
    EXPECT_EQ(kind[c], "cluster");
    EXPECT_EQ(kind[c + ".array"], "array");
    EXPECT_EQ(kind[c + ".scratchpad"], "scratchpad");
    EXPECT_EQ(kind[c + ".dma"], "dma");
  }
  EXPECT_EQ(kind["accelerator.memory"], "memory_system");  // the memory's clock
  EXPECT_EQ(kind["accelerator.noc"], "noc");
  EXPECT_EQ(kind["accelerator.hbm"], "hbm");
  int controllers = 0;
  for (const auto& [name, k] : kind) controllers += k == "hbm_controller";
  EXPECT_EQ(controllers, 8);  // HBM2-2000: one controller per channel
  EXPECT_EQ(kind.size(), 1u + 2 * 4 + 1 + 1 + 1 + 8);
  EXPECT_NE(r.err.find("  cluster1 (cluster)\n    scratchpad (scratchpad)"), std::string::npos) << r.err;
  // Every module owns a process or says why not: the clusters' sequencers are threads; each DMA,
  // scratchpad, the mesh and the stack step their parts as methods; the array runs in its
  // cluster's thread, and the memory system is only their clock.
  std::map<std::string, std::string> process;
  for (const auto& m : s["modules"]) {
    ASSERT_NE(m.contains("process"), m.contains("no_process_because")) << m.dump();
    if (m.contains("process")) process[m["name"]] = m["process"];
    else EXPECT_FALSE(m["no_process_because"].get<std::string>().empty()) << m.dump();
  }
  EXPECT_EQ(process["accelerator.cluster0"], "thread");
  EXPECT_EQ(process["accelerator.cluster1"], "thread");
  EXPECT_EQ(process.count("accelerator.memory"), 0u);
  EXPECT_EQ(process["accelerator.noc"], "method");
  EXPECT_EQ(process["accelerator.hbm"], "method");
  // Each stepped its part in SystemC time: every HBM burst read or written went through the
  // stack's process, every packet through the mesh's, each cluster's requests through its DMA's
  // and its words through its scratchpad's.
  std::map<std::string, nlohmann::json> module;
  for (const auto& m : s["modules"]) module[m["name"]] = m;
  for (const char* name : {"accelerator.noc", "accelerator.hbm", "accelerator.cluster0.dma", "accelerator.cluster1.dma",
                           "accelerator.cluster0.scratchpad", "accelerator.cluster1.scratchpad"}) {
    EXPECT_EQ(process[name], "method") << name;
    EXPECT_GT(module[name]["activations"].get<int64_t>(), 0) << name;
    EXPECT_GT(module[name]["events"].get<int64_t>(), 0) << name;
  }
  EXPECT_FALSE(module["accelerator.memory"].contains("activations"));
  EXPECT_FALSE(module["accelerator.cluster0"].contains("activations"));
  EXPECT_EQ(process.count("accelerator.cluster0.array"), 0u);
  // Ideal memory: the arrays alone.
  const fs::path ideal = file("i.yaml", "array: {rows: 8, cols: 8}\ndataflow: ws\n");
  ASSERT_EQ(cstsim("run -q --no-trace --arch " + ideal.string() + " --workload " + w.string() + " --out " +
                   (dir_ / "i").string()).status, 0);
  const auto si = nlohmann::json::parse(slurp(dir_ / "i" / "summary.json"));
  ASSERT_EQ(si["modules"].size(), 3u);
  EXPECT_EQ(si["modules"][2]["name"], "accelerator.cluster0.array");
}

TEST_F(Cli, PlanShowsTheSimulatedDmaProgram) {
  const Result r = cstsim("plan --arch " + src("configs/arch/npu-128-hbm3.yaml") + " --workload " +
                          src("configs/workloads/resnet18.csv") + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  // Conv1: 12100 x 64 int32 accumulators (3.1 MB) exceed the 2 MiB ofmap partition, and two
  // 12100 x 128 blocks even more: two passes of 6050 rows, whose accumulators stay resident.
  const auto& conv1 = j[0]["dma_program"];
  EXPECT_EQ(conv1["passes"], 2);
  EXPECT_EQ(conv1["output"]["resident"], true);
  EXPECT_EQ(conv1["output"]["slot_bytes"], 6050 * 64 * 4);
  EXPECT_EQ(conv1["stream"]["partition"], "ifmap");
  EXPECT_EQ(j[1]["dma_program"]["passes"], 1);
}

// Each entry of `plan --json` names the steps whose results it reads: the attention's context
// GEMM reads V and the softmax's probabilities, the residual add the context, nothing the norm.
TEST_F(Cli, PlanJsonShowsEachStepsDeps) {
  const Result r = cstsim("plan --json --arch " + src("configs/arch/npu-128-hbm3.yaml") + " --workload " +
                          src("tests/data/attention-block.yaml"));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  std::map<std::string, int> step;
  std::map<std::string, std::vector<int>> deps;
  for (const auto& e : j) {
    ASSERT_TRUE(e.contains("deps")) << e.dump();
    step[e["name"]] = e["step"];
    deps[e["name"]] = e["deps"].get<std::vector<int>>();
  }
  EXPECT_EQ(deps["norm"], std::vector<int>{});
  EXPECT_EQ(deps["attn.context"], (std::vector<int>{step["v"], step["attn.softmax"]}));
  EXPECT_EQ(deps["attn.scores"], (std::vector<int>{step["q"], step["k"]}));
  EXPECT_EQ(deps["res"], std::vector<int>{step["attn.context"]});
}

// `cstsim plan` prints what the run simulates: per layer the same folds, passes and HBM
// bytes (over every cluster share and pass) as the run's summary.json.
TEST_F(Cli, PlanPrintsExactlyWhatTheRunSimulates) {
  const fs::path arch = small_hierarchy("h.yaml", "clusters: 2\n");
  const fs::path w = file("w.yaml", "layers:\n  - {name: a, M: 700, N: 70, K: 90}\n  - {name: b, M: 9, N: 10, K: 20}\n"
                                    "  - {name: c, M: 64, N: 96, K: 48}\n");
  for (const char* df : {"ws", "is", "os"}) {
    SCOPED_TRACE(df);
    const std::string set = std::string(" --set dataflow=") + df;
    const Result p = cstsim("plan --json --arch " + arch.string() + " --workload " + w.string() + set);
    ASSERT_EQ(p.status, 0) << p.err;
    const auto plan = nlohmann::json::parse(p.out);
    const fs::path out = dir_ / (std::string("r") + df);
    const Result r = cstsim("run -q --no-trace --arch " + arch.string() + " --workload " + w.string() + set +
                            " --out " + out.string());
    ASSERT_EQ(r.status, 0) << r.err;
    const auto s = nlohmann::json::parse(slurp(out / "summary.json"));
    ASSERT_EQ(plan.size(), 3u);
    bool several_passes = false;
    for (size_t i = 0; i < 3; ++i) {
      SCOPED_TRACE(i);
      const auto &pl = plan[i], &run = s["layers"][i];
      EXPECT_EQ(pl["dataflow"], df);
      for (const char* k : {"count", "row_folds", "col_folds", "Sr", "Sc", "T"}) EXPECT_EQ(pl["folds"][k], run["folds"][k]) << k;
      EXPECT_EQ(pl["stream_passes"].size(), run["memory"]["stream_passes"].get<size_t>());
      EXPECT_EQ(pl["hbm_bytes_read"], run["memory"]["hbm_bytes_read"]);
      EXPECT_EQ(pl["hbm_bytes_written"], run["memory"]["hbm_bytes_written"]);
      EXPECT_EQ(pl["clusters"].size(), 2u);
      several_passes = several_passes || pl["stream_passes"].size() > 1;
    }
    // WS streams 700 rows of A that do not fit one pass; OS never cuts its reduction.
    EXPECT_EQ(several_passes, std::string(df) == "ws");
  }
  const Result e = cstsim("plan --explore --arch " + arch.string() + " --workload " + w.string());
  EXPECT_NE(e.out.find("Traffic-optimal tiling plan (an estimate, not simulated)"), std::string::npos) << e.out;
}

}  // namespace

namespace {

// The shipped full-hierarchy preset on GEMM 1024^3: the cycle count is pinned (any
// change to the HBM, NoC, DMA, scratchpad or array timing shows up here), every
// operand byte crosses each level once, and the memory system costs 4.8 % over the same GEMM
// with ideal memory (65,918 cycles on npu-128).
TEST_F(Cli, NpuHbm3Gemm1024FullHierarchy) {
  const Result r = cstsim("run -q --arch " + src("configs/arch/npu-128-hbm3.yaml") + " --workload " +
                          src("configs/workloads/gemm-1024.yaml") + " --out " + (dir_ / "g").string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto s = nlohmann::json::parse(slurp(dir_ / "g" / "summary.json"));
  const auto& L = s["layers"][0];
  EXPECT_EQ(L["cycles"].get<int64_t>(), 69082);
  EXPECT_EQ(L["ideal_cycles"].get<int64_t>(), 65918);  // as npu-128 (memory: ideal) runs it
  EXPECT_EQ(L["stall_cycles"].get<int64_t>(), 69082 - 65918);
  const auto& m = L["memory"];
  EXPECT_EQ(m["hbm_bytes_read"].get<int64_t>(), 2 << 20);  // A and B once each
  EXPECT_EQ(m["hbm_bytes_written"].get<int64_t>(), 1 << 20);  // C once, int8
  EXPECT_EQ(m["dma_bytes_delivered"], m["hbm_bytes_read"]);
  EXPECT_EQ(m["spad_bytes_written"], m["hbm_bytes_read"]);
  EXPECT_EQ(m["spad_peak_bytes"]["ifmap"].get<int64_t>(), 1 << 20);  // all of A stays
  const auto rep = nlohmann::json::parse(slurp(dir_ / "g" / "report.json"));
  // The tighter memory ceiling is the cluster's mesh port: 2 MiB in at 128 B a cycle (16,384
  // cycles), against 3 MiB through the stack at 819.2 B a cycle (3,840); both far below the
  // array's own schedule (65,918 cycles with ideal memory), the level that binds: compute-bound.
  EXPECT_EQ(rep["total"]["roofline"]["level"], "array");
  EXPECT_EQ(rep["total"]["roofline"]["bound_by"], "compute");
  EXPECT_GT(value(rep["total"]["roofline"]["ceilings"]["noc_port"]["time"]),
            value(rep["total"]["roofline"]["ceilings"]["hbm"]["time"]));
  EXPECT_EQ(value(rep["total"]["roofline"]["ceilings"]["noc_port"]["bytes"]), double(2 << 20));
  EXPECT_EQ(value(rep["total"]["C_P"]["B_M"]["hbm"]), double(3 << 20));
  // 16 channel edges in R(t) (each channel's data buses), each with the bytes it moved (hbm_ch.NN).
  double channel_bytes = 0;
  int channels = 0;
  for (const auto& e : rep["total"]["Theta_CST"]["Gamma_comm"]["edges"])
    if (e["links"].get<std::string>().rfind("hbm.ch", 0) == 0) {
      channel_bytes += value(e["bytes"]);
      ++channels;
      EXPECT_GT(value(e["bytes"]), 0) << e["links"];  // 256 B requests spread over every channel
    }
  EXPECT_EQ(channels, 16);
  EXPECT_NEAR(channel_bytes, double(3 << 20), 1e-6 * double(3 << 20));
}

}  // namespace

namespace {

// Random small multi-cluster hierarchies under --verify: every cluster's register grid,
// stepping in lockstep with the others on their shared memory system, must reproduce
// the closed form's events and end cycle, and the exact GEMM.
TEST_F(Cli, LongClustersVerifyOnRandomHierarchies) {
  std::mt19937_64 rng(77);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int ran = 0;
  for (int i = 0; i < 60; ++i) {
    const int k = pick(1, 2);
    const std::string arch = fmt::format(
        "array: {{rows: {}, cols: {}}}\ndataflow: {}\nclusters: {}\nmemory: hierarchy\n"
        "sram: {{ifmap_kib: {}, filter_kib: {}, ofmap_kib: {}}}\n"
        "hbm: {{spec: {}, fifo_tiles: {}, max_outstanding: {}, request_bytes: {}, layout: {}}}\n"
        "noc: {{spec: {}, cluster_x: {}, cluster_y: {}}}\n"
        "scratchpad: {{banks: 16, word_bytes: {}, ports_per_bank: {}, write_latency: {}, read_latency: {}}}\n",
        pick(3, 12), pick(3, 12), std::array{"ws", "is", "os"}[size_t(i % 3)], pick(2, 4), 4 * k, 2 * k, 2 * k,
        src(i % 3 ? "configs/memory/hbm2-2000.yaml" : "configs/memory/hbm3-6400.yaml"), pick(1, 4), pick(1, 16),
        32 * pick(1, 4), (i / 3) % 2 ? "row_major" : "tiled",  // strided descriptors in half the cases
        src(i % 2 ? "configs/noc/mesh-4x4.yaml" : "configs/noc/npu-mesh-4x4.yaml"), pick(0, 3),
        pick(0, 2), 16 * pick(1, 2), pick(2, 3), pick(0, 2), pick(0, 2));
    std::string layers = "layers:\n";
    for (int j = 0, n = pick(1, 3); j < n; ++j)
      layers += fmt::format("  - {{name: l{}, M: {}, N: {}, K: {}}}\n", j, pick(1, j ? 40 : 300), pick(1, 60), pick(1, 40));
    const fs::path a = file("a" + std::to_string(i) + ".yaml", arch), w = file("w" + std::to_string(i) + ".yaml", layers);
    const fs::path out = dir_ / ("o" + std::to_string(i));
    const Result r = cstsim("run -q --verify --no-trace --arch " + a.string() + " --workload " + w.string() + " --out " +
                            out.string() + (i % 4 == 0 ? " --set hbm.controller.page_policy=close_exhausted" : ""));
    if (r.status == 2) continue;  // a drawn scratchpad that cannot hold the layer: an input error, fine
    ASSERT_EQ(r.status, 0) << arch << layers << r.err;
    EXPECT_TRUE(nlohmann::json::parse(slurp(out / "summary.json"))["verify"]["passed"].get<bool>()) << arch << layers;
    ++ran;
  }
  EXPECT_GE(ran, 40);
}

// overlap: prefetch under the register-level check: random chains of 2-4 GEMMs (half of them
// reading the previous output), all dataflows, 1-3 clusters, both layouts. The grid, which loads
// the next pass's reads from the cycles it observes, lands on the closed form's cycles; the run
// moves the bytes of `overlap: none`; and it is faster in most (21 of 21 drawn here; in another
// draw of 20 GEMM chains one was 0.6 % slower, and of 24 convolution chains one 0.14 %: a layer
// ends when the next one's prefetched reads are in, which can be later than the next layer's
// first fold needed them).
TEST_F(Cli, LongPrefetchVerifiesOnRandomHierarchies) {
  std::mt19937_64 rng(77);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int ran = 0, faster = 0;
  for (int i = 0; i < 24; ++i) {
    const int k = pick(1, 3);
    const std::string arch = fmt::format(
        "array: {{rows: {}, cols: {}}}\ndataflow: {}\nclusters: {}\nmemory: hierarchy\n"
        "sram: {{ifmap_kib: {}, filter_kib: {}, ofmap_kib: {}}}\n"
        "hbm: {{spec: {}, fifo_tiles: {}, max_outstanding: {}, request_bytes: {}, layout: {}}}\nnoc: {{spec: {}}}\n"
        "scratchpad: {{banks: 16, word_bytes: 32, ports_per_bank: {}}}\n",
        pick(3, 16), pick(3, 16), std::array{"ws", "is", "os"}[size_t(i % 3)], pick(1, 3), 8 * k, 4 * k, 4 * k,
        src(i % 2 ? "configs/memory/hbm2-2000.yaml" : "configs/memory/hbm3-6400.yaml"), pick(1, 4), pick(1, 32),
        32 * pick(1, 8), i % 4 == 3 ? "row_major" : "tiled", src("configs/noc/npu-mesh-4x4.yaml"), pick(2, 3));
    std::string layers = "layers:\n";
    int64_t n_prev = 0;
    for (int j = 0, n = pick(2, 4); j < n; ++j) {
      const int64_t m = pick(1, 300), nn = pick(1, 80), kk = j > 0 && pick(0, 1) ? n_prev : pick(1, 80);
      layers += fmt::format("  - {{name: l{}, M: {}, N: {}, K: {}}}\n", j, m, nn, kk);
      n_prev = nn;
    }
    const fs::path a = file("pa" + std::to_string(i) + ".yaml", arch), w = file("pw" + std::to_string(i) + ".yaml", layers);
    int64_t cycles[2] = {0, 0}, bytes[2] = {0, 0};
    bool mapped = true;
    for (int o = 0; o < 2 && mapped; ++o) {
      const fs::path out = dir_ / ("po" + std::to_string(i) + "_" + std::to_string(o));
      const Result r = cstsim("run -q --verify --no-trace --arch " + a.string() + " --workload " + w.string() +
                              " --out " + out.string() + (o ? " --set overlap=prefetch" : ""));
      if (r.status == 2) {  // a drawn scratchpad that cannot hold a layer: an input error, fine
        mapped = false;
        break;
      }
      ASSERT_EQ(r.status, 0) << arch << layers << r.err;
      const auto s = nlohmann::json::parse(slurp(out / "summary.json"));
      EXPECT_TRUE(s["verify"]["passed"].get<bool>()) << arch << layers << o;
      cycles[o] = s["total"]["cycles"].get<int64_t>();
      for (const auto& l : s["layers"]) bytes[o] += l["memory"]["hbm_bytes_read"].get<int64_t>();
    }
    if (!mapped) continue;
    EXPECT_EQ(bytes[1], bytes[0]) << arch << layers;
    faster += cycles[1] < cycles[0];
    ++ran;
  }
  EXPECT_GE(ran, 14);
  EXPECT_GE(faster, ran * 3 / 4);
}

namespace {

// Runs `args` under --verify with overlap: prefetch, then pipeline, into runs[0] and runs[1]
// (their summary.json); false when a drawn scratchpad cannot hold a layer (exit 2, an input
// error) or a run failed (reported).
template <typename Run>
bool verify_prefetch_and_pipeline(Run&& cstsim, const std::string& args, const fs::path& out, nlohmann::json runs[2],
                                  const std::string& context) {
  for (int o = 0; o < 2; ++o) {
    const fs::path dir = out.string() + "_" + std::to_string(o);
    const Result r = cstsim("run -q --verify " + args + " --out " + dir.string() + " --set overlap=" +
                            (o ? "pipeline" : "prefetch"));
    if (r.status == 2) return false;
    if (r.status != 0) {
      ADD_FAILURE() << context << r.err;
      return false;
    }
    runs[o] = nlohmann::json::parse(slurp(dir / "summary.json"));
    EXPECT_TRUE(runs[o]["verify"]["passed"].get<bool>()) << context << o;
  }
  return true;
}

}  // namespace

// overlap: pipeline on random chains of GEMMs (each layer's A is the previous C: same M, K = the
// previous N), square and non-square arrays, all dataflows, random scratchpads, a quarter on 2-3
// clusters (each sends its share of the outputs to every cluster), a third traced:
// the register grid lands on the closed form's cycles; every output kept on chip is one the HBM
// neither writes nor reads back (as `cstsim plan` prints it); and some chains do keep their
// outputs on chip (IS never: its input goes through the tile FIFO).
TEST_F(Cli, LongPipelineVerifiesOnRandomChains) {
  std::mt19937_64 rng(1206);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int ran = 0, kept = 0, kept_by_several = 0, faster = 0;
  for (int i = 0; i < 40; ++i) {
    const int rows = pick(4, 16), cols = i % 4 ? rows : pick(4, 16), k = pick(1, 4);
    const int clusters = i % 4 == 1 ? pick(2, 3) : 1;
    const std::string arch = fmt::format(
        "array: {{rows: {}, cols: {}}}\ndataflow: {}\nclusters: {}\nmemory: hierarchy\n"
        "sram: {{ifmap_kib: {}, filter_kib: {}, ofmap_kib: {}}}\n"
        "hbm: {{spec: {}, fifo_tiles: {}, max_outstanding: {}, request_bytes: {}, layout: {}}}\nnoc: {{spec: {}}}\n"
        "scratchpad: {{banks: 16, word_bytes: 32, ports_per_bank: {}}}\n",
        rows, cols, std::array{"ws", "os", "is"}[size_t(i % 3)], clusters, 8 * k, 4 * k, 4 * k,
        src(i % 2 ? "configs/memory/hbm2-2000.yaml" : "configs/memory/hbm3-6400.yaml"), pick(1, 4), pick(1, 32),
        32 * pick(1, 8), i % 5 == 4 ? "row_major" : "tiled", src("configs/noc/npu-mesh-4x4.yaml"), pick(2, 3));
    std::string layers = "layers:\n";
    const int64_t m = pick(1, 200);
    for (int j = 0, n = pick(2, 4), kk = pick(1, 80); j < n; ++j) {
      const int nn = pick(1, 80);
      layers += fmt::format("  - {{name: l{}, M: {}, N: {}, K: {}}}\n", j, m, nn, kk);
      kk = nn;
    }
    const fs::path a = file("la" + std::to_string(i) + ".yaml", arch), w = file("lw" + std::to_string(i) + ".yaml", layers);
    nlohmann::json runs[2];
    if (!verify_prefetch_and_pipeline([&](const std::string& x) { return cstsim(x); },
                                      std::string(i % 3 == 1 ? "" : "--no-trace ") + "--arch " + a.string() +
                                          " --workload " + w.string(),
                                      dir_ / ("lo" + std::to_string(i)), runs, arch + layers))
      continue;
    const Result plan = cstsim("plan --json --arch " + a.string() + " --workload " + w.string() + " --set overlap=pipeline");
    ASSERT_EQ(plan.status, 0) << plan.err;
    const auto p = nlohmann::json::parse(plan.out);
    int64_t on_chip = 0, read[2] = {0, 0}, written[2] = {0, 0}, planned = 0;
    for (size_t j = 0; j < p.size(); ++j) {
      const auto& lm = runs[1]["layers"][j]["memory"];
      on_chip += lm["dma_bytes_on_chip"].get<int64_t>();
      planned += p[j]["hbm_bytes_read"].get<int64_t>() + p[j]["hbm_bytes_written"].get<int64_t>();
      EXPECT_EQ(p[j]["on_chip"]["output"].get<bool>(), lm["dma_bytes_on_chip"].get<int64_t>() > 0) << arch << layers << j;
      for (int o = 0; o < 2; ++o) {
        read[o] += runs[o]["layers"][j]["memory"]["hbm_bytes_read"].get<int64_t>();
        written[o] += runs[o]["layers"][j]["memory"]["hbm_bytes_written"].get<int64_t>();
      }
    }
    // The outputs kept are written to HBM no more, and the next layers' inputs not read back
    // (as those layers read them: their blocks may pad otherwise than the outputs' blocks). With
    // several clusters every output lands in each of them.
    EXPECT_EQ(written[1] * clusters, written[0] * clusters - on_chip) << arch << layers;
    EXPECT_EQ(read[1] < read[0], on_chip > 0) << arch << layers;
    EXPECT_EQ(read[1] + written[1], planned) << arch << layers;  // a layer's prefetched reads move in the window before it
    if (i % 3 == 2) {  // IS
      EXPECT_EQ(on_chip, 0) << arch << layers;
    }
    kept += on_chip > 0;
    kept_by_several += on_chip > 0 && clusters > 1;
    faster += on_chip > 0 && runs[1]["total"]["cycles"] < runs[0]["total"]["cycles"];
    ++ran;
  }
  std::printf("%d chains ran, %d kept outputs on chip (%d on several clusters), %d of them faster\n", ran, kept,
              kept_by_several, faster);
  EXPECT_GE(kept_by_several, 2);
  EXPECT_GE(ran, 28);
  EXPECT_GE(kept, 14);
  EXPECT_GE(faster, kept * 3 / 4);
}

// The same for chains of convolutions: each layer's ifmap is the previous output map inside a
// zero border narrower than its filter (the workload's chaining rule), random filters, strides
// and channels, WS and OS. Under the register-level check, and the outputs kept on chip are the
// HBM writes saved, byte for byte.
TEST_F(Cli, LongPipelineVerifiesOnRandomConvolutionChains) {
  std::mt19937_64 rng(4242);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int ran = 0, kept = 0;
  for (int i = 0; i < 32; ++i) {
    const std::string arch = fmt::format(
        "array: {{rows: {0}, cols: {0}}}\ndataflow: {1}\nmemory: hierarchy\n"
        "sram: {{ifmap_kib: 64, filter_kib: 32, ofmap_kib: 32}}\n"
        "hbm: {{spec: {2}, fifo_tiles: {3}}}\nnoc: {{spec: {4}}}\nscratchpad: {{banks: 16, word_bytes: 32, ports_per_bank: 2}}\n",
        pick(8, 16), i % 2 ? "os" : "ws", src("configs/memory/hbm2-2000.yaml"), pick(1, 3),
        src("configs/noc/npu-mesh-4x4.yaml"));
    std::string layers = "Layer,IFMAP Height,IFMAP Width,Filter Height,Filter Width,Channels,Num Filter,Strides,\n";
    int h = pick(6, 20), w = pick(6, 20), c = std::array{3, 8, 16, 32}[size_t(pick(0, 3))];
    for (int j = 0, n = pick(2, 3); j < n; ++j) {
      const int f = std::min({std::array{1, 3, 5}[size_t(pick(0, 2))], h, w}), st = pick(1, 2), filters = pick(4, 40);
      layers += fmt::format("c{},{},{},{},{},{},{},{},\n", j, h, w, f, f, c, filters, st);
      const int next_f = 3, border = pick(0, (next_f - 1) / 2);  // the next layer's zero border
      h = (h - f + st) / st + 2 * border;
      w = (w - f + st) / st + 2 * border;
      c = filters;
    }
    const fs::path a = file("ka" + std::to_string(i) + ".yaml", arch), wl = file("kw" + std::to_string(i) + ".csv", layers);
    nlohmann::json runs[2];
    if (!verify_prefetch_and_pipeline([&](const std::string& x) { return cstsim(x); },
                                      "--no-trace --arch " + a.string() + " --workload " + wl.string(),
                                      dir_ / ("ko" + std::to_string(i)), runs, arch + layers))
      continue;
    int64_t on_chip = 0, written[2] = {0, 0};
    for (size_t j = 0; j < runs[1]["layers"].size(); ++j) {
      on_chip += runs[1]["layers"][j]["memory"]["dma_bytes_on_chip"].get<int64_t>();
      for (int o = 0; o < 2; ++o) written[o] += runs[o]["layers"][j]["memory"]["hbm_bytes_written"].get<int64_t>();
    }
    EXPECT_EQ(written[1], written[0] - on_chip) << arch << layers;
    kept += on_chip > 0;
    ++ran;
  }
  std::printf("%d convolution chains ran, %d kept outputs on chip\n", ran, kept);
  EXPECT_GE(ran, 24);
  EXPECT_GE(kept, 12);
}

// The same for convolutions, whose ifmap the DMA reads raw where that is fewer bytes (WS: channel
// blocks; OS: each row fold's input rows; IS: each column fold's) and lowers on chip: random
// shapes, strides (with SCALE-Sim's windows past the ifmap), channels, clusters and layouts,
// under the register-level check, and the HBM bytes `cstsim plan` prints are the ones the run
// moved, layer by layer. (A random sweep like this found the padding-only fold of a stride-3
// 1x1 layer under IS with two clusters, which stopped the run on an empty transfer.)
TEST_F(Cli, LongConvolutionsVerifyOnRandomHierarchies) {
  std::mt19937_64 rng(2026);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int ran = 0, raw = 0;
  for (int i = 0; i < 48; ++i) {
    const std::string arch = fmt::format(
        "array: {{rows: {}, cols: {}}}\ndataflow: {}\nclusters: {}\nmemory: hierarchy\n"
        "sram: {{ifmap_kib: 64, filter_kib: 64, ofmap_kib: 128}}\n"
        "hbm: {{spec: {}, fifo_tiles: {}, layout: {}}}\nnoc: {{spec: {}}}\n"
        "scratchpad: {{banks: 16, word_bytes: 32}}\n",
        pick(8, 16), pick(8, 16), std::array{"ws", "os", "is"}[size_t(i % 3)], pick(1, 3),
        src("configs/memory/hbm2-2000.yaml"), pick(1, 3), i % 4 == 3 ? "row_major" : "tiled",
        src("configs/noc/npu-mesh-4x4.yaml"));
    std::string layers = "Layer,IFMAP Height,IFMAP Width,Filter Height,Filter Width,Channels,Num Filter,Strides,\n";
    for (int j = 0, n = pick(1, 2); j < n; ++j) {
      const int f = std::array{1, 2, 3, 5}[size_t(pick(0, 3))];
      layers += fmt::format("c{},{},{},{},{},{},{},{},\n", j, pick(f, 24), pick(f, 24), f, f,
                            std::array{1, 3, 8, 17, 64}[size_t(pick(0, 4))], pick(2, 40), pick(1, 3));
    }
    const fs::path a = file("ca" + std::to_string(i) + ".yaml", arch), w = file("cw" + std::to_string(i) + ".csv", layers);
    const fs::path out = dir_ / ("co" + std::to_string(i));
    const Result r = cstsim("run -q --verify --no-trace --arch " + a.string() + " --workload " + w.string() + " --out " +
                            out.string());
    if (r.status == 2) continue;  // a layer the drawn scratchpad cannot hold: an input error, fine
    ASSERT_EQ(r.status, 0) << arch << layers << r.err;
    const auto s = nlohmann::json::parse(slurp(out / "summary.json"));
    EXPECT_TRUE(s["verify"]["passed"].get<bool>()) << arch << layers;
    const Result p = cstsim("plan --json --arch " + a.string() + " --workload " + w.string());
    ASSERT_EQ(p.status, 0) << p.err;
    const auto plan = nlohmann::json::parse(p.out);
    for (size_t l = 0; l < plan.size(); ++l) {
      EXPECT_EQ(s["layers"][l]["memory"]["hbm_bytes_read"], plan[l]["hbm_bytes_read"]) << arch << layers << l;
      raw += s["layers"][l]["conv"]["lowering"] == "im2col on chip from the raw ifmap";
    }
    ++ran;
  }
  EXPECT_GE(ran, 40);
  EXPECT_GE(raw, 30);  // the raw lowerings are exercised, not only the im2col fallback
}

}  // namespace

namespace {

// An array-size x dataflow sweep of the full-hierarchy preset runs at every point: at 256 x 256
// the bank word follows the array (no port starvation), OS's FIFO of blocks of B takes the depth
// its partition holds and streams K in chunks where one block does not fit (deep's 4,608 x 256
// int8, 1.1 MiB, against 512 KiB), and RS picks passes whose filters fit the filter partition
// (qkv's 2,304 x 768 weights, 1.7 MiB, do not fit it whole). Every point does the workload's MACs.
TEST_F(Cli, PresetArrayDataflowSweepRunsEveryPoint) {
  const fs::path w = file("w.yaml", "layers:\n  - {name: qkv, M: 16, N: 2304, K: 768}\n"
                                    "  - {name: proj, M: 64, N: 256, K: 384}\n"
                                    "  - {name: deep, M: 8, N: 512, K: 4608}\n");
  const int64_t macs = int64_t(16) * 2304 * 768 + int64_t(64) * 256 * 384 + int64_t(8) * 512 * 4608;
  for (const char* side : {"32", "256"})
    for (const char* df : {"ws", "os", "is", "rs"}) {
      SCOPED_TRACE(std::string(side) + " " + df);
      const fs::path out = dir_ / (std::string(df) + side);
      const Result r = cstsim(std::string("run -q --no-trace --set array.rows=") + side + " --set array.cols=" + side +
                              " --set dataflow=" + df + " --arch " + src("configs/arch/npu-128-hbm3.yaml") +
                              " --workload " + w.string() + " --out " + out.string());
      ASSERT_EQ(r.status, 0) << r.err;
      const auto s = nlohmann::json::parse(slurp(out / "summary.json"));
      EXPECT_EQ(s["total"]["macs"].get<int64_t>(), macs);
      EXPECT_EQ(s["arch"]["scratchpad"]["word_bytes"].get<int>(), std::stoi(side));
      if (std::string(df) == "os" && std::string(side) == "256") EXPECT_EQ(s["layers"][2]["folds"]["k_chunks"], 5);  // two of 922 x 256 B fit
    }
}

// OS K chunks under the register-level check on random small hierarchies: filter partitions of
// 1-2 KiB against blocks of B up to 600 deep, 1-2 clusters, both HBM layouts. The grid lands on
// the closed form's events with the whole memory system in the loop, computes the exact GEMM, and
// the run moves the bytes its plan says.
TEST_F(Cli, OsKChunksVerifyOnRandomHierarchies) {
  std::mt19937_64 rng(4608);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int chunked = 0;
  for (int i = 0; i < 14; ++i) {
    // Drawn in order (an argument list's evaluation order is unspecified, and differs between compilers).
    const int filter = pick(1, 2), rows = pick(4, 12), cols = pick(4, 12), clusters = pick(1, 2), fifo = pick(2, 4);
    const std::string arch = fmt::format(
        "array: {{rows: {}, cols: {}}}\ndataflow: os\nclusters: {}\nmemory: hierarchy\n"
        "sram: {{ifmap_kib: 16, filter_kib: {}, ofmap_kib: 16}}\n"
        "hbm: {{spec: {}, fifo_tiles: {}, layout: {}}}\nnoc: {{spec: {}}}\n"
        "scratchpad: {{banks: {}, word_bytes: 32}}\n",
        rows, cols, clusters, filter, src("configs/memory/hbm2-2000.yaml"), fifo,
        i % 2 ? "row_major" : "tiled", src("configs/noc/npu-mesh-4x4.yaml"), 2 * (32 + filter));
    std::string layers = "layers:\n";
    for (int j = 0, n = pick(1, 2); j < n; ++j) {
      const int M = pick(1, 40), N = pick(1, 30), K = pick(100, 600);
      layers += fmt::format("  - {{name: l{}, M: {}, N: {}, K: {}}}\n", j, M, N, K);
    }
    const fs::path a = file("ka" + std::to_string(i) + ".yaml", arch), w = file("kw" + std::to_string(i) + ".yaml", layers);
    const fs::path out = dir_ / ("ko" + std::to_string(i));
    const Result r = cstsim("run -q --verify --no-trace --arch " + a.string() + " --workload " + w.string() + " --out " +
                            out.string());
    ASSERT_EQ(r.status, 0) << arch << layers << r.err;
    const auto s = nlohmann::json::parse(slurp(out / "summary.json"));
    EXPECT_TRUE(s["verify"]["passed"].get<bool>()) << arch << layers;
    const Result p = cstsim("plan --json --arch " + a.string() + " --workload " + w.string());
    ASSERT_EQ(p.status, 0) << p.err;
    const auto plan = nlohmann::json::parse(p.out);
    for (size_t l = 0; l < plan.size(); ++l) {
      EXPECT_EQ(s["layers"][l]["memory"]["hbm_bytes_read"], plan[l]["hbm_bytes_read"]) << arch << layers << l;
      chunked += s["layers"][l]["folds"].contains("k_chunks");
    }
  }
  EXPECT_GE(chunked, 12);
}

}  // namespace

namespace {

// The roofline names the ceiling that binds. A decode GEMV on npu-128-hbm3 streams its 16 MiB of
// weights through the cluster's one mesh port, 128 B a NoC cycle, a sixth of the HBM3 stack's
// 819.2 B: the port ceiling (131,104 cycles) is six times the stack's. Tighter still is the array's
// own schedule, its weight tiles loaded through its edge fold by fold (196,224 cycles with ideal
// memory, 85.5 B/cycle): the level is the array, the run 0.1 % above it. A port eight times wider
// leaves the array binding and the stack's ceiling above the port's; one HBM channel (51.2 B a
// cycle) makes the stack the level.
TEST_F(Cli, RooflineNamesTheCeilingThatBinds) {
  auto roofline = [&](const std::string& extra, const std::string& out) {
    const Result r = cstsim("run -q --arch " + src("configs/arch/npu-128-hbm3.yaml") + " --workload " +
                            src("configs/workloads/decode-gemv.yaml") + extra + " --out " + (dir_ / out).string());
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(slurp(dir_ / out / "report.json"))["total"]["roofline"];
  };
  const auto port = roofline("", "port");
  EXPECT_EQ(port["level"], "array");
  EXPECT_EQ(port["bound_by"], "array");
  const double port_time = value(port["ceilings"]["noc_port"]["time"]), hbm_time = value(port["ceilings"]["hbm"]["time"]);
  EXPECT_DOUBLE_EQ(port_time, 16781312 / 128e9);  // B's 16 MiB and x's 4 KiB, in
  EXPECT_NEAR(port_time / hbm_time, 819.2 / 128, 0.05);
  EXPECT_DOUBLE_EQ(value(port["ceilings"]["array"]["time"]), 196224e-9);
  EXPECT_EQ(value(port["time_lower_bound"]), value(port["ceilings"]["array"]["time"]));
  EXPECT_LT(port["ratio_to_bound"].get<double>(), 1.002);
  const auto wide = roofline(" --set noc.flit_bytes=1024", "wide");
  EXPECT_EQ(wide["level"], "array");
  EXPECT_LT(value(wide["ceilings"]["noc_port"]["time"]), value(wide["ceilings"]["hbm"]["time"]));
  const auto one = roofline(" --set hbm.organization.channels=1", "one");
  EXPECT_EQ(one["level"], "hbm");
  EXPECT_EQ(one["bound_by"], "memory");
  EXPECT_GT(value(one["ceilings"]["hbm"]["time"]), value(one["ceilings"]["array"]["time"]));
}

}  // namespace

namespace {

// Cycles fall with the array's size until memory binds, and the stall split then names memory:
// a BERT-base layer on npu-128-hbm3 (the scratchpad's bank word following the array's edge).
// From 32 x 32 to 256 x 256 every dataflow gets faster, but the last doubling gains far less
// than its 4x PEs, and there the stall is memory's: at least a third of the cycles, all of it
// booked to HBM, NoC, DMA and scratchpad causes (a memory: ideal run of the same point has none).
TEST_F(Cli, CyclesFallWithArraySizeUntilMemoryBinds) {
  const std::string bert = src("configs/workloads/bert-base-layer.yaml");
  for (const char* df : {"ws", "os", "is"}) {
    int64_t previous = INT64_MAX;
    nlohmann::json last;
    for (int side : {32, 64, 128, 256}) {
      const fs::path out = dir_ / fmt::format("{}{}", df, side);
      const Result r = cstsim(fmt::format("run -q --no-trace --arch {} --workload {} --set array.size={} --set dataflow={} --out {}",
                                          src("configs/arch/npu-128-hbm3.yaml"), bert, side, df, out.string()));
      ASSERT_EQ(r.status, 0) << r.err;
      last = nlohmann::json::parse(slurp(out / "summary.json"))["total"];
      const int64_t cycles = last["cycles"].get<int64_t>();
      EXPECT_LT(cycles, previous) << df << " " << side;
      if (side == 256) EXPECT_GT(4 * cycles, 2 * previous) << df << ": 4x the PEs bought less than 2x";
      previous = cycles;
    }
    const int64_t stall = last["stall_cycles"].get<int64_t>();
    EXPECT_GE(3 * stall, last["cycles"].get<int64_t>()) << df;
    int64_t booked = 0;
    for (const auto& [cause, n] : last["stalls"].items()) booked += n.get<int64_t>();
    EXPECT_EQ(booked, stall) << df;
    EXPECT_EQ(last["stalls"]["dependency"].get<int64_t>(), 0) << df;
  }
}

}  // namespace
