// The analytical ledger (cstsim ledger): every row of seeds 002 and 003 prints the
// seeds' digits, machines switch, shape flags scale as the formulas say, --json parses,
// and each bad flag gives one "error: ledger: --flag: ..." line with status 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/arch_spec.h"
#include "sim/ledger/ledger_cli.h"
#include "sim/ledger/machine.h"
#include "sim/ledger/ops.h"
#include "sim/ledger/report.h"
#include "tests/test_util.h"

using namespace cstsim::ledger;

namespace {

const std::string kSource = CSTSIM_SOURCE_DIR;

struct Outcome {
  int status;
  std::string out, err;
};

// The seeds' tables are H200's: every test that does not name a machine prices against it
// (`cstsim ledger` alone prices the shipped default preset: LedgerCli.DefaultMachineIsTheDefaultPreset).
Outcome invoke_as_is(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int status = run_ledger(args, out, err);
  return {status, out.str(), err.str()};
}
Outcome invoke(std::vector<std::string> args) {
  const bool named = std::any_of(args.begin(), args.end(), [](const std::string& a) {
    return a == "--machine" || a == "--machine-arch" || a == "--help" || a == "-h";
  });
  if (!named) args.insert(args.begin(), {"--machine", "h200-measured"});
  return invoke_as_is(args);
}

// Runs of spaces collapse to one, as in the seeds' printed tables.
std::string squeeze(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != ' ' || out.empty() || out.back() != ' ') out += c;
  return out;
}

const Row& row003(const std::vector<Row>& rows, const std::string& id) {
  for (const Row& r : rows)
    if (r.id == id) return r;
  throw std::runtime_error("no row " + id);
}
// A row of a temporary list would dangle (AddressSanitizer found one): keep the list first.
const Row& row003(std::vector<Row>&& rows, const std::string& id) = delete;

Report default_report() {
  Report r;
  r.machine = *find_profile("h200-measured");
  r.link_bandwidth = r.machine.bandwidth;
  r.rows003 = suite003(r.shapes003);
  r.pairs002 = suite002(r.shapes002);
  return r;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Seed 003's table: flops, bytes, AI, time bound, verdict, as printed.
struct Seed003 {
  const char* id;
  const char* flops;
  const char* bytes;
  const char* ai;
  const char* time;
  const char* bound;
};
const std::vector<Seed003> kSeed003 = {
    {"add", "0.0168 GFLOP", "100.66 MB", "0.17 F/B", "22.4 us", "memory-bound"},
    {"chain-eager", "0.0336 GFLOP", "134.22 MB", "0.25 F/B", "29.8 us", "memory-bound"},
    {"chain-fused", "0.0336 GFLOP", "67.11 MB", "0.50 F/B", "14.9 us", "memory-bound"},
    {"layernorm-fused", "0.268 GFLOP", "134.22 MB", "2.00 F/B", "29.8 us", "memory-bound"},
    {"layernorm-3pass", "0.268 GFLOP", "268.44 MB", "1.00 F/B", "59.6 us", "memory-bound"},
    {"gemm", "137 GFLOP", "100.66 MB", "1365.33 F/B", "188.5 us", "compute-bound"},
    {"prefill-materialized", "278 GFLOP", "6.58 GB", "42.20 F/B", "1.461 ms", "memory-bound"},
    {"prefill-flash", "278 GFLOP", "134.22 MB", "2068.00 F/B", "380.6 us", "compute-bound"},
    {"decode", "0.542 GFLOP", "536.87 MB", "1.01 F/B", "119.2 us", "memory-bound"},
    {"adamw", "105 GFLOP", "182.00 GB", "0.58 F/B", "40.423 ms", "memory-bound"},
    {"allreduce", "0", "24.50 GB", "0.00 F/B", "5.442 ms", "memory-bound"},
};

// Seed 002's ledger: kernels, moved MB, MFLOP, AI, as printed.
struct Seed002 {
  const char* id;
  size_t kernels;
  const char* mb;
  const char* mflop;
  const char* ai;
};
const std::vector<Seed002> kSeed002 = {
    {"scale-add-unfused", 2, "20.97", "2.10", "0.100"},   {"scale-add-fused", 1, "12.58", "2.10", "0.167"},
    {"rmsnorm-unfused", 6, "234.99", "67.12", "0.286"},   {"rmsnorm-fused", 1, "67.12", "67.12", "1.000"},
    {"layernorm-unfused", 6, "335.59", "117.44", "0.350"}, {"layernorm-fused", 1, "67.13", "100.67", "1.500"},
    {"rope-unfused", 4, "369.10", "50.33", "0.136"},      {"rope-fused", 1, "100.66", "50.33", "0.500"},
    {"rmsnorm-rope-quant-unfused", 3, "185.62", "119.03", "0.641"},
    {"rmsnorm-rope-quant-fused", 1, "51.40", "119.03", "2.315"},
};

}  // namespace

