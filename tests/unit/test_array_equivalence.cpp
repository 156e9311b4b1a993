// The timing mode must give the cycle of every event the register-level grid
// produces, and the grid must compute the exact integer GEMM, for every
// dataflow and fold pipeline over many random shapes.
#include <gtest/gtest.h>

#include <random>

#include <fmt/format.h>

#include "models/array/array_stats.h"
#include "models/array/fold_timing.h"
#include "models/array/reference_check.h"
#include "models/array/register_array.h"
#include "models/memory/tile_source.h"
#include "models/memory/weight_channel.h"
#include "sim/config/accelerator_spec.h"

using namespace cstsim;

namespace {

struct Shape {
  int R, C;
  int64_t M, N, K;
};

// Checks one shape; returns "" or what differed.
std::string check(Dataflow d, FoldPipeline p, const Shape& s, uint64_t seed, int64_t start, int64_t k_chunks = 1) {
  const FoldPlan plan = with_k_chunks(make_fold_plan(d, s.R, s.C, s.M, s.N, s.K), k_chunks);
  const LayerTiming timing = compute_layer_timing(plan, p, start);
  std::vector<ArrayEvent> expected;
  append_events(timing, expected);
  const GemmData data = make_random_gemm(s.M, s.N, s.K, seed);
  const RegisterRun run = run_register_level(plan, p, start, data);
  if (std::string diff = first_difference(expected, run.events); !diff.empty()) return diff;
  if (run.end_cycle != timing.end) return fmt::format("end {} vs {}", run.end_cycle, timing.end);
  if (run.result != reference_gemm(data)) return "result differs from the reference GEMM";
  const ArrayLayerStats st = compute_layer_stats(plan);
  if (run.counts.ifmap_reads != st.sram.ifmap_reads || run.counts.filter_reads != st.sram.filter_reads ||
      run.counts.ofmap_writes != st.sram.ofmap_writes)
    return "SRAM word counts differ";
  if (run.macs != s.M * s.N * s.K) return fmt::format("macs {} != MNK", run.macs);
  return "";
}

// Random shapes with the corners forced in: R or C = 1, M/N/K = 1, sizes that are
// not multiples of the array, and K much larger than the array.
Shape random_shape(std::mt19937_64& rng, int i, int max_dim, int max_mnk) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Shape s{pick(1, max_dim), pick(1, max_dim), pick(1, max_mnk), pick(1, max_mnk), pick(1, max_mnk)};
  switch (i % 8) {
    case 0: s.R = 1; break;
    case 1: s.C = 1; break;
    case 2: s.M = 1; break;
    case 3: s.N = 1; break;
    case 4: s.K = 1; break;
    case 5: s.K = pick(8, 20) * std::max(s.R, s.C) + pick(0, 7); break;  // K >> array
    default: break;
  }
  return s;
}

void run_random(Dataflow d, FoldPipeline p, int cases, int max_dim, int max_mnk, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int i = 0; i < cases; ++i) {
    const Shape s = random_shape(rng, i, max_dim, max_mnk);
    const int64_t start = i % 3;
    const std::string diff = check(d, p, s, seed * 1000 + i, start);
    ASSERT_EQ(diff, "") << fmt::format("{} {} R={} C={} M={} N={} K={} start={}", to_string(d), to_string(p),
                                       s.R, s.C, s.M, s.N, s.K, start);
  }
}

class Equivalence : public ::testing::TestWithParam<std::tuple<Dataflow, FoldPipeline>> {};

TEST_P(Equivalence, ThousandRandomShapes) {
  const auto [d, p] = GetParam();
  run_random(d, p, 1000, 12, 40, 11 + int(d) * 2 + int(p));
}

TEST_P(Equivalence, LongLargerShapes) {
  const auto [d, p] = GetParam();
  run_random(d, p, 300, 40, 200, 97 + int(d) * 2 + int(p));
}

// OS with each output tile's K cut into chunks (FoldPlan::with_k_chunks: the plan when a block
// of B does not fit the filter partition): the sums stay in the PEs from chunk to chunk, so the
// grid still computes the exact GEMM, lands on the closed form's events (a chunk that does not
// drain ends with its last MAC), and reads each operand word once per chunk.
TEST(EquivalenceOsKChunks, RandomShapesAndChunks) {
  std::mt19937_64 rng(41);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  for (int i = 0; i < 600; ++i) {
    Shape s = random_shape(rng, i, 12, 40);
    if (i % 2) s.K = pick(2, 12) * std::max(s.R, s.C) + pick(0, 7);  // many chunks of about the array's size
    const int64_t chunks = pick(1, std::min<int64_t>(s.K, 8));
    const std::string diff = check(Dataflow::OS, FoldPipeline::Overlapped, s, 4100 + uint64_t(i), i % 3, chunks);
    ASSERT_EQ(diff, "") << fmt::format("R={} C={} M={} N={} K={} chunks={}", s.R, s.C, s.M, s.N, s.K, chunks);
  }
}

