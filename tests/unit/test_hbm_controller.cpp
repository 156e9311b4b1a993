// The controller end to end (HbmDevice, no kernel): closed-form latencies, FR-FCFS order,
// refresh, event skipping = cycle stepping, and thousands of random requests whose command
// stream an independent ProtocolChecker and a brute-force oracle both accept.
#include <gtest/gtest.h>

#include <deque>
#include <random>

#include "models/hbm/address_map.h"
#include "models/hbm/checker.h"
#include "models/hbm/hbm_device.h"
#include "models/hbm/scheduler/i_scheduler.h"
#include "tests/hbm_util.h"

using namespace cstsim::hbm;

namespace {


// A small stack so random traffic collides a lot: 2 channels x 2 PCs x 4 groups x 2 banks x 64 rows.
HbmSpec small_spec(const std::string& file, HbmOverrides extra = {}) {
  HbmOverrides o = {{"organization.channels", "2"}, {"organization.banks_per_group", "2"}, {"organization.rows", "64"}};
  o.insert(o.end(), extra.begin(), extra.end());
  return load_hbm_spec(file, o);
}

// Runs requests (already timed) to completion; returns completions in done order.
std::vector<HbmCompletion> run_all(HbmDevice& dev, const std::vector<HbmRequest>& reqs) {
  for (const HbmRequest& r : reqs) dev.submit(r);
  std::vector<HbmCompletion> out;
  while (!dev.idle()) {
    dev.run_until(dev.next_event());
    for (const HbmCompletion& c : dev.take_completions()) out.push_back(c);
  }
  return out;
}

HbmRequest rd(uint64_t addr, Cycle cycle, uint64_t id = 0, bool write = false) {
  HbmRequest r;
  r.addr = addr;
  r.bytes = 32;
  r.cycle = cycle;
  r.id = id;
  r.is_write = write;
  return r;
}

// Random requests: a mix of sizes, reads and writes, row locality and arrival gaps.
std::vector<HbmRequest> random_requests(const HbmDevice& dev, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const uint64_t cap = dev.address_map().capacity();
  std::vector<HbmRequest> out;
  Cycle t = 0;
  uint64_t hot = 0;
  for (int i = 0; i < n; ++i) {
    HbmRequest r;
    t += Cycle(rng() % 4);
    if (rng() % 8 == 0) t += Cycle(rng() % 3000);  // idle gaps: refresh while idle
    r.cycle = t;
    r.id = uint64_t(i);
    r.is_write = rng() % 3 == 0;
    r.bytes = (rng() % 4 == 0) ? 1 + rng() % 256 : 32;
    if (rng() % 2 == 0) hot = rng() % cap;  // half the requests stay near the last one
    r.addr = std::min<uint64_t>((hot + (rng() % 2048)) % cap, cap - r.bytes);
    out.push_back(r);
  }
  return out;
}

// Brute-force oracle, independent of TimingEngine's next-allowed tables: for each command, scan
// the history for every rule row and check the gap directly (windows by counting).
class BruteForce {
 public:
  explicit BruteForce(const HbmSpec& s) : org_(s.org), rules_(resolve_rules(s.rules(), s.timing)) {
    for (const ResolvedRule& r : rules_) horizon_ = std::max(horizon_, r.gap);
  }
  std::string check(const CommandEvent& e) {
    std::string problem;
    for (const ResolvedRule& r : rules_) {
      if (!(r.before & bit(e.cmd))) continue;
      int in_window = 0;
      for (const CommandEvent& p : history_) {
        if (!(r.after & bit(p.cmd)) || !same(r.scope, p.addr, e.addr)) continue;
        if (r.window == 0 && e.cycle < p.cycle + r.gap && problem.empty())
          problem = r.label + " after " + cmd_name(p.cmd) + " at " + std::to_string(p.cycle);
        if (r.window > 0 && p.cycle > e.cycle - r.gap) ++in_window;
      }
      if (r.window > 0 && in_window >= r.window && problem.empty()) problem = r.label;
    }
    history_.push_back(e);
    while (!history_.empty() && history_.front().cycle + horizon_ < e.cycle) history_.pop_front();
    return problem;
  }

