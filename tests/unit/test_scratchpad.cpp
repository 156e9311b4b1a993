// The banked scratchpad on its own: bank division, exact DMA completion cycles
// around array traffic, the interval record against a per-cycle reference, slot
// conservation, conflict accounting, residency and bounded memory.
#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "models/scratchpad/scratchpad.h"

using namespace cstsim::spad;

namespace {

// 8 banks of 1 KiB, 16 B words: ifmap 4 banks, filter 2, ofmap 2.
ScratchpadParams small(int ports_per_bank = 1) {
  ScratchpadParams p;
  p.total_bytes = 8192;
  p.banks = 8;
  p.word_bytes = 16;
  p.ports_per_bank = ports_per_bank;
  p.read_latency = 2;
  p.write_latency = 3;
  p.ifmap_bytes = 4096;
  p.filter_bytes = 2048;
  p.ofmap_bytes = 2048;
  return p;
}

constexpr int64_t kWord = 16;

// Runs f, expects exception E whose message contains every one of `parts`.
template <class E, class F>
void expect_error(F&& f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "no exception";
  } catch (const E& e) {
    for (const auto& part : parts) EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
}

// Per-cycle model of the same rules, written as plainly as possible.
class Reference {
 public:
  Reference(int ports, int word_bytes, int read_latency, int write_latency)
      : ports_(ports), word_(word_bytes), rl_(read_latency), wl_(write_latency) {}

  void array_access(int64_t begin, int64_t end, int w) {
    grow(end);
    for (int64_t c = begin; c < end; ++c)
      if (array_[c] + w > ports_) throw std::invalid_argument("array over ports");
    for (int64_t c = begin; c < end; ++c)
      if (array_[c] + dma_[c] + w > ports_) throw std::logic_error("collides with DMA");
    for (int64_t c = begin; c < end; ++c) array_[c] += w;
    array_words += w * (end - begin);
  }

  // Returns {done, conflict_cycles}.
  std::pair<int64_t, int64_t> transfer(int64_t arrival, int64_t bytes, bool write) {
    const int64_t words = (bytes + word_ - 1) / word_;
    int64_t alone = arrival;  // last cycle with the array's slots free as well
    for (int64_t left = words;; ++alone) {
      grow(alone + 1);
      left -= std::min<int64_t>(left, ports_ - dma_[alone]);
      if (left == 0) break;
    }
    int64_t c = arrival;
    for (int64_t left = words;; ++c) {
      grow(c + 1);
      const int64_t take = std::min<int64_t>(left, ports_ - array_[c] - dma_[c]);
      dma_[c] += take;
      left -= take;
      if (left == 0) break;
    }
    dma_words += words;
    return {c + 1 + (write ? wl_ : rl_), c - alone};
  }

  int64_t used(int64_t c) {
    grow(c + 1);
    return array_[c] + dma_[c];
  }
  int64_t reserved(int64_t begin, int64_t end) {
    int64_t sum = 0;
    for (int64_t c = begin; c < end; ++c) sum += used(c);
    return sum;
  }
  int64_t size() const { return int64_t(array_.size()); }

  int64_t array_words = 0, dma_words = 0;

 private:
  void grow(int64_t n) {
    if (int64_t(array_.size()) < n) {
      array_.resize(size_t(n), 0);
      dma_.resize(size_t(n), 0);
    }
  }
  int64_t ports_, word_, rl_, wl_;
  std::vector<int64_t> array_, dma_;
};

struct Recorder : ScratchpadObserver {
  std::vector<std::tuple<Partition, int64_t, int64_t>> events;
  void on_residency(Partition p, int64_t cycle, int64_t bytes_now) override { events.emplace_back(p, cycle, bytes_now); }
};

}  // namespace

// ---- bank division and construction --------------------------------------------------

TEST(ScratchpadLayout, BanksFollowBytesContiguouslyInPartitionOrder) {
  Scratchpad s(small());
  EXPECT_EQ(s.layout(Partition::Ifmap).banks, 4);
  EXPECT_EQ(s.layout(Partition::Filter).banks, 2);
  EXPECT_EQ(s.layout(Partition::Ofmap).banks, 2);
  EXPECT_EQ(s.layout(Partition::Ifmap).first_bank, 0);
  EXPECT_EQ(s.layout(Partition::Filter).first_bank, 4);
  EXPECT_EQ(s.layout(Partition::Ofmap).first_bank, 6);
  EXPECT_EQ(s.layout(Partition::Ifmap).ports, 4);
  EXPECT_EQ(Scratchpad(small(2)).layout(Partition::Ifmap).ports, 8);
  EXPECT_EQ(s.layout(Partition::Filter).half_bytes, 1024);
  EXPECT_STREQ(partition_name(Partition::Filter), "filter");
}

