// The SystemC shell: same results as the kernel-free device, completions at the data-ready
// time across clock domains, idle time jumped. One sc_start per test (each runs in its own
// process under ctest).
#include <gtest/gtest.h>

#include <cmath>
#include <systemc>

#include "models/hbm/hbm_module.h"
#include "tests/hbm_util.h"

using namespace cstsim::hbm;

namespace {


// An accelerator-side thread on its own clock (1.5 ns) that reads twice, far apart.
struct Dma : sc_core::sc_module {
  SC_HAS_PROCESS(Dma);
  Dma(sc_core::sc_module_name n, HbmModule& hbm) : sc_core::sc_module(n), hbm_(hbm) {
    hbm_.set_completion_callback([this](const HbmCompletion& c) {
      done.push_back(c);
      seen_at.push_back(sc_core::sc_time_stamp());
      got_.notify(sc_core::SC_ZERO_TIME);
    });
    SC_THREAD(run);
  }
  void run() {
    const sc_core::sc_time T(1.5, sc_core::SC_NS);
    wait(3 * T);  // accelerator cycle 3 = 4.5 ns
    HbmRequest r;
    r.bytes = 32;
    r.id = 1;
    arrival = hbm_.submit(r);
    wait(got_);
    acc_cycle_done = int64_t(std::ceil(sc_core::sc_time_stamp() / T));
    wait(sc_core::sc_time(1, sc_core::SC_MS));  // a long idle stretch
    r.id = 2;
    hbm_.submit(r);
    wait(got_);
    hbm_.sync();
  }
  HbmModule& hbm_;
  sc_core::sc_event got_;
  Cycle arrival = -1;
  int64_t acc_cycle_done = -1;
  std::vector<HbmCompletion> done;
  std::vector<sc_core::sc_time> seen_at;
};

}  // namespace

TEST(HbmModule, completions_arrive_at_the_data_ready_time_across_clock_domains) {
  HbmModule hbm("hbm", load_hbm_spec(kHbm2));
  Dma dma("dma", hbm);
  sc_core::sc_start();
  const HbmSpec& s = hbm.device().spec();
  // Submitted at 4.5 ns: enters at the first HBM edge after it, cycle 5.
  EXPECT_EQ(dma.arrival, 5);
  ASSERT_EQ(dma.done.size(), 2u);
  const Cycle done = 5 + s.t("tRCD_RD") + s.t("tCL") + s.t("tBL");  // 37
  EXPECT_EQ(dma.done[0].done, done);
  EXPECT_EQ(dma.seen_at[0], hbm.time_of(done));
  EXPECT_EQ(dma.acc_cycle_done, 25);  // ceil(37 ns / 1.5 ns)
  // The second read, 1 ms later: the bank was closed by refresh in between.
  EXPECT_EQ(dma.done[1].latency(), s.t("tRCD_RD") + s.t("tCL") + s.t("tBL"));
  // 1 ms of HBM time is 1e6 cycles; the process ran a handful of times.
  EXPECT_LT(hbm.activations(), 20u);
  // sync() caught refresh up: one REF per tREFI per pseudo-channel.
  const Cycle now = Cycle(sc_core::sc_time_stamp() / hbm.period());
  EXPECT_EQ(hbm.device().total_stats().refreshes, uint64_t(now / s.t("tREFI") * s.org.pcs()));
}

TEST(HbmModule, matches_the_kernel_free_device_cycle_for_cycle) {
  const HbmSpec spec = load_hbm_spec(kHbm2, {{"organization.channels", "2"}, {"organization.rows", "256"}});
  TrafficOptions o;
  o.pattern = Pattern::Random;
  o.total_bytes = 64 << 10;
  o.request_bytes = 64;
  o.write_fraction = 0.3;
  o.outstanding = 24;
  const TrafficResult sc = run_traffic_systemc(spec, o);
  HbmDevice dev(spec);
  const TrafficResult direct = run_traffic(dev, o, 1);
  EXPECT_EQ(sc.requests, 1024u);
  EXPECT_EQ(sc.end_cycle, direct.end_cycle);
  EXPECT_EQ(sc.latencies, direct.latencies);
  EXPECT_EQ(sc.stats.activates, direct.stats.activates);
  EXPECT_EQ(sc.stats.reads, direct.stats.reads);
  EXPECT_EQ(sc.stats.writes, direct.stats.writes);
  EXPECT_EQ(sc.stats.refreshes, direct.stats.refreshes);
  EXPECT_EQ(sc.stats.data_bus_busy, direct.stats.data_bus_busy);
}

TEST(HbmModule, matches_the_kernel_free_device_with_per_bank_refresh) {
  const HbmSpec spec = load_hbm_spec(kHbm3, {{"organization.channels", "2"}, {"organization.rows", "256"}});
  ASSERT_EQ(spec.refresh, "per_bank");
  TrafficOptions o;
  o.pattern = Pattern::Random;
  o.total_bytes = 256 << 10;
  o.request_bytes = 64;
  o.write_fraction = 0.3;
  o.outstanding = 24;
  const TrafficResult sc = run_traffic_systemc(spec, o);
  HbmDevice dev(spec);
  const TrafficResult direct = run_traffic(dev, o, 1);
  EXPECT_EQ(sc.end_cycle, direct.end_cycle);
  EXPECT_EQ(sc.latencies, direct.latencies);
  EXPECT_GT(sc.stats.bank_refreshes, 0u);
  EXPECT_EQ(sc.stats.bank_refreshes, direct.stats.bank_refreshes);
  EXPECT_EQ(sc.stats.refresh_bank_busy, direct.stats.refresh_bank_busy);
}

TEST(HbmModule, timed_idle_refresh_reports_every_command_on_time) {
  struct Late : HbmObserver {
    const HbmModule* hbm = nullptr;
    int late = 0, refs = 0;
    void on_command(const CommandEvent& e) override {
      refs += e.cmd == Cmd::REF;
      late += hbm->time_of(e.cycle) < sc_core::sc_time_stamp();
    }
  } obs;
  HbmModule hbm("hbm", load_hbm_spec(kHbm2, {{"organization.channels", "1"}}), IdleRefresh::Timed);
  obs.hbm = &hbm;
  hbm.device().add_observer(&obs);
  sc_core::sc_start(sc_core::sc_time(20, sc_core::SC_US));
  EXPECT_EQ(obs.refs, 2 * 5);  // 2 PCs, REF at 3.9, 7.8, 11.7, 15.6, 19.5 us
  EXPECT_EQ(obs.late, 0);
  EXPECT_LE(hbm.activations(), 2u * 5 + 2);
}
