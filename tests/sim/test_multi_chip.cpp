// Several chips (arch chips > 1): the tensor-parallel split run on every chip's model at once, the
// collectives on the interconnect's links, and what the run reports of them.
#include <nlohmann/json.hpp>

#include <climits>
#include <cmath>
#include <map>
#include <sstream>

#include "tests/sim/cli_fixture.h"

namespace {

using nlohmann::json;

class MultiChip : public Cli {
 protected:
  // A link with round numbers and no packet headers: 100 GB/s per direction, 1 us per hop.
  fs::path link(double gbps = 100, double latency_ns = 1000, int header = 0, double pj = 5) {
    return file("link.yaml", "name: test-link\nbandwidth_gbps: " + std::to_string(gbps) + "\nlatency_ns: " +
                                 std::to_string(latency_ns) + "\nmax_payload_bytes: 256\nheader_bytes: " +
                                 std::to_string(header) + "\npj_per_bit: " + std::to_string(pj) + "\n");
  }
  // A 16 x 16 array with a 64-lane vector unit (it adds what an all-reduce receives: 64 B a cycle).
  fs::path arch(int chips, const std::string& topology, const fs::path& l, const std::string& memory = "ideal") {
    const std::string extra = "vector: {lanes: 64}\nchips: " + std::to_string(chips) + "\ninterconnect: {link: " +
                              l.string() + ", topology: " + topology + "}\n";
    if (memory == "hierarchy") return small_hierarchy("arch.yaml", extra);
    return file("arch.yaml", "array: {rows: 16, cols: 16}\ndataflow: ws\n" + extra);
  }
  fs::path chain(int64_t M, int64_t N, int64_t K, int layers = 2) {
    std::string text = "name: chain\nlayers:\n";
    for (int i = 0; i < layers; ++i)
      text += "  - {name: fc" + std::to_string(i) + ", M: " + std::to_string(M) + ", N: " + std::to_string(N) +
              ", K: " + std::to_string(K) + "}\n";
    return file("chain.yaml", text);
  }
  json run(const fs::path& a, const fs::path& w, const std::string& out, const std::string& more = "") {
    const Result r = cstsim("run --arch " + a.string() + " --workload " + w.string() + " --out " +
                            (dir_ / out).string() + " " + more);
    EXPECT_EQ(r.status, 0) << r.err;
    return json::parse(slurp(dir_ / out / "summary.json"));
  }
};

// Ring all-reduce of S bytes on N chips at zero contention: 2 (N-1) steps of alpha + S/(N B), and
// N-1 reductions of a chunk on the vector unit; every chip sends 2 (N-1)/N S. fc0 splits by
// columns, fc1 by rows: one all-reduce of fc1's 64 x 256 int32 partial sums (int8 operands).
TEST_F(MultiChip, RingAllReduceTakesItsFormulaToTheCycle) {
  // Half the bandwidth and a quarter of the latency: each term moves as the formula says.
  for (const auto& [gbps, latency_ns] : {std::pair<double, int64_t>{100, 1000}, {50, 250}}) {
  SCOPED_TRACE(gbps);
  const json s = run(arch(4, "ring", link(gbps, double(latency_ns))), chain(64, 256, 256), "run" + std::to_string(latency_ns));
  const json& c = s["chips"];
  ASSERT_EQ(c["collectives"].size(), 1u);
  const json& ar = c["collectives"][0];
  EXPECT_EQ(ar["op"], "all_reduce");
  EXPECT_EQ(ar["algorithm"], "ring");
  const int64_t S = 64 * 256 * 4, n = 4, chunk = S / n;
  EXPECT_EQ(ar["bytes"], S);
  for (const json& sent : ar["sent_bytes_per_chip"]) EXPECT_EQ(sent.get<int64_t>(), 2 * (n - 1) * S / n);
  const int64_t wire_ps = int64_t(std::ceil(chunk * 1000.0 / gbps));  // 163,840 ps at 100 GB/s
  // int32 sums: 64 adds a cycle would take 1/256 cycle a byte, but 3 bytes move through the 256 B
  // ports per byte added: 3/256 cycle a byte at 1 GHz.
  const int64_t reduce_ps = int64_t(std::ceil(chunk * 1000.0 * 3 / 256));
  const int64_t total_ps = 2 * (n - 1) * (latency_ns * 1000 + wire_ps) + (n - 1) * reduce_ps;
  EXPECT_EQ(ar["cycles"].get<int64_t>(), (total_ps + 999) / 1000);  // 7560 at 100 GB/s and 1 us
  // The split keeps the MACs: every chip a quarter, together the whole.
  EXPECT_EQ(c["macs"].get<int64_t>(), 2LL * 64 * 256 * 256);
  for (const json& chip : c["per_chip"]) EXPECT_EQ(chip["macs"].get<int64_t>(), 2LL * 64 * 256 * 256 / 4);
  // One direction of the ring carries it all; each link 2 (N-1) chunks.
  ASSERT_EQ(c["links"].size(), 4u);
  for (const json& l : c["links"]) {
    EXPECT_EQ(l["payload_bytes"].get<int64_t>(), 2 * (n - 1) * chunk) << l.dump();
    EXPECT_EQ(l["wire_bytes"], l["payload_bytes"]);  // no headers on this link
  }
  EXPECT_EQ(s["total"]["collective_cycles"], ar["cycles"]);
  // Each chip's vector unit adds N-1 received chunks (int32: a value 4 bytes): its additions and
  // scratchpad traffic on the trace as the unit's own.
  std::map<std::string, int64_t> counted;
  std::istringstream rows(slurp(dir_ / ("run" + std::to_string(latency_ns)) / "trace" / "actions.csv"));
  for (std::string line; std::getline(rows, line);) {
    const size_t a = line.find(",chip"), unit = line.find(',', a + 1);
    if (a != std::string::npos && line.find("vector") != std::string::npos)
      counted[line.substr(a + 1, unit - a - 1)] += std::stoll(line.substr(line.rfind(',') + 1));
  }
  for (int k = 0; k < n; ++k) {
    const std::string chip = "chip" + std::to_string(k);
    EXPECT_EQ(counted[chip + ".vector.add"], (n - 1) * chunk / 4) << chip;
    EXPECT_EQ(counted[chip + ".sram.read.vector"], 2 * (n - 1) * chunk) << chip;
    EXPECT_EQ(counted[chip + ".sram.write.vector"], (n - 1) * chunk) << chip;
  }
  }
}

// Γ_comm: each chip-to-chip edge of report.json carries the bytes its link counted (summary.json's
// links, per message as it crossed), they sum to the interconnect's B_N, and they are priced at the
// link's energy per bit. Through every chip's memory hierarchy, on a switch (two hops a message).
TEST_F(MultiChip, GammaCommEdgesAreTheLinksCountedBytes) {
  const json s = run(arch(2, "switch", link(100, 500, 16, 5), "hierarchy"), chain(32, 128, 128), "run");
  const json r = json::parse(slurp(dir_ / "run" / "report.json"));
  EXPECT_EQ(r["boundary"], "node");
  std::map<std::string, double> by_edge;
  for (const json& e : r["total"]["Theta_CST"]["Gamma_comm"]["edges"])
    if (e["links"].get<std::string>().rfind("interconnect.", 0) == 0)
      by_edge[e["src"].get<std::string>() + ">" + e["dst"].get<std::string>()] = e["bytes"]["value"].get<double>();
  ASSERT_EQ(by_edge.size(), 4u);  // chip0>switch, chip1>switch and back
  int64_t sum = 0;
  double pj = 0;
  for (const json& l : s["chips"]["links"]) {
    const std::string edge = l["src"].get<std::string>() + ">" + l["dst"].get<std::string>();
    EXPECT_EQ(by_edge.at(edge), l["wire_bytes"].get<double>()) << edge;
    EXPECT_GT(l["wire_bytes"].get<int64_t>(), l["payload_bytes"].get<int64_t>());  // 16 B per 256 B packet
    sum += l["wire_bytes"].get<int64_t>();
    pj += l["wire_bytes"].get<double>() * 8 * 5;
  }
  EXPECT_GT(sum, 0);
  EXPECT_EQ(s["chips"]["Gamma_comm"]["B_N_bytes"].get<int64_t>(), sum);
  double priced = 0;
  for (const auto& [action, e] : r["total"]["energy"]["E_marg_by_action"].items())
    if (action.rfind("link.interconnect.", 0) == 0) priced += e["value"].get<double>();
  EXPECT_NEAR(priced, pj * 1e-12, 1e-9 * pj * 1e-12);
  // Both chips ran on their own memory hierarchies: each one's HBM reads are on the trace.
  const std::string resources = slurp(dir_ / "run" / "trace" / "resources.csv");
  for (const char* name : {"chip0.hbm.ch00.busy", "chip1.hbm.ch00.busy", "interconnect.chip0>switch"})
    EXPECT_NE(resources.find(name), std::string::npos) << name;
  EXPECT_EQ(r["total"]["Theta_CST"]["D_peak"]["value"].get<double>(), 2);  // both arrays at once
  // The trace's counters of both chips add up: the report's ops are every chip's MACs, twice.
  EXPECT_EQ(r["total"]["C_P"]["O"]["ops"]["value"].get<double>(), 2.0 * s["chips"]["macs"].get<double>());
}

// Invariant 8 of the metrology: more chips need not be faster. A small GEMM chain on a slow ring
// is bound by its all-reduce's 2 (N-1) latencies: 8 chips take longer than 2, and the report says
// why (the collective's share of every chip's time grows while its compute shrinks).
TEST_F(MultiChip, AddingChipsToACommunicationBoundJobIsSlower) {
  std::map<int, json> s;
  for (int n : {1, 2, 4, 8}) {
    const fs::path a = n == 1 ? file("one.yaml", "array: {rows: 16, cols: 16}\ndataflow: ws\nvector: {lanes: 64}\n")
                              : arch(n, "ring", link(16, 2000));
    s[n] = run(a, chain(16, 512, 512), "run" + std::to_string(n), "--no-trace");
  }
  auto wall = [&](int n) {
    return n == 1 ? s[1]["total"]["cycles"].get<int64_t>() : s[n]["chips"]["wall_cycles"].get<int64_t>();
  };
  EXPECT_LT(wall(2), wall(1));  // halving the compute pays for one exchange
  EXPECT_GT(wall(8), wall(4));
  EXPECT_GT(wall(8), wall(2));
  auto comm = [&](int n) { return s[n]["chips"]["per_chip"][0]["collective_cycles"].get<int64_t>(); };
  auto compute = [&](int n) { return s[n]["total"]["cycles"].get<int64_t>() - comm(n); };
  EXPECT_GT(comm(8), comm(4));
  EXPECT_GT(comm(4), comm(2));
  EXPECT_LT(compute(8), compute(4));
  EXPECT_LT(compute(4), compute(2));
  // T_n's parts, counted, add up to each chip's time; T_comm is what grows.
  for (int n : {2, 4, 8}) {
    for (const json& c : s[n]["chips"]["per_chip"])
      EXPECT_EQ(c["T_serial_cycles"].get<int64_t>() + c["T_parallel_cycles"].get<int64_t>() +
                    c["T_comm_cycles"].get<int64_t>() + c["T_sync_cycles"].get<int64_t>(),
                c["end_cycle"].get<int64_t>());
    if (n > 2)
      EXPECT_GT(s[n]["chips"]["per_chip"][0]["T_comm_cycles"].get<int64_t>(),
                s[n / 2]["chips"]["per_chip"][0]["T_comm_cycles"].get<int64_t>());
  }
}

// Each topology runs the all-reduce its links suit: both ways round a ring with links both ways, rows
// then columns on a torus; every byte a chip sends crosses one link (neighbours), so the links' payload
// is what the chips sent.
TEST_F(MultiChip, TopologiesPickTheirAlgorithms) {
  const std::map<std::string, std::string> algorithm{
      {"ring", "ring"}, {"bidirectional_ring", "bidirectional_ring"}, {"torus2d", "torus2d"}, {"fully_connected", "ring"}};
  for (const auto& [topology, expected] : algorithm) {
    const std::string more = topology == "torus2d" ? "--set interconnect.torus_x=2" : "";
    const json s = run(arch(4, topology, link()), chain(64, 256, 256), "run-" + topology, "--no-trace " + more);
    const json& ar = s["chips"]["collectives"][0];
    EXPECT_EQ(ar["algorithm"], expected) << topology;
    int64_t payload = 0;
    for (const json& l : s["chips"]["links"]) payload += l["payload_bytes"].get<int64_t>();
    EXPECT_EQ(payload, ar["sent_bytes"].get<int64_t>()) << topology;
    EXPECT_EQ(ar["sent_bytes"].get<int64_t>(), 4 * 2 * 3 * (64 * 256 * 4) / 4) << topology;  // 2 (N-1)/N S a chip
  }
}

// `cstsim plan` names each collective the split inserts, its bytes and what every chip sends.
TEST_F(MultiChip, PlanShowsTheCollectivesOfLlamaAtEveryDegree) {
  for (int t : {2, 4, 8}) {
    const Result r = cstsim("plan --json --arch " + src("configs/arch/npu-128-hbm3.yaml") + " --workload " +
                            src("configs/workloads/models/llama2-7b-prefill-s2048.yaml") + " --set chips=" +
                            std::to_string(t) + " --set interconnect.link=" +
                            src("configs/interconnect/nvlink4-h100.yaml") + " --set interconnect.topology=switch");
    ASSERT_EQ(r.status, 0) << r.err;
    const json plan = json::parse(r.out);
    std::vector<json> collectives;
    for (const json& e : plan)
      if (e.value("kind", "") == "collective") collectives.push_back(e);
    ASSERT_EQ(collectives.size(), 2u) << t;
    const int64_t bytes = 2048LL * 4096 * 4;  // int32 partial sums of the int8 array
    for (const json& c : collectives) {
      EXPECT_EQ(c["op"], "all_reduce");
      EXPECT_EQ(c["bytes"].get<int64_t>(), bytes);
      EXPECT_EQ(c["sent_bytes_per_chip"].get<int64_t>(), 2 * (t - 1) * bytes / t);
    }
    EXPECT_EQ(collectives[0]["tensor"], "b0.o");
    EXPECT_EQ(collectives[1]["tensor"], "b0.f2");
  }
}

TEST_F(MultiChip, BadInputsAreRefusedWithOneLine) {
  const fs::path l = link();
  const fs::path w = chain(64, 256, 256);
  const std::string base = "run --workload " + w.string() + " --arch ";
  const fs::path one = file("one.yaml", "array: {rows: 16, cols: 16}\ndataflow: ws\ninterconnect: {link: " +
                                            l.string() + "}\n");
  expect_input_error(base + one.string(), "interconnect.link: applies only with chips > 1");
  const fs::path no_link = file("nolink.yaml", "array: {rows: 16, cols: 16}\ndataflow: ws\nchips: 2\n");
  expect_input_error(base + no_link.string(), "interconnect.link");
  expect_input_error(base + arch(4, "ring", l).string() + " --set parallel.tensor=2", "parallel.tensor");
  expect_input_error(base + arch(4, "ring", l).string() + " --set parallel.data=3",
                     "parallel.data: 4 chips are not tensor parallelism 1 x data parallelism 3");
  expect_input_error(base + arch(4, "ring", l).string() + " --set parallel.data=2 --set parallel.tensor=2",
                     "parallel.tensor: tensor parallelism 2, data parallelism 2, pipeline stages 1: one split");
  expect_input_error(base + arch(4, "ring", l).string() + " --set parallel.micro_batches=2", "parallel.micro_batches");
  expect_input_error(base + arch(4, "ring", l).string() + " --set parallel.pipeline=4", "2 layers do not fill 4 pipeline");
  expect_input_error(base + arch(2, "ring", l).string() + " --set parallel.pipeline=2 --train none", "--train");
  expect_input_error(base + arch(4, "torus2d", l).string() + " --set interconnect.torus_x=2 --set parallel.pipeline=4",
                     "parallel.pipeline: pipeline stages on a torus2d");
  expect_input_error("run --workload " + src("configs/workloads/models/llama2-7b-prefill-s512.yaml") + " --arch " +
                         arch(4, "ring", l).string() + " --set parallel.data=4",
                     "b0.attn.scores: its 1 sample(s)");
  expect_input_error(base + arch(6, "torus2d", l).string() + " --set interconnect.torus_x=4", "interconnect.torus_x");
  expect_input_error(base + arch(4, "ring", l).string() + " --set clusters=2 --verify", "clusters: --verify across chips");
  const fs::path no_vector = file("novec.yaml", "array: {rows: 16, cols: 16}\ndataflow: ws\nchips: 2\ninterconnect: "
                                                "{link: " + l.string() + "}\n");
  expect_input_error(base + no_vector.string(), "vector.lanes");
}

// --verify on 4 chips: every chip's register grids carry real values of its share of one GEMM, and
// the shares put together (fc0's columns side by side, fc1's partial sums added as its all-reduce
// adds them) give the whole GEMM - integers exactly, bf16 exactly in the chips' order, through the
// memory hierarchy with several passes. A Llama block in miniature (8 heads of 8, FFN 96) too.
TEST_F(MultiChip, VerifyPutsTheChipsGridsTogether) {
  for (const std::string& type : {"int8", "bf16"}) {
    const fs::path a = arch(4, "ring", link(), "hierarchy");
    const json s = run(a, chain(1500, 64, 64), "run-" + type, "--verify --set precision.operand=" + type);
    EXPECT_EQ(s["verify"]["passed"], true);
    const json& v = s["chips"]["verify"];
    ASSERT_EQ(v.size(), 2u);
    EXPECT_EQ(v[0]["cut"], "columns");
    EXPECT_EQ(v[1]["cut"], "rows");
    for (const json& l : v) {
      EXPECT_EQ(l["passed"], true) << l.dump();
      EXPECT_GT(l["passes"].get<int>(), 1) << l.dump();  // the 1500 rows stream in several passes
      EXPECT_EQ(l.contains("max_relative_error_vs_fp64"), type == "bf16");
    }
  }
  std::string graph = slurp(src("configs/workloads/models/llama2-7b-prefill-s512.yaml"));
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"512", "16"}, {"11008", "96"}, {"4096", "64"}, {"heads: 32", "heads: 8"}})
    for (size_t at = graph.find(from); at != std::string::npos; at = graph.find(from, at + to.size()))
      graph.replace(at, from.size(), to);
  const json s = run(arch(4, "switch", link(), "hierarchy"), file("tiny.yaml", graph), "tiny",
                     "--verify --set precision.operand=bf16");
  EXPECT_EQ(s["verify"]["passed"], true);
  EXPECT_EQ(s["chips"]["verify"].size(), 7u);  // q, k, v, gate, up by columns; o and down by rows
  // The same block's training step on 2 chips: the backward's five dX all-reduces join the
  // forward's two, every chip's grids verify, and the chips' MACs are the step's.
  const json t = run(arch(2, "switch", link(), "hierarchy"), fs::path(dir_ / "tiny.yaml"), "tiny-train",
                     "--verify --train none --set precision.operand=bf16");
  EXPECT_EQ(t["verify"]["passed"], true);
  EXPECT_EQ(t["chips"]["collectives"].size(), 7u);
  const json& m = t["training"]["macs"];
  EXPECT_EQ(t["chips"]["macs"].get<int64_t>(),
            2 * (m["forward"].get<int64_t>() + m["backward"].get<int64_t>()));
  // T_serial: the norms and residual adds every chip runs whole, as they ran.
  EXPECT_EQ(s["chips"]["split"]["whole_on_every_chip"],
            json::array({"b0.norm1", "b0.norm2", "b0.res1", "b0.res2"}));
  for (const json& c : s["chips"]["per_chip"]) {
    EXPECT_GT(c["T_serial_cycles"].get<int64_t>(), 0);
    EXPECT_EQ(c["T_serial_cycles"].get<int64_t>() + c["T_parallel_cycles"].get<int64_t>() +
                  c["T_comm_cycles"].get<int64_t>() + c["T_sync_cycles"].get<int64_t>(),
              c["end_cycle"].get<int64_t>());
  }
}

