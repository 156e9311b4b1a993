// The end-of-run laws (sim/run/invariants.h): quiet on a consistent layer, and each
// broken one named with its layer. The golden set runs them on every preset x workload.
#include <gtest/gtest.h>

#include "sim/run/invariants.h"
#include "tests/hierarchy_spec.h"

namespace cstsim {
namespace {

ArrayLayerResult consistent() {
  ArrayLayerResult L;
  L.shape.name = "fc";
  L.start_cycle = 100;
  L.end_cycle = 199;  // 100 cycles
  L.stats.macs = 100 * 16;
  L.cycles = 100;
  L.ideal_cycles = 70;
  L.stall_cycles = 30;
  L.stalls = {{"noc_bandwidth", 20}, {"dma_issue", 10}};
  L.has_hierarchy = true;
  L.hierarchy.shared.hbm_bytes_read = L.hierarchy.dma_bytes_delivered = L.hierarchy.spad_bytes_written = 640;
  L.hierarchy.shared.hbm_bytes_written = L.hierarchy.dma_bytes_sent = L.hierarchy.spad_bytes_read = 64;
  return L;
}

std::string error(const ArchSpec& a, const ArrayLayerResult& L) {
  try {
    check_invariants(a, {consistent(), L});
  } catch (const InvariantError& e) {
    return e.what();
  }
  return "";
}

TEST(Invariants, EachBrokenLawIsNamedWithItsLayer) {
  // HBM2 at 256 GB/s: 256 B per 1 GHz cycle
  ArchSpec a = testing_util::on_hierarchy(testing_util::code_arch(4, 4), "memory/hbm2-2000.yaml",
                                          testing_util::config_path("noc/npu-mesh-4x4.yaml"));
  EXPECT_EQ(error(a, consistent()), "");
  ArrayLayerResult L = consistent();
  L.stalls["noc_bandwidth"] = 21;
  EXPECT_EQ(error(a, L), "invariant 'stalls' violated in layer 1 (fc): causes add up to 31, stall cycles are 30");
  L = consistent();
  L.stalls = {{"noc_bandwidth", 40}, {"dma_issue", -10}};
  EXPECT_EQ(error(a, L), "invariant 'stalls' violated in layer 1 (fc): cause dma_issue is -10 cycles");
  L = consistent();
  L.ideal_cycles = 71;
  EXPECT_EQ(error(a, L),
            "invariant 'stalls' violated in layer 1 (fc): stall cycles are 30, cycles - ideal-memory cycles are 100 - 71");
  L = consistent();
  L.hierarchy.dma_bytes_delivered = 600;
  EXPECT_NE(error(a, L).find("invariant 'bytes' violated in layer 1 (fc): read: HBM 640, DMA 600"), std::string::npos);
  L = consistent();
  L.hierarchy.spad_bytes_read = 32;
  EXPECT_NE(error(a, L).find("written: HBM 64, DMA 64, scratchpad 32, on chip 0"), std::string::npos);
  // Outputs kept on chip (overlap: pipeline) leave one partition and enter another: both counts.
  L = consistent();
  L.hierarchy.dma_bytes_on_chip = 32;  // two clusters took 16 B read once
  L.hierarchy.dma_bytes_on_chip_read = 16;
  EXPECT_NE(error(a, L).find("read: HBM 640, DMA 640, scratchpad 640, on chip 32"), std::string::npos);
  L.hierarchy.spad_bytes_written += 32;
  EXPECT_NE(error(a, L).find("written: HBM 64, DMA 64, scratchpad 64, on chip 16"), std::string::npos);
  L.hierarchy.spad_bytes_read += 16;
  EXPECT_EQ(error(a, L), "");
  L = consistent();
  L.stats.macs = 100 * 16 + 1;  // one MAC more than 16 PEs do in 100 cycles
  EXPECT_NE(error(a, L).find("invariant 'compute'"), std::string::npos);
  a.clusters = 2;  // twice the PEs: fine
  EXPECT_EQ(error(a, L), "");
  L = consistent();
  auto& h = L.hierarchy;
  h.shared.hbm_bytes_read = h.dma_bytes_delivered = h.spad_bytes_written = 100 * 256;  // with the 64 written: too many
  EXPECT_NE(error(a, L).find("invariant 'bandwidth' violated in layer 1 (fc): 25664 HBM bytes in 100 cycles"),
            std::string::npos) << error(a, L);
}

// The laws on report.json: executed MACs = nominal MACs, E_gross >= the Landauer bound.
TEST(Invariants, ReportLawsAreNamedWithTheirScope) {
  auto scope = [](double executed, double nominal, double gross, double landauer) {
    nlohmann::ordered_json s;
    s["name"] = "fc";
    s["C_P"]["O"]["by_precision"]["int8"] = {{"executed", {{"value", executed}}}, {"nominal", {{"value", nominal}}}};
    s["energy"]["E_gross"]["value"] = gross;
    s["energy"]["E_thermo_min"]["value"] = landauer;
    return s;
  };
  auto error = [&](const nlohmann::ordered_json& layer) -> std::string {
    try {
      check_report_scope(scope(10, 10, 1, 0), "the run's total");
      check_report_scope(layer, "layer 0 (fc)");
    } catch (const InvariantError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error(scope(10, 10, 1e-9, 1e-12)), "");
  EXPECT_EQ(error(scope(9, 10, 1e-9, 1e-12)),
            "invariant 'work' violated in layer 0 (fc): 9 MACs executed, 10 asked for (int8)");
  EXPECT_NE(error(scope(10, 10, 1e-13, 1e-12)).find("invariant 'landauer' violated in layer 0 (fc)"), std::string::npos);
}

}  // namespace
}  // namespace cstsim
