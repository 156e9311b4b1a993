// The work a run reports is judged against the workload as written, never against the plan the
// run made of it: a plan that loses work is an internal error (exit 3), whether or not --verify
// (which compares the register grid with a reference made from the same plan) would notice.
#include <nlohmann/json.hpp>

#include "tests/sim/cli_fixture.h"

namespace {

using json = nlohmann::json;

using WorkAsWritten = Cli;

// The fidelity review's case: OS with two int4 values to a PE word under memory: hierarchy divided
// K by the packing twice (575,484 MACs instead of 1,139,684, in 773 cycles, below the 909 the MACs
// need on 33 x 19 PEs x 2) and --verify passed it. Now the MACs are the layer's, the cycles at least
// its compute bound, the register grid agrees; and fp8 four to a word too.
TEST_F(WorkAsWritten, OsWithPackedWordsOnTheHierarchyDoesTheWholeGemm) {
  const std::string w = gemm(124, 91, 101);
  for (const auto& [type, pack] : std::vector<std::pair<std::string, int>>{{"int4", 2}, {"fp8_e4m3", 4}, {"bf16", 2}}) {
    const std::string out = (dir_ / ("o-" + type)).string();
    const Result r = cstsim("run --arch " + src("configs/arch/npu-128-hbm3.yaml") + " --workload " + w +
                            " --set dataflow=os --set array.rows=33 --set array.cols=19 --set precision.operand=" +
                            type + " --set precision.macs_per_pe." + type + "=" + std::to_string(pack) +
                            " --verify --no-trace -q --out " + out);
    ASSERT_EQ(r.status, 0) << r.err;
    const json s = json::parse(slurp(fs::path(out) / "summary.json"));
    EXPECT_TRUE(s["verify"]["passed"].get<bool>()) << type;
    EXPECT_EQ(s["layers"][0]["macs"].get<int64_t>(), 124 * 91 * 101) << type;
    EXPECT_GE(s["layers"][0]["cycles"].get<int64_t>(), (124 * 91 * 101 + 33 * 19 * pack - 1) / (33 * 19 * pack)) << type;
  }
}

// A plan that loses half of K in one layer: the grid and its reference agree (both follow the
// plan), the law against the workload does not: exit 3, one `internal error:` line, nothing written.
TEST_F(WorkAsWritten, APlantedWrongPlanFailsVerify) {
  const std::string w = gemm(40, 24, 64);
  for (const char* arch : {"configs/arch/npu-128.yaml", "configs/arch/npu-128-hbm3.yaml"}) {
    const Result r = cstsim("run --arch " + src(arch) + " --workload " + w +
                            " --set array.rows=16 --set array.cols=16 --verify -q --inject-plan-fault fc --out " +
                            (dir_ / "o").string());
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_EQ(r.err.rfind("internal error: invariant 'work as written' violated in layer 0 (fc): 30720 MACs executed, "
                          "its shape asks for 61440",
                          0),
              0u)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "o"));
  }
}

// A graph whose tensors are wider than the PE type (bf16 BERT on int8 npu-128): its layers move
// 2-byte values through the SRAM's edge, and the roofline's SRAM bandwidth is that of the widest
// edge the run used, so the run's time is never below its own bound (it was: an internal error
// reported as bad input, exit 2).
TEST_F(WorkAsWritten, WideGraphTensorsOnNarrowPesStayAboveTheirRoofline) {
  const std::string g = file("g.yaml",
                             "name: g\ntensors:\n"
                             "  - {name: x, shape: [64, 96], dtype: bf16, role: activation}\n"
                             "  - {name: w, shape: [96, 80], dtype: bf16, role: weight}\n"
                             "ops:\n  - {name: q_proj, op: matmul, in: [x, w], out: y}\n")
                            .string();
  for (const char* df : {"ws", "is"}) {
    const std::string out = (dir_ / (std::string("o-") + df)).string();
    const Result r = cstsim("run --arch " + src("configs/arch/npu-128.yaml") + " --workload " + g +
                            " --set array.rows=32 --set array.cols=32 --set dataflow=" + df + " -q --out " + out);
    ASSERT_EQ(r.status, 0) << r.err;
    const json rep = json::parse(slurp(fs::path(out) / "report.json"));
    // 8 B a row link would be 1 B at int8: the widened edge is 2 B a row and a column value.
    EXPECT_DOUBLE_EQ(rep["machine"]["bandwidth"]["value"].get<double>(), (32 * 2 + 32 * (2 + 8)) * 1e9) << df;
  }
}

}  // namespace

namespace {

// A graph's vector kernels between layers read and write the SRAM through the vector unit's ports:
// a small CNN's relu and pool before a strided conv put 16,848 bytes into that conv's scope, which
// the array's edges alone could not deliver in its 974 cycles on 8 x 8 (an internal error: "conv2:
// simulated time below the roofline bound"). The SRAM level counts both.
TEST_F(WorkAsWritten, VectorKernelsTrafficCountsTheVectorPortsInTheRoofline) {
  const std::string g = src("tests/data/small-cnn.yaml");
  const std::string out = (dir_ / "o").string();
  const Result r = cstsim("run --arch " + src("configs/arch/npu-128.yaml") + " --workload " + g +
                          " --set array.rows=8 --set array.cols=8 -q --out " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  const json rep = json::parse(slurp(fs::path(out) / "report.json"));
  // 8 x 1 + 8 x (1 + 2 x 4) bytes a cycle at the array's edges, and npu-128's 1,024-byte vector port.
  EXPECT_DOUBLE_EQ(rep["machine"]["bandwidth"]["value"].get<double>(), (8 + 8 * 9 + 1024) * 1e9);
}

}  // namespace
