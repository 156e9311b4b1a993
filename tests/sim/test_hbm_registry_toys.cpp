// An HBM scheduler and a refresh policy are each one registration (CONTRIBUTING.md): the toys
// below exist only in this file, yet `controller.scheduler` / `controller.refresh` take their names,
// hbm-bench runs them, and an unknown name lists them. They register inside the test, not at
// start-up, so the Registry tests' lists of the built-in names stay what they are: ctest runs each
// test in a process of its own. The benches run without the SystemC kernel (--engine direct), which
// elaborates once a process.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "models/hbm/refresh/i_refresh.h"
#include "models/hbm/scheduler/i_scheduler.h"
#include "sim/bench/hbm_bench.h"

namespace cstsim::hbm {
namespace {

int toy_decisions = 0;
int toy_configured = 0;

// FCFS under another name, counting its decisions: the bench must give FCFS's cycles exactly.
class ToyOldestFirst final : public IScheduler {
 public:
  Decision decide(const std::vector<Candidate>& cands, Cycle now) const override {
    ++toy_decisions;
    Decision d;
    int oldest = -1;
    for (size_t i = 0; i < cands.size(); ++i)
      if (oldest < 0 || cands[i].seq < cands[size_t(oldest)].seq) oldest = int(i);
    if (oldest < 0) return d;
    if (cands[size_t(oldest)].ready <= now) d.pick = oldest;
    else d.wake = cands[size_t(oldest)].ready;
    return d;
  }
  const char* name() const override { return "toy_oldest_first"; }
};

// No refresh, as `none`, counting the controllers that configured it.
class ToyNeverRefresh final : public IRefreshPolicy {
 public:
  const char* name() const override { return "toy_never"; }
  std::string check(const HbmSpec&) const override { return ""; }
  double expected_share(const HbmSpec&) const override { return 0.0; }
  int max_owed() const override { return 0; }
  void configure(const HbmSpec&) override { ++toy_configured; }
  void start_at(Cycle) override {}
  void tick(Cycle) override {}
  Cycle next_due() const override { return kNever; }
  bool owes() const override { return false; }
  std::optional<RefreshStep> next_step(const PcView&) override { return std::nullopt; }
  bool holds_pc() const override { return false; }
  int withheld_bank() const override { return -1; }
  void issued(Cmd, int) override {}
};

struct ToyBench {
  int rc;
  std::string out, err;
};

ToyBench toy_bench(const std::vector<std::string>& set) {
  std::vector<std::string> args = {"--memory", CSTSIM_SOURCE_DIR "/configs/memory/hbm2-2000.yaml", "--pattern",
                                   "random", "--bytes", "256KiB", "--engine", "direct", "--json"};
  for (const std::string& s : set) args.insert(args.end(), {"--set", s});
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int rc = hbm_bench_command(args);
  return {rc, ::testing::internal::GetCapturedStdout(), ::testing::internal::GetCapturedStderr()};
}

TEST(HbmRegistryToys, ARegisteredSchedulerRunsByItsName) {
  ASSERT_TRUE(Registry<IScheduler>::instance().add("toy_oldest_first", [] { return std::make_unique<ToyOldestFirst>(); }));
  const ToyBench toy = toy_bench({"controller.scheduler=toy_oldest_first"});
  ASSERT_EQ(toy.rc, 0) << toy.err;
  EXPECT_GT(toy_decisions, 0);
  const ToyBench fcfs = toy_bench({"controller.scheduler=fcfs"}), frfcfs = toy_bench({"controller.scheduler=frfcfs"});
  ASSERT_EQ(fcfs.rc, 0) << fcfs.err;
  const auto t = nlohmann::json::parse(toy.out), f = nlohmann::json::parse(fcfs.out), fr = nlohmann::json::parse(frfcfs.out);
  EXPECT_EQ(t["cycles"], f["cycles"]);  // FCFS's order, so FCFS's time to the cycle
  EXPECT_LT(fr["cycles"].get<int64_t>(), t["cycles"].get<int64_t>());  // and not FR-FCFS's
  const ToyBench unknown = toy_bench({"controller.scheduler=lifo"});
  EXPECT_EQ(unknown.rc, 2);
  EXPECT_NE(unknown.err.find("unknown scheduler 'lifo' (known: fcfs, frfcfs, toy_oldest_first)"), std::string::npos)
      << unknown.err;
}

TEST(HbmRegistryToys, ARegisteredRefreshPolicyRunsByItsName) {
  ASSERT_TRUE(Registry<IRefreshPolicy>::instance().add("toy_never", [] { return std::make_unique<ToyNeverRefresh>(); }));
  const ToyBench toy = toy_bench({"controller.refresh=toy_never"}), none = toy_bench({"controller.refresh=none"});
  ASSERT_EQ(toy.rc, 0) << toy.err;
  ASSERT_EQ(none.rc, 0) << none.err;
  EXPECT_GT(toy_configured, 0);
  const auto t = nlohmann::json::parse(toy.out), n = nlohmann::json::parse(none.out);
  EXPECT_EQ(t["memory"]["refresh"], "toy_never");
  EXPECT_EQ(t["refresh_share"].get<double>(), 0.0);
  EXPECT_EQ(t["refresh_share_expected"].get<double>(), 0.0);
  EXPECT_EQ(t["cycles"], n["cycles"]);
  EXPECT_EQ(t["commands"]["REF"], 0);
  const ToyBench unknown = toy_bench({"controller.refresh=sometimes"});
  EXPECT_EQ(unknown.rc, 2);
  EXPECT_NE(unknown.err.find("toy_never"), std::string::npos) << unknown.err;
}

}  // namespace
}  // namespace cstsim::hbm
