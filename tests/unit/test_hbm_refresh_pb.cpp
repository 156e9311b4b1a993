// Per-bank refresh (controller.refresh: per_bank; HBM3 REFpb, HBM2 single-bank refresh REFSB):
// every bank is refreshed exactly once per round of banks_per_pc REFpbs, one REFpb due every
// tREFI / banks_per_pc, so once per tREFI window; a REFpb only goes to a closed bank and holds
// it alone for tRFCpb while the other banks keep working; the checker accepts the streams.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "models/hbm/bank.h"
#include "models/hbm/checker.h"
#include "models/hbm/hbm_device.h"
#include "models/hbm/traffic.h"
#include "tests/hbm_util.h"

using namespace cstsim::hbm;

namespace {


int flat_bank(const HbmSpec& s, const Address& a) { return a.bank_group * s.org.banks_per_group + a.bank; }

// The REFpbs of each pseudo-channel (channel x pseudo_channels + pc), in issue order.
std::map<int, std::vector<CommandEvent>> refpbs_by_pc(const HbmSpec& s, const std::vector<CommandEvent>& events) {
  std::map<int, std::vector<CommandEvent>> out;
  for (const CommandEvent& e : events)
    if (e.cmd == Cmd::REFPB) out[e.addr.channel * s.org.pseudo_channels + e.addr.pc].push_back(e);
  return out;
}

// REFpb number k (0, 1, ...) of a pseudo-channel is due at tREFI + floor(k tREFI / B): every
// bank starts refreshed at cycle 0 (refresh/impl/per_bank.cpp).
Cycle due_of(const HbmSpec& s, int64_t k) { return s.t("tREFI") + k * s.t("tREFI") / s.org.banks_per_pc(); }

// The rounds of every pseudo-channel that ran until `end`:
//  - REFpb number k goes no earlier than it is due and no later than `slack` after REFpb
//    k + B/2 is due (at most B/2 may be postponed);
//  - each round, REFpbs rB .. rB + B - 1, refreshes every bank exactly once: so round r lies
//    within [(r+1) tREFI, (r+2) tREFI + tREFI/2 + slack];
//  - every bank was refreshed floor(n / B) or floor(n / B) + 1 times, n >= (REFpbs due by end) - B/2 - 1.
void expect_rounds(const HbmSpec& s, const std::vector<CommandEvent>& events, Cycle end, Cycle slack) {
  const int B = s.org.banks_per_pc();
  const Cycle T = s.t("tREFI");
  const int postponed = std::max(1, B / 2);
  const auto by_pc = refpbs_by_pc(s, events);
  ASSERT_EQ(int(by_pc.size()), s.org.pcs());
  for (const auto& [pc, refs] : by_pc) {
    int64_t due_by_end = 0;
    while (due_of(s, due_by_end) <= end) ++due_by_end;
    EXPECT_LE(int64_t(refs.size()), due_by_end) << "pc " << pc;
    EXPECT_GE(int64_t(refs.size()), due_by_end - postponed - 1) << "pc " << pc;
    std::vector<int> count(size_t(B), 0);
    for (size_t i = 0; i < refs.size(); ++i) {
      const int64_t k = int64_t(i);
      EXPECT_GE(refs[i].cycle, due_of(s, k)) << "pc " << pc << " REFpb " << k << " went before it was due";
      EXPECT_LE(refs[i].cycle, due_of(s, k + postponed) + slack) << "pc " << pc << " REFpb " << k << " went too late";
      ++count[size_t(flat_bank(s, refs[i].addr))];
      if ((k + 1) % B == 0) {  // a complete round: every bank exactly once
        for (int b = 0; b < B; ++b)
          ASSERT_EQ(count[size_t(b)], (k + 1) / B) << "pc " << pc << " bank " << b << " in round " << (k + 1) / B;
      }
    }
    const int rounds = int(refs.size()) / B;
    for (int b = 0; b < B; ++b) {
      EXPECT_GE(count[size_t(b)], rounds) << "pc " << pc << " bank " << b;
      EXPECT_LE(count[size_t(b)], rounds + 1) << "pc " << pc << " bank " << b;
      EXPECT_GE(count[size_t(b)], end / T - 2) << "pc " << pc << " bank " << b << ": once per tREFI";
    }
  }
}

// Independent of the checker: per bank, REFpb only to a closed bank, nothing reaches it for
// tRFCpb after; counts commands to other banks of the same PC inside those intervals.
struct BankWatch : HbmObserver {
  explicit BankWatch(const HbmSpec& s)
      : spec(s), open(size_t(s.org.pcs() * s.org.banks_per_pc()), -1), busy_until(open.size(), -1) {}
  void on_command(const CommandEvent& e) override {
    const int pc = e.addr.channel * spec.org.pseudo_channels + e.addr.pc;
    const size_t b = size_t(pc * spec.org.banks_per_pc() + flat_bank(spec, e.addr));
    switch (e.cmd) {
      case Cmd::REFPB:
        if (open[b] >= 0) ++refpb_to_open;
        busy_until[b] = e.cycle + spec.t("tRFCpb");
        ++refpbs;
        break;
      case Cmd::ACT:
      case Cmd::PRE:
      case Cmd::RD:
      case Cmd::WR:
        ++commands;
        if (e.cycle < busy_until[b]) ++into_refreshing_bank;
        for (int o = 0; o < spec.org.banks_per_pc(); ++o)
          if (e.cycle < busy_until[size_t(pc * spec.org.banks_per_pc() + o)]) {
            ++while_a_bank_refreshes;
            break;
          }
        if (e.cmd == Cmd::ACT) open[b] = e.addr.row;
        if (e.cmd == Cmd::PRE) open[b] = -1;
        break;
      case Cmd::PREA:
      case Cmd::REF: ADD_FAILURE() << "all-bank command under per-bank refresh"; break;
    }
  }
  const HbmSpec& spec;
  std::vector<int64_t> open;
  std::vector<Cycle> busy_until;
  int refpbs = 0, refpb_to_open = 0, into_refreshing_bank = 0, while_a_bank_refreshes = 0, commands = 0;
};

TrafficResult run(HbmDevice& dev, Pattern p, uint64_t bytes, double writes = 0.0) {
  TrafficOptions o;
  o.pattern = p;
  o.total_bytes = bytes;
  o.write_fraction = writes;
  return run_traffic(dev, o);
}

}  // namespace