 private:
  bool same(Scope s, const Address& a, const Address& b) const {
    if (a.channel != b.channel) return false;
    if (s == Scope::Channel) return true;
    if (a.pc != b.pc) return false;
    if (s == Scope::PseudoChannel) return true;
    if (a.bank_group != b.bank_group) return false;
    return s == Scope::BankGroup || a.bank == b.bank;
  }
  Organization org_;
  std::vector<ResolvedRule> rules_;
  Cycle horizon_ = 0;
  std::deque<CommandEvent> history_;
};

struct Verifier : HbmObserver {
  // Per-bank may owe two (its first round runs from tREFI to 2 tREFI, and may be postponed).
  explicit Verifier(const HbmSpec& s) : chk(s), oracle(s) {
    chk.expect_refresh(s.t("tREFI"), refresh_policy(s.refresh).max_owed());
  }
  void on_command(const CommandEvent& e) override {
    ++commands;
    chk.record(e.cmd, e.addr, e.cycle);
    const std::string p = oracle.check(e);
    if (!p.empty() && oracle_problem.empty())
      oracle_problem = std::to_string(e.cycle) + " " + cmd_name(e.cmd) + ": " + p;
  }
  ProtocolChecker chk;
  BruteForce oracle;
  std::string oracle_problem;
  uint64_t commands = 0;
};

void random_run_is_legal(const HbmSpec& spec, uint64_t seed, const char* scheduler) {
  HbmSpec s = spec;
  s.scheduler = scheduler;
  HbmDevice dev(s);
  Verifier v(s);
  dev.add_observer(&v);
  const auto reqs = random_requests(dev, 4000, seed);
  const auto done = run_all(dev, reqs);
  dev.run_until(dev.processed() + 10 * s.t("tREFI"));  // idle refresh catches up too
  v.chk.finish(dev.processed());
  ASSERT_EQ(done.size(), reqs.size());
  uint64_t bytes = 0, bursts = 0;
  for (const HbmCompletion& c : done) {
    bytes += c.bytes;
    bursts += c.bursts;
    EXPECT_GT(c.done, c.arrival);
  }
  uint64_t want = 0;
  for (const HbmRequest& r : reqs) want += r.bytes;
  EXPECT_EQ(bytes, want);
  const ChannelStats st = dev.total_stats();
  EXPECT_EQ(st.reads + st.writes, bursts);
  EXPECT_EQ(st.bursts(), bursts);
  EXPECT_EQ(st.activates + st.precharges + st.precharge_alls + st.reads + st.writes + st.refreshes + st.bank_refreshes,
            v.commands);
  if (s.refresh == "per_bank") {
    EXPECT_EQ(st.refreshes, 0u);
    EXPECT_GT(st.bank_refreshes, 0u);
  } else {
    EXPECT_GT(st.refreshes, 0u);
    EXPECT_EQ(st.bank_refreshes, 0u);
  }
  EXPECT_GT(st.row_hits, 0u);
  EXPECT_GT(st.row_conflicts, 0u);
  EXPECT_TRUE(v.chk.violations().empty())
      << v.chk.violations().size() << " violations, first: " << v.chk.violations().front().what;
  EXPECT_EQ(v.oracle_problem, "");
  EXPECT_EQ(v.chk.commands(), v.commands);
}

}  // namespace

// ---- Closed-form latencies (REFERENCES.md A.5) ----

TEST(HbmController, read_to_an_idle_bank_takes_tRCD_tCL_tBL) {
  HbmDevice dev(load_hbm_spec(kHbm2));
  CommandLog log;
  dev.add_observer(&log);
  const auto done = run_all(dev, {rd(0, 100)});
  const HbmSpec& s = dev.spec();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].latency(), s.t("tRCD_RD") + s.t("tCL") + s.t("tBL"));  // 12 + 18 + 2 ns
  ASSERT_EQ(log.events.size(), 2u);
  EXPECT_EQ(log.events[0].cmd, Cmd::ACT);
  EXPECT_EQ(log.events[0].cycle, 100);
  EXPECT_EQ(log.events[1].cmd, Cmd::RD);
  EXPECT_EQ(log.events[1].cycle, 100 + s.t("tRCD_RD"));
  EXPECT_EQ(log.events[1].data_end, done[0].done);
  EXPECT_EQ(dev.total_stats().row_misses, 1u);
}

TEST(HbmController, read_to_the_open_row_takes_tCL_tBL) {
  HbmDevice dev(load_hbm_spec(kHbm2));
  run_all(dev, {rd(0, 0)});
  const auto done = run_all(dev, {rd(dev.address_map().encode(Address{}) + 0, 500, 1)});
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].latency(), dev.spec().t("tCL") + dev.spec().t("tBL"));
  EXPECT_EQ(dev.total_stats().row_hits, 1u);
}

TEST(HbmController, read_to_another_row_takes_tRP_tRCD_tCL_tBL) {
  HbmDevice dev(load_hbm_spec(kHbm2));
  run_all(dev, {rd(0, 0)});
  Address other;
  other.row = 5;
  const auto done = run_all(dev, {rd(dev.address_map().encode(other), 500, 1)});
  const HbmSpec& s = dev.spec();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].latency(), s.t("tRP") + s.t("tRCD_RD") + s.t("tCL") + s.t("tBL"));
  EXPECT_EQ(dev.total_stats().row_conflicts, 1u);
}

