// Arch loading: cstsim YAML, SCALE-Sim .cfg and --set overrides. Every error
// case checks the file, the 1-based line and the key, and that what() is one line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "models/hbm/hbm_spec.h"
#include "models/noc/noc_config.h"
#include "sim/config/arch_schema.h"
#include "sim/config/arch_spec.h"
#include "core/input_error.h"
#include "core/schema.h"
#include "tests/test_util.h"

namespace fs = std::filesystem;
using namespace cstsim;
using namespace cstsim::testing_util;

namespace {

const std::string kSource = CSTSIM_SOURCE_DIR;
// SCALE-Sim v2's own files live in tests/golden so the suite runs from a bare clone.
const std::string kShared = std::string(CSTSIM_SOURCE_DIR) + "/tests/golden";
const std::string kScaleSimInputs = kShared + "/scalesim-v2/inputs/";


const char* kMinimal = "array: {rows: 4, cols: 8}\ndataflow: ws\n";

}  // namespace

// ---- YAML: positive ----

TEST(ArchYaml, MinimalGetsDefaults) {
  TempDir dir;
  std::string file = dir.write("tiny-array.yaml", kMinimal);
  ArchSpec s = load_arch(file);
  EXPECT_EQ(s.name, "tiny-array");
  EXPECT_EQ(s.source, file);
  EXPECT_EQ(s.rows, 4);
  EXPECT_EQ(s.cols, 8);
  EXPECT_EQ(s.dataflow, Dataflow::WS);
  EXPECT_DOUBLE_EQ(s.clock_hz, 1e9);
  EXPECT_EQ(s.precision.operand_bits(), 8);
  EXPECT_EQ(s.precision.accumulator_bits(), 32);
  EXPECT_EQ(s.fold_pipeline, FoldPipeline::Overlapped);
  EXPECT_EQ(s.ifmap_sram_kib, 0);
  EXPECT_EQ(s.memory, MemoryMode::Ideal);
}

TEST(ArchYaml, FullSchema) {
  TempDir dir;
  std::string file = dir.write("full.yaml",
                               "name: npu-x\n"
                               "array:\n  rows: 16\n  cols: 32\n"
                               "dataflow: is\n"
                               "clock_hz: 7e8\n"
                               "precision: {operand_bits: 16, accumulator_bits: 16}\n"
                               "fold_pipeline: scalesim\n"
                               "sram: {ifmap_kib: 128, filter_kib: 32, ofmap_kib: 16}\n"
                               "memory: ideal\n"
                               "source: \"some paper, table 2\"\n");
  ArchSpec s = load_arch(file);
  EXPECT_EQ(s.name, "npu-x");
  EXPECT_EQ(s.rows, 16);
  EXPECT_EQ(s.cols, 32);
  EXPECT_EQ(s.dataflow, Dataflow::IS);
  EXPECT_DOUBLE_EQ(s.clock_hz, 7e8);
  EXPECT_EQ(s.precision.operand_bits(), 16);
  EXPECT_EQ(s.precision.accumulator_bits(), 16);
  EXPECT_EQ(s.fold_pipeline, FoldPipeline::ScaleSim);
  EXPECT_EQ(s.ifmap_sram_kib, 128);
  EXPECT_EQ(s.filter_sram_kib, 32);
  EXPECT_EQ(s.ofmap_sram_kib, 16);
  EXPECT_EQ(s.source, file);  // the path, not the citation
}

TEST(ArchYaml, ShippedPresets) {
  struct Expect {
    const char* file;
    int rows, cols;
    Dataflow df;
    double clock_hz;
    int operand_bits, accumulator_bits;
    FoldPipeline pipeline;
    const char* memory;
  };
  const Expect presets[] = {
      {"scalesim-32", 32, 32, Dataflow::OS, 1e9, 8, 32, FoldPipeline::ScaleSim, "ideal"},
      {"tpu-v1", 256, 256, Dataflow::WS, 7e8, 8, 32, FoldPipeline::Overlapped, "ideal"},
      {"eyeriss", 12, 14, Dataflow::RS, 2e8, 16, 16, FoldPipeline::Overlapped, "channel"},
      {"npu-128", 128, 128, Dataflow::WS, 1e9, 8, 32, FoldPipeline::Overlapped, "ideal"},
  };
  for (const Expect& e : presets) {
    SCOPED_TRACE(e.file);
    ArchSpec s = load_arch(kSource + "/configs/arch/" + e.file + ".yaml");
    EXPECT_EQ(s.name, e.file);
    EXPECT_EQ(s.rows, e.rows);
    EXPECT_EQ(s.cols, e.cols);
    EXPECT_EQ(s.dataflow, e.df);
    EXPECT_DOUBLE_EQ(s.clock_hz, e.clock_hz);
    EXPECT_EQ(s.precision.operand_bits(), e.operand_bits);
    EXPECT_EQ(s.precision.accumulator_bits(), e.accumulator_bits);
    EXPECT_EQ(s.fold_pipeline, e.pipeline);
    EXPECT_STREQ(to_string(s.memory), e.memory);
  }
  // Eyeriss's scratchpads and global buffer (JSSC 2017 §V).
  const ArchSpec eyeriss = load_arch(kSource + "/configs/arch/eyeriss.yaml");
  EXPECT_EQ(eyeriss.rs.filter_spad, 224);
  EXPECT_EQ(eyeriss.rs.ifmap_spad, 12);
  EXPECT_EQ(eyeriss.rs.psum_spad, 24);
  EXPECT_EQ(eyeriss.rs.glb_kib, 100);
  EXPECT_TRUE(eyeriss.rs.rlc);
  EXPECT_EQ(load_arch(kSource + "/configs/arch/scalesim-32.yaml").ifmap_sram_kib, 64);
}

