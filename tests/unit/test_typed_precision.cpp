// Typed precision at the register level: every operand type, packed or not, computes the
// reference GEMM bit for bit in the grid's accumulation order (models/array/gemm_data.h),
// and the closed form keeps every event of the grid.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "core/num_type.h"
#include "models/array/array_stats.h"
#include "models/array/fold_timing.h"
#include "models/array/reference_check.h"
#include "models/array/register_array.h"

using namespace cstsim;

namespace {

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

TEST(NumType, DecodesTheFormatsCorners) {
  EXPECT_EQ(decode_float(NumType::Fp16, 0x3C00), 1.0f);
  EXPECT_EQ(decode_float(NumType::Fp16, 0x7BFF), 65504.0f);             // largest fp16
  EXPECT_EQ(decode_float(NumType::Fp16, 0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_TRUE(std::isinf(decode_float(NumType::Fp16, 0x7C00)));
  EXPECT_EQ(decode_float(NumType::Bf16, 0x3F80), 1.0f);
  EXPECT_EQ(decode_float(NumType::Bf16, 0xC040), -3.0f);
  EXPECT_EQ(decode_float(NumType::Fp8E4M3, 0x7E), 448.0f);  // E4M3 has no infinity: S.1111.110 is its max
  EXPECT_TRUE(std::isnan(decode_float(NumType::Fp8E4M3, 0x7F)));
  EXPECT_EQ(decode_float(NumType::Fp8E4M3, 0x01), std::ldexp(1.0f, -9));
  EXPECT_EQ(decode_float(NumType::Fp8E5M2, 0x7B), 57344.0f);
  EXPECT_TRUE(std::isinf(decode_float(NumType::Fp8E5M2, 0x7C)));
  EXPECT_EQ(decode_float(NumType::Fp32, 0x40490FDB), 3.14159274101257324f);
  EXPECT_EQ(*num_type_named("fp8"), NumType::Fp8E4M3);
  EXPECT_FALSE(num_type_named("fp4"));
}

// Random values are exact in their type: integers in range; floats round-trip unchanged
// through the format's own precision (mantissa bits) and range.
TEST(NumType, RandomValuesAreRepresentable) {
  std::mt19937_64 rng(5);
  for (NumType t : {NumType::Int4, NumType::Int8, NumType::Int16}) {
    const double lim = std::ldexp(1.0, bits_of(t) - 1);
    for (int i = 0; i < 2000; ++i) {
      const float v = random_value(t, rng);
      EXPECT_EQ(v, std::trunc(v));
      EXPECT_GE(v, -lim);
      EXPECT_LT(v, lim);
    }
  }
  for (NumType t : {NumType::Fp8E4M3, NumType::Fp8E5M2, NumType::Bf16, NumType::Fp16, NumType::Fp32}) {
    const int mant = info(t).mantissa_bits;
    for (int i = 0; i < 2000; ++i) {
      const float v = random_value(t, rng);
      ASSERT_TRUE(std::isfinite(v));
      int e;
      const float m = std::frexp(v, &e);  // |m| in [0.5, 1): mant + 1 significant bits at most
      EXPECT_EQ(std::ldexp(m, mant + 1), std::trunc(std::ldexp(m, mant + 1))) << to_string(t) << " " << v;
    }
  }
}

struct Typed {
  NumType type;
  int pack;
};

std::string check_typed(Dataflow d, FoldPipeline p, int R, int C, int64_t M, int64_t N, int64_t K, Typed t,
                        uint64_t seed, bool sparse = false) {
  FoldPlan plan = make_fold_plan(d, R, C, M, N, sparse ? K / 2 : K, t.pack);
  plan.sparse_2_4 = sparse;
  const LayerTiming timing = compute_layer_timing(plan, p, 2);
  std::vector<ArrayEvent> expected;
  append_events(timing, expected);
  Precision prec;
  prec.operand = t.type;
  prec.accumulator = is_float(t.type) ? NumType::Fp32 : NumType::Int32;
  prec.pack = t.pack;
  const GemmData data = make_random_gemm(M, N, K, seed, prec, sparse);
  const RegisterRun run = run_register_level(plan, p, 2, data);
  if (std::string diff = first_difference(expected, run.events); !diff.empty()) return diff;
  if (run.end_cycle != timing.end) return fmt::format("end {} vs {}", run.end_cycle, timing.end);
  if (!same_bits(run.result, reference_gemm(data, accumulation_chunk(plan)))) return "result differs from the reference";
  const ArrayLayerStats st = compute_layer_stats(plan);
  if (run.counts.ifmap_reads != st.sram.ifmap_reads || run.counts.filter_reads != st.sram.filter_reads ||
      run.counts.ofmap_writes != st.sram.ofmap_writes)
    return "SRAM word counts differ";
  if (run.macs != M * N * (sparse ? K / 2 : K)) return fmt::format("macs {} != MNK", run.macs);
  return "";
}

class TypedEquivalence : public ::testing::TestWithParam<std::tuple<Dataflow, FoldPipeline>> {};

// Every type at each packing a PE word may give it, over random shapes (K ragged against
// R x pack, corners forced in as in test_array_equivalence.cpp).
TEST_P(TypedEquivalence, RandomShapesEveryType) {
  const auto [d, p] = GetParam();
  const Typed types[] = {{NumType::Int4, 2}, {NumType::Int4, 4}, {NumType::Int8, 1}, {NumType::Int8, 2},
                         {NumType::Int16, 1}, {NumType::Fp8E4M3, 1}, {NumType::Fp8E4M3, 4}, {NumType::Fp8E5M2, 2},
                         {NumType::Bf16, 1}, {NumType::Bf16, 2}, {NumType::Fp16, 2}, {NumType::Fp32, 1}};
  std::mt19937_64 rng(300 + int(d) * 2 + int(p));
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int cases = 0;
  for (const Typed& t : types)
    for (int i = 0; i < 100; ++i, ++cases) {
      int R = pick(1, 10), C = pick(1, 10);
      int64_t M = pick(1, 30), N = pick(1, 30), K = pick(1, 60);
      if (i % 5 == 0) K = 1;
      if (i % 5 == 1) K = pick(4, 12) * R * t.pack + pick(0, 2 * t.pack);
      const std::string diff = check_typed(d, p, R, C, M, N, K, t, 7000 + uint64_t(cases));
      ASSERT_EQ(diff, "") << fmt::format("{} x{} {} {} R={} C={} M={} N={} K={}", to_string(t.type), t.pack,
                                         to_string(d), to_string(p), R, C, M, N, K);
    }
}

INSTANTIATE_TEST_SUITE_P(AllDataflows, TypedEquivalence,
                         ::testing::Combine(::testing::Values(Dataflow::WS, Dataflow::OS, Dataflow::IS),
                                            ::testing::Values(FoldPipeline::ScaleSim, FoldPipeline::Overlapped)),
                         [](const auto& info) {
                           return std::string(to_string(std::get<0>(info.param))) + "_" +
                                  to_string(std::get<1>(info.param));
                         });

// 2:4 weights in a WS grid that skips: the banks hold the kept half with each value's place, the
// rows carry the groups' activations, and the result is the reference over the kept values, bit
// for bit, with every event where the closed form (over the kept half of K) puts it.
TEST(TypedPrecision, Sparse24WeightsOnWs) {
  const Typed types[] = {{NumType::Int8, 1}, {NumType::Int8, 3}, {NumType::Int4, 2}, {NumType::Bf16, 1},
                         {NumType::Fp16, 2}, {NumType::Fp8E5M2, 4}, {NumType::Int16, 1}};
  for (FoldPipeline p : {FoldPipeline::ScaleSim, FoldPipeline::Overlapped}) {
    std::mt19937_64 rng(500 + int(p));
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    int cases = 0;
    for (const Typed& t : types)
      for (int i = 0; i < 100; ++i, ++cases) {
        const int R = pick(1, 9), C = pick(1, 9);
        const int64_t M = pick(1, 25), N = pick(1, 25), K = 4 * pick(1, i % 4 == 0 ? 40 : 12);
        const std::string diff = check_typed(Dataflow::WS, p, R, C, M, N, K, t, 9000 + uint64_t(cases), true);
        ASSERT_EQ(diff, "") << fmt::format("2:4 {} x{} {} R={} C={} M={} N={} K={}", to_string(t.type), t.pack,
                                           to_string(p), R, C, M, N, K);
      }
  }
}

// The accumulation order is the wiring's, not a tolerance: 1 + 3 x 2^-24 in fp32 (with
// round-to-nearest-even) is 1 when summed in one chain (OS: every 2^-24 is half an ulp and
// ties to 1), and 1 + 2^-23 when a 2-row WS array sums K in chunks of 2 (1 + 2^-24 -> 1, then
// 2^-24 + 2^-24 = 2^-23 exactly, and 1 + 2^-23 is representable).
TEST(TypedPrecision, FloatOrderIsTheGrids) {
  GemmData d;
  d.M = 1, d.N = 1, d.K = 4;
  d.operand = NumType::Fp16, d.accumulator = NumType::Fp32;
  const float tiny = std::ldexp(1.0f, -24);  // fp16's smallest subnormal
  d.A = {1.0f, tiny, tiny, tiny};
  d.B = {1.0f, 1.0f, 1.0f, 1.0f};
  const RegisterRun ws = run_register_level(make_fold_plan(Dataflow::WS, 2, 1, 1, 1, 4), FoldPipeline::Overlapped, 0, d);
  const RegisterRun os = run_register_level(make_fold_plan(Dataflow::OS, 2, 1, 1, 1, 4), FoldPipeline::Overlapped, 0, d);
  EXPECT_EQ(ws.result[0], 1.0 + std::ldexp(1.0, -23));
  EXPECT_EQ(os.result[0], 1.0);
  EXPECT_EQ(reference_gemm(d, 2)[0], ws.result[0]);
  EXPECT_EQ(reference_gemm(d, 0)[0], os.result[0]);
  EXPECT_EQ(fp64_gemm(d)[0], 1.0 + 3 * double(tiny));
  EXPECT_GT(max_relative_error(os.result, d), 2.9e-8);  // 3 x 2^-24 / (1 + ...) lost
}

// Integers wrap at the accumulator's width: int16 x int16 products summed into an int16
// accumulator give the sum modulo 2^16 as a signed value.
TEST(TypedPrecision, Int16AccumulatorWraps) {
  GemmData d;
  d.M = 1, d.N = 1, d.K = 2;
  d.operand = NumType::Int16, d.accumulator = NumType::Int16;
  d.A = {300, 200};
  d.B = {200, 100};  // 60000 + 20000 = 80000 = 14464 (mod 65536)
  const RegisterRun run = run_register_level(make_fold_plan(Dataflow::WS, 4, 4, 1, 1, 2), FoldPipeline::Overlapped, 0, d);
  EXPECT_EQ(run.result[0], 14464.0);
  EXPECT_EQ(reference_gemm(d)[0], 14464.0);
  d.accumulator = NumType::Int32;
  EXPECT_EQ(run_register_level(make_fold_plan(Dataflow::WS, 4, 4, 1, 1, 2), FoldPipeline::Overlapped, 0, d).result[0],
            80000.0);
}

// A flipped bit in a float partial sum is caught by the bit-exact comparison.
TEST(TypedPrecision, CheckerCatchesAFloatFault) {
  Precision p;
  p.operand = NumType::Bf16, p.accumulator = NumType::Fp32, p.pack = 2;
  const FoldPlan plan = make_fold_plan(Dataflow::WS, 4, 4, 6, 5, 19, 2);
  const GemmData data = make_random_gemm(6, 5, 19, 3, p);
  const LayerTiming timing = compute_layer_timing(plan, FoldPipeline::Overlapped, 0);
  std::vector<ArrayEvent> expected;
  append_events(timing, expected);
  const ArrayLayerStats stats = compute_layer_stats(plan);
  auto grid = make_register_array(plan, FoldPipeline::Overlapped, 0, data);
  for (int c = 0; !grid->done(); ++c) {
    grid->step();
    if (c >= 4 && c < 12) grid->corrupt(2, 0);  // a sum on its way down column 0
  }
  const auto problems = reference_problems(*grid, expected, grid->end_cycle(), timing.end, stats, data);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].rfind("value: C[", 0), 0u) << problems[0];
  EXPECT_NE(problems[0].find("(bf16)"), std::string::npos) << problems[0];
}

// A packed word shortens K: int4 two to a word on R rows needs half the row folds of int8.
TEST(TypedPrecision, PackedWordsHalveTheRowFolds) {
  const FoldPlan int8 = make_fold_plan(Dataflow::WS, 16, 16, 64, 32, 256, 1);
  const FoldPlan int4 = make_fold_plan(Dataflow::WS, 16, 16, 64, 32, 256, 2);
  EXPECT_EQ(int8.row_folds, 16);
  EXPECT_EQ(int4.row_folds, 8);
  EXPECT_EQ(int4.K, 128);
  EXPECT_EQ(int4.k_values, 256);
  const FoldPlan os4 = make_fold_plan(Dataflow::OS, 16, 16, 64, 32, 255, 4);
  EXPECT_EQ(os4.T, 64);  // the stream is K, in words of four (the last padded)
  EXPECT_EQ(compute_layer_stats(os4).macs, 64 * 32 * 255);
}

}  // namespace