// Data parallelism on a training step: 4 chips each take a quarter of the rows, every weight's
// gradient is all-reduced on the ring right before its AdamW step, taking the ring formula to the
// cycle; the chips' MACs are the one-chip step's, and with a fast link the step is shorter.
TEST_F(MultiChip, DataParallelTrainingAllReducesEachGradient) {
  const fs::path w = chain(1024, 64, 64);
  const fs::path one = file("one.yaml", "array: {rows: 16, cols: 16}\ndataflow: ws\nvector: {lanes: 64}\n");
  const json single = run(one, w, "one", "--train none");
  const json s = run(arch(4, "ring", link(100, 1000)), w, "dp", "--train none --set parallel.data=4");
  const json& c = s["chips"];
  EXPECT_EQ(c["split"]["data_parallel"], 4);
  EXPECT_EQ(c["macs"], single["total"]["macs"]);  // 3 x 2 x 1024 x 64 x 64
  EXPECT_EQ(c["macs"].get<int64_t>(), 3LL * 2 * 1024 * 64 * 64);
  ASSERT_EQ(c["collectives"].size(), 2u);
  const int64_t S = 64 * 64, n = 4, chunk = S / n;  // a 64 x 64 int8 gradient
  const int64_t total_ps = 2 * (n - 1) * (1000 * 1000 + chunk * 10) + (n - 1) * int64_t(std::ceil(chunk * 1000.0 / 64));
  for (size_t k = 0; k < 2; ++k) {
    const json& ar = c["collectives"][k];
    EXPECT_EQ(ar["name"], std::string(k == 0 ? "fc1" : "fc0") + ".B.grad.all_reduce");
    EXPECT_EQ(ar["bytes"], S);
    for (const json& sent : ar["sent_bytes_per_chip"]) EXPECT_EQ(sent.get<int64_t>(), 2 * (n - 1) * S / n);
    EXPECT_EQ(ar["cycles"].get<int64_t>(), (total_ps + 999) / 1000) << ar.dump();
  }
  const json fast = run(arch(4, "ring", link(400, 100)), w, "dp-fast", "--train none --set parallel.data=4");
  EXPECT_LT(fast["chips"]["wall_cycles"].get<int64_t>(), single["total"]["cycles"].get<int64_t>());
}