TEST(HbmRefreshPb, idle_pseudo_channels_refresh_each_bank_once_per_tREFI_in_turn) {
  const HbmSpec s = load_hbm_spec(kHbm3, {{"organization.channels", "1"}});
  HbmDevice dev(s);
  CommandLog log;
  dev.add_observer(&log);
  const Cycle T = s.t("tREFI");
  const int B = s.org.banks_per_pc();
  dev.run_until(21 * T - T / B + 100);
  EXPECT_EQ(dev.total_stats().bank_refreshes, uint64_t(20 * B * s.org.pcs()));
  EXPECT_EQ(dev.total_stats().refreshes, 0u);
  // REFpb k of pc p at tREFI + floor(k tREFI / 16) + p (the 2 PCs share the row bus), banks in turn.
  const auto by_pc = refpbs_by_pc(s, log.events);
  for (const auto& [pc, refs] : by_pc) {
    ASSERT_EQ(refs.size(), size_t(20 * B));
    for (size_t i = 0; i < refs.size(); ++i) {
      EXPECT_EQ(refs[i].cycle, due_of(s, int64_t(i)) + pc) << i;
      EXPECT_EQ(flat_bank(s, refs[i].addr), int(i) % B) << i;
    }
  }
  expect_rounds(s, log.events, 21 * T - T / B + 100, 0 + 1);
}

TEST(HbmRefreshPb, every_bank_is_refreshed_once_per_tREFI_under_sequential_traffic) {
  const HbmSpec s = load_hbm_spec(kHbm3, {{"organization.channels", "1"}, {"organization.pseudo_channels", "1"}});
  HbmDevice dev(s);
  CommandLog log;
  dev.add_observer(&log);
  const TrafficResult r = run(dev, Pattern::Seq, 4 << 20);  // ~42 tREFI
  ASSERT_GT(r.end_cycle, 40 * s.t("tREFI"));
  expect_rounds(s, log.events, r.end_cycle, s.t("tRC") + s.t("tRP"));
}