TEST(ArchYaml, EveryPresetInConfigsLoads) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(kSource + "/configs/arch")) {
    if (entry.path().extension() != ".yaml") continue;
    SCOPED_TRACE(entry.path().string());
    EXPECT_NO_THROW(load_arch(entry.path().string()));
    ++count;
  }
  EXPECT_GE(count, 4);
}

// ---- YAML: errors ----

TEST(ArchYaml, MissingFile) {
  TempDir dir;
  std::string file = (dir.path / "absent.yaml").string();
  InputError e = error_of([&] { load_arch(file); });
  EXPECT_TRUE(is_error(e, file, 0, ""));
  EXPECT_TRUE(contains(e.what(), "cannot open file"));
}

TEST(ArchYaml, MalformedYaml) {
  TempDir dir;
  std::string file = dir.write("bad.yaml", "array:\n  rows: 4\n  cols: 4\ndataflow: ws: os\n");
  InputError e = error_of([&] { load_arch(file); });
  EXPECT_TRUE(is_error(e, file, 4, ""));
  EXPECT_TRUE(contains(e.what(), "malformed YAML"));
}

TEST(ArchYaml, UnknownTopLevelKey) {
  TempDir dir;
  std::string file = dir.write("a.yaml", std::string(kMinimal) + "colour: red\n");
  EXPECT_TRUE(is_error(error_of([&] { load_arch(file); }), file, 3, "colour"));
}

TEST(ArchYaml, UnknownNestedKey) {
  TempDir dir;
  std::string file = dir.write("a.yaml", "dataflow: ws\narray:\n  rows: 4\n  cols: 4\n  depth: 2\n");
  InputError e = error_of([&] { load_arch(file); });
  EXPECT_TRUE(is_error(e, file, 5, "array.depth"));
  EXPECT_TRUE(contains(e.what(), "rows, cols"));
}

TEST(ArchYaml, DottedKeyIsNotASecondSpelling) {
  TempDir dir;
  std::string file = dir.write("a.yaml", "array.rows: 4\narray: {rows: 4, cols: 4}\ndataflow: ws\n");
  EXPECT_TRUE(is_error(error_of([&] { load_arch(file); }), file, 1, "array.rows"));
}

TEST(ArchYaml, DuplicateKey) {
  TempDir dir;
  std::string file = dir.write("a.yaml", std::string(kMinimal) + "dataflow: os\n");
  EXPECT_TRUE(is_error(error_of([&] { load_arch(file); }), file, 3, "dataflow"));
}

TEST(ArchYaml, RowsZero) {
  TempDir dir;
  std::string file = dir.write("a.yaml", "dataflow: ws\narray:\n  rows: 0\n  cols: 4\n");
  InputError e = error_of([&] { load_arch(file); });
  EXPECT_TRUE(is_error(e, file, 3, "array.rows"));
  EXPECT_TRUE(contains(e.what(), "positive integer"));
}

TEST(ArchYaml, RowsNegative) {
  TempDir dir;
  std::string file = dir.write("a.yaml", "dataflow: ws\narray:\n  rows: -3\n  cols: 4\n");
  EXPECT_TRUE(is_error(error_of([&] { load_arch(file); }), file, 3, "array.rows"));
}

TEST(ArchYaml, RowsNotInteger) {
  TempDir dir;
  for (const char* bad : {"2.5", "abc", "1e2", "\"\""}) {
    SCOPED_TRACE(bad);
    std::string file = dir.write("a.yaml", std::string("dataflow: ws\narray:\n  cols: 4\n  rows: ") + bad + "\n");
    EXPECT_TRUE(is_error(error_of([&] { load_arch(file); }), file, 4, "array.rows"));
  }
}

TEST(ArchYaml, ColsInFlowMapReportsItsLine) {
  TempDir dir;
  std::string file = dir.write("a.yaml", "dataflow: ws\n\narray: {rows: 4, cols: 3.5}\n");
  EXPECT_TRUE(is_error(error_of([&] { load_arch(file); }), file, 3, "array.cols"));
}

TEST(ArchYaml, UnknownDataflow) {
  TempDir dir;
  std::string file = dir.write("a.yaml", "array: {rows: 4, cols: 4}\ndataflow: xy\n");
  InputError e = error_of([&] { load_arch(file); });
  EXPECT_TRUE(is_error(e, file, 2, "dataflow"));
  EXPECT_TRUE(contains(e.what(), "ws, os, is"));
  EXPECT_TRUE(contains(e.what(), "'xy'"));
}

TEST(ArchYaml, MissingRequiredKey) {
  TempDir dir;
  std::string file = dir.write("a.yaml", "array: {cols: 4}\ndataflow: ws\n");
  EXPECT_TRUE(is_error(error_of([&] { load_arch(file); }), file, 0, "array.rows"));
  file = dir.write("b.yaml", "array: {rows: 4, cols: 4}\n");
  EXPECT_TRUE(is_error(error_of([&] { load_arch(file); }), file, 0, "dataflow"));
}

TEST(ArchYaml, ArrayMustBeAMap) {
  TempDir dir;
  std::string file = dir.write("a.yaml", "dataflow: ws\narray: 128\n");
  EXPECT_TRUE(is_error(error_of([&] { load_arch(file); }), file, 2, "array"));
}

