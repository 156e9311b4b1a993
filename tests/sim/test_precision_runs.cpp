// Precision as a knob of whole runs: bytes, cycles, work and energy move with the operand
// type by the amounts its width and the PE's packing say; a type the PE cannot do is an
// input error before anything runs.
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/sim/cli_fixture.h"

namespace {

using json = nlohmann::json;

class Precision : public Cli {
 protected:
  json run(const std::string& arch, const std::string& workload, const std::string& sets, const std::string& name,
           bool trace = false) {
    const Result r = cstsim("run --arch " + src(arch) + " --workload " + workload + " " + sets +
                            (trace ? "" : " --no-trace") + " --out " + (dir_ / name).string());
    EXPECT_EQ(r.status, 0) << r.err;
    return json::parse(slurp(dir_ / name / (trace ? "report.json" : "summary.json")));
  }
  json plan(const std::string& arch, const std::string& workload, const std::string& sets) {
    const Result r = cstsim("plan --json --arch " + src(arch) + " --workload " + workload + " " + sets);
    EXPECT_EQ(r.status, 0) << r.err;
    return json::parse(r.out);
  }
};

// int4 (two to an 8-bit PE word on npu-128) against int8 on a compute-bound GEMM: every HBM
// byte of A, B and C halves, and so do the ideal-memory cycles (half the row folds over K).
TEST_F(Precision, Int4HalvesBytesAndComputeBoundCycles) {
  const std::string w = gemm(512, 512, 2048);
  const json p8 = plan("configs/arch/npu-128-hbm3.yaml", w, "--set precision.operand=int8");
  const json p4 = plan("configs/arch/npu-128-hbm3.yaml", w, "--set precision.operand=int4");
  for (const char* m : {"A", "B", "C"})
    EXPECT_EQ(2 * p4[0]["hbm_tensors"][m]["bytes"].get<int64_t>(), p8[0]["hbm_tensors"][m]["bytes"].get<int64_t>()) << m;
  EXPECT_EQ(p8[0]["hbm_tensors"]["B"]["bytes"], 2048 * 512);  // int8 weights: one byte each
  EXPECT_EQ(p4[0]["folds"]["row_folds"], 8);
  EXPECT_EQ(p8[0]["folds"]["row_folds"], 16);
  const json s8 = run("configs/arch/npu-128.yaml", w, "--set precision.operand=int8", "i8");
  const json s4 = run("configs/arch/npu-128.yaml", w, "--set precision.operand=int4", "i4");
  const double ratio = s4["total"]["cycles"].get<double>() / s8["total"]["cycles"].get<double>();
  EXPECT_GT(ratio, 0.49);
  EXPECT_LT(ratio, 0.52);
  EXPECT_EQ(s4["total"]["macs"], s8["total"]["macs"]);  // the same work
  EXPECT_EQ(s4["arch"]["macs_per_pe_cycle"], 2);
  // Under the memory hierarchy the layer moves half the bytes.
  const json h8 = run("configs/arch/npu-128-hbm3.yaml", w, "--set precision.operand=int8", "h8");
  const json h4 = run("configs/arch/npu-128-hbm3.yaml", w, "--set precision.operand=int4", "h4");
  EXPECT_EQ(2 * h4["layers"][0]["memory"]["hbm_bytes_read"].get<int64_t>(),
            h8["layers"][0]["memory"]["hbm_bytes_read"].get<int64_t>());
  EXPECT_EQ(2 * h4["layers"][0]["memory"]["hbm_bytes_written"].get<int64_t>(),
            h8["layers"][0]["memory"]["hbm_bytes_written"].get<int64_t>());
}

// Where memory binds, the width decides: a decode GEMV (16 MiB of int8 weights) keeps to the
// array's own weight-load pace at int8, while bf16's 32 MiB must come through the cluster's
// 128 B/cycle mesh port, which then binds (stall cause noc_bandwidth) and sets the cycles.
TEST_F(Precision, WideOperandsMakeTheMeshPortBind) {
  const std::string w = src("configs/workloads/decode-gemv.yaml");
  const json i8 = run("configs/arch/npu-128-hbm3.yaml", w, "--set precision.operand=int8", "i8");
  const json bf = run("configs/arch/npu-128-hbm3.yaml", w, "--set precision.operand=bf16", "bf");
  EXPECT_LT(i8["total"]["stall_cycles"].get<double>(), 0.01 * i8["total"]["cycles"].get<double>());
  const double bytes = bf["layers"][0]["memory"]["hbm_bytes_read"].get<double>();
  EXPECT_EQ(bytes, 2 * i8["layers"][0]["memory"]["hbm_bytes_read"].get<double>());
  const double port_bound = bytes / 128;  // npu-mesh-4x4: 128 B flits, one per cycle into the cluster
  EXPECT_GE(bf["total"]["cycles"].get<double>(), port_bound);
  EXPECT_LT(bf["total"]["cycles"].get<double>(), 1.02 * port_bound);
  std::string largest;
  double most = -1;
  for (const auto& [cause, n] : bf["total"]["stalls"].items())
    if (n.get<double>() > most) most = n.get<double>(), largest = cause;
  EXPECT_EQ(largest, "noc_bandwidth");
}

// On a PE of 32-bit float words (npu-128-fp: fp32 one a cycle, fp16 two), fp32 takes twice
// fp16's compute-bound cycles and moves twice its bytes.
TEST_F(Precision, Fp32DoublesFp16) {
  const std::string w = gemm(512, 384, 2048);
  const json f16 = run("configs/arch/npu-128-fp.yaml", w, "--set precision.operand=fp16", "f16");
  const json f32 = run("configs/arch/npu-128-fp.yaml", w, "--set precision.operand=fp32", "f32");
  const double ratio = f32["total"]["cycles"].get<double>() / f16["total"]["cycles"].get<double>();
  EXPECT_GT(ratio, 1.93);
  EXPECT_LT(ratio, 2.01);
  const json p16 = plan("configs/arch/npu-128-fp.yaml", w, "--set precision.operand=fp16");
  const json p32 = plan("configs/arch/npu-128-fp.yaml", w, "--set precision.operand=fp32");
  EXPECT_EQ(p32[0]["folds"]["Sr"], 2048);
  EXPECT_EQ(p16[0]["folds"]["Sr"], 1024);
}

// Work is counted: with a K that does not fill the last int4 word the PEs execute padding
// lanes; executed = nominal + padding exactly, and the energy prices mac.int4.
TEST_F(Precision, PaddingLanesAreCountedAndPriced) {
  const json r = run("configs/arch/npu-128.yaml", gemm(20, 24, 45),
                     "--set precision.operand=int4 --set array.rows=16 --set array.cols=16", "odd", true);
  const json& o = r["total"]["C_P"]["O"]["by_precision"]["int4"];
  EXPECT_EQ(o["nominal"]["value"], 20 * 24 * 45);
  EXPECT_EQ(o["padding"]["value"], 20 * 24 * 1);  // 45 values in 23 words of two
  EXPECT_EQ(o["executed"]["value"], 20 * 24 * 46);
  const json& e = r["total"]["energy"]["E_marg_by_action"];
  EXPECT_NEAR(e["mac.int4.executed"]["value"].get<double>(), 20 * 24 * 46 * 0.15e-12, 1e-18);
  EXPECT_FALSE(e.contains("mac.int4.padding"));  // inside executed: not charged twice
  EXPECT_FALSE(e.contains("mac.int4.nominal"));
}

// --verify at the configured width: int16 and bf16 on every dataflow, the float result
// bit-exact with its error against fp64 reported beside it.
TEST_F(Precision, VerifyAtTheConfiguredWidths) {
  const std::string w = gemm(23, 17, 41);
  for (const char* df : {"ws", "os", "is"})
    for (const char* t : {"int16", "bf16", "fp8_e5m2"}) {
      const std::string name = std::string(df) + t;
      const json s = run("configs/arch/npu-128.yaml", w,
                         std::string("--verify --set array.rows=8 --set array.cols=8 --set dataflow=") + df +
                             " --set precision.operand=" + t,
                         name);
      EXPECT_TRUE(s["verify"]["passed"].get<bool>()) << name << s["layers"][0]["verify"].dump();
      EXPECT_EQ(s["verify"]["operand"], t);
      if (std::string(t) != "int16") {
        const double err = s["verify"]["max_relative_error_vs_fp64"].get<double>();
        EXPECT_GT(err, 0) << name;       // fp32 sums of 41 products do round
        EXPECT_LT(err, 41 * 6e-8) << name;  // within K ulps of fp32 (2^-24 each)
      }
    }
}

// The older width keys still work from the command line over a preset that spells the type (the
// --set spelling replaces the file's), and an arch without a type table packs int4 two to a byte.
TEST_F(Precision, OlderSpellingAndDefaultTable) {
  const json s = run("configs/arch/scalesim-32.yaml", gemm(23, 17, 41),
                     "--verify --set fold_pipeline=overlapped --set precision.operand_bits=4", "bits4");
  EXPECT_EQ(s["arch"]["operand"], "int4");
  EXPECT_EQ(s["arch"]["macs_per_pe_cycle"], 2);
  EXPECT_TRUE(s["verify"]["passed"].get<bool>());
}

TEST_F(Precision, TypesThePeCannotDoAreInputErrors) {
  const std::string w = gemm(8, 8, 8);
  // An energy table without a row for the operand type fails before the run, naming the table.
  const fs::path table = file("e.yaml", "name: e\nactions:\n  mac.int8: {pJ: 0.3, per: MAC, source: x}\n");
  const std::pair<std::string, std::string> cases[] = {
      // TPU v1's PE is int8 only.
      {"tpu-v1.yaml --set precision.operand=bf16",
       "precision.operand: the PE cannot do bf16 operands (precision.macs_per_pe lists int8)"},
      {"npu-128.yaml --set precision.operand=fp32", "the PE cannot do fp32"},
      {"npu-128.yaml --set precision.macs_per_pe.int4=1", "precision.macs_per_pe.int4: 1 x 4-bit int4 is not whole bytes"},
      {"npu-128.yaml --set precision.operand=bf16 --set precision.accumulator=int32",
       "precision.accumulator: bf16 operands need a floating accumulator"},
      {"npu-128.yaml --set precision.operand=int16 --set precision.operand_bits=8",
       "give precision.operand or precision.operand_bits, not both"},
      {"npu-128.yaml --set precision.operand=int16 --energy " + table.string(),
       table.string() + ": actions: no row prices int16 MACs"},
  };
  for (const auto& [args, message] : cases)
    expect_input_error("run --workload " + w + " --arch " + src("configs/arch/") + args, message);
}

// W4A8 (precision.weight: int4 on npu-128's int8 PEs): the weights take half the bytes in HBM,
// in the scratchpad and on the column links; the activations, the MACs (int8, one a PE-cycle)
// and the cycles of a compute-bound GEMM stay.
TEST_F(Precision, Int4WeightsOnInt8PesHalveTheWeightBytesOnly) {
  const std::string w = gemm(512, 512, 2048);
  const json p8 = plan("configs/arch/npu-128-hbm3.yaml", w, "");
  const json p4 = plan("configs/arch/npu-128-hbm3.yaml", w, "--set precision.weight=int4");
  EXPECT_EQ(2 * p4[0]["hbm_tensors"]["B"]["bytes"].get<int64_t>(), p8[0]["hbm_tensors"]["B"]["bytes"].get<int64_t>());
  EXPECT_EQ(p4[0]["hbm_tensors"]["A"]["bytes"], p8[0]["hbm_tensors"]["A"]["bytes"]);
  EXPECT_EQ(p4[0]["hbm_tensors"]["C"]["bytes"], p8[0]["hbm_tensors"]["C"]["bytes"]);
  EXPECT_EQ(p4[0]["folds"]["row_folds"], p8[0]["folds"]["row_folds"]);  // one weight a PE, as int8
  // Ideal memory, traced: the same cycles and MACs; filter reads and their link bytes halve.
  const json r8 = run("configs/arch/npu-128.yaml", w, "", "i8", true);
  const json r4 = run("configs/arch/npu-128.yaml", w, "--set precision.weight=int4", "i4", true);
  const json s4 = json::parse(slurp(dir_ / "i4" / "summary.json"));
  EXPECT_EQ(s4["arch"]["weight"], "int4");
  EXPECT_EQ(json::parse(slurp(dir_ / "i8" / "summary.json"))["total"]["cycles"], s4["total"]["cycles"]);
  const auto a8 = action_totals(dir_ / "i8"), a4 = action_totals(dir_ / "i4");
  EXPECT_EQ(a4.at("mac.int8.executed"), a8.at("mac.int8.executed"));
  EXPECT_EQ(2 * a4.at("sram.read.filter"), a8.at("sram.read.filter"));
  EXPECT_EQ(a4.at("sram.read.ifmap"), a8.at("sram.read.ifmap"));
  EXPECT_EQ(a8.at("link.array_edge") - a4.at("link.array_edge"), a8.at("sram.read.filter") / 2);
  EXPECT_EQ(a4.at("reg.read.operand"), a8.at("reg.read.operand"));  // the PE widens each weight to its int8 register
  EXPECT_EQ(a4.at("reg.write.stationary"), a8.at("reg.write.stationary"));
  EXPECT_EQ(r4["total"]["C_P"]["O"], r8["total"]["C_P"]["O"]);
  // Through the hierarchy: the layer reads half of B's bytes fewer, and no more cycles.
  const json h8 = run("configs/arch/npu-128-hbm3.yaml", w, "", "h8");
  const json h4 = run("configs/arch/npu-128-hbm3.yaml", w, "--set precision.weight=int4", "h4");
  EXPECT_EQ(h8["layers"][0]["memory"]["hbm_bytes_read"].get<int64_t>() - h4["layers"][0]["memory"]["hbm_bytes_read"].get<int64_t>(),
            p4[0]["hbm_tensors"]["B"]["bytes"].get<int64_t>());
  EXPECT_EQ(h4["layers"][0]["memory"]["hbm_bytes_written"], h8["layers"][0]["memory"]["hbm_bytes_written"]);
  EXPECT_LE(h4["total"]["cycles"].get<int64_t>(), h8["total"]["cycles"].get<int64_t>());
}

// Stored types narrower than the operand, value by value: int4 weights for int8 PEs (a 4-bit
// word on the links and in memory), int8 for int16, fp8 weights and activations for bf16 and
// fp16 PEs, on every dataflow through the hierarchy, tiled and row-major: exact, bit for bit.
TEST_F(Precision, StoredTypesVerifyOnEveryDataflow) {
  const std::string w = file("v.yaml", "layers:\n  - {name: a, M: 37, N: 45, K: 51}\n  - {name: b, M: 19, N: 33, K: 27}\n").string();
  const char* types[][3] = {{"int8", "int4", ""}, {"int16", "int8", "int4"}, {"bf16", "fp8_e4m3", "fp8_e5m2"},
                            {"fp16", "fp8_e5m2", ""}};
  for (const auto& [operand, weight, activation] : types)
    for (const std::string df : {"ws", "os", "is"})
      for (const std::string layout : {"tiled", "row_major"}) {
        const std::string sets = std::string("--verify --set array.rows=8 --set array.cols=8 --set precision.operand=") +
                                 operand + " --set precision.weight=" + weight +
                                 (*activation ? std::string(" --set precision.activation=") + activation : "") +
                                 " --set dataflow=" + df + " --set hbm.layout=" + layout;
        const json s = run("configs/arch/npu-128-hbm3.yaml", w, sets, "v");
        EXPECT_TRUE(s["verify"]["passed"].get<bool>()) << sets << " " << s["layers"][0]["verify"]["detail"];
        fs::remove_all(dir_ / "v");
      }
}

// Where moving the weights binds, their stored type decides: the bf16 decode GEMV is held to the
// cluster's 128 B/cycle mesh port; fp8 weights (bf16 PEs) halve its bytes and it falls back to the
// array's own pace, one weight word into each column per cycle, which int8 operands also set.
TEST_F(Precision, NarrowWeightsSpeedAPortBoundGemv) {
  const std::string w = src("configs/workloads/decode-gemv.yaml");
  const json bf = run("configs/arch/npu-128-hbm3.yaml", w, "--set precision.operand=bf16", "bf");
  const json f8 = run("configs/arch/npu-128-hbm3.yaml", w, "--set precision.operand=bf16 --set precision.weight=fp8_e4m3", "f8");
  const json i8 = run("configs/arch/npu-128-hbm3.yaml", w, "", "i8");
  const int64_t weights = 4096 * 4096;
  EXPECT_EQ(bf["layers"][0]["memory"]["hbm_bytes_read"].get<int64_t>() - f8["layers"][0]["memory"]["hbm_bytes_read"].get<int64_t>(),
            weights);
  EXPECT_GE(bf["total"]["cycles"].get<double>(), bf["layers"][0]["memory"]["hbm_bytes_read"].get<double>() / 128);
  EXPECT_LT(f8["total"]["cycles"].get<double>(), 0.8 * bf["total"]["cycles"].get<double>());
  EXPECT_NEAR(f8["total"]["cycles"].get<double>(), i8["total"]["cycles"].get<double>(), 0.01 * i8["total"]["cycles"].get<double>());
  EXPECT_LT(f8["total"]["stall_cycles"].get<double>(), 0.01 * f8["total"]["cycles"].get<double>());
}

// An operator graph's tensors keep their dtypes layer by layer: fc1's int4 weights move half the
// bytes of fc2's int8 ones, in HBM and out of the scratchpad onto the column links (the trace
// binds each layer's link bytes at its widths), on the same int8 PEs.
TEST_F(Precision, GraphTensorsMoveAtTheirDtypes) {
  const std::string g = file("q.yaml",
                             "tensors:\n"
                             "  - {name: x, shape: [256, 1024], dtype: int8, role: activation}\n"
                             "  - {name: w1, shape: [1024, 1024], dtype: int4, role: weight}\n"
                             "  - {name: w2, shape: [1024, 512], dtype: int8, role: weight}\n"
                             "ops:\n"
                             "  - {name: fc1, op: matmul, in: [x, w1], out: h}\n"
                             "  - {name: fc2, op: matmul, in: [h, w2], out: y}\n")
                            .string();
  const json report = run("configs/arch/npu-128-hbm3.yaml", g, "", "q", true);
  const auto n = action_totals(dir_ / "q", true);
  // Gamma_comm's array-edge bytes are the bytes link.array_edge counted, layer by layer and in all.
  auto edge_bytes = [](const json& scope) {
    double b = 0;
    for (const auto& e : scope["Theta_CST"]["Gamma_comm"]["edges"])
      if (e["links"].get<std::string>().find("array.link.") != std::string::npos) b += e["bytes"]["value"].get<double>();
    return b;
  };
  EXPECT_EQ(edge_bytes(report["layers"][0]), double(n.at("0:link.array_edge")));
  EXPECT_EQ(edge_bytes(report["layers"][1]), double(n.at("1:link.array_edge")));
  EXPECT_EQ(edge_bytes(report["total"]), double(n.at("0:link.array_edge") + n.at("1:link.array_edge")));
  EXPECT_EQ(n.at("0:hbm.read.filter"), 1024 * 1024 / 2);   // int4
  EXPECT_EQ(n.at("0:sram.read.filter"), 1024 * 1024 / 2);  // each weight onto its column link once (WS)
  EXPECT_EQ(n.at("1:hbm.read.filter"), 1024 * 512);        // int8
  EXPECT_EQ(n.at("1:sram.read.filter"), 1024 * 512);
  // The values on the same graph at a sixteenth of its width (int4 then int8 weights, chained).
  const std::string gv = file("qv.yaml",
                              "tensors:\n"
                              "  - {name: x, shape: [64, 256], dtype: int8, role: activation}\n"
                              "  - {name: w1, shape: [256, 256], dtype: int4, role: weight}\n"
                              "  - {name: w2, shape: [256, 128], dtype: int8, role: weight}\n"
                              "ops:\n"
                              "  - {name: fc1, op: matmul, in: [x, w1], out: h}\n"
                              "  - {name: fc2, op: matmul, in: [h, w2], out: y}\n")
                             .string();
  const json v = run("configs/arch/npu-128-hbm3.yaml", gv, "--verify --set array.rows=16 --set array.cols=16", "qv");
  EXPECT_TRUE(v["verify"]["passed"].get<bool>());
}

// Packed convolutions (int4, two to a word) lower their im2col rows on chip from the raw input
// rows, as int8 does: ResNet-18's first layers read half of int8's HBM bytes (Conv1's three
// channels too: its words straddle taps inside one channel block), and the values stay exact.
TEST_F(Precision, PackedConvolutionsReadRawRows) {
  std::istringstream all(slurp(src("configs/workloads/resnet18.csv")));
  std::string text, line;
  for (int i = 0; i < 5 && std::getline(all, line); ++i) text += line + "\n";  // header and 4 layers
  const std::string w = file("r4.csv", text).string(), small = "--set array.rows=16 --set array.cols=16";
  const json i8 = run("configs/arch/npu-128-hbm3.yaml", w, small, "i8");
  const json i4 = run("configs/arch/npu-128-hbm3.yaml", w, small + " --set precision.operand=int4", "i4");
  ASSERT_EQ(i4["layers"].size(), 4u);
  int64_t read8 = 0, read4 = 0;
  for (size_t l = 0; l < 4; ++l) {
    EXPECT_EQ(i4["layers"][l]["conv"]["lowering"], "im2col on chip from the raw ifmap") << l;
    read8 += i8["layers"][l]["memory"]["hbm_bytes_read"].get<int64_t>();
    read4 += i4["layers"][l]["memory"]["hbm_bytes_read"].get<int64_t>();
  }
  EXPECT_LT(double(read4), 0.502 * double(read8));
  EXPECT_GT(double(read4), 0.499 * double(read8));
  // The values, register by register, on the same channels, kernels and strides over smaller
  // feature maps, of even widths (an int4 input row is then whole bytes, as ResNet-18's are); the
  // full layers made this the suite's slowest test under the sanitizers.
  const std::string cut = file("r4-small.csv", "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, "
                                               "Channels, Num Filter, Strides,\n"
                                               "Conv1,30,30,7,7,3,24,2,\nConv2_1a,12,12,3,3,64,20,1,\n")
                              .string();
  for (const std::string df : {"ws", "os", "is"}) {
    const json v = run("configs/arch/npu-128-hbm3.yaml", cut, small + " --verify --set precision.operand=int4 --set dataflow=" + df, "v" + df);
    EXPECT_TRUE(v["verify"]["passed"].get<bool>()) << df;
    for (size_t l = 0; l < 2; ++l) EXPECT_EQ(v["layers"][l]["conv"]["lowering"], "im2col on chip from the raw ifmap") << df << l;
  }
}

TEST_F(Precision, StoredTypesMustBeExactInTheOperand) {
  const std::string w = gemm(8, 8, 8), arch = src("configs/arch/npu-128.yaml");
  expect_input_error("run --workload " + w + " --arch " + arch + " --set precision.weight=int16",
                     "precision.weight: int16 values are not all int8 values");
  expect_input_error("run --workload " + w + " --arch " + arch + " --set precision.operand=fp16 --set precision.activation=bf16",
                     "precision.activation: bf16 values are not all fp16 values");
  expect_input_error("run --workload " + w + " --arch " + arch + " --set precision.weight=fp8_e4m3",
                     "precision.weight: fp8_e4m3 values are not all int8 values");
}

}  // namespace

