// controller: rocc end to end on the gemmini preset: the run's counters against the layer's
// shapes, the DMA named as the bottleneck and moving with the memory's latency as it must.
#include <nlohmann/json.hpp>

#include "tests/sim/cli_fixture.h"

namespace {

using json = nlohmann::json;

class RoccRun : public Cli {
 protected:
  // A traced run of a 3 x 3 convolution (2 images of 30 x 30 x 64, 64 filters) on the gemmini preset.
  json run(const std::string& sets, const std::string& name) {
    const fs::path w = file("c.csv", "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, "
                                     "Num Filter, Strides,\nconv,30,30,3,3,64,64,1,\n");
    const Result r = cstsim("run -q --arch " + src("configs/arch/gemmini.yaml") + " --workload " + w.string() + " " +
                            sets + " --out " + (dir_ / name).string());
    EXPECT_EQ(r.status, 0) << r.err;
    return json::parse(slurp(dir_ / name / "summary.json"));
  }
};

TEST_F(RoccRun, CountersHoldTheLayersShapesAndTheStallsAddUp) {
  const json s = run("", "base");
  const json& l = s["layers"][0];
  ASSERT_TRUE(l.contains("rocc"));
  EXPECT_EQ(l["macs"].get<int64_t>(), 28 * 28 * 64 * 3 * 3 * 64);  // SCALE-Sim's rows: one image
  int64_t stalls = 0;
  for (const auto& [cause, cycles] : l["stalls"].items()) stalls += cycles.get<int64_t>();
  EXPECT_EQ(l["ideal_cycles"].get<int64_t>() + stalls, l["cycles"].get<int64_t>());
  // The useful share of the mapped PE-cycles is what the padding rows leave (checked below).
  EXPECT_LT(l["compute_utilization"].get<double>(), 1.0);
  // Every output byte written once; every weight and input byte read at least once.
  EXPECT_EQ(l["rocc"]["dma_bytes_written"].get<int64_t>(), 28 * 28 * 64);
  EXPECT_GE(l["rocc"]["dma_bytes_read"].get<int64_t>(), 3 * 3 * 64 * 64 + 30 * 30 * 64);
  // The trace books what the controller counted.
  const auto n = action_totals(dir_ / "base");
  EXPECT_EQ(n.at("mac.int8.nominal"), l["macs"].get<int64_t>());
  EXPECT_EQ(n.at("mac.int8.executed"), n.at("mac.int8.nominal") + n.at("mac.int8.padding"));
  EXPECT_EQ(n.at("hbm.read.ifmap") + n.at("hbm.read.filter") + n.at("hbm.read.bias"),
            l["rocc"]["dma_bytes_read"].get<int64_t>());
  EXPECT_EQ(n.at("hbm.write.ofmap"), l["rocc"]["dma_bytes_written"].get<int64_t>());
  // A compute feeds one output row's columns of its tile, 16 at most, and holds the mesh 16
  // cycles: 28 columns in tiles of `ocols`, each in blocks of 16.
  const int64_t tile = l["rocc"]["tile"]["ocols"].get<int64_t>();
  int64_t padding_rows = 0;
  for (int64_t c = 0; c < 28; c += tile)
    for (int64_t b = 0; b < std::min<int64_t>(tile, 28 - c); b += 16) padding_rows += 16 - std::min<int64_t>(16, std::min<int64_t>(tile, 28 - c) - b);
  EXPECT_GT(padding_rows, 0);
  EXPECT_EQ(n.at("mac.int8.padding") * 28, n.at("mac.int8.nominal") * padding_rows);
  EXPECT_NEAR(l["compute_utilization"].get<double>(),
              double(n.at("mac.int8.nominal")) / double(n.at("mac.int8.executed")), 1e-12);
}

TEST_F(RoccRun, TheMemorysLatencyIsWhatTheDmaStallsOn) {
  const json fast = run("--set channel.latency_ns=0", "fast");
  const json slow = run("--set channel.latency_ns=300", "slow");
  const json& f = fast["layers"][0];
  const json& sl = slow["layers"][0];
  EXPECT_GT(sl["cycles"].get<int64_t>(), f["cycles"].get<int64_t>());
  // The mesh's own work does not change; the added cycles are all waits for loads or the drain.
  EXPECT_EQ(sl["ideal_cycles"], f["ideal_cycles"]);
  const int64_t added = sl["cycles"].get<int64_t>() - f["cycles"].get<int64_t>();
  const int64_t dma = sl["stalls"]["rocc_dma"].get<int64_t>() - f["stalls"]["rocc_dma"].get<int64_t>();
  const int64_t drain = sl["stalls"]["rocc_drain"].get<int64_t>() - f["stalls"]["rocc_drain"].get<int64_t>();
  EXPECT_EQ(dma + drain, added);
  EXPECT_GT(dma, drain);
  // A quarter of the bus at the same latency: the mesh's own work is the same, every added cycle
  // a wait for loads or the drain.
  const json narrow = run("--set channel.latency_ns=0 --set channel.bandwidth_gbps=4", "narrow");
  const json& n = narrow["layers"][0];
  EXPECT_EQ(n["ideal_cycles"], f["ideal_cycles"]);
  const int64_t slower = n["cycles"].get<int64_t>() - f["cycles"].get<int64_t>();
  EXPECT_GT(slower, 0);
  EXPECT_EQ(n["stalls"]["rocc_dma"].get<int64_t>() + n["stalls"].value("rocc_drain", int64_t(0)) -
                f["stalls"]["rocc_dma"].get<int64_t>() - f["stalls"].value("rocc_drain", int64_t(0)),
            slower);
  // More requests in flight hide the latency.
  const json deep = run("--set channel.latency_ns=300 --set rocc.max_in_flight=64", "deep");
  EXPECT_LT(deep["layers"][0]["cycles"].get<int64_t>(), sl["cycles"].get<int64_t>());
}

}  // namespace