TEST(ScratchpadLayout, LeftoverBanksGoToLargestRemainders) {
  ScratchpadParams p = small();
  p.total_bytes = 800;  // 4 banks of 200 B
  p.banks = 4;
  p.word_bytes = 8;
  p.ifmap_bytes = 150;  // quotas 1.5, 1.5, 1: one bank left, tie -> ifmap
  p.filter_bytes = 150;
  p.ofmap_bytes = 100;
  Scratchpad s(p);
  EXPECT_EQ(s.layout(Partition::Ifmap).banks, 2);
  EXPECT_EQ(s.layout(Partition::Filter).banks, 1);
  EXPECT_EQ(s.layout(Partition::Ofmap).banks, 1);

  p.total_bytes = 1600;  // 8 banks; partitions take only half: every bank is still handed out
  p.banks = 8;
  p.ifmap_bytes = 100;
  p.filter_bytes = 300;  // quotas 8 * (100, 300, 400) / 800 = 1, 3, 4
  p.ofmap_bytes = 400;
  Scratchpad t(p);
  EXPECT_EQ(t.layout(Partition::Ifmap).banks, 1);
  EXPECT_EQ(t.layout(Partition::Filter).banks, 3);
  EXPECT_EQ(t.layout(Partition::Ofmap).banks, 4);
}

TEST(ScratchpadLayout, BothHalvesInterleaveOverAllOfThePartitionsBanks) {
  Scratchpad s(small());
  const int64_t half = s.layout(Partition::Ifmap).half_bytes;
  for (int64_t w = 0; w < 8; ++w) {
    EXPECT_EQ(s.bank_of(Partition::Ifmap, w * kWord), w % 4);
    EXPECT_EQ(s.bank_of(Partition::Ifmap, half + w * kWord), w % 4);
    EXPECT_EQ(s.bank_of(Partition::Filter, w * kWord + 3), 4 + w % 2);
  }
  EXPECT_THROW(s.bank_of(Partition::Ofmap, 2048), std::out_of_range);
}

TEST(ScratchpadLayout, ConstructorErrorsNameThePartitionAndNumbers) {
  ScratchpadParams p = small();
  p.total_bytes = 4096;  // 4 banks of 1 KiB
  p.banks = 4;
  p.ifmap_bytes = 3000;  // quotas 2.99, 1.00, 0.02 -> 3, 1, 0
  p.filter_bytes = 1000;
  p.ofmap_bytes = 16;
  expect_error<std::invalid_argument>([&] { Scratchpad s(p); }, {"ofmap", "0 of 4 banks"});

  p = small();
  p.total_bytes = 400;  // 4 banks of 100 B; 150, 150, 100 -> 2, 1, 1
  p.banks = 4;
  p.word_bytes = 4;
  p.ifmap_bytes = 150;
  p.filter_bytes = 150;
  p.ofmap_bytes = 100;
  expect_error<std::invalid_argument>([&] { Scratchpad s(p); }, {"filter", "150", "1 banks hold 100"});

  p = small();
  p.filter_bytes = 0;
  expect_error<std::invalid_argument>([&] { Scratchpad s(p); }, {"filter", "positive", "0 bytes"});
  p = small();
  p.ofmap_bytes = -5;
  expect_error<std::invalid_argument>([&] { Scratchpad s(p); }, {"ofmap", "-5"});
  p = small();
  p.ofmap_bytes = 4096;
  expect_error<std::invalid_argument>([&] { Scratchpad s(p); }, {"10240", "8192"});
  p = small();
  p.total_bytes = 8190;
  expect_error<std::invalid_argument>([&] { Scratchpad s(p); }, {"8190", "8 banks"});
  p = small();
  p.word_bytes = 24;
  expect_error<std::invalid_argument>([&] { Scratchpad s(p); }, {"1024", "24-byte"});
  p = small();
  p.ports_per_bank = 0;
  expect_error<std::invalid_argument>([&] { Scratchpad s(p); }, {"ports_per_bank"});
  p = small();
  p.read_latency = -1;
  expect_error<std::invalid_argument>([&] { Scratchpad s(p); }, {"latencies"});
}

