// Workload loading: cstsim YAML and SCALE-Sim topology CSVs (conv and GEMM
// forms), and the im2col lowering checked against SCALE-Sim's own numbers.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "core/input_error.h"
#include "tests/test_util.h"
#include "sim/workload/workload.h"

namespace fs = std::filesystem;
using namespace cstsim;
using namespace cstsim::testing_util;

namespace {

const std::string kSource = CSTSIM_SOURCE_DIR;
const std::string kScaleSimInputs = std::string(CSTSIM_SOURCE_DIR) + "/tests/golden/scalesim-v2/inputs/";


const Layer* find_layer(const Workload& w, const std::string& name) {
  for (const Layer& l : w.layers)
    if (l.name == name) return &l;
  return nullptr;
}

const char* kConvHeader =
    "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n";

}  // namespace

// ---- lowering ----

TEST(LowerConv, MatchesScaleSim) {
  Layer l = lower_conv("Conv1", {224, 224, 7, 7, 3, 64, 2});
  EXPECT_EQ(l.M, 12100);  // ceil((224 - 7 + 2) / 2) = 110, squared
  EXPECT_EQ(l.N, 64);
  EXPECT_EQ(l.K, 147);
  ASSERT_TRUE(l.conv.has_value());
  EXPECT_EQ(l.conv->stride, 2);
  EXPECT_EQ(lower_conv("c", {28, 28, 3, 3, 128, 128, 1}).M, 676);
  // Rectangular, stride not dividing: ceil((10-3+3)/3) = 4 rows, ceil((7-1+3)/3) = 3 cols.
  EXPECT_EQ(lower_conv("c", {10, 7, 3, 1, 1, 1, 3}).M, 4 * 3);
}

// ---- SCALE-Sim CSV: positive ----

TEST(ScaleSimCsv, Resnet18) {
  Workload w = load_workload(kScaleSimInputs + "Resnet18.csv");
  EXPECT_EQ(w.name, "Resnet18");
  ASSERT_EQ(w.layers.size(), 21u);

  const Layer& conv1 = w.layers.front();
  EXPECT_EQ(conv1.name, "Conv1");
  EXPECT_EQ(conv1.M, 12100);
  EXPECT_EQ(conv1.N, 64);
  EXPECT_EQ(conv1.K, 147);
  EXPECT_EQ(conv1.source_line, 2);
  ASSERT_TRUE(conv1.conv.has_value());
  EXPECT_EQ(conv1.conv->ifmap_h, 224);
  EXPECT_EQ(conv1.conv->channels, 3);

  const Layer* b = find_layer(w, "Conv3_1b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->M, 676);
  EXPECT_EQ(b->N, 128);
  EXPECT_EQ(b->K, 1152);

  const Layer& fc = w.layers.back();
  EXPECT_EQ(fc.name, "FC");
  EXPECT_EQ(fc.M, 1);
  EXPECT_EQ(fc.N, 1000);
  EXPECT_EQ(fc.K, 512);
  EXPECT_EQ(fc.source_line, 22);  // last line has no newline at all
}

TEST(ScaleSimCsv, ShippedCopyMatchesReference) {
  Workload ref = load_workload(kScaleSimInputs + "Resnet18.csv");
  Workload ours = load_workload(kSource + "/configs/workloads/resnet18.csv");
  ASSERT_EQ(ours.layers.size(), ref.layers.size());
  for (size_t i = 0; i < ref.layers.size(); ++i) {
    EXPECT_EQ(ours.layers[i].name, ref.layers[i].name);
    EXPECT_EQ(ours.layers[i].M, ref.layers[i].M);
    EXPECT_EQ(ours.layers[i].N, ref.layers[i].N);
    EXPECT_EQ(ours.layers[i].K, ref.layers[i].K);
  }
}

TEST(ScaleSimCsv, GemmForm) {
  for (int n : {16, 512}) {
    Workload w = load_workload(kScaleSimInputs + "gemm" + std::to_string(n) + ".csv");
    ASSERT_EQ(w.layers.size(), 1u);
    EXPECT_EQ(w.layers[0].name, "GEMM_" + std::to_string(n));
    EXPECT_EQ(w.layers[0].M, n);
    EXPECT_EQ(w.layers[0].N, n);
    EXPECT_EQ(w.layers[0].K, n);
    EXPECT_FALSE(w.layers[0].conv.has_value());
    EXPECT_EQ(w.layers[0].source_line, 2);
  }
}

TEST(ScaleSimCsv, GemmKeepsMNKOrder) {
  TempDir dir;
  std::string file = dir.write("g.csv", "Layer,M,N,K,\nqkv,512,2304,768,\n");
  Workload w = load_workload(file);
  EXPECT_EQ(w.layers[0].M, 512);
  EXPECT_EQ(w.layers[0].N, 2304);
  EXPECT_EQ(w.layers[0].K, 768);
}

TEST(ScaleSimCsv, NoTrailingCommaCrlfBlankLinesAndSpaces) {
  TempDir dir;
  std::string file = dir.write("t.csv",
                               "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, "
                               "Channels, Num Filter, Strides\r\n"
                               "\r\n"
                               " Conv1 , 224 , 224 , 7 , 7 , 3 , 64 , 2\r\n"
                               "   \r\n"
                               "Conv3_1b,28,28,3,3,128,128,1,\r\n");
  Workload w = load_workload(file);
  ASSERT_EQ(w.layers.size(), 2u);
  EXPECT_EQ(w.layers[0].name, "Conv1");
  EXPECT_EQ(w.layers[0].M, 12100);
  EXPECT_EQ(w.layers[0].source_line, 3);
  EXPECT_EQ(w.layers[1].M, 676);
  EXPECT_EQ(w.layers[1].source_line, 5);

  file = dir.write("g.csv", "Layer, M, N, K\r\nGEMM_16, 16, 16, 16\r\n");
  EXPECT_EQ(load_workload(file).layers.at(0).K, 16);
}

TEST(ScaleSimCsv, StrideRequiredItsTrailingCommaNot) {
  TempDir dir;
  // The trailing comma is optional; the stride is not (SCALE-Sim's reader has no default for it).
  std::string file = dir.write("s.csv", std::string(kConvHeader) +
                                            "with_stride,56,56,3,3,64,128,2,\n"
                                            "no_comma,56,56,3,3,64,128,1\n");
  Workload w = load_workload(file);
  ASSERT_EQ(w.layers.size(), 2u);
  EXPECT_EQ(w.layers[0].conv->stride, 2);
  EXPECT_EQ(w.layers[0].M, 28 * 28);
  EXPECT_EQ(w.layers[1].conv->stride, 1);
  EXPECT_EQ(w.layers[1].M, 54 * 54);
  EXPECT_EQ(w.layers[1].K, 3 * 3 * 64);
  for (const char* row : {"no_stride,56,56,3,3,64,128,\n", "no_stride_no_comma,56,56,3,3,64,128\n"}) {
    const std::string bad = dir.write("bad.csv", std::string(kConvHeader) + row);
    try {
      load_workload(bad);
      FAIL() << "a row without its stride was read: " << row;
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), "Strides") << e.what();
      EXPECT_EQ(e.line(), 2) << e.what();
    }
  }
}