TEST(HbmRefreshPb, every_bank_is_refreshed_once_per_tREFI_under_random_traffic) {
  for (const std::string& file : {kHbm3, kHbm2}) {
    const HbmSpec s = load_hbm_spec(file, {{"organization.channels", "1"}, {"controller.refresh", "per_bank"}});
    HbmDevice dev(s);
    CommandLog log;
    ProtocolChecker chk(s);
    chk.expect_refresh(s.t("tREFI"), 2);  // per-bank: the first round ends by 2 tREFI, and may be postponed
    struct Both : HbmObserver {
      CommandLog* log;
      ProtocolChecker* chk;
      void on_command(const CommandEvent& e) override {
        log->on_command(e);
        chk->record(e.cmd, e.addr, e.cycle);
      }
    } both;
    both.log = &log;
    both.chk = &chk;
    dev.add_observer(&both);
    const TrafficResult r = run(dev, Pattern::Random, 2 << 20, 0.3);
    ASSERT_GT(r.end_cycle, 30 * s.t("tREFI")) << file;
    chk.finish(r.end_cycle);
    EXPECT_TRUE(chk.violations().empty()) << file << ": " << chk.violations().front().what;
    expect_rounds(s, log.events, r.end_cycle, s.t("tRC") + s.t("tRP") + s.t("tWR") + s.t("tCWL"));
  }
}

TEST(HbmRefreshPb, a_refpb_goes_to_a_closed_bank_and_holds_only_that_bank_for_tRFCpb) {
  const HbmSpec s = load_hbm_spec(kHbm3, {{"organization.channels", "1"}, {"organization.rows", "64"}});
  HbmDevice dev(s);
  BankWatch watch(s);
  dev.add_observer(&watch);
  run(dev, Pattern::Random, 1 << 20, 0.3);
  EXPECT_GT(watch.refpbs, 500);
  EXPECT_EQ(watch.refpb_to_open, 0);
  EXPECT_EQ(watch.into_refreshing_bank, 0);
  // The other banks keep serving while one refreshes: half the commands (measured) go while
  // some bank of their PC is inside tRFCpb.
  EXPECT_GT(watch.while_a_bank_refreshes, watch.commands / 3);
}

TEST(HbmRefreshPb, the_bank_state_machine_refuses_a_refpb_to_an_open_bank) {
  PcBanks banks(4, 4);
  Address a;
  a.bank_group = 2;
  a.bank = 1;
  a.row = 7;
  banks.apply(Cmd::ACT, a);
  EXPECT_EQ(banks.illegal(Cmd::REFPB, a), "REFpb to an open bank (row 7 is open)");
  EXPECT_THROW(banks.apply(Cmd::REFPB, a), std::logic_error);
  Address other = a;
  other.bank = 0;
  EXPECT_EQ(banks.illegal(Cmd::REFPB, other), "");
  banks.apply(Cmd::PRE, a);
  EXPECT_NO_THROW(banks.apply(Cmd::REFPB, a));
  EXPECT_EQ(banks.open_count(), 0);
}

TEST(HbmRefreshPb, a_sequential_stream_hardly_waits_for_a_refpb) {
  // The refreshed bank is the idle one the stream left last (its row read to the end): it comes
  // back to it only after the other 12 banks, long after tRFCpb. So refresh costs the stream
  // only the tRREFD/tFAW slots of the REFpbs, which its early ACTs nearly absorb: 657 REFpbs
  // cost 16 CK of 262,197 (the stream at 99.97 % of the bus either way).
  const HbmOverrides one_pc = {{"organization.channels", "1"}, {"organization.pseudo_channels", "1"}};
  HbmOverrides off = one_pc;
  off.emplace_back("controller.refresh", "none");
  HbmDevice with(load_hbm_spec(kHbm3, one_pc)), without(load_hbm_spec(kHbm3, off));
  const TrafficResult a = run(with, Pattern::Seq, 4 << 20), b = run(without, Pattern::Seq, 4 << 20);
  EXPECT_GT(a.stats.bank_refreshes, 600u);
  EXPECT_GE(a.end_cycle, b.end_cycle);
  EXPECT_LE(a.end_cycle - b.end_cycle, b.end_cycle / 10000);
}

