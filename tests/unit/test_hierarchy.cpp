// memory: hierarchy — the whole path HBM -> NoC -> DMA -> scratchpad for every
// operand, and the outputs back. The closed form and the register grid each drive
// their own memory system and must agree to the cycle; bytes are conserved at
// every level; stall causes add up; misfits are one-line input errors.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include <fmt/format.h>

#include "models/array/fold_timing.h"
#include "models/array/gemm_data.h"
#include "models/array/register_array.h"
#include "models/hbm/hbm_spec.h"
#include "models/memory/hierarchy_source.h"
#include "models/noc/noc_config.h"
#include "sim/config/accelerator_spec.h"
#include "sim/mapper/dma_plan.h"
#include "sim/run/hierarchy_check.h"
#include "tests/hierarchy_spec.h"
#include "tests/test_util.h"

namespace cstsim {
namespace {

using testing_util::contains;
using testing_util::code_arch;
using testing_util::error_of;
using testing_util::on_hierarchy;

constexpr auto config = testing_util::config_path;

struct Case {
  ArchSpec arch;
  int64_t M = 0, N = 0, K = 0;
};

// A random small hierarchy that fits (partition sizes and ports are drawn until they do).
Case random_case(std::mt19937_64& rng, int i) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (;;) {
    Case c;
    ArchSpec& a = c.arch;
    a.source = "random";
    a.rows = pick(2, 12);
    a.cols = pick(2, 12);
    a.dataflow = std::array{Dataflow::WS, Dataflow::IS, Dataflow::OS}[size_t(i % 3)];
    a.clock_hz = i % 4 ? 1e9 : 7e8;
    a.memory = MemoryMode::Hierarchy;
    a.hbm.spec = config(i % 2 ? "memory/hbm2-2000.yaml" : "memory/hbm3-6400.yaml");
    a.hbm.fifo_tiles = pick(1, 4);
    a.hbm.max_outstanding = pick(1, 16);
    a.hbm.request_bytes = 32 * pick(1, 4);
    a.noc.spec = config(i % 3 ? "noc/mesh-4x4.yaml" : "noc/npu-mesh-4x4.yaml");
    a.noc.cluster_x = pick(0, 3);
    a.noc.cluster_y = pick(0, 3);
    const int k = pick(1, 2);  // 4k + 2k + 2k KiB in 16 banks: every partition whole banks
    a.ifmap_sram_kib = 4 * k;
    a.filter_sram_kib = 2 * k;
    a.ofmap_sram_kib = 2 * k;
    a.scratchpad.banks = 16;
    a.scratchpad.word_bytes = 16 * pick(1, 2);
    a.scratchpad.ports_per_bank = pick(1, 3);
    a.scratchpad.write_latency = pick(0, 2);
    a.scratchpad.read_latency = pick(0, 2);
    resolve_sub_files(a);
    c.M = pick(1, 40);
    c.N = pick(1, 40);
    c.K = pick(1, 40);
    if (i % 5 == 0) c.M = pick(100, 300);  // long streams: slices and accumulator blocks alternate
    try {
      const FoldPlan plan = make_fold_plan(a.dataflow, a.rows, a.cols, c.M, c.N, c.K);
      check_hierarchy(a, make_dma_plan(a, plan, "random"));
      return c;
    } catch (const InputError&) {
    }
  }
}

// A 16x16 WS array on a 64/32/32 KiB scratchpad in 16 banks of 64 B.
using testing_util::small_hierarchy;

// 3 GHz is 333.33 ps. With the period rounded to 333 ps (as before), HBM edge 8 at
// 5 ns would be seen at array edge 16; exactly, 5 ns is array edge 15.
TEST(Hierarchy, TheDmaCrossesClocksExactly) {
  ArchSpec a = small_hierarchy("memory/hbm3-6400.yaml", config("noc/npu-mesh-4x4.yaml"));
  a.clock_hz = 3e9;
  spad::Scratchpad sp(scratchpad_params(a));
  DmaSystem dma(DmaParams{a.hbm.max_outstanding, a.hbm.request_bytes, a.clock_hz}, hbm::load_hbm_spec(a.hbm.spec),
                noc::load_noc_config(a.noc.spec), {&sp}, {{1, 1}});
  EXPECT_EQ(dma.to_acc(8 * dma.hbm_period()), 15);
  EXPECT_EQ(dma.to_acc(8 * dma.hbm_period() + 1), 16);
  // One second is the same number of ticks on every clock.
  EXPECT_EQ(dma.acc_period() * 3'000'000'000, dma.hbm_period() * 1'600'000'000);
  EXPECT_EQ(dma.acc_period() * 3'000'000'000, dma.noc_period() * 1'000'000'000);
}

// hbm.requests_per_cycle: a queue issues that many requests per cycle while its outstanding
// limit allows. 32 requests of 64 B go out over 32 cycles at 1 per cycle, 16 at 2, 8 at 4;
// the run's request count is the same.
TEST(Hierarchy, TheDmaIssuesAsManyRequestsPerCycleAsConfigured) {
  const ArchSpec a = small_hierarchy("memory/hbm3-6400.yaml", config("noc/npu-mesh-4x4.yaml"));
  for (int rate : {1, 2, 4}) {
    spad::Scratchpad sp(scratchpad_params(a));
    DmaSystem dma(DmaParams{256, 64, a.clock_hz, rate}, hbm::load_hbm_spec(a.hbm.spec), noc::load_noc_config(a.noc.spec),
                  {&sp}, {{1, 1}});
    DmaTransfer t{Operand::Stream, false, 0, 32 * 64, 0};
    const int id = dma.enqueue(0, t, spad::Partition::Ifmap, 10);
    dma.run_until_done(id);
    int64_t first = INT64_MAX, last = 0;
    for (int r = 0; r < 32; ++r) {
      const int64_t at = dma.to_acc(dma.request_path(r).issued);
      first = std::min(first, at);
      last = std::max(last, at);
    }
    EXPECT_EQ(first, 10) << rate;
    EXPECT_EQ(last - first + 1, 32 / rate) << rate;
    EXPECT_EQ(dma.stats(0).requests, 32) << rate;
  }
}

TEST(EquivalenceHierarchy, RandomShapesGridAndClosedFormDriveTheSameTraffic) {
  std::mt19937_64 rng(2026);
  int alternating = 0, stalled = 0;
  int per_dataflow[3] = {};
  for (int i = 0; i < 120; ++i) {
    const Case c = random_case(rng, i);
    ++per_dataflow[int(c.arch.dataflow)];
    const ArchSpec& a = c.arch;
    const FoldPlan plan = make_fold_plan(a.dataflow, a.rows, a.cols, c.M, c.N, c.K);
    const LayerDmaPlan dma = make_dma_plan(a, plan, "random");
    alternating += !dma.stream_resident || !dma.output_resident;
    HierarchySource timing_src(accelerator_spec(a), plan, dma, 7, true), grid_src(accelerator_spec(a), plan, dma, 7, false);
    const LayerTiming timing = compute_layer_timing(plan, FoldPipeline::Overlapped, 7, &timing_src);
    std::vector<ArrayEvent> expected;
    append_events(timing, expected);
    const GemmData data = make_random_gemm(c.M, c.N, c.K, 900 + uint64_t(i));
    auto grid = make_register_array(plan, FoldPipeline::Overlapped, 7, data);
    grid->attach_tiles(&grid_src);
    while (!grid->done()) grid->step();
    std::vector<int64_t> loads;
    for (const ArrayEvent& e : grid->events())
      if (e.kind == EventKind::FoldStart) loads.push_back(e.cycle);
    const std::string where =
        fmt::format("case {}: {} R={} C={} M={} N={} K={} fifo={} out={} req={} word={} ports={}", i,
                    to_string(a.dataflow), a.rows, a.cols, c.M, c.N, c.K, a.hbm.fifo_tiles, a.hbm.max_outstanding,
                    a.hbm.request_bytes, a.scratchpad.word_bytes, a.scratchpad.ports_per_bank);
    ASSERT_EQ(first_difference(expected, grid->events()), "") << where;
    ASSERT_EQ(grid_src.drain(loads), timing.memory_end) << where;
    ASSERT_EQ(grid->result(), reference_gemm(data)) << where;
    stalled += timing.stall_cycles > 0;

    // Bytes are conserved, per layer, at every level, and equal the mapper's program.
    const HierarchyLayerStats& s = timing_src.stats();
    ASSERT_EQ(s.shared.hbm_bytes_read, dma.read_bytes()) << where;
    ASSERT_EQ(s.dma_bytes_delivered, s.shared.hbm_bytes_read) << where;
    ASSERT_EQ(s.spad_bytes_written, s.dma_bytes_delivered) << where;
    ASSERT_EQ(s.shared.hbm_bytes_written, dma.write_bytes()) << where;
    ASSERT_EQ(s.dma_bytes_sent, s.shared.hbm_bytes_written) << where;
    ASSERT_EQ(s.spad_bytes_read, s.dma_bytes_sent) << where;
    ASSERT_EQ(grid_src.stats().shared.hbm_bytes_read, s.shared.hbm_bytes_read) << where;
    // Stall causes add up to the stall cycles.
    int64_t explained = 0;
    for (const auto& [cause, n] : timing.stall_causes) explained += n;
    ASSERT_EQ(explained, timing.stall_cycles) << where;
    // The write-back finishes after the last output leaves the array.
    ASSERT_GT(timing.memory_end, timing.end) << where;
  }
  EXPECT_GT(alternating, 12);  // both scratchpad regimes were exercised
  EXPECT_GT(stalled, 60);
  for (int n : per_dataflow) EXPECT_EQ(n, 40);  // WS, OS and IS alike
}

TEST(Hierarchy, PlanReadsEveryOperandOnceWhenItFits) {
  ArchSpec a = code_arch(128, 128);
  a.ifmap_sram_kib = 4096;
  a.filter_sram_kib = 512;
  a.ofmap_sram_kib = 4096;
  const FoldPlan plan = make_fold_plan(Dataflow::WS, 128, 128, 1024, 1024, 1024);
  const LayerDmaPlan d = make_dma_plan(a, plan, "gemm");
  EXPECT_TRUE(d.stream_resident);
  EXPECT_TRUE(d.output_resident);
  EXPECT_EQ(d.read_bytes(), 2 * 1024 * 1024);  // A once, B once
  EXPECT_EQ(d.write_bytes(), 1024 * 1024);     // C once, int8
  EXPECT_EQ(d.reads.size(), 8u + 64u);         // 8 slices + 64 tiles
  EXPECT_EQ(d.writes.size(), 8u);              // one per column fold
  for (int w : d.output_wait) EXPECT_EQ(w, -1);

  a.ifmap_sram_kib = 256;  // two slices of 1024 x 128 only: re-read per column fold
  a.ofmap_sram_kib = 1024; // two accumulator blocks of 1024 x 128 x 4 B
  const LayerDmaPlan e = make_dma_plan(a, plan, "gemm");
  EXPECT_FALSE(e.stream_resident);
  EXPECT_FALSE(e.output_resident);
  EXPECT_EQ(e.read_bytes(), 8 * 1024 * 1024 + 1024 * 1024);
  EXPECT_EQ(e.output_wait[16], 0);  // column fold 2 waits for column fold 0's write-back
  EXPECT_EQ(e.output_wait[17], -1);
}

// OS, a block of B too big for the filter partition (8,192 x 128 int8 = 1 MiB against 512 KiB):
// each output tile streams K in 4 chunks of 2,048, two of which fill the partition. A chunk of B
// cannot wait for the next row fold, so each of the 2 row folds reads B again; A's slices are
// read once (resident); only the chunk that drains writes its tile back, and only it waits for
// the output slot two write-backs before.
TEST(Hierarchy, OsStreamsABlockOfBThatDoesNotFitInKChunks) {
  ArchSpec a = code_arch(128, 128);
  a.dataflow = Dataflow::OS;
  a.ifmap_sram_kib = 4096;
  a.filter_sram_kib = 512;
  a.ofmap_sram_kib = 128;  // outputs not resident: two 64 KiB blocks alternate
  const FoldPlan plan = make_fold_plan(Dataflow::OS, 128, 128, 256, 384, 8192);
  const LayerDmaPlan d = make_dma_plan(a, plan, "l");
  EXPECT_EQ(d.k_chunks, 4);
  EXPECT_EQ(d.fifo_tiles, 2);
  EXPECT_EQ(d.stationary_slot, 2048 * 128);
  EXPECT_TRUE(d.stream_resident);
  ASSERT_EQ(d.stationary_read.size(), 2u * 3 * 4);  // row folds x column folds x chunks
  int64_t b = 0, a_bytes = 0;
  for (const DmaTransfer& t : d.reads) (t.operand == Operand::Stationary ? b : a_bytes) += t.bytes;
  EXPECT_EQ(b, 2 * int64_t(8192) * 384);
  EXPECT_EQ(a_bytes, int64_t(256) * 8192);
  ASSERT_EQ(d.writes.size(), 6u);  // one per output tile
  for (size_t g = 0; g < d.stationary_read.size(); ++g) {
    const bool drains = g % 4 == 3;
    EXPECT_EQ(d.writeback_after[g] >= 0, drains) << g;
    EXPECT_EQ(d.output_wait[g], drains && g / 4 >= 2 ? int(g / 4) - 2 : -1) << g;
    // The chunk reuses the slot of the chunk fifo_tiles folds before it, free once its last input is in.
    if (g >= 2) EXPECT_EQ(d.reads[size_t(d.stationary_read[g])].after_fold, int(g) - 2) << g;
  }
  // On a 32 x 32 array B's 4,096 x 32 blocks fit (128 KiB), but A (300 x 4,096, 1.2 MiB) does not
  // stay whole in 64 KiB of ifmap, nor do two of its 32 x 4,096 slices (256 KiB): K chunks make
  // them fit (two of 32 x 1,024).
  a = code_arch(32, 32);
  a.dataflow = Dataflow::OS;
  a.ifmap_sram_kib = 64;
  a.filter_sram_kib = 512;
  a.ofmap_sram_kib = 2048;
  const LayerDmaPlan small = make_dma_plan(a, make_fold_plan(Dataflow::OS, 32, 32, 300, 200, 4096), "a");
  EXPECT_EQ(small.k_chunks, 4);
  EXPECT_EQ(small.stream_slot, 32 * 1024);
}

TEST(Hierarchy, PartitionTooSmallNamesLayerKeyAndSizes) {
  ArchSpec a = code_arch(128, 128);
  a.ifmap_sram_kib = 64;
  a.filter_sram_kib = 512;
  a.ofmap_sram_kib = 4096;
  const FoldPlan plan = make_fold_plan(Dataflow::WS, 128, 128, 1024, 1024, 1024);
  const InputError e = error_of([&] { make_dma_plan(a, plan, "fc7"); });
  EXPECT_TRUE(testing_util::is_error(e, "arch.yaml", 0, "sram.ifmap_kib")) << e.what();
  EXPECT_TRUE(contains(e.what(), "layer fc7")) << e.what();
  EXPECT_TRUE(contains(e.what(), "262144 bytes, the partition has 65536")) << e.what();
  a.ifmap_sram_kib = 4096;
  a.filter_sram_kib = 32;  // 2 of hbm.fifo_tiles' 4 tiles of 16 KiB: the FIFO is 2 deep
  EXPECT_EQ(make_dma_plan(a, plan, "fc7").fifo_tiles, 2);
  a.filter_sram_kib = 8;  // not one
  const InputError f = error_of([&] { make_dma_plan(a, plan, "fc7"); });
  EXPECT_TRUE(testing_util::is_error(f, "arch.yaml", 0, "sram.filter_kib")) << f.what();
  EXPECT_TRUE(contains(f.what(), "one stationary tile of 128x128 needs 16384 bytes, the partition has 8192")) << f.what();
}

TEST(Hierarchy, ArrayPortUseMustLeaveRoomForTheDma) {
  ArchSpec a = code_arch(128, 128);
  a.ifmap_sram_kib = 4096;
  a.filter_sram_kib = 512;
  a.ofmap_sram_kib = 2048;
  a.scratchpad.banks = 52;
  a.scratchpad.word_bytes = 64;  // a result row read + written = 16 words = all 16 ofmap ports
  a = on_hierarchy(a, "memory/hbm2-2000.yaml", config("noc/npu-mesh-4x4.yaml"));
  const FoldPlan plan = make_fold_plan(Dataflow::WS, 128, 128, 256, 256, 256);
  const InputError e = error_of([&] { check_hierarchy(a, make_dma_plan(a, plan, "l")); });
  EXPECT_TRUE(testing_util::is_error(e, "arch.yaml", 0, "scratchpad.banks")) << e.what();
  EXPECT_TRUE(contains(e.what(), "ofmap partition has 16 word ports")) << e.what();
  a.scratchpad.word_bytes = 128;
  EXPECT_NO_THROW(check_hierarchy(a, make_dma_plan(a, plan, "l")));
}

// Slower mesh wires (40 cycles, with buffers that cover the credit round trip): the same layer
// waits longer, and the extra wait is put on the NoC's latency, not its bandwidth.
TEST(Hierarchy, LongLinksShowUpAsNocStalls) {
  testing_util::TempDir dir;
  const std::string slow = dir.write("slow.yaml", R"(name: slow
mesh: {cols: 4, rows: 4}
flit_bytes: 64
link_latency: 40
buffer_depth: 48
edge_nodes: [{side: west, index: 0}, {side: east, index: 3}]
)");
  auto run = [&](const std::string& noc) {
    ArchSpec a = small_hierarchy("memory/hbm2-2000.yaml", noc);
    a.hbm.fifo_tiles = 2;
    const FoldPlan plan = make_fold_plan(Dataflow::WS, 16, 16, 32, 128, 128);
    HierarchySource src(accelerator_spec(a), plan, make_dma_plan(a, plan, "l"), 0, false);
    LayerTiming t = compute_layer_timing(plan, FoldPipeline::Overlapped, 0, &src);
    int64_t sum = 0;
    for (const auto& [cause, n] : t.stall_causes) sum += n;
    EXPECT_EQ(sum, t.stall_cycles);
    return t;
  };
  const LayerTiming fast = run(config("noc/npu-mesh-4x4.yaml")), slowed = run(slow);
  ASSERT_GT(slowed.stall_cycles, fast.stall_cycles);
  auto noc = [](const LayerTiming& t) {
    return t.stall_causes.count("noc_latency") ? t.stall_causes.at("noc_latency") : 0;
  };
  EXPECT_GT(noc(slowed), noc(fast) + (slowed.stall_cycles - fast.stall_cycles) / 2);
}

// A cluster alone on a shared memory system (the other has nothing to do) must see
// exactly what a single cluster at the same router sees: the conservative driver
// adds no time of its own.
TEST(Hierarchy, LoneClusterOfAGroupMatchesASingleCluster) {
  const ArchSpec a = small_hierarchy("memory/hbm3-6400.yaml", config("noc/npu-mesh-4x4.yaml"));
  const FoldPlan plan = make_fold_plan(Dataflow::WS, 16, 16, 100, 80, 70);
  const LayerDmaPlan dma = make_dma_plan(a, plan, "l");

  ArchSpec pair = a;
  pair.clusters = 2;
  auto group = std::make_shared<MemoryGroup>(accelerator_spec(pair), 2, false, 0);
  group->done(0);
  HierarchySource second(accelerator_spec(pair), plan, dma, 3, false, group, 1);
  const LayerTiming shared = compute_layer_timing(plan, FoldPipeline::Overlapped, 3, &second);

  ArchSpec alone = a;
  const auto routers = cluster_routers(pair, 4, 4, 2);
  alone.noc.cluster_x = routers[1].first;
  alone.noc.cluster_y = routers[1].second;
  HierarchySource single(accelerator_spec(alone), plan, dma, 3, false);
  const LayerTiming own = compute_layer_timing(plan, FoldPipeline::Overlapped, 3, &single);

  ASSERT_GT(own.stall_cycles, 0);
  EXPECT_EQ(shared.memory_end, own.memory_end);
  EXPECT_EQ(shared.stall_causes, own.stall_causes);
  for (size_t g = 0; g < plan.folds.size(); ++g) EXPECT_EQ(shared.folds[g].start, own.folds[g].start) << g;
  EXPECT_EQ(second.stats().shared.hbm_bytes_read, single.stats().shared.hbm_bytes_read);
}

}  // namespace
}  // namespace cstsim