TEST(ScaleSimCsv, Utf8BomIsIgnored) {
  TempDir dir;
  std::string file = dir.write("b.csv", "\xEF\xBB\xBFLayer,M,N,K,\ng,1,2,3,\n");
  EXPECT_EQ(load_workload(file).layers.at(0).N, 2);
}

// ---- SCALE-Sim CSV: errors ----

TEST(ScaleSimCsv, MissingFile) {
  TempDir dir;
  std::string file = (dir.path / "absent.csv").string();
  InputError e = error_of([&] { load_workload(file); });
  EXPECT_TRUE(is_error(e, file, 0, ""));
  EXPECT_TRUE(contains(e.what(), "cannot open file"));
}

TEST(ScaleSimCsv, WrongFieldCount) {
  TempDir dir;
  std::string file = dir.write("w.csv", std::string(kConvHeader) +
                                            "Conv1,224,224,7,7,3,64,2,\n"
                                            "Conv2,56,56,3,3,64,\n");
  InputError e = error_of([&] { load_workload(file); });
  EXPECT_TRUE(is_error(e, file, 3, ""));
  EXPECT_TRUE(contains(e.what(), "found 6")) << e.what();

  file = dir.write("g.csv", "Layer,M,N,K,\n\ng,1,2,3,4,\n");
  e = error_of([&] { load_workload(file); });
  EXPECT_TRUE(is_error(e, file, 3, ""));
  EXPECT_TRUE(contains(e.what(), "expected 4 fields, found 5")) << e.what();
}