namespace {

// 2:4 weights on PEs that skip (sparsity.skip_2_4): a weight-bound GEMV's weight bytes halve
// plus 2 bits of index per kept value, its cycles about halve, and the MAC counters obey
// executed = nominal - skipped exactly; PEs that do not skip run it dense.
class Sparsity : public Precision {
 protected:
  std::string hbm_arch() {
    return file("hbm.yaml", "array: {rows: 128, cols: 128}\ndataflow: ws\nmemory: hbm\n"
                            "sram: {ifmap_kib: 4096, filter_kib: 512, ofmap_kib: 2048}\n"
                            "hbm: {spec: " + src("configs/memory/hbm3-6400-256b.yaml") + "}\n")
        .string();
  }
  json go(const std::string& w, const std::string& sets, const std::string& name) {
    const Result r = cstsim("run --arch " + hbm_arch() + " --workload " + w + " " + sets + " --out " + (dir_ / name).string());
    EXPECT_EQ(r.status, 0) << r.err;
    return json::parse(slurp(dir_ / name / "report.json"));
  }
};

TEST_F(Sparsity, SkippingHalvesWeightBytesAndWeightBoundCycles) {
  const std::string w = gemm(4, 1024, 4096);  // decode-like: four rows against 4 MiB of weights
  go(w, "", "dense");
  go(w, "--sparsity 2:4 --set sparsity.skip_2_4=true", "skip");
  go(w, "--sparsity 2:4 --set sparsity.skip_2_4=false", "noskip");
  const json d = json::parse(slurp(dir_ / "dense" / "summary.json"))["layers"][0];
  const json s = json::parse(slurp(dir_ / "skip" / "summary.json"))["layers"][0];
  const json n = json::parse(slurp(dir_ / "noskip" / "summary.json"))["layers"][0];
  EXPECT_EQ(d["dram_bytes"], 4096 * 1024);
  EXPECT_EQ(s["dram_bytes"], 4096 * 1024 / 2 + 4096 / 2 * 1024 * 2 / 8);  // kept values + their indices
  EXPECT_EQ(n["dram_bytes"], d["dram_bytes"]);
  EXPECT_EQ(n["cycles"], d["cycles"]);
  const double ratio = s["cycles"].get<double>() / d["cycles"].get<double>();
  EXPECT_GT(ratio, 0.45);
  EXPECT_LT(ratio, 0.56);  // the weight stream (with its indices) sets the pace
  EXPECT_EQ(s["K"], 4096);
  EXPECT_EQ(s["sparsity"]["macs_executed"], 4 * 1024 * 2048);
  const json o = json::parse(slurp(dir_ / "skip" / "report.json"))["total"]["C_P"]["O"]["by_precision"]["int8"];
  EXPECT_EQ(o["nominal"]["value"], 4 * 1024 * 4096);
  EXPECT_EQ(o["skipped"]["value"], 4 * 1024 * 2048);
  EXPECT_EQ(o["executed"]["value"].get<double>(), o["nominal"]["value"].get<double>() - o["skipped"]["value"].get<double>());
  const json on = json::parse(slurp(dir_ / "noskip" / "report.json"))["total"]["C_P"]["O"]["by_precision"]["int8"];
  EXPECT_EQ(on["executed"], on["nominal"]);
  EXPECT_FALSE(on.contains("skipped"));
}

// Under the memory hierarchy the weights move as kept values plus places and the activations at
// full width (each kept pair's group of four), and --verify holds with clusters and odd rows.
TEST_F(Sparsity, HierarchyMovesKeptWeightsAndDenseActivations) {
  const std::string w = gemm(1024, 512, 2048);
  const std::string arch = src("configs/arch/npu-128-hbm3.yaml");
  const Result d = cstsim("run --no-trace --arch " + arch + " --workload " + w + " --out " + (dir_ / "d").string());
  const Result s = cstsim("run --no-trace --arch " + arch + " --workload " + w +
                          " --sparsity 2:4 --set sparsity.skip_2_4=true --out " + (dir_ / "s").string());
  ASSERT_EQ(d.status, 0) << d.err;
  ASSERT_EQ(s.status, 0) << s.err;
  const json dl = json::parse(slurp(dir_ / "d" / "summary.json"))["layers"][0]["memory"];
  const json sl = json::parse(slurp(dir_ / "s" / "summary.json"))["layers"][0]["memory"];
  EXPECT_EQ(dl["hbm_bytes_read"], 1024 * 2048 + 2048 * 512);
  EXPECT_EQ(sl["hbm_bytes_read"], 1024 * 2048 + 2048 * 512 / 2 + 2048 / 2 * 512 * 2 / 8);
  EXPECT_EQ(sl["hbm_bytes_written"], dl["hbm_bytes_written"]);
  const Result v = cstsim("run --no-trace --verify --arch " + arch + " --workload " + gemm(37, 29, 44) +
                          " --set array.rows=15 --set array.cols=16 --set clusters=2 --sparsity 2:4"
                          " --set sparsity.skip_2_4=true --out " + (dir_ / "v").string());
  EXPECT_EQ(v.status, 0) << v.err << v.out;
}

TEST_F(Sparsity, InputsItCannotTakeAreErrors) {
  const std::string w = gemm(8, 8, 8);
  expect_input_error("run --arch " + src("configs/arch/npu-128.yaml") + " --workload " + w + " --sparsity 1:4",
                     "--sparsity: must be 2:4");
  expect_input_error("run --arch " + src("configs/arch/npu-128.yaml") + " --workload " + w +
                         " --set dataflow=os --set sparsity.skip_2_4=true",
                     "sparsity.skip_2_4: 2:4 weights in the PEs need dataflow: ws");
  expect_input_error("run --arch " + src("configs/arch/npu-128-hbm3.yaml") + " --workload " + w +
                         " --sparsity 2:4 --set sparsity.skip_2_4=true --set hbm.layout=row_major",
                     "hbm.layout: 2:4 weights under memory: hierarchy need hbm.layout: tiled");
}

}  // namespace