// Pipeline stages: four equal layers on four chips. With one micro-batch the run is the one-chip
// run plus three hops (latency and the 32 KiB activations at 100 GB/s), to the cycle; more
// micro-batches shrink the wall and every stage's idle share, which stays above GPipe's bubble
// (P-1)/(m+P-1) by the links' time. Each stage-to-stage link carries the activations once.
TEST_F(MultiChip, PipelineStagesAndTheirBubble) {
  const fs::path w = chain(512, 64, 64, 4);
  const fs::path one = file("one.yaml", "array: {rows: 16, cols: 16}\ndataflow: ws\n");
  const int64_t single = run(one, w, "one")["total"]["cycles"].get<int64_t>();
  const int64_t hop = 1000 + (512 * 64 + 99) / 100;  // latency + 32768 B at 100 B/cycle, rounded up
  int64_t last_wall = INT64_MAX;
  double last_idle = 1;
  for (int m : {1, 2, 4, 8}) {
    SCOPED_TRACE(m);
    const json s = run(arch(4, "ring", link()), w, "pp" + std::to_string(m),
                       "--set parallel.pipeline=4 --set parallel.micro_batches=" + std::to_string(m));
    const json& c = s["chips"];
    const int64_t wall = c["wall_cycles"].get<int64_t>();
    if (m == 1) EXPECT_EQ(wall, single + 3 * hop);
    EXPECT_LT(wall, last_wall);
    last_wall = wall;
    const json& p = c["pipeline"];
    EXPECT_DOUBLE_EQ(p["gpipe_bubble"].get<double>(), 3.0 / (m + 3));
    for (const json& st : p["stages"]) {
      EXPECT_EQ(st["layers"].size(), 1u);
      EXPECT_EQ(st["macs"].get<int64_t>(), 512LL * 64 * 64);
      EXPECT_GE(st["idle_fraction"].get<double>(), p["gpipe_bubble"].get<double>());
      EXPECT_LT(st["idle_fraction"].get<double>(), p["gpipe_bubble"].get<double>() + 0.2);
    }
    EXPECT_LT(p["stages"][0]["idle_fraction"].get<double>(), last_idle);
    last_idle = p["stages"][0]["idle_fraction"].get<double>();
    EXPECT_EQ(c["collectives"].size(), size_t(3 * m));
    if (m == 2) {  // the plan prints every stage: its layer twice, and its receives and sends
      const Result r = cstsim("plan --json --arch " + arch(4, "ring", link()).string() + " --workload " + w.string() +
                              " --set parallel.pipeline=4 --set parallel.micro_batches=2");
      ASSERT_EQ(r.status, 0) << r.err;
      std::map<int, int> layers, sends;
      for (const json& e : json::parse(r.out)) {
        if (!e.contains("kind")) ++layers[e["chip"].get<int>()];
        if (e.value("op", "") == "send") ++sends[e["chip"].get<int>()];
      }
      EXPECT_EQ(layers, (std::map<int, int>{{0, 2}, {1, 2}, {2, 2}, {3, 2}}));
      EXPECT_EQ(sends, (std::map<int, int>{{0, 2}, {1, 4}, {2, 4}, {3, 2}}));  // ends: send only, receive only
    }
    for (const json& l : c["links"])
      EXPECT_EQ(l["payload_bytes"].get<int64_t>(), l["dst"] == "chip0" ? 0 : 512 * 64) << l.dump();
  }
}