TEST(ArchYaml, OtherBadValues) {
  TempDir dir;
  struct Case {
    const char* line;
    const char* key;
    const char* says;
  };
  const Case cases[] = {
      {"clock_hz: 0", "clock_hz", "below 1 MHz"},
      {"clock_hz: -7e8", "clock_hz", "below 1 MHz"},
      {"clock_hz: 1e3", "clock_hz", "did you mean 1e9?"},
      {"clock_hz: 1e-30", "clock_hz", "below 1 MHz"},
      {"clock_hz: 3e12", "clock_hz", "above 100 GHz"},
      {"clock_hz: 1.9e12", "clock_hz", "above 100 GHz"},
      {"clock_hz: 1000000000.5", "clock_hz", "whole number of Hz"},
      {"clock_hz: fast", "clock_hz", "number of Hz"},
      {"precision: {operand_bits: 12}", "precision.operand_bits", "4, 8, 16"},
      {"precision: {accumulator_bits: 8}", "precision.accumulator_bits", "16, 32"},
      {"fold_pipeline: eager", "fold_pipeline", "scalesim, overlapped"},
      {"sram: {ifmap_kib: -1}", "sram.ifmap_kib", "positive integer"},
      {"memory: hbm3", "memory", "must be one of ideal, channel, hbm, hierarchy"},
      {"name: \"\"", "name", "empty"},
      {"dataflow2: ws", "dataflow2", "unknown key"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.line);
    std::string file = dir.write("a.yaml", std::string(kMinimal) + c.line + "\n");
    InputError e = error_of([&] { load_arch(file); });
    EXPECT_TRUE(is_error(e, file, 3, c.key));
    EXPECT_TRUE(contains(e.what(), c.says)) << e.what();
  }
}

TEST(ArchYaml, ValueWithNewlineStaysOneLine) {
  TempDir dir;
  std::string file = dir.write("a.yaml", "array: {rows: 4, cols: 4}\ndataflow: \"w\\ns\"\n");
  EXPECT_TRUE(is_error(error_of([&] { load_arch(file); }), file, 2, "dataflow"));
}

TEST(ArchYaml, EmptyFile) {
  TempDir dir;
  std::string file = dir.write("a.yaml", "");
  InputError e = error_of([&] { load_arch(file); });
  EXPECT_EQ(e.file(), file);
  EXPECT_TRUE(contains(e.what(), "expected a map"));
}

// ---- --set overrides ----

TEST(ArchOverrides, EveryKeyApplies) {
  TempDir dir;
  std::string file = dir.write("a.yaml", kMinimal);
  ArchSpec s = load_arch(file, {{"array.rows", "64"},
                                {"array.cols", "32"},
                                {"dataflow", "os"},
                                {"fold_pipeline", "scalesim"},
                                {"clock_hz", "7e8"},
                                {"precision.operand_bits", "16"},
                                {"precision.accumulator_bits", "16"},
                                {"sram.ifmap_kib", "128"},
                                {"sram.filter_kib", "256"},
                                {"sram.ofmap_kib", "512"},
                                {"memory", "ideal"},
                                {"name", "x"}});
  EXPECT_EQ(s.rows, 64);
  EXPECT_EQ(s.cols, 32);
  EXPECT_EQ(s.dataflow, Dataflow::OS);
  EXPECT_EQ(s.fold_pipeline, FoldPipeline::ScaleSim);
  EXPECT_DOUBLE_EQ(s.clock_hz, 7e8);
  EXPECT_EQ(s.precision.operand_bits(), 16);
  EXPECT_EQ(s.precision.accumulator_bits(), 16);
  EXPECT_EQ(s.ifmap_sram_kib, 128);
  EXPECT_EQ(s.filter_sram_kib, 256);
  EXPECT_EQ(s.ofmap_sram_kib, 512);
  EXPECT_EQ(s.name, "x");
}

TEST(ArchOverrides, LaterOverrideWinsAndFixesABadFileValue) {
  TempDir dir;
  // The file's bad rows never reaches validation: overrides apply first.
  std::string file = dir.write("a.yaml", "array: {rows: 0, cols: 4}\ndataflow: ws\n");
  ArchSpec s = load_arch(file, {{"array.rows", "8"}, {"array.rows", "16"}});
  EXPECT_EQ(s.rows, 16);
}

TEST(ArchOverrides, CanSupplyAMissingRequiredKey) {
  TempDir dir;
  std::string file = dir.write("a.yaml", "array: {rows: 4, cols: 4}\n");
  EXPECT_EQ(load_arch(file, {{"dataflow", "is"}}).dataflow, Dataflow::IS);
}

TEST(ArchOverrides, UnknownKey) {
  TempDir dir;
  std::string file = dir.write("a.yaml", kMinimal);
  InputError e = error_of([&] { load_arch(file, {{"array.depth", "3"}}); });
  EXPECT_TRUE(is_error(e, "--set", 0, "array.depth"));
  EXPECT_TRUE(contains(e.what(), "array.rows"));  // lists the known keys
  // Groups are not keys: only leaves can be set.
  EXPECT_TRUE(is_error(error_of([&] { load_arch(file, {{"array", "4"}}); }), "--set", 0, "array"));
}