namespace {

// Which stored types a PE of each operand type can take (precision.activation / .weight):
// integers into wider integers and into floats with enough significand bits; fp8 into the
// 16- and 32-bit floats; bf16 and fp16 only into fp32 (each lacks the other's range or bits).
TEST(NumType, HoldsExactlyWhereTheFormatsNest) {
  using T = NumType;
  const std::pair<T, T> yes[] = {{T::Int8, T::Int4},    {T::Int16, T::Int8},    {T::Bf16, T::Int8},
                                 {T::Fp16, T::Int8},    {T::Fp8E4M3, T::Int4},  {T::Fp8E5M2, T::Int4},
                                 {T::Bf16, T::Fp8E4M3}, {T::Bf16, T::Fp8E5M2},  {T::Fp16, T::Fp8E4M3},
                                 {T::Fp16, T::Fp8E5M2}, {T::Fp32, T::Bf16},     {T::Fp32, T::Fp16},
                                 {T::Fp32, T::Int16},   {T::Int8, T::Int8}};
  const std::pair<T, T> no[] = {{T::Int8, T::Int16},   {T::Int8, T::Fp8E4M3}, {T::Fp16, T::Bf16},
                                {T::Bf16, T::Fp16},    {T::Fp16, T::Int16},   {T::Bf16, T::Int16},
                                {T::Fp8E4M3, T::Fp8E5M2}, {T::Fp8E5M2, T::Fp8E4M3}, {T::Fp8E4M3, T::Int8}};
  for (const auto& [wide, narrow] : yes) EXPECT_TRUE(holds_exactly(wide, narrow)) << to_string(wide) << " " << to_string(narrow);
  for (const auto& [wide, narrow] : no) EXPECT_FALSE(holds_exactly(wide, narrow)) << to_string(wide) << " " << to_string(narrow);
  // Pattern by pattern: every finite fp8 value (either format) is a bf16 value, whose fp32
  // encoding keeps only the top 16 bits.
  for (uint32_t bits = 0; bits < 256; ++bits)
    for (T narrow : {T::Fp8E4M3, T::Fp8E5M2}) {
      const float v = decode_float(narrow, bits);
      if (!std::isfinite(v)) continue;
      uint32_t f;
      std::memcpy(&f, &v, 4);
      EXPECT_EQ(f & 0xFFFFu, 0u) << to_string(narrow) << " " << v;
    }
}

}  // namespace