namespace cstsim {
namespace {

// The landing buffer's entries are the outstanding slots: a read's slot frees when its last
// word is in the scratchpad, not when it reaches the cluster. With ports too few for the
// HBM's rate, the data the HBM has read but the scratchpad not yet taken is bounded by the
// slots (max_outstanding x request bytes) at every cycle, so the HBM slows to the ports'
// rate; the run slows and the split puts the wait on the scratchpad ports.
TEST(Hierarchy, SlowScratchpadPortsHoldLandingSlotsAndThrottleTheHbm) {
  struct Run {
    LayerTiming timing;
    int64_t max_backlog = 0;  // HBM bytes read, minus bytes written into the scratchpad, at a cycle
    int64_t conflicts = 0;
  };
  // The stream operand (A, 256 x 64) does not fit its partition (one 8 KiB bank), so each
  // column fold re-reads its 4 KiB slices while the array streams the previous ones, a 16 B row
  // (two 8 B words) per cycle: the DMA must write 16 B per cycle beside it. With 3 ports on
  // the bank it gets one word (8 B) per cycle, with 6 ports four.
  auto run = [](int ports_per_bank) {
    ArchSpec a = small_hierarchy("memory/hbm2-2000.yaml", config("noc/npu-mesh-4x4.yaml"));
    a.scratchpad.word_bytes = 8;
    a.scratchpad.ports_per_bank = ports_per_bank;
    a.ifmap_sram_kib = 8;  // 8 + 16 + 104 KiB in 16 banks of 8 KiB: 1, 2 and 13 banks
    a.filter_sram_kib = 16;
    a.ofmap_sram_kib = 104;
    a.hbm.max_outstanding = 32;
    a.hbm.request_bytes = 64;
    const FoldPlan plan = make_fold_plan(Dataflow::WS, 16, 16, 256, 64, 64);
    check_hierarchy(a, make_dma_plan(a, plan, "l"));  // a configuration the front accepts
    HierarchySource src(accelerator_spec(a), plan, make_dma_plan(a, plan, "l"), 0, true);
    Run r;
    r.timing = compute_layer_timing(plan, FoldPipeline::Overlapped, 0, &src);
    std::map<int64_t, int64_t> delta;  // per cycle: + bytes the HBM moved, - bytes into the scratchpad
    for (size_t k = 0; k < src.dma_plan().reads.size(); ++k) {
      for (const auto& [cycle, bytes] : src.read_state(int(k)).at_hbm) delta[cycle] += bytes;
      for (const auto& [cycle, bytes] : src.read_state(int(k)).at_spad) delta[cycle + 1] -= bytes;
    }
    int64_t backlog = 0;
    for (const auto& [cycle, d] : delta) r.max_backlog = std::max(r.max_backlog, backlog += d);
    EXPECT_EQ(backlog, 0);  // every byte read is written
    r.conflicts = src.stats().spad_conflict_cycles;
    return r;
  };
  const Run narrow = run(3), wide = run(6);
  const int64_t slots = 32 * 64;
  EXPECT_LE(narrow.max_backlog, slots);
  EXPECT_GT(narrow.max_backlog, slots / 2);  // the ports, not the HBM, hold it back
  EXPECT_LE(wide.max_backlog, slots);
  EXPECT_GT(narrow.timing.stall_cycles, wide.timing.stall_cycles);
  EXPECT_GT(narrow.conflicts, 0);
  auto spad = [](const LayerTiming& t) { return t.stall_causes.count("spad_ports") ? t.stall_causes.at("spad_ports") : 0; };
  EXPECT_GT(spad(narrow.timing), spad(wide.timing));
  std::string largest;
  for (const auto& [cause, n] : narrow.timing.stall_causes)
    if (largest.empty() || n > narrow.timing.stall_causes.at(largest)) largest = cause;
  EXPECT_EQ(largest, "spad_ports");
}

}  // namespace
}  // namespace cstsim