TEST(HbmController, write_to_an_idle_bank_takes_tRCD_WR_tCWL_tBL) {
  HbmDevice dev(load_hbm_spec(kHbm3));
  const auto done = run_all(dev, {rd(4096, 7, 0, /*write*/ true)});
  const HbmSpec& s = dev.spec();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].latency(), s.t("tRCD_WR") + s.t("tCWL") + s.t("tBL"));
  EXPECT_EQ(dev.total_stats().writes, 1u);
}

TEST(HbmController, a_request_spanning_bursts_completes_with_its_last_burst) {
  HbmDevice dev(load_hbm_spec(kHbm2));
  // 100 bytes from offset 20 touch 4 bursts: [0,32) [32,64) [64,96) [96,128).
  HbmRequest r = rd(20, 0, 9);
  r.bytes = 100;
  const auto done = run_all(dev, {r});
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].bursts, 4u);
  EXPECT_EQ(done[0].id, 9u);
  EXPECT_EQ(dev.total_stats().reads, 4u);
}

TEST(HbmController, bad_requests_are_refused) {
  HbmDevice dev(load_hbm_spec(kHbm2));
  HbmRequest zero = rd(0, 0);
  zero.bytes = 0;
  EXPECT_THROW(dev.submit(zero), std::invalid_argument);
  EXPECT_THROW(dev.submit(rd(dev.address_map().capacity() - 16, 0)), std::out_of_range);
  dev.run_until(50);
  EXPECT_THROW(dev.submit(rd(0, 50)), std::invalid_argument);  // already simulated
  dev.submit(rd(0, 60));
  EXPECT_THROW(dev.submit(rd(0, 55)), std::invalid_argument);  // out of order
}

// ---- Stall attribution in the completion (row_misses, refresh_wait) ----

TEST(HbmController, a_hit_on_an_idle_open_row_has_no_row_miss_and_no_refresh_wait) {
  HbmDevice dev(load_hbm_spec(kHbm2));
  const auto first = run_all(dev, {rd(0, 100)});
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].row_misses, 1u);  // bank closed: ACT
  EXPECT_EQ(first[0].refresh_wait, 0);
  Address hit;
  hit.column = 4;
  const auto done = run_all(dev, {rd(dev.address_map().encode(hit), 500, 1)});
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].row_misses, 0u);
  EXPECT_EQ(done[0].refresh_wait, 0);
  EXPECT_EQ(done[0].latency(), dev.spec().t("tCL") + dev.spec().t("tBL"));
}

TEST(HbmController, a_request_arriving_as_an_all_bank_refresh_starts_waits_tRFC_for_it) {
  HbmDevice dev(load_hbm_spec(kHbm2));
  const HbmSpec& s = dev.spec();
  const Cycle refi = s.t("tREFI");
  const auto done = run_all(dev, {rd(0, refi)});  // ch0 pc0 issues its first REF at refi
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].refresh_wait, s.t("tRFC"));
  EXPECT_EQ(done[0].row_misses, 1u);
  EXPECT_EQ(done[0].first_issue, refi + s.t("tRFC") + s.t("tRCD_RD"));
  EXPECT_EQ(done[0].latency(), s.t("tRFC") + s.t("tRCD_RD") + s.t("tCL") + s.t("tBL"));
  // Arriving in the middle of it: the rest of tRFC.
  HbmDevice late(load_hbm_spec(kHbm2));
  const auto d2 = run_all(late, {rd(0, refi + 100)});
  ASSERT_EQ(d2.size(), 1u);
  EXPECT_EQ(d2[0].refresh_wait, s.t("tRFC") - 100);
}

TEST(HbmController, refresh_wait_is_the_union_over_the_banks_a_request_needs) {
  HbmDevice dev(load_hbm_spec(kHbm2));
  const HbmSpec& s = dev.spec();
  const Cycle refi = s.t("tREFI");
  // 64 B from 0: bursts on ch0 pc0 and ch0 pc1, which refresh at refi and refi + 1 (shared row bus).
  HbmRequest r = rd(0, refi);
  r.bytes = 64;
  const auto done = run_all(dev, {r});
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].bursts, 2u);
  EXPECT_EQ(done[0].row_misses, 2u);
  // First RD/WR on pc0 at refi + tRFC + tRCD; refreshing PCs cover [refi, refi + 1 + tRFC): not 2 x tRFC.
  EXPECT_EQ(done[0].first_issue, refi + s.t("tRFC") + s.t("tRCD_RD"));
  EXPECT_EQ(done[0].refresh_wait, s.t("tRFC") + 1);
}

