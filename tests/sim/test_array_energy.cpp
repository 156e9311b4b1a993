// The array's energy from every action its PEs perform (models/array/README.md, "Actions inside
// the array"), checked against counts made here from the workload as written - its shapes and
// types, the array's size - and the energy table's rows, never from the plan under test.
#include <map>
#include <string>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "tests/sim/cli_fixture.h"

namespace {

using json = nlohmann::json;

class ArrayEnergy : public Cli {
 protected:
  // A traced run of `workload` on npu-128 (128 x 128 int8, ideal memory) with `sets`.
  json run(const std::string& workload, const std::string& sets, const std::string& name) {
    const Result r = cstsim("run -q --arch " + src("configs/arch/npu-128.yaml") + " --workload " + workload + " " +
                            sets + " --out " + (dir_ / name).string());
    EXPECT_EQ(r.status, 0) << r.err;
    return json::parse(slurp(dir_ / name / "report.json"));
  }
  // pJ of one row of the table the run priced with (its energy.yaml, the base merged in).
  double pj(const std::string& name, const std::string& row) {
    return YAML::LoadFile((dir_ / name / "energy.yaml").string())["actions"][row]["pJ"].as<double>();
  }
};

// The array's part of E_marg: MACs, PE registers, PE-to-PE links (not its edge links).
double array_joules(const json& report) {
  double j = 0;
  for (const auto& [action, e] : report["total"]["energy"]["E_marg_by_action"].items())
    if (action.rfind("mac.", 0) == 0 || action.rfind("reg.", 0) == 0 || action.rfind("link.pe.", 0) == 0)
      j += e["value"].get<double>();
  return j;
}

// A count in the manner of Timeloop and Accelergy, per MAC of a dense GEMM: the MAC; the two
// operands read from PE registers; the streamed operands latched and hopped to the next PE (WS:
// one, OS: A and B); the partial sum read and written (WS: from and to the PE above and below,
// one hop; OS: the PE's accumulator). int8 operands, int32 partial sums. Within 10 %: the model
// adds the edges (row 0 starts from zero, column 0 is fed by the edge) and the tile loads.
TEST_F(ArrayEnergy, PerMacWithinTenPercentOfAnIndependentActionCount) {
  const int64_t M = 1024, N = 1024, K = 1024;
  const std::string w = gemm(M, N, K);
  for (const char* df : {"ws", "is", "os"}) {
    const std::string name = df;
    const json report = run(w, std::string("--set dataflow=") + df, name);
    const double mac = pj(name, "mac.int8"), rd = pj(name, "reg.read"), wr = pj(name, "reg.write"),
                 link = pj(name, "link");
    const double op = 1, acc = 4;  // bytes: int8 operands, int32 sums
    const bool os = name == "os";
    const double per_mac = mac + rd * (2 * op + acc) + wr * ((os ? 2 : 1) * op + acc) + link * (os ? 2 * op : op + acc);
    const double simulated = array_joules(report) / double(M * N * K) * 1e12;
    EXPECT_NEAR(simulated / per_mac, 1.0, 0.10) << df << ": " << simulated << " pJ/MAC against " << per_mac;
  }
}

// Packed words: npu-128's PE does two int4 MACs a cycle as a 2-way dot product in its 8-bit
// lane, so the count goes per PE word, not per MAC: one 1-byte word of each operand read and
// latched, one partial sum read and written, each word and sum hopping once, for two MACs.
TEST_F(ArrayEnergy, PackedInt4CountsPerWordOfTwoMacs) {
  const int64_t M = 512, N = 512, K = 1024;
  const json report = run(gemm(M, N, K), "--set precision.operand=int4", "int4");
  const double mac = pj("int4", "mac.int4"), rd = pj("int4", "reg.read"), wr = pj("int4", "reg.write"),
               link = pj("int4", "link");
  const double word = 1, acc = 4, lanes = 2;
  const double per_mac = mac + (rd * (2 * word + acc) + wr * (word + acc) + link * (word + acc)) / lanes;
  const double simulated = array_joules(report) / double(M * N * K) * 1e12;
  EXPECT_NEAR(simulated / per_mac, 1.0, 0.10) << simulated << " pJ/MAC against " << per_mac;
}

// Where the model departs from a per-MAC count, it does so by what the array physically does,
// counted exactly from the shapes: a decode GEMV on WS loads each 128 x 128 weight tile through
// the column shift chain (r(r+1)/2 register writes and r(r-1)/2 hops a column, for one MAC a
// PE), and a layer whose K fills 16 of 128 rows sends its sums through all 128 rows.
TEST_F(ArrayEnergy, TileLoadsAndPassThroughRowsAreCountedFromTheShapes) {
  const int64_t R = 128, C = 128;
  {  // GEMV 1 x 512 x 1024: 8 row folds x 4 column folds of full 128 x 128 tiles
    const int64_t M = 1, N = 512, K = 1024;
    run(gemm(M, N, K), "", "gemv");
    const auto a = action_totals(dir_ / "gemv");
    const int64_t tiles = (K / R) * (N / C);
    EXPECT_EQ(a.at("reg.write.stationary"), tiles * C * R * (R + 1) / 2);  // int8: one byte a word
    EXPECT_EQ(a.at("link.pe.stationary"), tiles * C * R * (R - 1) / 2);
    EXPECT_EQ(a.at("reg.write.psum"), 4 * tiles * R * C * M);  // every row, int32
    EXPECT_EQ(a.at("reg.read.psum"), 4 * tiles * (R - 1) * C * M);
    EXPECT_EQ(a.at("link.pe.psum"), a.at("reg.read.psum"));
    EXPECT_EQ(a.at("link.pe.operand"), tiles * R * (C - 1) * M);
    EXPECT_EQ(a.at("reg.write.operand"), M * N * K);
    EXPECT_EQ(a.at("reg.read.operand"), 2 * M * N * K);
  }
  {  // K = 16: one row fold of 16 rows; the sums cross 112 unused rows
    const int64_t M = 512, N = 256, K = 16;
    run(gemm(M, N, K), "", "short");
    const auto a = action_totals(dir_ / "short");
    EXPECT_EQ(a.at("reg.write.psum"), 4 * R * N * M);
    EXPECT_EQ(a.at("reg.read.psum"), 4 * (R - 1) * N * M);
    EXPECT_EQ(a.at("link.pe.operand"), K * (C - 1) * M * (N / C));
    EXPECT_EQ(a.at("reg.write.stationary"), (N / C) * C * K * (K + 1) / 2);
  }
}

// OS keeps its sums in the PEs: no partial sum moves, none crosses an unused row, no tile loads;
// both operands hop (A right, B down) into every PE but the edges'.
TEST_F(ArrayEnergy, OutputStationaryHopsBothOperandsAndMovesNoSums) {
  const int64_t M = 256, N = 256, K = 300, R = 128, C = 128;
  run(gemm(M, N, K), "--set dataflow=os", "os");
  const auto a = action_totals(dir_ / "os");
  const int64_t tiles = (M / R) * (N / C);
  EXPECT_EQ(a.count("link.pe.psum"), 0u);
  EXPECT_EQ(a.count("reg.write.stationary"), 0u);
  EXPECT_EQ(a.at("reg.read.psum"), 4 * M * N * K);
  EXPECT_EQ(a.at("reg.write.psum"), 4 * M * N * K);
  EXPECT_EQ(a.at("reg.write.operand"), 2 * M * N * K);
  EXPECT_EQ(a.at("link.pe.operand"), tiles * K * (R * (C - 1) + (R - 1) * C));
}

}  // namespace
