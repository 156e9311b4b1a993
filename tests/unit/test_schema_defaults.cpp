// One default per parameter: the schema row's default is the value the code uses. The front's
// structs (ArchSpec, NocConfig, HbmSpec's controller) initialise from their rows; the models'
// params structs keep initialisers of their own (they may not include the front), so these tests
// hold each of them to the row it restates.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "models/accelerator/accelerator_spec.h"
#include "models/hbm/hbm_spec.h"
#include "models/noc/noc_config.h"
#include "plan/rs_plan.h"
#include "sim/config/accelerator_spec.h"
#include "sim/config/arch_schema.h"
#include "sim/config/arch_spec.h"
#include "tests/test_util.h"

namespace cstsim {
namespace {

const std::string kDefaultsSource = CSTSIM_SOURCE_DIR;

// Arch files under which each group of keys applies: a key is tried in each until one takes it.
std::vector<std::string> default_homes(testing_util::TempDir& dir) {
  const std::string mem = kDefaultsSource + "/configs/memory/hbm2-2000.yaml";
  const std::string noc = kDefaultsSource + "/configs/noc/npu-mesh-4x4.yaml";
  const std::string link = kDefaultsSource + "/configs/interconnect/nvlink4-h100.yaml";
  const std::string array = "array: {rows: 4, cols: 4}\n";
  return {
      dir.write("plain.yaml", array + "dataflow: ws\n"),
      dir.write("hierarchy.yaml", array + "dataflow: ws\nmemory: hierarchy\nhbm: {spec: " + mem + "}\nnoc: {spec: " + noc +
                                      "}\nsram: {ifmap_kib: 64, filter_kib: 64, ofmap_kib: 64}\nvector: {lanes: 8}\n"
                                      "chips: 2\ninterconnect: {link: " + link + "}\n"),
      dir.write("rs-channel.yaml", "array: {rows: 12, cols: 14}\ndataflow: rs\nmemory: channel\n"
                                   "channel: {bandwidth_gbps: 10}\n"),
      dir.write("scalesim.yaml", array + "dataflow: os\nfold_pipeline: scalesim\n"),
      dir.write("rocc.yaml", array + "dataflow: ws\nmemory: channel\nchannel: {bandwidth_gbps: 16}\ncontroller: rocc\n"
                                 "sram: {ifmap_kib: 64, filter_kib: 64, ofmap_kib: 64}\n"),
      dir.write("stages.yaml", array + "dataflow: ws\nchips: 2\ninterconnect: {link: " + link +
                                   "}\nparallel: {pipeline: 2}\n"),
  };
}

// Writing a key's documented default changes nothing: the spec loads as if it were left out.
TEST(SchemaDefaults, EveryArchDefaultIsTheValueLoaded) {
  testing_util::TempDir dir;
  const std::vector<std::string> homes = default_homes(dir);
  int checked = 0;
  for (const schema::Key& k : arch_schema().keys()) {
    const std::optional<std::string> value = schema::default_text(k);
    if (!value) continue;
    SCOPED_TRACE(k.name + " = " + *value);
    bool taken = false;
    for (const std::string& home : homes) {
      std::optional<ArchSpec> with;
      try {
        with = load_arch(home, {{k.name, *value}});
      } catch (const InputError&) {
        continue;  // the key does not apply there
      }
      EXPECT_EQ(canonical_text(*with), canonical_text(load_arch(home))) << home;
      taken = true;
      break;
    }
    EXPECT_TRUE(taken) << "no arch file takes the key";
    ++checked;
  }
  EXPECT_GE(checked, 40);  // every key with a value as its default, not a few
}

// The models' params start where the arch's defaults put them (AcceleratorSpec, RsLimits,
// ScratchpadParams: built by the front from ArchSpec in a run, by hand in tests and benches).
TEST(SchemaDefaults, ModelParamsRestateTheArchRows) {
  ArchSpec a;
  a.memory = MemoryMode::Hierarchy;
  const AcceleratorSpec from_arch = accelerator_spec(a);
  const AcceleratorSpec plain;
  EXPECT_EQ(plain.clusters, from_arch.clusters);
  EXPECT_EQ(plain.clock_hz, from_arch.clock_hz);
  EXPECT_EQ(plain.fold_pipeline, from_arch.fold_pipeline);
  EXPECT_EQ(plain.memory, ArchSpec().memory);
  EXPECT_EQ(plain.channel.latency_s, from_arch.channel.latency_s);
  EXPECT_EQ(plain.channel.fifo_tiles, from_arch.channel.fifo_tiles);
  EXPECT_EQ(plain.hbm_dma.fifo_tiles, from_arch.hbm_dma.fifo_tiles);
  EXPECT_EQ(plain.hbm_dma.max_outstanding, from_arch.hbm_dma.max_outstanding);
  EXPECT_EQ(plain.hbm_dma.request_bytes, from_arch.hbm_dma.request_bytes);
  EXPECT_EQ(plain.hbm_dma.requests_per_cycle, from_arch.hbm_dma.requests_per_cycle);
  EXPECT_EQ(plain.hbm_dma.controller_queue_flits, from_arch.hbm_dma.controller_queue_flits);
  EXPECT_EQ(plain.rs.filter_spad, from_arch.rs.filter_spad);
  EXPECT_EQ(plain.rs.ifmap_spad, from_arch.rs.ifmap_spad);
  EXPECT_EQ(plain.rs.psum_spad, from_arch.rs.psum_spad);
  EXPECT_EQ(plain.vector.lanes, from_arch.vector.lanes);
  EXPECT_EQ(plain.vector.per_lane, from_arch.vector.per_lane);
  EXPECT_EQ(plain.vector.port_bytes, from_arch.vector.port_bytes);
  EXPECT_EQ(plain.vector.latency, from_arch.vector.latency);
  EXPECT_EQ(plain.scratchpad.banks, from_arch.scratchpad.banks);
  EXPECT_EQ(plain.scratchpad.word_bytes, from_arch.scratchpad.word_bytes);
  EXPECT_EQ(plain.scratchpad.ports_per_bank, from_arch.scratchpad.ports_per_bank);
  EXPECT_EQ(plain.scratchpad.read_latency, from_arch.scratchpad.read_latency);
  EXPECT_EQ(plain.scratchpad.write_latency, from_arch.scratchpad.write_latency);

  const RsLimits limits;
  EXPECT_EQ(limits.filter_spad, a.rs.filter_spad);
  EXPECT_EQ(limits.ifmap_spad, a.rs.ifmap_spad);
  EXPECT_EQ(limits.psum_spad, a.rs.psum_spad);
  EXPECT_EQ(limits.glb_bits, a.rs.glb_kib * 1024 * 8);
  // And the numbers themselves, so a row and a struct cannot drift together unnoticed.
  EXPECT_EQ(a.hbm.max_outstanding, 64);
  EXPECT_EQ(a.rs.filter_spad, 224);
}

// The sub-files' structs take their rows' defaults too.
TEST(SchemaDefaults, NocAndHbmDefaultsAreTheirRows) {
  const noc::NocConfig c;
  EXPECT_EQ(c.flit_bytes, noc::noc_schema().default_integer("flit_bytes"));
  EXPECT_EQ(c.vcs_per_vnet, noc::noc_schema().default_integer("vcs_per_vnet"));
  EXPECT_EQ(c.clock_hz, noc::noc_schema().default_number("clock_hz"));
  EXPECT_EQ(noc::vc_reuse_name(c.vc_reuse), noc::noc_schema().default_choice("vc_reuse"));
  EXPECT_EQ(noc::arbitration_name(c.arbitration), noc::noc_schema().default_choice("arbitration"));
  const hbm::HbmSpec h;
  EXPECT_EQ(h.scheduler, "frfcfs");
  EXPECT_EQ(h.queue_depth, 32);
  EXPECT_EQ(h.refresh, "all_bank");
  EXPECT_FALSE(h.close_exhausted);
  // A default that is a phrase, not a value, is no default the code can take.
  EXPECT_FALSE(schema::default_text(*arch_schema().find("noc.cluster_x")));
  EXPECT_FALSE(schema::default_text(*arch_schema().find("sram.ifmap_kib")));  // "0" is below its range
  EXPECT_EQ(schema::default_text(*arch_schema().find("vector.lanes")), "0");  // "0 (none)"
  EXPECT_THROW(arch_schema().default_integer("array.rows"), std::logic_error);
}

}  // namespace
}  // namespace cstsim