TEST(HbmController, refresh_wait_under_per_bank_refresh_counts_only_the_refreshed_bank) {
  // HBM3 preset: per-bank refresh. Idle, the first REFpb of ch0 pc0 goes to the first closed
  // bank, (bg0, ba0), at tREFI (every bank starts refreshed).
  HbmDevice dev(load_hbm_spec(kHbm3, {{"organization.channels", "1"}}));
  const HbmSpec& s = dev.spec();
  CommandLog log;
  dev.add_observer(&log);
  const Cycle t0 = s.t("tREFI");
  Address other;
  other.bank_group = 1;
  const auto done = run_all(dev, {rd(0, t0 + 1, 1), rd(dev.address_map().encode(other), t0 + 1, 2)});
  ASSERT_GE(log.events.size(), 1u);
  EXPECT_EQ(log.events[0].cmd, Cmd::REFPB);
  EXPECT_EQ(log.events[0].cycle, t0);
  EXPECT_EQ(log.events[0].addr.bank_group, 0);
  EXPECT_EQ(log.events[0].addr.bank, 0);
  ASSERT_EQ(done.size(), 2u);
  const HbmCompletion& other_bank = done[0].id == 2 ? done[0] : done[1];
  const HbmCompletion& same_bank = done[0].id == 1 ? done[0] : done[1];
  // Another bank only waits tRREFD after the REFpb (no refresh_wait: its bank was not refreshing).
  EXPECT_EQ(other_bank.refresh_wait, 0);
  EXPECT_EQ(other_bank.first_issue, t0 + s.t("tRREFD") + s.t("tRCD_RD"));
  // The refreshed bank is held for tRFCpb.
  EXPECT_EQ(same_bank.refresh_wait, s.t("tRFCpb") - 1);
  EXPECT_EQ(same_bank.first_issue, t0 + s.t("tRFCpb") + s.t("tRCD_RD"));
}

// ---- Scheduling ----

TEST(HbmController, frfcfs_serves_a_younger_row_hit_before_an_older_conflict) {
  for (const char* sched : {"frfcfs", "fcfs"}) {
    HbmSpec s = load_hbm_spec(kHbm2);
    s.scheduler = sched;
    HbmDevice dev(s);
    run_all(dev, {rd(0, 0)});  // opens row 0 of bank 0
    Address conflict;
    conflict.row = 3;
    Address hit;
    hit.column = 4;
    const auto done = run_all(
        dev, {rd(dev.address_map().encode(conflict), 200, /*id*/ 1), rd(dev.address_map().encode(hit), 200, /*id*/ 2)});
    ASSERT_EQ(done.size(), 2u);
    if (std::string(sched) == "frfcfs")
      EXPECT_EQ(done[0].id, 2u) << "the hit goes first";
    else
      EXPECT_EQ(done[0].id, 1u) << "strict arrival order";
  }
}

TEST(HbmController, unknown_scheduler_lists_the_known_ones) {
  try {
    make_scheduler("lottery");
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown scheduler 'lottery' (known: fcfs, frfcfs)");
  }
  EXPECT_STREQ(make_scheduler("frfcfs")->name(), "frfcfs");
}

// ---- Refresh ----

TEST(HbmController, idle_pseudo_channels_refresh_exactly_every_tREFI) {
  HbmDevice dev(small_spec(kHbm2));
  CommandLog log;
  dev.add_observer(&log);
  const Cycle refi = dev.spec().t("tREFI");
  dev.run_until(10 * refi + 1);
  const int pcs = dev.spec().org.pcs();
  EXPECT_EQ(dev.total_stats().refreshes, uint64_t(10 * pcs));
  // The two PCs of a channel share the row bus: one REF at k*tREFI, the other one cycle later.
  for (size_t i = 0; i < log.events.size(); ++i) {
    const CommandEvent& e = log.events[i];
    EXPECT_EQ(e.cmd, Cmd::REF);
    EXPECT_EQ(e.cycle, Cycle(i / size_t(pcs) + 1) * refi + e.addr.pc);
  }
}

TEST(HbmController, a_read_during_refresh_waits_for_tRFC) {
  HbmDevice dev(load_hbm_spec(kHbm2));
  const HbmSpec& s = dev.spec();
  const Cycle refi = s.t("tREFI");
  const auto done = run_all(dev, {rd(0, refi + 1)});  // REF of ch0 pc0 went at refi
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].done, refi + s.t("tRFC") + s.t("tRCD_RD") + s.t("tCL") + s.t("tBL"));
}