TEST(ScaleSimCsv, NonIntegerField) {
  TempDir dir;
  std::string file = dir.write("n.csv", std::string(kConvHeader) + "Conv1,224,224,7,seven,3,64,2,\n");
  InputError e = error_of([&] { load_workload(file); });
  EXPECT_TRUE(is_error(e, file, 2, "Filter Width"));
  EXPECT_TRUE(contains(e.what(), "'seven'"));

  file = dir.write("z.csv", std::string(kConvHeader) + "Conv1,224,224,0,7,3,64,2,\n");
  e = error_of([&] { load_workload(file); });
  EXPECT_TRUE(is_error(e, file, 2, "Filter Height"));
  EXPECT_TRUE(contains(e.what(), "must be a positive integer, got '0'"));

  file = dir.write("g.csv", "Layer,M,N,K,\ng,16,1.5,16,\n");
  EXPECT_TRUE(is_error(error_of([&] { load_workload(file); }), file, 2, "N"));
  file = dir.write("s.csv", std::string(kConvHeader) + "c,8,8,3,3,1,1,0,\n");
  EXPECT_TRUE(is_error(error_of([&] { load_workload(file); }), file, 2, "Strides"));
}

TEST(ScaleSimCsv, FilterLargerThanIfmap) {
  TempDir dir;
  std::string file = dir.write("f.csv", std::string(kConvHeader) + "ok,8,8,3,3,1,1,1,\nbad,5,8,7,3,1,1,1,\n");
  InputError e = error_of([&] { load_workload(file); });
  EXPECT_TRUE(is_error(e, file, 3, "Filter Height"));
  EXPECT_TRUE(contains(e.what(), "larger than IFMAP Height"));
  file = dir.write("g.csv", std::string(kConvHeader) + "bad,8,2,3,3,1,1,1,\n");
  EXPECT_TRUE(is_error(error_of([&] { load_workload(file); }), file, 2, "Filter Width"));
}

TEST(ScaleSimCsv, HeaderOnlyOrEmpty) {
  TempDir dir;
  std::string file = dir.write("h.csv", kConvHeader);
  InputError e = error_of([&] { load_workload(file); });
  EXPECT_TRUE(is_error(e, file, 0, ""));
  EXPECT_TRUE(contains(e.what(), "no layers"));
  file = dir.write("e.csv", "");
  EXPECT_TRUE(is_error(error_of([&] { load_workload(file); }), file, 0, ""));
}

TEST(ScaleSimCsv, MissingHeader) {
  TempDir dir;
  std::string file = dir.write("m.csv", "Conv1,224,224,7,7,3,64,2,\n");
  InputError e = error_of([&] { load_workload(file); });
  EXPECT_TRUE(is_error(e, file, 1, ""));
  EXPECT_TRUE(contains(e.what(), "header"));
}

TEST(ScaleSimCsv, EmptyLayerName) {
  TempDir dir;
  std::string file = dir.write("e.csv", "Layer,M,N,K,\n,1,2,3,\n");
  EXPECT_TRUE(is_error(error_of([&] { load_workload(file); }), file, 2, "Layer"));
}

// ---- YAML workloads ----

TEST(WorkloadYaml, Basic) {
  TempDir dir;
  std::string file = dir.write("w.yaml",
                               "name: tiny\n"
                               "source: \"made up\"\n"
                               "layers:\n"
                               "  - {name: a, M: 4, N: 5, K: 6}\n"
                               "  - name: b\n"
                               "    M: 7\n"
                               "    N: 8\n"
                               "    K: 9\n");
  Workload w = load_workload(file);
  EXPECT_EQ(w.name, "tiny");
  EXPECT_EQ(w.source, file);
  ASSERT_EQ(w.layers.size(), 2u);
  EXPECT_EQ(w.layers[0].name, "a");
  EXPECT_EQ(w.layers[0].M, 4);
  EXPECT_EQ(w.layers[0].N, 5);
  EXPECT_EQ(w.layers[0].K, 6);
  EXPECT_EQ(w.layers[0].source_line, 4);
  EXPECT_EQ(w.layers[1].K, 9);
  EXPECT_EQ(w.layers[1].source_line, 5);
  EXPECT_FALSE(w.layers[1].conv.has_value());
}

TEST(WorkloadYaml, NameDefaultsToStem) {
  TempDir dir;
  std::string file = dir.write("my-net.yml", "layers: [{name: a, M: 1, N: 1, K: 1}]\n");
  EXPECT_EQ(load_workload(file).name, "my-net");
}