// ---- machines ----------------------------------------------------------------------------

TEST(LedgerMachine, H200MeasuredIsSpecTimesCalibration) {
  const Machine* m = find_profile("h200-measured");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(machine_profiles().front().id, "h200-measured");  // the default
  EXPECT_DOUBLE_EQ(m->peak_flops, 989.5e12 * 0.737);
  EXPECT_DOUBLE_EQ(m->bandwidth, 4800e9 * 0.938);
  EXPECT_EQ(format_peak(*m), "729.3 TFLOPS");
  EXPECT_EQ(format_bandwidth(m->bandwidth), "4502 GB/s");
  EXPECT_EQ(format_balance(m->balance()), "162.0 FLOP/Byte");
  const std::string header = machine_header(*m);
  EXPECT_NE(header.find("0.737x compute / 0.938x bandwidth"), std::string::npos) << header;
  EXPECT_NE(header.find("peak compute    : 729.3 TFLOPS (fp16 tensor core)"), std::string::npos) << header;
  EXPECT_NE(header.find("machine balance : 162.0 FLOP/Byte"), std::string::npos) << header;
}

TEST(LedgerMachine, SpecProfilesAndSources) {
  const Machine* h200 = find_profile("h200-spec");
  const Machine* h100 = find_profile("h100-spec");
  ASSERT_NE(h200, nullptr);
  ASSERT_NE(h100, nullptr);
  EXPECT_EQ(format_peak(*h200), "989.5 TFLOPS");
  EXPECT_EQ(format_bandwidth(h200->bandwidth), "4800 GB/s");
  EXPECT_EQ(format_peak(*h100), "1000.0 TFLOPS");
  EXPECT_EQ(format_bandwidth(h100->bandwidth), "3000 GB/s");
  EXPECT_EQ(format_balance(h100->balance()), "333.3 FLOP/Byte");
  for (const Machine& m : machine_profiles()) EXPECT_FALSE(m.source.empty()) << m.id;
  EXPECT_EQ(find_profile("h300"), nullptr);
}

TEST(LedgerMachine, ArchConfigAsMachine) {
  const cstsim::ArchSpec tpu = cstsim::load_arch(kSource + "/configs/arch/tpu-v1.yaml");
  const Machine m = machine_from_arch(tpu, 34e9);
  EXPECT_DOUBLE_EQ(m.peak_flops, 2.0 * 256 * 256 * 700e6);
  EXPECT_EQ(format_peak(m), "91.75 TOPS");
  EXPECT_EQ(format_balance(m.balance()), "2698.5 FLOP/Byte");  // 91.75 TOPS / 34 GB/s
  EXPECT_TRUE(m.from_arch);
}

// ---- seed 003 ----------------------------------------------------------------------------

TEST(LedgerSeed003, EveryRowPrintsTheSeedDigits) {
  const Report r = default_report();
  ASSERT_EQ(r.rows003.size(), kSeed003.size());
  for (size_t i = 0; i < kSeed003.size(); ++i) {
    const Seed003& want = kSeed003[i];
    const Row& row = r.rows003[i];  // same order as the seed
    SCOPED_TRACE(want.id);
    EXPECT_EQ(row.id, want.id);
    const Bound b = roofline(row, r.machine.peak_flops, r.machine.bandwidth, r.link_bandwidth);
    EXPECT_EQ(format_flops(row.flops()), want.flops);
    EXPECT_EQ(format_bytes(row.bytes()), want.bytes);
    EXPECT_EQ(format_ai(row.intensity()), want.ai);
    EXPECT_EQ(format_time(b.time_s()), want.time);
    EXPECT_EQ(format_bound(b), want.bound);
    // The printed line carries the same columns in the same order.
    const std::string tail = std::string(want.flops) + " " + want.bytes + " " + want.ai + " " + want.time + " " +
                             want.bound;
    EXPECT_TRUE(ends_with(squeeze(row003_line(row, r, 60)), tail)) << row003_line(row, r, 60);
  }
}