TEST(HbmController, refresh_closes_open_rows_first) {
  HbmDevice dev(load_hbm_spec(kHbm2));
  CommandLog log;
  dev.add_observer(&log);
  run_all(dev, {rd(0, 0)});
  const Cycle refi = dev.spec().t("tREFI");
  dev.run_until(refi + 100);
  // ACT, RD, then PREA at tREFI and REF tRP later, both on ch0 pc0.
  std::vector<CommandEvent> pc0;
  for (const CommandEvent& e : log.events)
    if (e.addr.channel == 0 && e.addr.pc == 0) pc0.push_back(e);
  ASSERT_EQ(pc0.size(), 4u);
  EXPECT_EQ(pc0[2].cmd, Cmd::PREA);
  EXPECT_EQ(pc0[2].cycle, refi);
  EXPECT_EQ(pc0[3].cmd, Cmd::REF);
  EXPECT_EQ(pc0[3].cycle, refi + dev.spec().t("tRP"));
  EXPECT_EQ(pc0[3].channel_open_rows, 0);
}

// ---- Event skipping is exact ----

static void event_skipping_matches_cycle_stepping(const HbmSpec& s) {
  HbmDevice fast(s), slow(s);
  slow.set_cycle_stepping(true);
  CommandLog a, b;
  fast.add_observer(&a);
  slow.add_observer(&b);
  const auto reqs = random_requests(fast, 1500, 7);
  const auto da = run_all(fast, reqs);
  const auto db = run_all(slow, reqs);
  fast.run_until(slow.processed());
  ASSERT_EQ(a.events.size(), b.events.size());
  for (size_t i = 0; i < a.events.size(); ++i) {
    ASSERT_EQ(a.events[i].cycle, b.events[i].cycle) << i;
    ASSERT_EQ(a.events[i].cmd, b.events[i].cmd) << i;
    ASSERT_EQ(a.events[i].addr, b.events[i].addr) << i;
  }
  ASSERT_EQ(da.size(), db.size());
  for (size_t i = 0; i < da.size(); ++i) {
    EXPECT_EQ(da[i].id, db[i].id);
    EXPECT_EQ(da[i].done, db[i].done);
    EXPECT_EQ(da[i].row_misses, db[i].row_misses);
    EXPECT_EQ(da[i].refresh_wait, db[i].refresh_wait);
  }
}

TEST(HbmController, event_skipping_matches_cycle_stepping) { event_skipping_matches_cycle_stepping(small_spec(kHbm2)); }

TEST(HbmController, event_skipping_matches_cycle_stepping_with_per_bank_refresh) {
  event_skipping_matches_cycle_stepping(small_spec(kHbm3));
  event_skipping_matches_cycle_stepping(small_spec(kHbm3, {{"timing.tREFI", "1000ck"}}));
}

// ---- Random traffic through the scheduler vs the independent checker ----

TEST(HbmController, random_requests_through_frfcfs_pass_the_checker_hbm2) {
  random_run_is_legal(small_spec(kHbm2), 1, "frfcfs");
}

TEST(HbmController, random_requests_through_frfcfs_pass_the_checker_hbm3) {
  random_run_is_legal(small_spec(kHbm3), 2, "frfcfs");
}

TEST(HbmController, random_requests_through_fcfs_pass_the_checker) {
  random_run_is_legal(small_spec(kHbm2), 3, "fcfs");
}

TEST(HbmController, random_requests_with_a_tiny_window_and_short_refresh_pass_the_checker) {
  random_run_is_legal(small_spec(kHbm3, {{"controller.queue_depth", "2"}, {"timing.tREFI", "1000ck"}}), 4, "frfcfs");
}

// Per-bank refresh (the HBM3 preset's mode) with the HBM2 REFSB timings, through FCFS, and the
// all-bank mode on HBM3 too.
TEST(HbmController, random_requests_with_per_bank_refresh_pass_the_checker) {
  random_run_is_legal(small_spec(kHbm2, {{"controller.refresh", "per_bank"}}), 5, "frfcfs");
  random_run_is_legal(small_spec(kHbm3), 6, "fcfs");
  random_run_is_legal(small_spec(kHbm3, {{"timing.tREFI", "700ck"}, {"controller.queue_depth", "4"}}), 7, "frfcfs");
}

TEST(HbmController, random_requests_with_all_bank_refresh_on_hbm3_pass_the_checker) {
  random_run_is_legal(small_spec(kHbm3, {{"controller.refresh", "all_bank"}}), 8, "frfcfs");
}