INSTANTIATE_TEST_SUITE_P(AllDataflows, Equivalence,
                         ::testing::Combine(::testing::Values(Dataflow::WS, Dataflow::OS, Dataflow::IS),
                                            ::testing::Values(FoldPipeline::ScaleSim, FoldPipeline::Overlapped)),
                         [](const auto& info) {
                           return std::string(to_string(std::get<0>(info.param))) + "_" +
                                  to_string(std::get<1>(info.param));
                         });

}  // namespace

namespace {

constexpr Dataflow kDataflows[] = {Dataflow::WS, Dataflow::IS, Dataflow::OS};

// With channel memory the weight loads wait for their tiles; the register grid and
// the closed form must still agree on every event, and stalls must appear exactly
// when the channel is the bottleneck.
TEST(EquivalenceChannel, RandomShapesAndChannels) {
  std::mt19937_64 rng(77);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int i = 0; i < 600; ++i) {
    const Shape s = random_shape(rng, i, 10, 40);
    const Dataflow d = kDataflows[i % 3];  // OS: each fold's block of B comes through the FIFO
    ChannelParams ch;
    ch.bandwidth_bytes_per_s = pick(1, 64) * 1e9 / 8;  // 0.125 .. 8 bytes per cycle at 1 GHz
    ch.latency_s = pick(0, 20) * 1e-9;
    ch.fifo_tiles = pick(1, 4);
    const FoldPlan plan = make_fold_plan(d, s.R, s.C, s.M, s.N, s.K);
    WeightChannel timing_channel(ch, 1e9, fifo_tiles_of(plan, cstsim::Precision{}), 3),
        grid_channel(ch, 1e9, fifo_tiles_of(plan, cstsim::Precision{}), 3);
    const LayerTiming timing = compute_layer_timing(plan, FoldPipeline::Overlapped, 3, &timing_channel);
    std::vector<ArrayEvent> expected;
    append_events(timing, expected);
    const GemmData data = make_random_gemm(s.M, s.N, s.K, 900 + i);
    auto grid = make_register_array(plan, FoldPipeline::Overlapped, 3, data);
    grid->attach_tiles(&grid_channel);
    while (!grid->done()) grid->step();
    const std::string where = fmt::format("{} R={} C={} M={} N={} K={} bw={} lat={} fifo={}", to_string(d), s.R, s.C,
                                          s.M, s.N, s.K, ch.bandwidth_bytes_per_s, ch.latency_s, ch.fifo_tiles);
    ASSERT_EQ(first_difference(expected, grid->events()), "") << where;
    ASSERT_EQ(grid->result(), reference_gemm(data)) << where;
    // A stall is a fold whose stream waited for its tile: its tile arrived after
    // the array could otherwise have started loading it.
    for (const FoldTiming& f : timing.folds) {
      ASSERT_GE(f.stall, 0) << where;
      if (f.stall > 0) {
        ASSERT_EQ(f.start, f.data_ready) << where;
      }
    }
  }
}

TEST(EquivalenceChannel, SlowChannelMakesWeightStallsDominate) {
  // TPU-v1-like: 256x256, 700 MHz, 34 GB/s; MLP layer at batch 200 (M = 200 stream rows).
  ChannelParams ch;
  ch.bandwidth_bytes_per_s = 34e9;
  ch.fifo_tiles = 4;
  const FoldPlan plan = make_fold_plan(Dataflow::WS, 256, 256, 200, 2048, 2048);
  WeightChannel channel(ch, 700e6, fifo_tiles_of(plan, cstsim::Precision{}), 0);
  const LayerTiming t = compute_layer_timing(plan, FoldPipeline::Overlapped, 0, &channel);
  const double cycles = double(t.reported_cycles);
  // Each 64 KiB tile takes 65536 / (34e9 / 700e6) = 1350 cycles on the channel.
  EXPECT_EQ(channel.fetches()[1].end - channel.fetches()[1].start, 1350);
  EXPECT_NEAR(cycles, 64 * 1350.0, 64 * 1350.0 * 0.05);  // bound by the channel
  // The stall is what the channel costs over ideal memory, all of it the channel's.
  EXPECT_EQ(t.ideal_cycles, compute_layer_timing(plan, FoldPipeline::Overlapped, 0).reported_cycles);
  EXPECT_LT(2 * t.ideal_cycles, t.reported_cycles);
  EXPECT_EQ(t.stall_cycles, t.reported_cycles - t.ideal_cycles);
  EXPECT_EQ(t.stall_causes.at("memory_bandwidth"), t.stall_cycles);
}

}  // namespace

