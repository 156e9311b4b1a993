// Row stationary: the register-level grid (models/array/rs_grid.h) computes the exact
// convolution, and the timing mode (rs_timing.h) gives the cycle of every event it produces,
// with the same words over every network and the same MACs, over random convolutions: padding,
// stride 1-4, filters 1-11 on a side, ragged channels and filters, batch 1-4, groups, arrays
// and scratchpads of many sizes (so every folding case and pass loop is reached).
#include <gtest/gtest.h>

#include <memory>
#include <random>

#include <fmt/format.h>

#include "models/array/rs_grid.h"
#include "models/array/rs_timing.h"
#include "plan/fold_plan.h"
#include "plan/rs_plan.h"

using namespace cstsim;

namespace {

struct RsCase {
  RsShape shape;
  RsLimits limits;
  int pad = 0;
  double channel_bytes_per_cycle = 0;  // 0: ideal memory
  int64_t channel_latency = 0;
  bool rlc = false;
  double gating_density = 1.0;  // < 1: zeros placed in the ifmap, gated MACs counted
};

// "" or what differed.
std::string check(const RsCase& k, uint64_t seed, NumType operand) {
  const RsPlanResult planned = plan_rs(k.shape, k.limits);
  if (!planned.why_not.empty()) return "unplanned: " + planned.why_not;
  RsLayerPlan plan = make_rs_layer_plan(k.shape, planned.mapping);
  plan.ofmap = {k.rlc, 0.4};
  plan.ifmap = {k.rlc, 0.7};
  plan.gating_density = k.gating_density;
  const bool fp = is_float(operand);
  RsData data = make_random_rs_data(k.shape, seed, {operand, operand, operand, fp ? NumType::Fp32 : NumType::Int32},
                                    k.gating_density);
  // The zero border of a padded convolution.
  const RsShape& s = k.shape;
  for (int64_t g = 0; g < s.groups; ++g)
    for (int64_t i = 0; i < s.N; ++i)
      for (int64_t c = 0; c < s.C; ++c)
        for (int64_t h = 0; h < s.H; ++h)
          for (int64_t w = 0; w < s.W; ++w)
            if (k.gating_density == 1 && (h < k.pad || w < k.pad || h >= s.H - k.pad || w >= s.W - k.pad))
              data.ifmap[size_t((((g * s.N + i) * s.C + c) * s.H + h) * s.W + w)] = 0;
  const int64_t start = int64_t(seed % 7);
  std::unique_ptr<RsChannel> timing_memory, grid_memory;
  if (k.channel_bytes_per_cycle > 0) {
    timing_memory = std::make_unique<RsChannel>(plan, k.channel_bytes_per_cycle, k.channel_latency, start);
    grid_memory = std::make_unique<RsChannel>(plan, k.channel_bytes_per_cycle, k.channel_latency, start);
  }
  const RsLayerTiming timing = compute_rs_timing(plan, start, timing_memory.get());
  const RsRegisterRun run = run_rs_register_level(plan, start, data, grid_memory.get());
  if (std::string diff = first_difference(timing.events, run.events); !diff.empty()) return diff;
  if (run.end_cycle != timing.end) return fmt::format("end {} vs {}", run.end_cycle, timing.end);
  if (timing_memory && timing_memory->transfers().size() != grid_memory->transfers().size())
    return "the channels moved different transfers";
  if (!(run.counts == timing.counts)) return "network word counts differ";
  if (run.gated != timing.gated) return fmt::format("gated MACs {} vs {}", run.gated, timing.gated);
  if (k.gating_density < 1 && (run.gated == 0) != (FoldPlan::zero_count(int64_t(data.ifmap.size()), k.gating_density) == 0))
    return "zeros placed but none gated";
  if (run.counts.macs != s.macs()) return fmt::format("macs {} != {}", run.counts.macs, s.macs());
  // Integers: the plain convolution (any order); floats: the grid's order, bit for bit.
  if (run.result != (fp ? reference_rs(plan, data) : reference_conv(data))) return "result differs from the reference";
  if (!fp && reference_rs(plan, data) != reference_conv(data)) return "the grid-order reference differs for integers";
  return "";
}

RsCase random_case(std::mt19937_64& rng) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  RsCase k;
  RsShape& s = k.shape;
  s.R = pick(1, 11);
  s.S = pick(1, 11);
  s.U = pick(1, 4);
  k.pad = int(pick(0, 2));
  s.H = s.R + pick(0, 10) + 2 * k.pad;
  s.W = s.S + pick(0, 8) + 2 * k.pad;
  s.C = pick(1, 7);
  s.M = pick(1, 9);
  s.N = pick(1, 4);
  s.groups = pick(1, 8) == 1 ? pick(2, 3) : 1;
  RsLimits& l = k.limits;
  l.rows = int(pick(1, 12));
  l.cols = int(pick(1, 14));
  l.ifmap_spad = pick(s.S, 12);
  l.filter_spad = pick(s.S, 224);
  l.psum_spad = pick(1, 24);
  l.glb_bits = 16 * (pick(2, 6) == 2 ? 1 << 20 : pick(s.W * s.H, 4 * s.W * s.H + 4000));
  if (pick(0, 1)) {
    k.channel_bytes_per_cycle = double(pick(1, 64)) / 8;
    k.channel_latency = pick(0, 20);
    k.rlc = pick(0, 1);
  }
  if (pick(0, 3) == 0) k.gating_density = double(pick(0, 10)) / 10;
  return k;
}