// ---- hand-worked timing ---------------------------------------------------------------

TEST(ScratchpadTiming, NoArrayTrafficIsWordsOverPortsPlusLatency) {
  Scratchpad s(small());
  // 40 words over 4 ports: cycles 5..14, written at 15, readable 3 later.
  EXPECT_EQ(s.dma_write(Partition::Ifmap, 5, 40 * kWord), 18);
  EXPECT_EQ(s.last_transfer().first_cycle, 5);
  EXPECT_EQ(s.last_transfer().last_cycle, 14);
  EXPECT_EQ(s.last_transfer().conflict_cycles, 0);
  // 41 words (a partial word counts whole): one more cycle.
  Scratchpad t(small());
  EXPECT_EQ(t.dma_write(Partition::Ifmap, 5, 40 * kWord + 1), 19);
  EXPECT_EQ(t.dma_read(Partition::Ofmap, 0, 20 * kWord), 10 + 2);  // 2 ports, read latency 2
  EXPECT_EQ(t.stats(Partition::Ifmap).dma_bytes_written, 40 * kWord + 1);
  EXPECT_EQ(t.stats(Partition::Ofmap).dma_bytes_read, 20 * kWord);
  EXPECT_EQ(t.stats(Partition::Ofmap).dma_bytes_written, 0);
}

TEST(ScratchpadTiming, ArrayHoldingAllPortsPushesTheWriteBehindIt) {
  Scratchpad s(small());
  s.array_access(Partition::Ifmap, 10, 20, 4);
  // Arrives at 12, every slot is the array's until 20: words in 20..29.
  EXPECT_EQ(s.dma_write(Partition::Ifmap, 12, 40 * kWord), 30 + 3);
  EXPECT_EQ(s.last_transfer().first_cycle, 20);
  // Alone it would have used 12..21.
  EXPECT_EQ(s.last_transfer().conflict_cycles, 29 - 21);
  EXPECT_EQ(s.stats(Partition::Ifmap).conflict_cycles, 8);
  EXPECT_EQ(s.stats(Partition::Ifmap).array_word_accesses, 40);
  // Other partitions have their own banks.
  EXPECT_EQ(s.dma_write(Partition::Filter, 12, 20 * kWord), 22 + 3);
  EXPECT_EQ(s.stats(Partition::Filter).conflict_cycles, 0);
}

TEST(ScratchpadTiming, PartialPortUseLeavesTheRestToTheDma) {
  Scratchpad s(small());
  s.array_access(Partition::Ifmap, 0, 100, 3);
  EXPECT_EQ(s.dma_write(Partition::Ifmap, 0, 40 * kWord), 40 + 3);  // one word per cycle: 0..39
  EXPECT_EQ(s.last_transfer().conflict_cycles, 39 - 9);

  Scratchpad t(small());
  t.array_access(Partition::Ifmap, 0, 10, 2);
  // 2 per cycle in 0..9 (20 words), then 4 per cycle in 10..14.
  EXPECT_EQ(t.dma_write(Partition::Ifmap, 0, 40 * kWord), 15 + 3);
  EXPECT_EQ(t.last_transfer().conflict_cycles, 14 - 9);
  EXPECT_EQ(t.used_slots(Partition::Ifmap, 9), 4);
  EXPECT_EQ(t.used_slots(Partition::Ifmap, 14), 4);
  EXPECT_EQ(t.used_slots(Partition::Ifmap, 15), 0);
}

TEST(ScratchpadTiming, OverlappingArrayIntervalsAddUp) {
  Scratchpad s(small());
  s.array_access(Partition::Ifmap, 0, 10, 1);
  s.array_access(Partition::Ifmap, 5, 15, 2);
  EXPECT_EQ(s.array_slots(Partition::Ifmap, 4), 1);
  EXPECT_EQ(s.array_slots(Partition::Ifmap, 7), 3);
  EXPECT_EQ(s.array_slots(Partition::Ifmap, 12), 2);
  // Free: 3/cycle in 0..4, 1 in 5..9, 2 in 10..14: 15 + 5 + 10 = 30 words by cycle 14.
  EXPECT_EQ(s.dma_write(Partition::Ifmap, 0, 30 * kWord), 15 + 3);
  expect_error<std::invalid_argument>([&] { s.array_access(Partition::Ifmap, 6, 8, 2); },
                                      {"ifmap", "cycle 6", "5 words per cycle", "4 ports"});
  EXPECT_EQ(s.array_slots(Partition::Ifmap, 6), 3);  // the failed call changed nothing
}