TEST(LedgerSeed003, ExactCountsBehindTheDigits) {
  const std::vector<Row> rows = suite003(Shapes003{});
  const double e24 = 16777216.0;
  EXPECT_DOUBLE_EQ(row003(rows, "add").bytes(), 3 * e24 * 2);
  EXPECT_DOUBLE_EQ(row003(rows, "gemm").flops(), 2.0 * 4096 * 4096 * 4096);
  EXPECT_DOUBLE_EQ(row003(rows, "gemm").bytes(), 3.0 * 4096 * 4096 * 2);
  EXPECT_DOUBLE_EQ(row003(rows, "prefill-flash").intensity(), 2068.0);
  EXPECT_DOUBLE_EQ(row003(rows, "prefill-materialized").flops(), row003(rows, "prefill-flash").flops());
  EXPECT_EQ(row003(rows, "prefill-materialized").kernels.size(), 4u);
  EXPECT_DOUBLE_EQ(row003(rows, "adamw").flops(), 15 * 7e9);
  EXPECT_DOUBLE_EQ(row003(rows, "adamw").bytes(), 26 * 7e9);
  EXPECT_DOUBLE_EQ(row003(rows, "allreduce").bytes(), 2.0 * 7 / 8 * 7e9 * 2);
}

TEST(LedgerSeed003, TextTableHasHeaderAndRowsInOrder) {
  const Outcome r = invoke({"--suite", "003"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("peak bandwidth  : 4502 GB/s"), std::string::npos);
  EXPECT_NE(r.out.find("machine balance : 162.0 FLOP/Byte"), std::string::npos);
  EXPECT_EQ(r.out.find("kernels="), std::string::npos);  // no suite 002
  size_t at = 0;
  for (const Seed003& want : kSeed003) {
    const std::string cols = std::string(want.bytes) + " " + want.ai + " " + want.time + " " + want.bound;
    const size_t found = squeeze(r.out).find(cols, at);
    ASSERT_NE(found, std::string::npos) << want.id;
    at = found;
  }
  EXPECT_NE(r.out.find("elementwise add y=x+b (16.8M elements, fp16)"), std::string::npos);
  EXPECT_NE(r.out.find("AdamW step (7.00B params, state fp32, grad bf16)"), std::string::npos);
  EXPECT_NE(r.out.find("gradient all-reduce (ring, 8 ranks, bf16)"), std::string::npos);
}

// ---- seed 002 ----------------------------------------------------------------------------

TEST(LedgerSeed002, EveryRowPrintsTheSeedDigits) {
  const Report r = default_report();
  std::vector<const Row*> rows;
  for (const Pair& p : r.pairs002) rows.insert(rows.end(), {&p.unfused, &p.fused});
  ASSERT_EQ(rows.size(), kSeed002.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const Seed002& want = kSeed002[i];
    SCOPED_TRACE(want.id);
    EXPECT_EQ(rows[i]->id, want.id);
    EXPECT_EQ(rows[i]->kernels.size(), want.kernels);
    EXPECT_EQ(format_mb(rows[i]->bytes()), want.mb);
    EXPECT_EQ(format_mflop(rows[i]->flops()), want.mflop);
    EXPECT_EQ(format_ai3(rows[i]->intensity()), want.ai);
    const std::string tail = "kernels=" + std::to_string(want.kernels) + " moved= " + want.mb + " MB flops= " +
                             want.mflop + " MFLOP AI= " + want.ai + " FLOP/Byte";
    EXPECT_TRUE(ends_with(squeeze(row002_line(*rows[i], 40)), tail)) << row002_line(*rows[i], 40);
  }
}

TEST(LedgerSeed002, RatioLines) {
  const std::vector<Pair> pairs = suite002(Shapes002{});
  const std::vector<std::string> want = {"1.67", "3.50", "5.00", "3.67", "3.61"};
  ASSERT_EQ(pairs.size(), want.size());
  for (size_t i = 0; i < pairs.size(); ++i)
    EXPECT_EQ(ratio_line(pairs[i]), "  \u2192 bytes-moved ratio " + want[i] + "\u00d7");
}

TEST(LedgerSeed002, RangeLine) {
  EXPECT_EQ(range_line(suite002(Shapes002{})),
            "The arithmetic intensity of all 10 schemes falls within 0.100 \u2013 2.315 FLOP/Byte.");
}

TEST(LedgerSeed002, DefaultOutputPrintsBothSuites) {
  const Outcome r = invoke({});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Machine model"), std::string::npos);
  EXPECT_NE(r.out.find("\u2192 bytes-moved ratio 3.61\u00d7"), std::string::npos);
  EXPECT_NE(r.out.find("0.100 \u2013 2.315 FLOP/Byte"), std::string::npos);
  EXPECT_LT(r.out.find("gradient all-reduce"), r.out.find("scale+add (2 kernels)"));  // 003, then 002
  size_t at = 0;
  for (const Seed002& want : kSeed002) {
    const std::string cols = std::string("moved= ") + want.mb + " MB flops= " + want.mflop + " MFLOP AI= " + want.ai;
    const size_t found = squeeze(r.out).find(cols, at);
    ASSERT_NE(found, std::string::npos) << want.id;
    at = found;
  }
}

// ---- flags -------------------------------------------------------------------------------

TEST(LedgerCli, MachineSwitchesToH100) {
  const Outcome r = invoke({"--machine", "h100-spec", "--suite", "003", "--op", "gemm,adamw"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string out = squeeze(r.out);
  EXPECT_NE(out.find("peak compute : 1000.0 TFLOPS"), std::string::npos) << r.out;
  EXPECT_NE(out.find("peak bandwidth : 3000 GB/s"), std::string::npos);
  EXPECT_NE(out.find("machine balance : 333.3 FLOP/Byte"), std::string::npos);
  EXPECT_NE(out.find("1365.33 F/B 137.4 us compute-bound"), std::string::npos);  // 137.4 GFLOP at 1 PFLOP/s
  EXPECT_NE(out.find("182.00 GB 0.58 F/B 60.667 ms memory-bound"), std::string::npos);  // 182 GB at 3 TB/s
}

TEST(LedgerCli, ShapeFlagsScaleTheFormulas) {
  const Report base = default_report();
  Shapes003 big;
  big.gemm_m = big.gemm_n = big.gemm_k = 8192;
  big.seq_len = 8192;
  big.params = 14'000'000'000;
  big.world = 64;
  const std::vector<Row> rows = suite003(big);
  // GEMM: FLOPs scale with n^3, bytes with n^2.
  EXPECT_DOUBLE_EQ(row003(rows, "gemm").flops(), 8 * row003(base.rows003, "gemm").flops());
  EXPECT_DOUBLE_EQ(row003(rows, "gemm").bytes(), 4 * row003(base.rows003, "gemm").bytes());
  // Prefill: FLOPs with S^2; flash bytes with S.
  EXPECT_DOUBLE_EQ(row003(rows, "prefill-flash").flops(), 4 * row003(base.rows003, "prefill-flash").flops());
  EXPECT_DOUBLE_EQ(row003(rows, "prefill-flash").bytes(), 2 * row003(base.rows003, "prefill-flash").bytes());
  // All-reduce: 2 (n-1)/n of the gradient bytes.
  EXPECT_EQ(format_bytes(row003(rows, "allreduce").bytes()), "55.12 GB");  // 2 x 63/64 x 14e9 x 2
  EXPECT_EQ(format_bytes(row003(rows, "adamw").bytes()), "364.00 GB");

  // The same through the flags, and the labels follow.
  const Outcome r = invoke({"--suite", "003", "--gemm", "8192x8192x8192", "--params", "14e9", "--world", "64", "--op",
                     "gemm,adamw,allreduce"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string out = squeeze(r.out);
  EXPECT_NE(out.find("GEMM 8192x8192x8192 (fp16) 1.1 TFLOP 402.65 MB 2730.67 F/B"), std::string::npos) << r.out;
  EXPECT_NE(out.find("AdamW step (14.00B params, state fp32, grad bf16) 210 GFLOP 364.00 GB"), std::string::npos);
  EXPECT_NE(out.find("gradient all-reduce (ring, 64 ranks, bf16) 0 55.12 GB"), std::string::npos);
  EXPECT_EQ(out.find("elementwise add"), std::string::npos);  // --op keeps only the three rows
}

TEST(LedgerCli, DtypeAndSeedShapeFlags) {
  const Outcome r = invoke({"--suite", "003", "--op", "add", "--elements", "2^20", "--dtype", "fp32"});
  ASSERT_EQ(r.status, 0) << r.err;
  // 3 x 2^20 x 4 bytes; label follows the shape.
  EXPECT_NE(squeeze(r.out).find("elementwise add y=x+b (1.0M elements, fp32) 0.00105 GFLOP 12.58 MB 0.08 F/B"),
            std::string::npos)
      << r.out;
  const Outcome s = invoke({"--suite", "002", "--op", "rope", "--rope-shape", "4096x32x64", "--rope-dtype", "bf16"});
  ASSERT_EQ(s.status, 0) << s.err;
  EXPECT_NE(squeeze(s.out).find("kernels=1 moved= 50.33 MB flops= 25.17 MFLOP AI= 0.500"), std::string::npos)
      << s.out;
  EXPECT_NE(s.out.find("of both schemes falls within 0.136 \u2013 0.500"), std::string::npos) << s.out;
}

TEST(LedgerCli, JsonIsValidAndComplete) {
  const Outcome r = invoke({"--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["machine"]["id"], "h200-measured");
  EXPECT_NEAR(j["machine"]["balance_flop_per_byte"].get<double>(), 161.97, 0.01);
  EXPECT_EQ(j["machine"]["source"].get<std::string>().find("TileOPs"), 0u);
  ASSERT_EQ(j["rows"].size(), kSeed003.size() + kSeed002.size());
  for (const auto& row : j["rows"]) {
    for (const char* key : {"suite", "id", "name", "flops", "bytes", "ai", "time_bound_s", "bound", "kernels"})
      EXPECT_TRUE(row.contains(key)) << key;
    EXPECT_TRUE(row["bound"] == "memory" || row["bound"] == "compute");
  }
  const auto& gemm = j["rows"][5];
  EXPECT_EQ(gemm["id"], "gemm");
  EXPECT_EQ(gemm["flops"].get<int64_t>(), int64_t{2} * 4096 * 4096 * 4096);
  EXPECT_EQ(gemm["bound"], "compute");
  EXPECT_NEAR(gemm["time_bound_s"].get<double>(), 188.46e-6, 0.01e-6);
  EXPECT_EQ(j["pairs"].size(), 5u);
  EXPECT_NEAR(j["pairs"][0]["bytes_ratio"].get<double>(), 20.0 / 12.0, 1e-12);
  EXPECT_NEAR(j["ai_range_002"]["max"].get<double>(), 2.3155, 0.0001);
}

TEST(LedgerCli, ArchMachineNeedsBandwidth) {
  const std::string tpu = kSource + "/configs/arch/tpu-v1.yaml";
  const Outcome r = invoke({"--machine-arch", tpu, "--bandwidth", "34", "--suite", "003", "--op", "gemm"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string out = squeeze(r.out);
  EXPECT_NE(out.find("peak compute : 91.75 TOPS"), std::string::npos) << r.out;
  EXPECT_NE(out.find("machine balance : 2698.5 FLOP/Byte"), std::string::npos);
  EXPECT_NE(out.find("2.961 ms memory-bound"), std::string::npos);  // 100.66 MB at 34 GB/s

  const Outcome j = invoke({"--machine-arch", tpu, "--bandwidth", "34", "--json"});
  ASSERT_EQ(j.status, 0) << j.err;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(j.out)["machine"]["peak_flops_per_s"].get<double>(), 2.0 * 65536 * 700e6);

  const Outcome missing = invoke({"--machine-arch", tpu});
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(missing.err.rfind("error: ledger: --bandwidth: required with --machine-arch", 0), 0u) << missing.err;
}

// Without --machine the ledger prices the shipped default accelerator, its bandwidth its HBM's
// peak: npu-128-hbm3 is 128 x 128 int8 PEs at 1 GHz, one HBM3-6400 stack of 16 channels x 2
// pseudo-channels x 32 bit at 6.4 Gb/s per pin = 819.2 GB/s.
TEST(LedgerCli, DefaultMachineIsTheDefaultPreset) {
  const Outcome r = invoke_as_is({"--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto m = nlohmann::json::parse(r.out)["machine"];
  EXPECT_DOUBLE_EQ(m["peak_flops_per_s"].get<double>(), 2.0 * 128 * 128 * 1e9);
  EXPECT_NE(m.dump().find("npu-128-hbm3"), std::string::npos) << m.dump();
  const Outcome tpu = invoke_as_is({"--machine-arch", kSource + "/configs/arch/tpu-v1-ddr3.yaml", "--json"});
  ASSERT_EQ(tpu.status, 0) << tpu.err;  // a channel's bandwidth is the arch's own
}

TEST(LedgerCli, LinkBandwidthPricesOnlyTheAllReduce) {
  const Outcome r = invoke({"--suite", "003", "--op", "allreduce,adamw", "--link-bandwidth", "450"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string out = squeeze(r.out);
  EXPECT_NE(out.find("24.50 GB 0.00 F/B 54.444 ms"), std::string::npos) << r.out;  // 24.5 GB at 450 GB/s
  EXPECT_NE(out.find("182.00 GB 0.58 F/B 40.423 ms"), std::string::npos);         // still HBM
}

TEST(LedgerCli, HelpListsFlags) {
  const Outcome r = invoke({"--help"});
  EXPECT_EQ(r.status, 0);
  for (const char* flag : {"--suite", "--machine", "--machine-arch", "--bandwidth", "--op", "--seq-len", "--heads",
                           "--head-dim", "--params", "--world", "--kv-len", "--json", "h100-spec"})
    EXPECT_NE(r.out.find(flag), std::string::npos) << flag;
}

TEST(LedgerCli, BadFlagsGiveOneErrorLine) {
  const std::string tpu = kSource + "/configs/arch/tpu-v1.yaml";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--suite", "004"}, "error: ledger: --suite: expected 002, 003 or all, got '004'"},
      {{"--machine", "b200"}, "error: ledger: --machine: unknown profile 'b200' (known: h200-measured, h200-spec, "
                              "h100-spec)"},
      {{"--seq-len", "abc"}, "error: ledger: --seq-len: expected a whole number (e.g. 4096, 7e9 or 2^24), got 'abc'"},
      {{"--heads", "0"}, "error: ledger: --heads: must be at least 1, got 0"},
      {{"--params", "7.5"}, "error: ledger: --params: expected a whole number (e.g. 4096, 7e9 or 2^24), got '7.5'"},
      {{"--world", "1"}, "error: ledger: --world: must be at least 2, got 1"},
      {{"--gemm", "4096x4096"}, "error: ledger: --gemm: expected MxNxK (e.g. 4096x4096x4096), got '4096x4096'"},
      {{"--dtype", "fp12"}, "error: ledger: --dtype: unknown dtype 'fp12' (known: int4, int8, int16, int32, "
                            "fp8_e4m3, fp8_e5m2, bf16, fp16, fp32, fp64, tf32, fp8)"},
      {{"--bandwidth", "-1"}, "error: ledger: --bandwidth: expected a positive bandwidth in GB/s (e.g. 4800), got "
                              "'-1'"},
      {{"--kv-len"}, "error: ledger: --kv-len: missing value"},
      {{"--frobnicate"}, "error: ledger: --frobnicate: unknown option (see cstsim ledger --help)"},
      {{"--world", "8", "--world", "16"}, "error: ledger: --world: given more than once"},
      {{"--fused-rope-dim", "127"}, "error: ledger: --fused-rope-dim: must be even, got 127"},
      {{"--machine", "h100-spec", "--machine-arch", tpu, "--bandwidth", "34"},
       "error: ledger: --machine-arch: cannot be combined with --machine"},
      {{"--machine-arch", "/nonexistent/arch.yaml", "--bandwidth", "34"},
       "error: ledger: --machine-arch: /nonexistent/arch.yaml: cannot open file: no such file"},
      {{"gemm"}, "error: ledger: unexpected argument 'gemm' (ledger takes only --flags)"},
  };
  for (const auto& [args, want] : cases) {
    const Outcome r = invoke(args);
    SCOPED_TRACE(want);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, want + "\n");
  }
  const Outcome op = invoke({"--op", "adamw,nope"});
  EXPECT_EQ(op.status, 2);
  EXPECT_EQ(op.err.rfind("error: ledger: --op: unknown operator 'nope'", 0), 0u) << op.err;
  EXPECT_EQ(std::count(op.err.begin(), op.err.end(), '\n'), 1);
  const Outcome suite = invoke({"--suite", "002", "--op", "gemm"});  // gemm is a suite 003 row
  EXPECT_EQ(suite.status, 2);
  EXPECT_EQ(suite.err.rfind("error: ledger: --op: unknown operator 'gemm' for suite 002", 0), 0u) << suite.err;
}

TEST(LedgerCli, PublicEntryPointReturnsStatus) {
  EXPECT_EQ(cstsim::ledger_command({"--suite", "002", "--op", "rmsnorm"}), 0);
  EXPECT_EQ(cstsim::ledger_command({"--suite", "x"}), 2);
}

namespace {

// --graph prices the workload the simulator runs: RMSNorm's six steps unfused are seed 002's
// 6-step row to the byte, its fused kernel the fused row; a layer is 2 x MACs.
TEST(LedgerGraph, PricesTheSimulatorsKernelsInTheSeedsVocabulary) {
  cstsim::testing_util::TempDir dir;
  const std::string g = dir.write("g.yaml",
                                  "tensors:\n"
                                  "  - {name: x, shape: [4096, 4096], dtype: fp16, role: activation}\n"
                                  "  - {name: w, shape: [4096], dtype: fp16, role: weight}\n"
                                  "  - {name: wo, shape: [4096, 1024], dtype: fp16, role: weight}\n"
                                  "ops:\n"
                                  "  - {name: norm, op: rmsnorm, in: [x, w], out: h}\n"
                                  "  - {name: proj, op: matmul, in: [h, wo], out: y}\n");
  auto rows = [&](const std::string& fusion) {
    const Outcome o = invoke({"--graph", g, "--fusion", fusion, "--json"});
    EXPECT_EQ(o.status, 0) << o.err;
    return nlohmann::json::parse(o.out)["rows"];
  };
  const Pair rms = suite002(Shapes002{})[1];
  ASSERT_EQ(rms.id, "rmsnorm");
  const nlohmann::json split = rows("none"), fused = rows("op");
  ASSERT_EQ(split.size(), 6u + 1);
  ASSERT_EQ(fused.size(), 1u + 1);
  double split_bytes = 0;
  for (size_t i = 0; i < 6; ++i) split_bytes += split[i]["bytes"].get<double>();
  EXPECT_DOUBLE_EQ(split_bytes, rms.unfused.bytes());  // 234.99 MB
  EXPECT_DOUBLE_EQ(fused[0]["bytes"].get<double>(), rms.fused.bytes());  // 67.12 MB
  EXPECT_DOUBLE_EQ(fused[0]["flops"].get<double>(), rms.fused.flops());
  EXPECT_DOUBLE_EQ(fused[1]["flops"].get<double>(), 2.0 * 4096 * 1024 * 4096);
  EXPECT_DOUBLE_EQ(fused[1]["bytes"].get<double>(), 2.0 * (4096.0 * 4096 + 4096.0 * 1024 + 4096.0 * 1024));
  // Flash attention is seed 003's prefill-flash row.
  const std::string a = dir.write("a.yaml",
                                  "tensors:\n"
                                  "  - {name: q, shape: [1, 4096, 4096], dtype: fp16, role: activation}\n"
                                  "ops:\n"
                                  "  - {name: attn, op: attention, in: [q, q, q], out: o, heads: 32, tiling: flash}\n");
  const Outcome flash = invoke({"--graph", a, "--json"});
  ASSERT_EQ(flash.status, 0) << flash.err;
  const nlohmann::json frows = nlohmann::json::parse(flash.out)["rows"];
  ASSERT_EQ(frows.size(), 1u);
  const std::vector<Row> rows003 = suite003(Shapes003{});  // kept: row003 returns a reference into it
  const Row& seed = row003(rows003, "prefill-flash");
  EXPECT_DOUBLE_EQ(frows[0]["bytes"].get<double>(), seed.bytes());  // 134.22 MB
  EXPECT_DOUBLE_EQ(frows[0]["flops"].get<double>(), seed.flops());
  const Outcome bad = invoke({"--fusion", "op"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--fusion: applies only with --graph"), std::string::npos) << bad.err;
}

}  // namespace