TEST(WorkloadYaml, ShippedWorkloads) {
  const std::string dir = kSource + "/configs/workloads/";
  Workload gemm = load_workload(dir + "gemm-1024.yaml");
  ASSERT_EQ(gemm.layers.size(), 1u);
  EXPECT_EQ(gemm.layers[0].M * gemm.layers[0].N * gemm.layers[0].K, int64_t(1) << 30);

  Workload bert = load_workload(dir + "bert-base-layer.yaml");
  int64_t macs = 0;
  for (const Layer& l : bert.layers) macs += l.M * l.N * l.K;
  EXPECT_EQ(bert.layers.size(), 1u + 12 + 12 + 3);
  EXPECT_EQ(macs, 4026531840);  // 4.03 G MACs per layer at S = 512 (REFERENCES.md 5.3)

  Workload mlp = load_workload(dir + "mlp-tpu.yaml");
  for (const Layer& l : mlp.layers) EXPECT_EQ(l.M, 200);  // MLP0 batch

  EXPECT_EQ(load_workload(dir + "gemm-512.csv").layers.at(0).M, 512);

  int count = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    auto ext = entry.path().extension();
    if (ext != ".yaml" && ext != ".csv") continue;
    SCOPED_TRACE(entry.path().string());
    EXPECT_NO_THROW(load_workload(entry.path().string()));
    ++count;
  }
  EXPECT_GE(count, 5);
}

TEST(WorkloadYaml, MalformedYaml) {
  TempDir dir;
  std::string file = dir.write("w.yaml", "layers:\n  - {name: a, M: 1, N: 2, K: [3\n");
  InputError e = error_of([&] { load_workload(file); });
  EXPECT_EQ(e.file(), file);
  EXPECT_GT(e.line(), 0);
  EXPECT_TRUE(contains(e.what(), "malformed YAML"));
  EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
}

TEST(WorkloadYaml, Errors) {
  TempDir dir;
  struct Case {
    const char* text;
    int line;
    const char* key;
  };
  const Case cases[] = {
      {"layers:\n  - {name: a, M: 1, N: 2, K: 3, batch: 4}\n", 2, "batch"},
      {"layers:\n  - {name: a, M: 1, N: 2}\n", 2, "K"},
      {"layers:\n  - {name: a, M: 0, N: 2, K: 3}\n", 2, "M"},
      {"layers:\n  - name: a\n    M: 1\n    N: -2\n    K: 3\n", 4, "N"},
      {"layers:\n  - {name: a, M: 1, N: 2, K: 2.5}\n", 2, "K"},
      {"layers:\n  - {name: a, M: 1, N: 2, K: 3}\n  - {name: a, M: 1, N: 2, K: 3}\n", 3, "name"},
      {"layers: []\n", 1, "layers"},
      {"name: x\n", 0, "layers"},
      {"name: x\nlayer: []\n", 2, "layer"},
      {"layers:\n  - 5\n", 2, "layers"},
      {"layers:\n  - {name: a, M: 1, N: 2, K: 3, input: maybe}\n", 2, "input"},
      {"layers:\n  - {name: a, M: 1, N: 2, K: 3, input: previous}\n", 2, "input"},  // no previous layer
      // b's A (4 x 2) is not a's output (1 x 2)
      {"layers:\n  - {name: a, M: 1, N: 2, K: 3}\n  - {name: b, M: 4, N: 2, K: 2,\n     input: previous}\n", 4, "input"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    std::string file = dir.write("w.yaml", c.text);
    EXPECT_TRUE(is_error(error_of([&] { load_workload(file); }), file, c.line, c.key));
  }
}

// A layer's input says whether it reads the previous layer's output where the shapes alone would
// guess: `none` breaks a chain the shapes make (two attention heads of the same shape), `previous`
// asks for one and must fit it; without it the shapes decide.
TEST(WorkloadYaml, InputSaysWhetherALayerReadsThePreviousOutput) {
  TempDir dir;
  const Workload w = load_workload(dir.write("w.yaml",
                                             "layers:\n  - {name: a, M: 8, N: 16, K: 4}\n"
                                             "  - {name: b, M: 8, N: 4, K: 16}\n"
                                             "  - {name: c, M: 8, N: 4, K: 4, input: none}\n"
                                             "  - {name: d, M: 8, N: 4, K: 4, input: previous}\n"));
  EXPECT_TRUE(reads_output_of(w.layers[1], w.layers[0]));   // by shape
  EXPECT_TRUE(shape_reads_output_of(w.layers[2], w.layers[1]));
  EXPECT_FALSE(reads_output_of(w.layers[2], w.layers[1]));  // said otherwise
  EXPECT_TRUE(reads_output_of(w.layers[3], w.layers[2]));
  EXPECT_FALSE(w.layers[1].reads_previous.has_value());
}

TEST(Workload, UnknownExtension) {
  TempDir dir;
  std::string file = dir.write("w.txt", "Layer,M,N,K,\n");
  EXPECT_TRUE(is_error(error_of([&] { load_workload(file); }), file, 0, ""));
}