TEST(ScratchpadTiming, TransfersAreServedInIssueOrderButFillEarlierGaps) {
  Scratchpad s(small());
  s.array_access(Partition::Ifmap, 0, 10, 4);
  EXPECT_EQ(s.dma_write(Partition::Ifmap, 20, 40 * kWord), 30 + 3);  // 20..29
  EXPECT_EQ(s.dma_write(Partition::Ifmap, 10, 40 * kWord), 20 + 3);  // issued later, 10..19 were free
  EXPECT_EQ(s.dma_write(Partition::Ifmap, 15, 8 * kWord), 32 + 3);   // 15..29 taken: 30..31
  EXPECT_EQ(s.last_transfer().conflict_cycles, 0);                  // the array never touched 15..31

  // Two transfers sharing a cycle: the first takes what it needs, the second the rest.
  Scratchpad t(small());
  EXPECT_EQ(t.dma_write(Partition::Ifmap, 0, 6 * kWord), 2 + 3);  // 4 in cycle 0, 2 in cycle 1
  EXPECT_EQ(t.dma_write(Partition::Ifmap, 1, 6 * kWord), 3 + 3);  // 2 in cycle 1, 4 in cycle 2
  EXPECT_EQ(t.used_slots(Partition::Ifmap, 1), 4);
}

TEST(ScratchpadTiming, ConflictCountsOnlyWhatTheArrayCostWithTheSameEarlierTransfers) {
  Scratchpad s(small());
  s.array_access(Partition::Ifmap, 10, 20, 4);
  EXPECT_EQ(s.dma_write(Partition::Ifmap, 10, 40 * kWord), 33);  // 20..29
  EXPECT_EQ(s.last_transfer().conflict_cycles, 10);              // alone: 10..19
  EXPECT_EQ(s.dma_write(Partition::Ifmap, 10, 40 * kWord), 43);  // 30..39
  // Without the array but behind the first transfer as placed (20..29): 10..19.
  EXPECT_EQ(s.last_transfer().conflict_cycles, 20);
  EXPECT_EQ(s.stats(Partition::Ifmap).conflict_cycles, 30);
  EXPECT_EQ(s.stats(Partition::Ifmap).dma_transfers, 2);
}

TEST(ScratchpadTiming, SinglePortBanksBlockWritesThatDualPortBanksAccept) {
  // The array reads one word per bank per cycle over [0, 100).
  Scratchpad one(small(1));
  one.array_access(Partition::Ifmap, 0, 100, 4);
  EXPECT_EQ(one.dma_write(Partition::Ifmap, 0, 40 * kWord), 110 + 3);  // 100..109
  EXPECT_EQ(one.last_transfer().conflict_cycles, 109 - 9);

  Scratchpad two(small(2));
  two.array_access(Partition::Ifmap, 0, 100, 4);
  EXPECT_EQ(two.dma_write(Partition::Ifmap, 0, 40 * kWord), 10 + 3);  // 4 free per cycle: 0..9
  EXPECT_EQ(two.last_transfer().conflict_cycles, 9 - 4);              // alone: 8 per cycle, 0..4

  // More array words per cycle than ports: a mapper bug, on single ports only here.
  expect_error<std::invalid_argument>([&] { one.array_access(Partition::Filter, 0, 5, 3); },
                                      {"filter", "3 words per cycle", "2 ports"});
  EXPECT_NO_THROW(two.array_access(Partition::Filter, 0, 5, 3));
}

TEST(ScratchpadTiming, ArrayAccessDeclaredAfterTheDmaTookItsSlotsIsAnError) {
  Scratchpad s(small());
  EXPECT_EQ(s.dma_write(Partition::Ifmap, 0, 40 * kWord), 13);  // 0..9, all ports
  expect_error<std::logic_error>([&] { s.array_access(Partition::Ifmap, 5, 15, 1); },
                                 {"ifmap", "cycle 5", "already hold 4", "declare array accesses before"});
  EXPECT_EQ(s.array_slots(Partition::Ifmap, 12), 0);  // nothing half-applied
  EXPECT_NO_THROW(s.array_access(Partition::Ifmap, 10, 15, 4));
}