TEST(ArchOverrides, BadValue) {
  TempDir dir;
  std::string file = dir.write("a.yaml", kMinimal);
  InputError e = error_of([&] { load_arch(file, {{"array.rows", "abc"}}); });
  EXPECT_TRUE(is_error(e, "--set", 0, "array.rows"));
  EXPECT_TRUE(contains(e.what(), "positive integer"));
  EXPECT_TRUE(is_error(error_of([&] { load_arch(file, {{"dataflow", "xy"}}); }), "--set", 0, "dataflow"));
  EXPECT_TRUE(is_error(error_of([&] { load_arch(file, {{"memory", "hbm3"}}); }), "--set", 0, "memory"));
  EXPECT_TRUE(is_error(error_of([&] { load_arch(file, {{"clock_hz", "-1"}}); }), "--set", 0, "clock_hz"));
}

// ---- SCALE-Sim .cfg ----

TEST(ScaleSimCfg, AllReferenceConfigsLoad) {
  struct Expect {
    const char* file;
    const char* run_name;
    int size;
    Dataflow df;
  };
  const Expect cfgs[] = {
      {"a32_is_calc", "a32_is_calc", 32, Dataflow::IS}, {"a32_os_calc", "a32_os_calc", 32, Dataflow::OS},
      {"a32_ws_calc", "a32_ws_calc", 32, Dataflow::WS}, {"a8_is_calc", "a8_is_calc", 8, Dataflow::IS},
      {"a8_os_calc", "a8_os_calc", 8, Dataflow::OS},    {"a8_ws_calc", "a8_ws_calc", 8, Dataflow::WS},
      {"scale", "scale_example_run_32x32_os", 32, Dataflow::OS},
  };
  for (const Expect& e : cfgs) {
    SCOPED_TRACE(e.file);
    ArchSpec s = load_arch(kScaleSimInputs + e.file + ".cfg");
    EXPECT_EQ(s.name, e.run_name);
    EXPECT_EQ(s.rows, e.size);
    EXPECT_EQ(s.cols, e.size);
    EXPECT_EQ(s.dataflow, e.df);
    EXPECT_EQ(s.fold_pipeline, FoldPipeline::ScaleSim);
    EXPECT_EQ(s.memory, MemoryMode::Ideal);
    EXPECT_EQ(s.ifmap_sram_kib, 64);
    EXPECT_EQ(s.filter_sram_kib, 64);
    EXPECT_EQ(s.ofmap_sram_kib, 64);  // scale.cfg writes "64 " with a trailing space
  }
}

TEST(ScaleSimCfg, MatchesTheScaleSim32Preset) {
  ArchSpec cfg = load_arch(kScaleSimInputs + "scale.cfg", {{"name", "scalesim-32"}});
  ArchSpec yaml = load_arch(kSource + "/configs/arch/scalesim-32.yaml");
  EXPECT_EQ(canonical_text(cfg), canonical_text(yaml));
}

TEST(ScaleSimCfg, OverridesApplyOnTop) {
  ArchSpec s = load_arch(kScaleSimInputs + "a8_ws_calc.cfg",
                         {{"fold_pipeline", "overlapped"}, {"array.cols", "16"}});
  EXPECT_EQ(s.fold_pipeline, FoldPipeline::Overlapped);
  EXPECT_EQ(s.rows, 8);
  EXPECT_EQ(s.cols, 16);
}

TEST(ScaleSimCfg, IniSyntaxVariants) {
  TempDir dir;
  std::string file = dir.write("v.cfg",
                               "# comment\r\n"
                               "[general]\r\n"
                               "run_name=variant\r\n"
                               "\r\n"
                               "[architecture_presets]\r\n"
                               "; another comment\r\n"
                               "arrayheight = 4   \r\n"
                               "ARRAYWIDTH:6\r\n"
                               "Dataflow  :  ws \r\n");
  ArchSpec s = load_arch(file);
  EXPECT_EQ(s.name, "variant");
  EXPECT_EQ(s.rows, 4);
  EXPECT_EQ(s.cols, 6);
  EXPECT_EQ(s.dataflow, Dataflow::WS);
  EXPECT_EQ(s.ifmap_sram_kib, 0);
}

TEST(ScaleSimCfg, NameDefaultsToStem) {
  TempDir dir;
  std::string file = dir.write("my_run.cfg", "[architecture_presets]\nArrayHeight: 4\nArrayWidth: 4\nDataflow: os\n");
  EXPECT_EQ(load_arch(file).name, "my_run");
}

TEST(ScaleSimCfg, MissingFile) {
  TempDir dir;
  std::string file = (dir.path / "absent.cfg").string();
  EXPECT_TRUE(is_error(error_of([&] { load_arch(file); }), file, 0, ""));
}

TEST(ScaleSimCfg, MissingArrayHeight) {
  TempDir dir;
  std::string file = dir.write("a.cfg", "[architecture_presets]\nArrayWidth: 4\nDataflow: os\n");
  InputError e = error_of([&] { load_arch(file); });
  EXPECT_TRUE(is_error(e, file, 0, "ArrayHeight"));
  file = dir.write("b.cfg", "[architecture_presets]\nArrayHeight: 4\nArrayWidth: 4\n");
  EXPECT_TRUE(is_error(error_of([&] { load_arch(file); }), file, 0, "Dataflow"));
}

TEST(ScaleSimCfg, UnknownKey) {
  TempDir dir;
  std::string file = dir.write("a.cfg",
                               "[architecture_presets]\nArrayHeight: 4\nArrayWidth: 4\n"
                               "ArrayDepth: 4\nDataflow: os\n");
  InputError e = error_of([&] { load_arch(file); });
  EXPECT_TRUE(is_error(e, file, 4, "ArrayDepth"));
  EXPECT_TRUE(contains(e.what(), "architecture_presets"));
}