namespace {

// memory: hbm — tiles read from the bank-level HBM model through a DMA. Two
// independent sources (one per mode) must give the grid and the closed form the
// same arrivals, and the run must stay exact.
TEST(EquivalenceHbm, RandomShapesOnHbm2AndHbm3) {
  std::mt19937_64 rng(31);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int i = 0; i < 60; ++i) {
    const Shape s = random_shape(rng, i, 12, 48);
    const Dataflow d = kDataflows[i % 3];  // OS: each fold's block of B comes through the FIFO
    ArchSpec a;
    a.rows = s.R;
    a.cols = s.C;
    a.dataflow = d;
    a.clock_hz = i % 3 ? 1e9 : 7e8;
    a.memory = MemoryMode::Hbm;
    a.hbm.spec = std::string(CSTSIM_SOURCE_DIR) + (i % 2 ? "/configs/memory/hbm2-2000.yaml" : "/configs/memory/hbm3-6400.yaml");
    a.hbm.fifo_tiles = pick(1, 4);
    a.hbm.max_outstanding = pick(1, 32);
    a.hbm.request_bytes = 32 * pick(1, 4);
    resolve_sub_files(a);
    const FoldPlan plan = make_fold_plan(d, s.R, s.C, s.M, s.N, s.K);
    const AcceleratorSpec spec = accelerator_spec(a);
    auto timing_tiles = make_tile_source(spec, plan, 5), grid_tiles = make_tile_source(spec, plan, 5);
    const LayerTiming timing = compute_layer_timing(plan, FoldPipeline::Overlapped, 5, timing_tiles.get());
    std::vector<ArrayEvent> expected;
    append_events(timing, expected);
    const GemmData data = make_random_gemm(s.M, s.N, s.K, 500 + i);
    auto grid = make_register_array(plan, FoldPipeline::Overlapped, 5, data);
    grid->attach_tiles(grid_tiles.get());
    while (!grid->done()) grid->step();
    const std::string where = fmt::format("{} R={} C={} M={} N={} K={} fifo={} out={} req={}", to_string(d), s.R,
                                          s.C, s.M, s.N, s.K, a.hbm.fifo_tiles, a.hbm.max_outstanding,
                                          a.hbm.request_bytes);
    ASSERT_EQ(first_difference(expected, grid->events()), "") << where;
    ASSERT_EQ(grid->result(), reference_gemm(data)) << where;
    for (size_t g = 0; g < timing.folds.size(); ++g) {
      const auto& f = timing_tiles->fetches()[g];
      ASSERT_GE(f.start, f.issue) << where;
      ASSERT_GE(f.ready, f.start) << where;
      ASSERT_GE(timing.folds[g].start, f.ready) << where;
    }
  }
}

}  // namespace

namespace {

// The --verify checker itself: silent on a clean run, and names each kind of fault.
TEST(ReferenceCheck, NamesEachKindOfDifference) {
  for (const Dataflow d : kDataflows) {
    SCOPED_TRACE(to_string(d));
    const FoldPlan plan = make_fold_plan(d, 6, 5, 20, 13, 17);
    const LayerTiming timing = compute_layer_timing(plan, FoldPipeline::Overlapped, 4);
    std::vector<ArrayEvent> expected;
    append_events(timing, expected);
    const GemmData data = make_random_gemm(20, 13, 17, 3);
    const ArrayLayerStats stats = compute_layer_stats(plan);
    auto clean = make_register_array(plan, FoldPipeline::Overlapped, 4, data);
    while (!clean->done()) clean->step();
    EXPECT_TRUE(reference_problems(*clean, expected, clean->end_cycle(), timing.end, stats, data).empty());
    const auto late = reference_problems(*clean, expected, clean->end_cycle(), timing.end + 1, stats, data);
    ASSERT_EQ(late.size(), 1u);
    EXPECT_EQ(late[0].rfind("timing: layer ends at cycle", 0), 0u) << late[0];
    auto faulty = make_register_array(plan, FoldPipeline::Overlapped, 4, data);
    for (int c = 0; !faulty->done(); ++c) {
      faulty->step();
      if (c == 12) faulty->corrupt(2, 3);
    }
    const auto wrong = reference_problems(*faulty, expected, faulty->end_cycle(), timing.end, stats, data);
    ASSERT_EQ(wrong.size(), 1u);
    EXPECT_EQ(wrong[0].rfind("value: C[", 0), 0u) << wrong[0];
    ArrayLayerStats more = stats;
    ++more.macs;
    EXPECT_EQ(reference_problems(*clean, expected, clean->end_cycle(), timing.end, more, data).back().rfind("macs:", 0), 0u);
  }
}

}  // namespace