TEST(ScratchpadTiming, BadArgumentsAreRejected) {
  Scratchpad s(small());
  expect_error<std::invalid_argument>([&] { s.dma_write(Partition::Ofmap, 3, 0); }, {"ofmap", "0 bytes"});
  expect_error<std::invalid_argument>([&] { s.dma_read(Partition::Ofmap, -1, 16); }, {"ofmap", "-1"});
  expect_error<std::invalid_argument>([&] { s.array_access(Partition::Ifmap, 5, 4, 1); }, {"ifmap", "[5, 4)"});
  s.array_access(Partition::Ifmap, 5, 5, 4);  // empty: nothing happens
  EXPECT_EQ(s.stats(Partition::Ifmap).array_word_accesses, 0);
}

TEST(ScratchpadTiming, ReadmeWorkedExample) {
  Scratchpad s(small());
  s.array_access(Partition::Ifmap, 10, 20, 4);
  EXPECT_EQ(s.dma_write(Partition::Ifmap, 12, 640), 33);
  EXPECT_EQ(s.last_transfer().conflict_cycles, 8);
  EXPECT_EQ(s.dma_write(Partition::Ifmap, 5, 64), 9);
  EXPECT_EQ(s.dma_write(Partition::Ifmap, 12, 64), 34);
  EXPECT_EQ(s.last_transfer().conflict_cycles, 18);
  EXPECT_EQ(s.dma_write(Partition::Filter, 12, 640), 35);
  EXPECT_EQ(s.stats(Partition::Ifmap).conflict_cycles, 26);
}

TEST(ScratchpadTiming, HugeIdleGapsAndTransfersCostNoPerCycleWork) {
  Scratchpad s(small());
  const int64_t far = 1'000'000'000'000;  // a per-cycle model would not finish
  s.array_access(Partition::Filter, far, 3 * far, 1);
  // 2 words per cycle in [0, far), then 1 per cycle: 3 * far words end at 2 * far - 1.
  EXPECT_EQ(s.dma_write(Partition::Filter, 0, 3 * far * kWord), 2 * far + 3);
  EXPECT_EQ(s.last_transfer().conflict_cycles, far / 2);  // alone: 2 per cycle to 1.5 * far - 1
  // The free slot of [far, 2 * far) is the first transfer's: a late read waits for 2 * far.
  EXPECT_EQ(s.dma_read(Partition::Filter, far, kWord), 2 * far + 1 + 2);
  EXPECT_LT(s.record_size(), 20u);
}

// ---- against the per-cycle reference ------------------------------------------------