// Sampled mode skips an idle stretch in whole refresh periods (ChannelController::skip_idle):
// the same refreshes are counted as stepping through it issues, every row ends closed, the
// checker (told of the skip) finds no violation, and a request after it waits as after stepping.
TEST(HbmRefreshPb, an_idle_skip_counts_the_refreshes_stepping_issues_and_keeps_the_phase) {
  for (const char* policy : {"per_bank", "all_bank"}) {
    SCOPED_TRACE(policy);
    const HbmSpec s = load_hbm_spec(kHbm3, {{"organization.channels", "2"}, {"controller.refresh", policy}});
    const Cycle T = s.t("tREFI");
    HbmDevice stepped(s), skipped(s);
    ProtocolWatch watch(s, 0);
    CommandLog log;
    skipped.add_observer(&watch);
    skipped.add_observer(&log);
    skipped.enable_idle_skip();
    TrafficOptions o;
    o.total_bytes = 64 << 10;
    const Cycle busy = run_traffic(stepped, o).end_cycle;
    ASSERT_EQ(run_traffic(skipped, o).end_cycle, busy) << "nothing idle to skip yet: the same run";
    const Cycle idle_end = busy + 40 * T + T / 3;
    stepped.run_until(idle_end);
    skipped.run_until(idle_end);
    const ChannelStats a = stepped.total_stats(), b = skipped.total_stats();
    EXPECT_EQ(a.refreshes, b.refreshes);
    EXPECT_EQ(a.bank_refreshes, b.bank_refreshes);
    EXPECT_EQ(a.refresh_bank_busy, b.refresh_bank_busy);
    EXPECT_GE(a.refreshes + a.bank_refreshes, uint64_t(40 * s.org.pcs()));
    // Skipped, not stepped: of the refreshes counted, only the last period's were issued.
    const auto issued = std::count_if(log.events.begin(), log.events.end(),
                                      [](const CommandEvent& e) { return e.cmd == Cmd::REF || e.cmd == Cmd::REFPB; });
    EXPECT_LT(uint64_t(issued) * 10, b.refreshes + b.bank_refreshes);
    EXPECT_EQ(a.open_rows, 0);
    EXPECT_EQ(b.open_rows, 0);
    // The same request after the stretch: the refresh phase is the same, so is its latency
    // within one refresh's busy time (which bank is refreshed when may differ).
    HbmRequest r;
    r.addr = 1 << 20;
    r.bytes = 256;
    r.cycle = idle_end + 1;
    Cycle done[2];
    HbmDevice* devs[2] = {&stepped, &skipped};
    for (int k = 0; k < 2; ++k) {
      devs[k]->submit(r);
      std::vector<HbmCompletion> c;
      for (int n = 0; n < 100000 && c.empty(); ++n) {
        devs[k]->run_until(devs[k]->next_event());
        c = devs[k]->take_completions();
      }
      ASSERT_EQ(c.size(), 1u);
      done[k] = c[0].done;
    }
    EXPECT_LE(std::abs(done[0] - done[1]), std::string(policy) == "per_bank" ? s.t("tRFCpb") : s.t("tRFC"));
    skipped.run_until(idle_end + 3 * T);
    EXPECT_NO_THROW(watch.finish());
  }
}

// Sampled mode stratifies a window's refresh phase (HbmDevice::rephase_refresh): with the stack
// idle, the next refresh after the window's first cycle falls the asked fraction of a period
// after it, the schedule stays within half a period of the run's own, and the checker (which
// counts refreshes against floor(cycle / tREFI)) finds none missing, window after window.
TEST(HbmRefreshPb, a_rephased_refresh_falls_due_where_asked_and_none_is_lost) {
  for (const char* policy : {"per_bank", "all_bank"}) {
    SCOPED_TRACE(policy);
    const HbmSpec s = load_hbm_spec(kHbm3, {{"organization.channels", "2"}, {"controller.refresh", policy}});
    const bool per_bank = std::string(policy) == "per_bank";
    const Cycle T = s.t("tREFI"), step = per_bank ? T / s.org.banks_per_pc() : T;
    HbmDevice dev(s);
    ProtocolWatch watch(s, 0);
    CommandLog log;
    dev.add_observer(&watch);
    dev.add_observer(&log);
    dev.enable_idle_skip();
    Cycle at = 3 * T + 17;
    for (double f : {0.1, 0.95, 0.4, 0.7, 0.05, 0.6}) {
      dev.rephase_refresh(at, f);
      const size_t seen = log.events.size();
      HbmRequest r;  // the window's traffic
      r.addr = uint64_t(at) << 8;
      r.bytes = 4096;
      r.cycle = at;
      dev.submit(r);
      dev.run_until(at + 2 * T);
      const auto first = std::find_if(log.events.begin() + long(seen), log.events.end(), [&](const CommandEvent& e) {
        return e.cycle >= at && (e.cmd == Cmd::REF || e.cmd == Cmd::REFPB);
      });
      ASSERT_NE(first, log.events.end());
      // Due at + f T (mod the policy's step); issued once the window's open row has had its tRAS
      // and been precharged (tRP).
      const Cycle late = ((first->cycle - at - Cycle(f * double(T))) % step + step) % step;
      EXPECT_LE(late, s.t("tRP") + s.t("tRAS") + 8) << "at " << at << " fraction " << f << ": " << first->cycle;
      dev.take_completions();
      at += 7 * T + T / 5;
    }
    EXPECT_NO_THROW(watch.finish());
  }
}