namespace cstsim {
namespace {

// What the memory model holds follows what is in flight, not what has moved: a layer that
// moves 4 MiB in 65,792 per-channel pieces ends with a few folds' worth of requests and scratchpad
// slot records kept, and its stall split is the one it had when everything was kept.
TEST(Hierarchy, MemoryFollowsWhatIsInFlight) {
  ArchSpec a = small_hierarchy("memory/hbm3-6400.yaml", config("noc/npu-mesh-4x4.yaml"));
  a.hbm.request_bytes = 256;
  const FoldPlan plan = make_fold_plan(Dataflow::WS, 16, 16, 1, 2048, 2048);  // a GEMV's 4 MiB of weights
  HierarchySource src(accelerator_spec(a), plan, make_dma_plan(a, plan, "l"), 0, false);
  const LayerTiming t = compute_layer_timing(plan, FoldPipeline::Overlapped, 0, &src);
  const HierarchyLayerStats s = src.stats();
  ASSERT_GE(s.dma_pieces, 4 * 1024 * 1024 / 64);  // the weights alone, a piece per 64 B channel stripe
  EXPECT_LT(src.group().dma().requests_kept(), size_t(4 * a.hbm.max_outstanding));
  EXPECT_LT(src.group().spad(0).record_size(), size_t(200));
  int64_t sum = 0;
  for (const auto& [cause, n] : t.stall_causes) sum += n;
  EXPECT_EQ(sum, t.stall_cycles);
}

}  // namespace
}  // namespace cstsim