TEST(ScratchpadRandom, MatchesPerCycleReferenceOverThousandsOfCalls) {
  int array_ok = 0, array_over = 0, array_late = 0, transfers = 0, conflicted = 0;
  for (unsigned seed = 1; seed <= 6; ++seed) {
    std::mt19937_64 rng(seed);
    auto uniform = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    ScratchpadParams p = small(seed % 2 ? 1 : 2);
    p.banks = 8;
    p.word_bytes = int(4 << (seed % 3));  // 4, 8, 16
    p.total_bytes = 8 * 64 * p.word_bytes;
    p.ifmap_bytes = p.total_bytes / 2;  // 4, 2, 2 banks
    p.filter_bytes = p.total_bytes / 4;
    p.ofmap_bytes = p.total_bytes / 4;
    Scratchpad s(p);
    std::vector<Reference> ref;
    std::vector<int64_t> cursor(kPartitions, 0);
    for (Partition part : kAllPartitions)
      ref.emplace_back(s.layout(part).ports, p.word_bytes, p.read_latency, p.write_latency);
    int64_t horizon = 0;

    for (int call = 0; call < 3000; ++call) {
      const int i = int(uniform(0, kPartitions - 1));
      const Partition part = Partition(i);
      const int ports = s.layout(part).ports;
      const int64_t roll = uniform(0, 99);
      if (roll < 40) {
        // The array walks forward; sometimes it overlaps its own earlier intervals.
        cursor[i] += uniform(0, 25);
        const int64_t begin = cursor[i], end = begin + uniform(1, 60);
        const int w = int(uniform(1, ports));
        int expected = 0, got = 0;  // 0 ok, 1 over ports, 2 late
        try {
          ref[i].array_access(begin, end, w);
        } catch (const std::invalid_argument&) {
          expected = 1;
        } catch (const std::logic_error&) {
          expected = 2;
        }
        try {
          s.array_access(part, begin, end, w);
        } catch (const std::invalid_argument&) {
          got = 1;
        } catch (const std::logic_error&) {
          got = 2;
        }
        ASSERT_EQ(got, expected) << "seed " << seed << " call " << call;
        (expected == 0 ? array_ok : expected == 1 ? array_over : array_late) += 1;
      } else if (roll < 95) {
        // Mostly where the array is already declared; sometimes ahead of it.
        const int64_t arrival = std::max(horizon, cursor[i] - 150 + uniform(0, 170));
        const int64_t bytes = uniform(1, int64_t(ports) * p.word_bytes * 8);
        const bool write = uniform(0, 1) == 1;
        const auto [done, conflict] = ref[i].transfer(arrival, bytes, write);
        ASSERT_EQ(write ? s.dma_write(part, arrival, bytes) : s.dma_read(part, arrival, bytes), done)
            << "seed " << seed << " call " << call;
        ASSERT_EQ(s.last_transfer().conflict_cycles, conflict) << "seed " << seed << " call " << call;
        ++transfers;
        conflicted += conflict > 0;
      } else if (roll < 97) {
        horizon = std::max<int64_t>(horizon, *std::min_element(cursor.begin(), cursor.end()) - 200);
        s.forget_before(horizon);
      } else {
        for (int k = 0; k < 20; ++k) {
          const int64_t c = uniform(horizon, ref[i].size() + 5);
          ASSERT_EQ(s.used_slots(part, c), ref[i].used(c)) << "cycle " << c;
        }
      }
    }
    for (int i = 0; i < kPartitions; ++i) {
      const int64_t end = ref[i].size() + 10;
      EXPECT_EQ(s.reserved_slots(Partition(i), horizon, end), ref[i].reserved(horizon, end));
      EXPECT_EQ(s.stats(Partition(i)).array_word_accesses, ref[i].array_words);
    }
  }
  // Every path was exercised, not just the easy one.
  EXPECT_GT(array_ok, 1000);
  EXPECT_GT(array_over, 20);
  EXPECT_GT(array_late, 20);
  EXPECT_GT(conflicted, 500);
  EXPECT_GT(transfers, 5000);
}

TEST(ScratchpadRandom, ReservedSlotsAreExactlyTheWordsOfAllAccesses) {
  std::mt19937_64 rng(7);
  auto uniform = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  Scratchpad s(small(2));
  std::vector<int64_t> words(kPartitions, 0), cursor(kPartitions, 0);
  for (int call = 0; call < 2000; ++call) {
    const int i = int(uniform(0, kPartitions - 1));
    const Partition part = Partition(i);
    if (uniform(0, 2) == 0) {
      cursor[i] += uniform(0, 40);
      const int w = int(uniform(1, s.layout(part).ports));
      try {
        s.array_access(part, cursor[i], cursor[i] + 30, w);
        words[i] += 30 * w;
      } catch (const std::logic_error&) {
      }
    } else {
      const int64_t bytes = uniform(1, 3000);
      s.dma_write(part, cursor[i] + uniform(0, 50), bytes);
      words[i] += (bytes + kWord - 1) / kWord;
    }
  }
  for (int i = 0; i < kPartitions; ++i) {
    const Partition part = Partition(i);
    EXPECT_EQ(s.reserved_slots(part, 0, 1'000'000), words[i]) << partition_name(part);
    const PartitionStats& st = s.stats(part);
    int64_t dma_words = words[i] - st.array_word_accesses;
    EXPECT_GE(dma_words * kWord, st.dma_bytes_written);
    EXPECT_LT((dma_words - st.dma_transfers) * kWord, st.dma_bytes_written);  // < 1 word rounding each
    for (int64_t c = 0; c < 1000; c += 7) EXPECT_LE(s.used_slots(part, c), s.layout(part).ports);
  }
}

// ---- bounded memory ---------------------------------------------------------------------