TEST(ScaleSimCfg, UnknownSection) {
  TempDir dir;
  std::string file = dir.write("a.cfg", "[architecture_presets]\nArrayHeight: 4\n[ramulator]\nx: 1\n");
  EXPECT_TRUE(is_error(error_of([&] { load_arch(file); }), file, 3, "[ramulator]"));
}

TEST(ScaleSimCfg, DuplicateKey) {
  TempDir dir;
  std::string file = dir.write("a.cfg", "[architecture_presets]\nArrayHeight: 4\narrayheight: 8\n");
  EXPECT_TRUE(is_error(error_of([&] { load_arch(file); }), file, 3, "arrayheight"));
}

TEST(ScaleSimCfg, BadValueNamesCfgKeyAndLine) {
  TempDir dir;
  std::string file = dir.write("a.cfg",
                               "[general]\nrun_name = r\n[architecture_presets]\n"
                               "ArrayHeight: 32\nArrayWidth: 3.5\nDataflow: os\n");
  EXPECT_TRUE(is_error(error_of([&] { load_arch(file); }), file, 5, "ArrayWidth"));
  file = dir.write("b.cfg", "[architecture_presets]\nArrayHeight: 4\nArrayWidth: 4\nDataflow : xs\n");
  EXPECT_TRUE(is_error(error_of([&] { load_arch(file); }), file, 4, "Dataflow"));
  file = dir.write("c.cfg", "[architecture_presets]\nArrayHeight: 4\nArrayWidth: 4\nDataflow : rs\n");  // not SCALE-Sim's
  EXPECT_TRUE(is_error(error_of([&] { load_arch(file); }), file, 4, "Dataflow"));
}

TEST(ScaleSimCfg, SparsityIsRejected) {
  TempDir dir;
  std::string file = dir.write("a.cfg",
                               "[architecture_presets]\nArrayHeight: 4\nArrayWidth: 4\nDataflow: os\n"
                               "[sparsity]\nSparsitySupport : true\n");
  InputError e = error_of([&] { load_arch(file); });
  EXPECT_TRUE(is_error(e, file, 6, "SparsitySupport"));
  EXPECT_TRUE(contains(e.what(), "not supported"));
}

TEST(ScaleSimCfg, LineWithoutSeparator) {
  TempDir dir;
  std::string file = dir.write("a.cfg", "[architecture_presets]\nArrayHeight 4\n");
  EXPECT_TRUE(is_error(error_of([&] { load_arch(file); }), file, 2, ""));
}

// ---- canonical text and names ----

TEST(ArchCanonical, FixedOrderAndFormat) {
  ArchSpec s = load_arch(kSource + "/configs/arch/npu-128.yaml");
  EXPECT_EQ(canonical_text(s),
            "name=npu-128\n"
            "array.rows=128\n"
            "array.cols=128\n"
            "dataflow=ws\n"
            "clock_hz=1000000000\n"
            "precision.operand_bits=8\n"
            "precision.accumulator_bits=32\n"
            "precision.operand=int8\n"
            "precision.accumulator=int32\n"
            "precision.macs_per_pe.int4=2\n"
            "precision.macs_per_pe.int8=1\n"
            "precision.macs_per_pe.int16=1\n"
            "precision.macs_per_pe.fp8_e4m3=1\n"
            "precision.macs_per_pe.fp8_e5m2=1\n"
            "precision.macs_per_pe.bf16=1\n"
            "precision.macs_per_pe.fp16=1\n"
            "fold_pipeline=overlapped\n"
            "sram.ifmap_kib=64\n"
            "sram.filter_kib=64\n"
            "sram.ofmap_kib=64\n"
            "memory=ideal\n"
            "energy=" + kSource + "/configs/arch/../energy/npu-45nm-hbm3.yaml\n"
            "vector.lanes=512\n"
            "vector.add_per_lane=2\n"
            "vector.mul_per_lane=2\n"
            "vector.special_per_lane=0.25\n"
            "vector.port_bytes=1024\n"
            "vector.latency=16\n"
            "vector.fusion=op\n");
}

TEST(ArchCanonical, SameSpecSameTextAnyChangeDiffers) {
  TempDir dir;
  std::string a = dir.write("a.yaml", "name: n\narray: {rows: 4, cols: 4}\ndataflow: ws\nclock_hz: 1e9\n");
  std::string b = dir.write("b.yaml", "# same spec, other spelling\ndataflow: ws\nname: n\n"
                                      "array:\n  cols: 4\n  rows: 4\nclock_hz: 1000000000\n");
  EXPECT_EQ(canonical_text(load_arch(a)), canonical_text(load_arch(b)));
  EXPECT_NE(canonical_text(load_arch(a)), canonical_text(load_arch(a, {{"clock_hz", "1.000001e9"}})));
  EXPECT_NE(canonical_text(load_arch(a)), canonical_text(load_arch(a, {{"array.cols", "5"}})));
}

TEST(ArchCanonical, EnumNames) {
  EXPECT_STREQ(to_string(Dataflow::WS), "ws");
  EXPECT_STREQ(to_string(Dataflow::OS), "os");
  EXPECT_STREQ(to_string(Dataflow::IS), "is");
  EXPECT_STREQ(to_string(FoldPipeline::ScaleSim), "scalesim");
  EXPECT_STREQ(to_string(FoldPipeline::Overlapped), "overlapped");
}