// A Llama-2-7B block (a 512-token prompt) at tensor parallelism 2, 4 and 8 on NVLink 4 through a
// switch, every chip on its full hierarchy (HBM3, mesh, DMA, scratchpad): the MACs of one block, two
// all-reduces of its output, each chip's link traffic on the trace, and a shorter wall time with
// more chips (compute-bound at this size). (About three minutes.)
TEST_F(MultiChip, LongLlamaBlockAtTensorParallel248) {
  const int64_t S = 512, bytes = S * 4096 * 4;  // fp32 partial sums of bf16 operands
  // q, k, v, o: 4 x S x 4096^2; gate, up, down: 3 x S x 4096 x 11008; attention 2 x 32 x S^2 x 128.
  const int64_t macs = 4 * S * 4096 * 4096 + 3 * S * 4096 * 11008 + 2 * 32 * S * S * 128;
  int64_t last_wall = INT64_MAX;
  for (int t : {2, 4, 8}) {
    const std::string out = "run" + std::to_string(t);
    const json s = run(src("configs/arch/npu-128-hbm3.yaml"),
                       fs::path(src("configs/workloads/models/llama2-7b-prefill-s512.yaml")), out,
                       "--set precision.operand=bf16 --set chips=" + std::to_string(t) +
                           " --set interconnect.topology=switch --set interconnect.link=" +
                           src("configs/interconnect/nvlink4-h100.yaml"));
    const json& c = s["chips"];
    ASSERT_EQ(c["collectives"].size(), 2u);
    EXPECT_EQ(c["macs"].get<int64_t>(), macs) << t;
    int64_t payload = 0;
    for (const json& l : c["links"]) payload += l["payload_bytes"].get<int64_t>();
    // Two ring all-reduces over the switch: every chip sends 2 (t-1)/t of the tensor, each message
    // crossing two links.
    EXPECT_EQ(payload, 2 * 2 * t * (2 * (t - 1) * bytes / t)) << t;
    const std::string resources = slurp(dir_ / out / "trace" / "resources.csv");
    const std::string actions = slurp(dir_ / out / "trace" / "actions.csv");
    for (int k = 0; k < t; ++k) {
      const std::string chip = "chip" + std::to_string(k);
      EXPECT_NE(resources.find("interconnect." + chip + ">switch"), std::string::npos) << chip;
      EXPECT_NE(resources.find(chip + ".hbm.ch00.busy"), std::string::npos) << chip;
      EXPECT_NE(actions.find("link.interconnect." + chip + "-switch.wire"), std::string::npos) << chip;
    }
    EXPECT_LT(c["wall_cycles"].get<int64_t>(), last_wall) << t;
    last_wall = c["wall_cycles"].get<int64_t>();
  }
}

}  // namespace