TEST(ScratchpadMemory, ForgettingKeepsTheRecordSmall) {
  auto run = [](bool forget) {
    Scratchpad s(small());
    for (int64_t k = 0; k < 20000; ++k) {
      const int64_t t = 100 * k;
      s.array_access(Partition::Ifmap, t, t + 50, 2);
      EXPECT_EQ(s.dma_write(Partition::Ifmap, t, 100 * kWord), t + 50 + 3);  // 2 per cycle, exactly
      if (forget) s.forget_before(t);
    }
    return s.record_size();
  };
  EXPECT_LT(run(true), 20u);
  EXPECT_GT(run(false), 20000u);

  Scratchpad s(small());
  s.forget_before(100);
  expect_error<std::logic_error>([&] { s.dma_write(Partition::Filter, 99, 16); }, {"filter", "99", "forgotten"});
  expect_error<std::logic_error>([&] { s.array_access(Partition::Ifmap, 50, 200, 1); }, {"ifmap", "forgotten"});
  EXPECT_EQ(s.dma_write(Partition::Filter, 100, 16), 101 + 3);
}

TEST(ScratchpadMemory, ARunOfFullCyclesIsOneEntryWhateverFilledIt) {
  Scratchpad s(small());
  s.array_access(Partition::Ifmap, 0, 10, 4);
  // Issued latest-first, each exactly fills the 10 cycles before the previous one.
  for (int64_t k = 100; k >= 1; --k) EXPECT_EQ(s.dma_write(Partition::Ifmap, 10 * k, 40 * kWord), 10 * k + 10 + 3);
  EXPECT_EQ(s.reserved_slots(Partition::Ifmap, 0, 2000), 4 * 1010);
  // array: [0, 10); DMA: [10, 1010); used: [0, 1010) -- two breakpoints each.
  EXPECT_EQ(s.record_size(), 6u);
  // So the next transfer skips the whole run in one step and lands right after it.
  EXPECT_EQ(s.dma_write(Partition::Ifmap, 0, 4 * kWord), 1010 + 1 + 3);
}

// ---- residency ------------------------------------------------------------------------------

TEST(ScratchpadResidency, TracksBytesPeakAndTellsObservers) {
  Scratchpad s(small());
  Recorder rec;
  s.add_observer(&rec);
  s.occupy(Partition::Ifmap, 0, 2048);
  s.occupy(Partition::Ifmap, 10, 2048);  // both halves full
  s.release(Partition::Ifmap, 30, 2048);
  s.occupy(Partition::Filter, 5, 100);
  s.occupy(Partition::Ifmap, 30, 1000);
  EXPECT_EQ(s.residency(Partition::Ifmap), 3048);
  EXPECT_EQ(s.peak_residency(Partition::Ifmap), 4096);
  EXPECT_EQ(s.peak_residency(Partition::Filter), 100);
  EXPECT_EQ(s.peak_residency(Partition::Ofmap), 0);
  using E = std::tuple<Partition, int64_t, int64_t>;
  const std::vector<E> expected = {E{Partition::Ifmap, 0, 2048}, E{Partition::Ifmap, 10, 4096},
                                   E{Partition::Ifmap, 30, 2048}, E{Partition::Filter, 5, 100},
                                   E{Partition::Ifmap, 30, 3048}};
  EXPECT_EQ(rec.events, expected);
}

TEST(ScratchpadResidency, OverflowUnderflowAndTimeTravelAreErrors) {
  Scratchpad s(small());
  Recorder rec;
  s.add_observer(&rec);
  s.occupy(Partition::Ofmap, 10, 2000);
  expect_error<std::invalid_argument>([&] { s.occupy(Partition::Ofmap, 12, 49); },
                                      {"ofmap", "cycle 12", "2049", "2048"});
  expect_error<std::invalid_argument>([&] { s.release(Partition::Ofmap, 12, 2001); },
                                      {"ofmap", "cycle 12", "2001", "only 2000"});
  expect_error<std::logic_error>([&] { s.release(Partition::Ofmap, 9, 1); }, {"ofmap", "cycle 9", "cycle 10"});
  expect_error<std::invalid_argument>([&] { s.occupy(Partition::Ofmap, 12, 0); }, {"ofmap", "positive"});
  EXPECT_EQ(s.residency(Partition::Ofmap), 2000);  // failures changed nothing
  EXPECT_EQ(rec.events.size(), 1u);
  s.occupy(Partition::Ofmap, 12, 48);
  EXPECT_EQ(s.peak_residency(Partition::Ofmap), 2048);
  s.release(Partition::Ofmap, 12, 2048);
  EXPECT_EQ(s.residency(Partition::Ofmap), 0);
}