namespace {

TEST(ArchYaml, ChannelMemory) {
  TempDir dir;
  const std::string ok = dir.write("c.yaml",
                                   "array: {rows: 256, cols: 256}\ndataflow: ws\nmemory: channel\n"
                                   "channel: {bandwidth_gbps: 34, latency_ns: 100, fifo_tiles: 4}\n");
  const ArchSpec a = load_arch(ok);
  EXPECT_EQ(a.memory, MemoryMode::Channel);
  EXPECT_DOUBLE_EQ(a.channel.bandwidth_bytes_per_s, 34e9);
  EXPECT_DOUBLE_EQ(a.channel.latency_s, 100e-9);
  EXPECT_EQ(a.channel.fifo_tiles, 4);
  EXPECT_EQ(load_arch(ok, {{"dataflow", "os"}}).dataflow, Dataflow::OS);  // OS's blocks of B come through the FIFO
  EXPECT_TRUE(is_error(error_of([&] { load_arch(ok, {{"fold_pipeline", "scalesim"}}); }), ok, 3, "memory"));
  EXPECT_TRUE(is_error(error_of([&] { load_arch(ok, {{"channel.bandwidth_gbps", "0"}}); }), "--set", 0,
                       "channel.bandwidth_gbps"));
  const std::string missing = dir.write("m.yaml", "array: {rows: 8, cols: 8}\ndataflow: ws\nmemory: channel\n");
  EXPECT_TRUE(is_error(error_of([&] { load_arch(missing); }), missing, 0, "channel.bandwidth_gbps"));
  const std::string stray = dir.write("s.yaml", "array: {rows: 8, cols: 8}\ndataflow: ws\nchannel: {bandwidth_gbps: 3}\n");
  EXPECT_TRUE(is_error(error_of([&] { load_arch(stray); }), stray, 3, "channel.bandwidth_gbps"));
}

}  // namespace

namespace cstsim {
namespace {

TEST(ArchYaml, HierarchyKeysAreCheckedWhereTheyApply) {
  testing_util::TempDir dir;
  const std::string mem = std::string(CSTSIM_SOURCE_DIR) + "/configs/memory/hbm2-2000.yaml";
  const std::string noc = std::string(CSTSIM_SOURCE_DIR) + "/configs/noc/npu-mesh-4x4.yaml";
  const std::string head = "array: {rows: 4, cols: 4}\ndataflow: ws\n";
  // noc.* and scratchpad.* belong to memory: hierarchy only.
  std::string file = dir.write("a.yaml", head + "scratchpad: {banks: 8}\n");
  InputError e = testing_util::error_of([&] { load_arch(file); });
  EXPECT_TRUE(testing_util::is_error(e, file, 3, "scratchpad.banks")) << e.what();
  EXPECT_TRUE(testing_util::contains(e.what(), "applies only with memory: hierarchy"));
  // hierarchy needs a NoC file and the three partitions.
  file = dir.write("b.yaml", head + "memory: hierarchy\nhbm: {spec: " + mem + "}\nsram: {ifmap_kib: 64, filter_kib: 64, ofmap_kib: 64}\n");
  e = testing_util::error_of([&] { load_arch(file); });
  EXPECT_EQ(e.key(), "noc.spec") << e.what();
  file = dir.write("c.yaml", head + "memory: hierarchy\nhbm: {spec: " + mem + "}\nnoc: {spec: " + noc +
                                 ", cluster_x: 1}\nsram: {ifmap_kib: 64, filter_kib: 64}\n");
  e = testing_util::error_of([&] { load_arch(file); });
  EXPECT_EQ(e.key(), "sram.ofmap_kib") << e.what();
  file = dir.write("d.yaml", head + "memory: hierarchy\nhbm: {spec: " + mem + "}\nnoc: {spec: " + noc +
                                 ", cluster_x: 1}\nsram: {ifmap_kib: 64, filter_kib: 64, ofmap_kib: 64}\n"
                                 "scratchpad: {banks: 12, word_bytes: 32, ports_per_bank: 2, read_latency: 0}\n");
  const ArchSpec a = load_arch(file);
  EXPECT_EQ(a.scratchpad.banks, 12);
  EXPECT_EQ(a.scratchpad.word_bytes, 32);
  EXPECT_EQ(a.scratchpad.ports_per_bank, 2);
  EXPECT_EQ(a.scratchpad.read_latency, 0);
  EXPECT_EQ(a.noc.cluster_x, 1);
  EXPECT_EQ(a.noc.cluster_y, -1);  // the mesh centre
  EXPECT_TRUE(testing_util::contains(canonical_text(a), "scratchpad.banks=12\n"));
  // --set reaches them too, with the same checks.
  e = testing_util::error_of([&] { load_arch(file, {{"scratchpad.word_bytes", "0"}}); });
  EXPECT_TRUE(testing_util::is_error(e, "--set", 0, "scratchpad.word_bytes")) << e.what();
}

}  // namespace
}  // namespace cstsim