TEST(RsEquivalence, TimingEqualsRegistersOnRandomConvolutions) {
  std::mt19937_64 rng(20261202);
  int ran = 0, unplanned = 0, with_channel = 0, gating = 0, strided = 0, tall = 0, stripped = 0, segmented = 0, replicated = 0, reduced = 0;
  for (int i = 0; ran < 1000; ++i) {
    ASSERT_LT(i, 3000) << "too many cases had no mapping";
    const RsCase k = random_case(rng);
    // int16, int8, and every fifth case a float type the PEs might multiply.
    const NumType floats[] = {NumType::Bf16, NumType::Fp16, NumType::Fp8E4M3, NumType::Fp32};
    const NumType operand = i % 5 == 4 ? floats[(i / 5) % 4] : i % 2 ? NumType::Int8 : NumType::Int16;
    const std::string diff = check(k, uint64_t(i), operand);
    if (diff.rfind("unplanned", 0) == 0) {
      ++unplanned;
      continue;
    }
    ASSERT_EQ(diff, "") << fmt::format("case {}: N {} C {} M {} g {} H {} W {} R {} S {} U {} pad {} on {}x{} "
                                       "(spads {}/{}/{}, glb {})",
                                       i, k.shape.N, k.shape.C, k.shape.M, k.shape.groups, k.shape.H, k.shape.W,
                                       k.shape.R, k.shape.S, k.shape.U, k.pad, k.limits.rows, k.limits.cols,
                                       k.limits.filter_spad, k.limits.ifmap_spad, k.limits.psum_spad,
                                       k.limits.glb_bits / 16);
    ++ran;
    with_channel += k.channel_bytes_per_cycle > 0;
    gating += k.gating_density < 1;
    const RsMapping m = plan_rs(k.shape, k.limits).mapping;
    strided += k.shape.U > 1;
    tall += m.place.row_folds > 1;
    stripped += m.place.strips > 1;
    segmented += m.place.segments > 1;
    replicated += m.r * m.t > 1;
    reduced += k.shape.C > m.q * m.r || m.place.row_folds > 1;
  }
  // Every case the mapping distinguishes was reached many times.
  EXPECT_GT(strided, 500);
  EXPECT_GT(tall, 50);
  EXPECT_GT(stripped, 100);
  EXPECT_GT(segmented, 20);
  EXPECT_GT(replicated, 100);
  EXPECT_GT(reduced, 100);
  EXPECT_LT(unplanned, 1000);
  EXPECT_GT(with_channel, 400);
  EXPECT_GT(gating, 150);
}

// The grid's checks are live: a wrong filter value makes the result differ.
TEST(RsEquivalence, AWrongWeightIsCaught) {
  RsCase k;
  k.shape = {2, 3, 4, 1, 7, 7, 3, 3, 1};
  const RsLayerPlan plan = make_rs_layer_plan(k.shape, plan_rs(k.shape, k.limits).mapping);
  RsData data = make_random_rs_data(k.shape, 5);
  const std::vector<double> expected = reference_conv(data);
  data.filters[7] += 1;
  EXPECT_NE(run_rs_register_level(plan, 0, data).result, expected);
}

}  // namespace