namespace cstsim {
namespace {

// The schema is the reader's: every integer key's range in arch_schema() is the one
// load_arch enforces, at both ends, and every key the reader takes is in it.
TEST(ArchSchema, RangesAreTheOnesTheReaderEnforces) {
  testing_util::TempDir dir;
  const std::string mem = std::string(CSTSIM_SOURCE_DIR) + "/configs/memory/hbm2-2000.yaml";
  const std::string noc = std::string(CSTSIM_SOURCE_DIR) + "/configs/noc/npu-mesh-4x4.yaml";
  const std::string file =
      dir.write("h.yaml", "array: {rows: 4, cols: 4}\ndataflow: ws\nmemory: hierarchy\nhbm: {spec: " + mem +
                              "}\nnoc: {spec: " + noc + "}\nsram: {ifmap_kib: 64, filter_kib: 64, ofmap_kib: 64}\n");
  const std::string channel = dir.write("c.yaml", "array: {rows: 4, cols: 4}\ndataflow: ws\nmemory: channel\n"
                                                  "channel: {bandwidth_gbps: 10}\n");
  const std::string rs = dir.write("r.yaml", "array: {rows: 4, cols: 4}\ndataflow: rs\n");
  const std::string rocc = dir.write("g.yaml", "array: {rows: 4, cols: 4}\ndataflow: ws\nmemory: channel\n"
                                               "channel: {bandwidth_gbps: 10}\ncontroller: rocc\n");
  const std::string chips = dir.write("x.yaml", "array: {rows: 4, cols: 4}\ndataflow: ws\nchips: 4\ninterconnect: {link: " +
                                                    std::string(CSTSIM_SOURCE_DIR) + "/configs/interconnect/nvlink4-h100.yaml"
                                                    ", topology: torus2d, torus_x: 2}\n");
  int checked = 0;
  for (const schema::Key& k : arch_schema().keys()) {
    if (k.type != schema::Type::Integer) continue;
    SCOPED_TRACE(k.name);
    const bool multi = k.name == "chips" || k.name.rfind("interconnect.", 0) == 0 || k.name.rfind("parallel.", 0) == 0;
    const std::string& arch = k.name.rfind("channel.", 0) == 0 ? channel
                              : k.name.rfind("rocc.", 0) == 0  ? rocc
                              : k.name.rfind("rs.", 0) == 0    ? rs
                              : multi                          ? chips
                                                               : file;
    const InputError low = error_of([&] { load_arch(arch, {{k.name, std::to_string(k.min - 1)}}); });
    EXPECT_EQ(low.key(), k.name);
    EXPECT_TRUE(contains(low.what(), k.min == 1 ? "must be a positive integer" : "must be a non-negative integer"))
        << low.what();
    if (k.max < INT_MAX) {
      const InputError high = error_of([&] { load_arch(arch, {{k.name, std::to_string(k.max + 1)}}); });
      EXPECT_TRUE(contains(high.what(), "must be at most " + std::to_string(k.max))) << high.what();
    }
    ++checked;
  }
  EXPECT_EQ(checked, 46);
  EXPECT_EQ(arch_keys(), arch_schema().names());
  // Every key is documented in configs/README.md.
  std::ifstream in(std::string(CSTSIM_SOURCE_DIR) + "/configs/README.md");
  const std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const std::string& key : arch_keys()) EXPECT_TRUE(contains(readme, "`" + key + "`")) << key;
}

// The number keys' floors and rules and the memory modes each key applies to are rows of the
// schema too: a value just below a floor, a clock off its rule, and a key set under a memory mode
// its row does not list are each one error naming that key, with the row's message.
TEST(ArchSchema, NumberFloorsAndMemoryModesAreTheReadersRules) {
  testing_util::TempDir dir;
  const std::string mem = std::string(CSTSIM_SOURCE_DIR) + "/configs/memory/hbm2-2000.yaml";
  const std::string noc = std::string(CSTSIM_SOURCE_DIR) + "/configs/noc/npu-mesh-4x4.yaml";
  auto arch_with = [&](const std::string& memory) {
    std::string text = "array: {rows: 4, cols: 4}\ndataflow: ws\nmemory: " + memory + "\n";
    if (memory == "channel") text += "channel: {bandwidth_gbps: 10}\n";
    if (memory == "hbm" || memory == "hierarchy") text += "hbm: {spec: " + mem + "}\n";
    if (memory == "hierarchy") text += "noc: {spec: " + noc + "}\nsram: {ifmap_kib: 64, filter_kib: 64, ofmap_kib: 64}\n";
    return dir.write(memory + ".yaml", text);
  };
  int floors = 0, restricted = 0;
  for (const schema::Key& k : arch_schema().keys()) {
    SCOPED_TRACE(k.name);
    const std::string home = arch_with(k.applies_with.empty() ? "hierarchy" : k.applies_with.front());
    if (k.type == schema::Type::Number && k.has_floor) {
      const double below = k.floor_inclusive ? k.floor - 0.5 : k.floor;
      const InputError e = error_of([&] { load_arch(home, {{k.name, fmt::format("{}", below)}}); });
      EXPECT_EQ(e.key(), k.name);
      EXPECT_TRUE(contains(e.what(), k.floor_inclusive ? "must be a non-negative number" : "must be a positive number"))
          << e.what();
      ++floors;
    }
    if (k.applies_with.empty()) continue;
    const std::string value = k.type == schema::Type::Choice ? k.choices.front()
                              : k.type == schema::Type::Path ? mem
                                                             : std::to_string(std::max<int64_t>(k.min, 1));
    for (const std::string mode : {"ideal", "channel", "hbm", "hierarchy"}) {
      if (std::find(k.applies_with.begin(), k.applies_with.end(), mode) != k.applies_with.end()) continue;
      const InputError e = error_of([&] { load_arch(arch_with(mode), {{k.name, value}}); });
      EXPECT_EQ(e.key(), k.name) << mode;
      EXPECT_TRUE(contains(e.what(), schema::applicability(k, mode))) << e.what();
    }
    ++restricted;
  }
  EXPECT_EQ(floors, 5);       // channel.bandwidth_gbps > 0, channel.latency_ns >= 0, vector.*_per_lane > 0
  EXPECT_EQ(restricted, 26);  // channel.*, controller, rocc.*, hbm.*, noc.*, scratchpad.*, overlap
  EXPECT_EQ(schema::applicability(*arch_schema().find("hbm.spec"), "ideal"), "applies only with memory: hbm or hierarchy");
  // The clock's rule: whole Hz from 1 MHz to 100 GHz.
  const InputError slow = error_of([&] { load_arch(arch_with("ideal"), {{"clock_hz", "5"}}); });
  EXPECT_TRUE(contains(slow.what(), "below 1 MHz")) << slow.what();
  const InputError junk = error_of([&] { load_arch(arch_with("ideal"), {{"clock_hz", "fast"}}); });
  EXPECT_TRUE(contains(junk.what(), "clock_hz: must be a number of Hz, got 'fast'")) << junk.what();
}

}  // namespace
}  // namespace cstsim

namespace cstsim {
namespace {

// The HBM and NoC files' schemas are their readers' too: every integer key's range
// is enforced at both ends, and every key the readers take is a row.
TEST(SubFileSchema, RangesAreTheOnesTheReadersEnforce) {
  const std::string hbm3 = std::string(CSTSIM_SOURCE_DIR) + "/configs/memory/hbm3-6400.yaml";
  int hbm_checked = 0, powers = 0;
  for (const schema::Key& k : hbm::hbm_schema().keys()) {
    if (k.type != schema::Type::Integer) continue;
    SCOPED_TRACE(k.name);
    const InputError low = error_of([&] { hbm::load_hbm_spec(hbm3, {{k.name, std::to_string(k.min - 1)}}); });
    EXPECT_EQ(low.key(), k.name);
    EXPECT_TRUE(contains(low.what(), k.min == 0 ? "must be a non-negative integer" : "must be a positive integer"))
        << low.what();
    const InputError high = error_of([&] { hbm::load_hbm_spec(hbm3, {{k.name, std::to_string(k.max * 2)}}); });
    EXPECT_TRUE(contains(high.what(), "must be at most " + std::to_string(k.max))) << high.what();
    if (k.power_of_two) {  // the organization's fields: 3 is in range and not a power of two
      const InputError odd = error_of([&] { hbm::load_hbm_spec(hbm3, {{k.name, "3"}}); });
      EXPECT_TRUE(contains(odd.what(), k.name + ": must be a power of two, got 3")) << odd.what();
      ++powers;
    }
    ++hbm_checked;
  }
  EXPECT_EQ(hbm_checked, 9);
  EXPECT_EQ(powers, 7);
  int noc_checked = 0;
  for (const schema::Key& k : noc::noc_schema().keys()) {
    if (k.type != schema::Type::Integer) continue;
    SCOPED_TRACE(k.name);
    for (const int64_t v : {k.min - 1, k.max + 1}) {
      noc::NocConfig c;
      const InputError e = error_of([&] { noc::apply_overrides(c, {{k.name, std::to_string(v)}}); });
      EXPECT_EQ(e.key(), k.name);
      EXPECT_TRUE(contains(e.what(), fmt::format("must be {}..{} {}", k.min, k.max, k.unit))) << e.what();
    }
    ++noc_checked;
  }
  EXPECT_EQ(noc_checked, 9);
  for (const std::string& key : noc::override_keys()) EXPECT_TRUE(noc::noc_schema().find(key)) << key;
}

}  // namespace
}  // namespace cstsim

// scratchpad.word_bytes_per_edge: the bank word follows the array's edges and its PE words, so an
// array-size sweep of the preset keeps one word per array row or column: 128 B at 128 x 128, 256 B
// at 256, 32 B at 32, 64 B for 50 x 7 (a power of two: banks hold whole words), with the same
// banks and bytes. It is one of the two ways to give the width, not both, and must stay a word the
// scratchpad takes.
TEST(ArchSpec, BankWordFollowsTheArraysEdges) {
  const std::string preset = std::string(CSTSIM_SOURCE_DIR) + "/configs/arch/npu-128-hbm3.yaml";
  for (const auto& [rows, cols, word] : {std::tuple{32, 32, 32}, {128, 128, 128}, {256, 256, 256}, {50, 7, 64}}) {
    const ArchSpec a = load_arch(preset, {{"array.rows", std::to_string(rows)}, {"array.cols", std::to_string(cols)}});
    EXPECT_EQ(a.scratchpad.word_bytes, word) << rows << "x" << cols;
    // A PE word of two bf16 values (4 bytes) makes each PE's share four times as wide.
    const ArchSpec b = load_arch(preset, {{"array.rows", std::to_string(rows)}, {"array.cols", std::to_string(cols)},
                                          {"precision.operand", "bf16"}, {"precision.macs_per_pe.bf16", "2"}});
    EXPECT_EQ(b.scratchpad.word_bytes, 4 * word) << rows << "x" << cols;
    EXPECT_EQ(a.scratchpad.word_bytes_per_edge, 1);
    EXPECT_EQ(a.scratchpad.banks, 52);
  }
  const InputError both = error_of([&] { load_arch(preset, {{"scratchpad.word_bytes", "64"}}); });
  EXPECT_EQ(both.key(), "scratchpad.word_bytes");
  EXPECT_NE(std::string(both.what()).find("not both"), std::string::npos) << both.what();
  const InputError wide = error_of([&] {
    load_arch(preset, {{"array.rows", "256"}, {"array.cols", "200"}, {"scratchpad.word_bytes_per_edge", "32"}});
  });
  EXPECT_EQ(wide.key(), "scratchpad.word_bytes_per_edge");
  EXPECT_NE(std::string(wide.what()).find("longer edge, 256 PEs of 1-byte words, x 32 needs a 8192-byte bank word"),
            std::string::npos)
      << wide.what();
}
