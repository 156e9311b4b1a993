// One test per row of the HBM timing tables (models/hbm/timing_table.cpp), ramulator2-style:
// issue commands at chosen cycles, then assert the earliest legal cycle of the next one, that
// one cycle earlier is a violation naming that row, and that the earliest cycle is accepted.
// The test spec gives every timing a distinct value, so only the row under test can produce
// the expected cycle.
#include <gtest/gtest.h>

#include "models/hbm/checker.h"
#include "models/hbm/hbm_spec.h"
#include "models/hbm/timing_engine.h"
#include "tests/hbm_util.h"

using namespace cstsim::hbm;

namespace {


// Pairwise distinct where two rows could otherwise bind the same pair of commands.
HbmSpec distinct_spec(HbmOverrides extra = {}) {
  HbmOverrides o = {
      {"timing.tBL", "2ck"},      {"timing.tCL", "17ck"},    {"timing.tCWL", "7ck"},   {"timing.tRCD_RD", "13ck"},
      {"timing.tRCD_WR", "8ck"},  {"timing.tRP", "15ck"},    {"timing.tRAS", "29ck"},  {"timing.tRC", "47ck"},
      {"timing.tWR", "16ck"},     {"timing.tRTP", "6ck"},    {"timing.tRRD_S", "4ck"}, {"timing.tRRD_L", "9ck"},
      {"timing.tFAW", "23ck"},    {"timing.tCCD_S", "3ck"},  {"timing.tCCD_L", "5ck"}, {"timing.tWTR_S", "10ck"},
      {"timing.tWTR_L", "12ck"},  {"timing.tRTW", "19ck"},   {"timing.tRFC", "230ck"}, {"timing.tREFI", "3900ck"},
      {"timing.tACT_BUS", "2ck"}, {"timing.tRFCpb", "97ck"}, {"timing.tRREFD", "11ck"}};
  o.insert(o.end(), extra.begin(), extra.end());
  return load_hbm_spec(kHbm2, o);
}

class HbmRules : public ::testing::Test {
 protected:
  explicit HbmRules(HbmSpec s = distinct_spec()) : spec(std::move(s)), chk(spec) {}

  Cycle t(const char* name) const { return spec.t(name); }
  void issue(Cycle c, Cmd cmd, const Address& a) { ASSERT_TRUE(chk.record(cmd, a, c)) << chk.violations().back().what; }
  // earliest == want; want - 1 is refused by the row `rule`; want is accepted.
  void expect_wait(Cmd cmd, const Address& a, Cycle want, const std::string& rule) {
    EXPECT_EQ(chk.earliest(cmd, a), want);
    const auto early = chk.check(cmd, a, want - 1);
    ASSERT_TRUE(early.has_value()) << cmd_name(cmd) << " at " << want - 1 << " was accepted";
    EXPECT_NE(early->what.find(rule), std::string::npos) << early->what << "\n  expected rule: " << rule;
    const auto ok = chk.check(cmd, a, want);
    EXPECT_FALSE(ok.has_value()) << ok->what;
  }

  HbmSpec spec;
  ProtocolChecker chk;
};

struct HbmRulesDataBus : HbmRules {
  HbmRulesDataBus() : HbmRules(distinct_spec({{"timing.tCCD_S", "1ck"}, {"timing.tBL", "4ck"}})) {}
};

struct HbmRulesHbm3 : HbmRules {
  HbmRulesHbm3() : HbmRules(load_hbm_spec(kHbm3)) {}
};

}  // namespace

// ---- Channel: command buses ----

TEST_F(HbmRules, act_occupies_the_row_bus_for_tACT_BUS) {
  issue(10, Cmd::ACT, at(0, 0, 0, /*pc*/ 0));
  expect_wait(Cmd::ACT, at(0, 0, 0, /*pc*/ 1), 10 + t("tACT_BUS"), "Channel (ACT,ACT|PRE|PREA|REF|REFpb) tACT_BUS");
}

TEST_F(HbmRules, row_bus_takes_one_row_command_per_cycle) {
  issue(0, Cmd::ACT, at(0, 0, 0, 0));
  issue(40, Cmd::PRE, at(0, 0, 0, 0));
  expect_wait(Cmd::ACT, at(0, 0, 0, 1), 41, "Channel (PRE|PREA|REF|REFpb,ACT|PRE|PREA|REF|REFpb) 1");
}

TEST_F(HbmRules, column_bus_takes_one_column_command_per_cycle) {
  issue(0, Cmd::ACT, at(0, 0, 0, 0));
  issue(2, Cmd::ACT, at(0, 0, 0, 1));
  issue(40, Cmd::RD, at(0, 0, 0, 0));
  expect_wait(Cmd::WR, at(0, 0, 0, 1), 41, "Channel (RD|WR,RD|WR) 1");
}

TEST_F(HbmRules, other_channels_are_independent) {
  issue(10, Cmd::ACT, at(0, 0, 0, 0, /*ch*/ 0));
  EXPECT_EQ(chk.earliest(Cmd::ACT, at(0, 0, 0, 0, /*ch*/ 1)), 10);  // only time order
}

// ---- Pseudo-channel ----

TEST_F(HbmRulesDataBus, rd_to_rd_waits_tBL_for_the_data_bus) {
  issue(0, Cmd::ACT, at(0, 0));
  issue(20, Cmd::ACT, at(1, 0));
  issue(60, Cmd::RD, at(0, 0));
  expect_wait(Cmd::RD, at(1, 0), 60 + t("tBL"), "PseudoChannel (RD,RD) tBL");
}

TEST_F(HbmRulesDataBus, wr_to_wr_waits_tBL_for_the_data_bus) {
  issue(0, Cmd::ACT, at(0, 0));
  issue(20, Cmd::ACT, at(1, 0));
  issue(60, Cmd::WR, at(0, 0));
  expect_wait(Cmd::WR, at(1, 0), 60 + t("tBL"), "PseudoChannel (WR,WR) tBL");
}

TEST_F(HbmRules, rd_to_rd_other_bankgroup_waits_tCCD_S) {
  issue(0, Cmd::ACT, at(0, 0));
  issue(20, Cmd::ACT, at(1, 0));
  issue(60, Cmd::RD, at(0, 0));
  expect_wait(Cmd::RD, at(1, 0), 60 + t("tCCD_S"), "PseudoChannel (RD,RD) tCCD_S");
}

TEST_F(HbmRules, wr_to_wr_other_bankgroup_waits_tCCD_S) {
  issue(0, Cmd::ACT, at(0, 0));
  issue(20, Cmd::ACT, at(1, 0));
  issue(60, Cmd::WR, at(0, 0));
  expect_wait(Cmd::WR, at(1, 0), 60 + t("tCCD_S"), "PseudoChannel (WR,WR) tCCD_S");
}

TEST_F(HbmRules, rd_then_wr_waits_tRTW) {
  issue(0, Cmd::ACT, at(0, 0));
  issue(20, Cmd::ACT, at(1, 0));
  issue(60, Cmd::RD, at(0, 0));
  expect_wait(Cmd::WR, at(1, 0), 60 + t("tRTW"), "PseudoChannel (RD,WR) tRTW");
}

TEST_F(HbmRules, wr_then_rd_other_bankgroup_waits_tCWL_tBL_tWTR_S) {
  issue(0, Cmd::ACT, at(0, 0));
  issue(20, Cmd::ACT, at(1, 0));
  issue(60, Cmd::WR, at(0, 0));
  expect_wait(Cmd::RD, at(1, 0), 60 + t("tCWL") + t("tBL") + t("tWTR_S"), "PseudoChannel (WR,RD) tCWL + tBL + tWTR_S");
}

TEST_F(HbmRules, act_then_act_other_bankgroup_waits_tRRD_S) {
  issue(10, Cmd::ACT, at(0, 0));
  expect_wait(Cmd::ACT, at(1, 0), 10 + t("tRRD_S"), "PseudoChannel (ACT,ACT) tRRD_S");
}

TEST_F(HbmRules, four_activates_then_fifth_waits_tFAW) {
  for (int i = 0; i < 4; ++i) issue(100 + i * t("tRRD_S"), Cmd::ACT, at(i, 0));
  // The fifth goes to another bank of group 0: tRRD_S/L are long satisfied, tFAW is not.
  expect_wait(Cmd::ACT, at(0, 1), 100 + t("tFAW"), "PseudoChannel (ACT|REFpb,ACT|REFpb) tFAW window 4");
}

TEST_F(HbmRules, act_then_prea_waits_tRAS) {
  issue(10, Cmd::ACT, at(0, 0));
  expect_wait(Cmd::PREA, at(0, 0), 10 + t("tRAS"), "PseudoChannel (ACT,PREA) tRAS");
}

TEST_F(HbmRules, rd_then_prea_waits_tRTP) {
  issue(0, Cmd::ACT, at(0, 0));
  issue(40, Cmd::RD, at(0, 0));
  expect_wait(Cmd::PREA, at(0, 0), 40 + t("tRTP"), "PseudoChannel (RD,PREA) tRTP");
}

TEST_F(HbmRules, wr_then_prea_waits_tCWL_tBL_tWR) {
  issue(0, Cmd::ACT, at(0, 0));
  issue(40, Cmd::WR, at(0, 0));
  expect_wait(Cmd::PREA, at(0, 0), 40 + t("tCWL") + t("tBL") + t("tWR"), "PseudoChannel (WR,PREA) tCWL + tBL + tWR");
}

TEST_F(HbmRules, prea_then_act_waits_tRP) {
  issue(0, Cmd::ACT, at(0, 0));
  issue(100, Cmd::PREA, at(0, 0));
  expect_wait(Cmd::ACT, at(2, 1), 100 + t("tRP"), "PseudoChannel (PREA,ACT) tRP");
}

TEST_F(HbmRules, pre_then_ref_waits_tRP) {
  issue(0, Cmd::ACT, at(0, 0));
  issue(100, Cmd::PRE, at(0, 0));
  expect_wait(Cmd::REF, at(0, 0), 100 + t("tRP"), "PseudoChannel (PRE|PREA,REF) tRP");
}

TEST_F(HbmRules, prea_then_ref_waits_tRP) {
  issue(0, Cmd::ACT, at(0, 0));
  issue(100, Cmd::PREA, at(0, 0));
  expect_wait(Cmd::REF, at(0, 0), 100 + t("tRP"), "PseudoChannel (PRE|PREA,REF) tRP");
}

TEST_F(HbmRules, act_then_ref_waits_tRC) {
  issue(0, Cmd::ACT, at(0, 0));
  issue(t("tRAS"), Cmd::PRE, at(0, 0));  // tRAS + tRP < tRC in the test spec
  expect_wait(Cmd::REF, at(0, 0), t("tRC"), "PseudoChannel (ACT,REF) tRC");
}

TEST_F(HbmRules, refresh_blocks_activates_for_tRFC) {
  issue(50, Cmd::REF, at(0, 0));
  expect_wait(Cmd::ACT, at(3, 1), 50 + t("tRFC"), "PseudoChannel (REF,ACT|PRE|PREA|REF|REFpb) tRFC");
}

TEST_F(HbmRules, ref_then_ref_waits_tRFC) {
  issue(50, Cmd::REF, at(0, 0));
  expect_wait(Cmd::REF, at(0, 0), 50 + t("tRFC"), "PseudoChannel (REF,ACT|PRE|PREA|REF|REFpb) tRFC");
}

// ---- Per-bank refresh (REFpb / HBM2 REFSB) ----

TEST_F(HbmRules, refpb_takes_the_row_bus_for_one_cycle) {
  issue(50, Cmd::REFPB, at(3, 1, 0, /*pc*/ 0));
  expect_wait(Cmd::ACT, at(0, 0, 0, /*pc*/ 1), 51, "Channel (PRE|PREA|REF|REFpb,ACT|PRE|PREA|REF|REFpb) 1");
}

TEST_F(HbmRules, act_then_refpb_other_bankgroup_waits_tRRD_S) {
  issue(10, Cmd::ACT, at(0, 0));
  expect_wait(Cmd::REFPB, at(1, 0), 10 + t("tRRD_S"), "PseudoChannel (ACT,REFpb) tRRD_S");
}

TEST_F(HbmRules, act_then_refpb_same_bankgroup_waits_tRRD_L) {
  issue(10, Cmd::ACT, at(2, 0));
  expect_wait(Cmd::REFPB, at(2, 1), 10 + t("tRRD_L"), "BankGroup (ACT,REFpb) tRRD_L");
}

TEST_F(HbmRules, act_then_refpb_same_bank_waits_tRC) {
  issue(0, Cmd::ACT, at(1, 1, 5));
  issue(t("tRAS"), Cmd::PRE, at(1, 1, 5));  // tRAS + tRP < tRC in the test spec
  expect_wait(Cmd::REFPB, at(1, 1), t("tRC"), "Bank (ACT,REFpb) tRC");
}

TEST_F(HbmRules, pre_then_refpb_same_bank_waits_tRP) {
  issue(0, Cmd::ACT, at(1, 1, 5));
  issue(40, Cmd::PRE, at(1, 1, 5));  // late enough that tRP, not tRC, binds
  expect_wait(Cmd::REFPB, at(1, 1), 40 + t("tRP"), "Bank (PRE,REFpb) tRP");
}

TEST_F(HbmRules, prea_then_refpb_waits_tRP) {
  issue(0, Cmd::ACT, at(0, 0));
  issue(100, Cmd::PREA, at(0, 0));
  expect_wait(Cmd::REFPB, at(2, 1), 100 + t("tRP"), "PseudoChannel (PREA,REFpb) tRP");
}

TEST_F(HbmRules, refpb_blocks_activates_to_its_bank_for_tRFCpb) {
  issue(50, Cmd::REFPB, at(3, 1));
  expect_wait(Cmd::ACT, at(3, 1, 9), 50 + t("tRFCpb"), "Bank (REFpb,ACT) tRFCpb");
}

TEST_F(HbmRules, refpb_then_refpb_same_bank_waits_tRFCpb) {
  issue(50, Cmd::REFPB, at(3, 1));
  expect_wait(Cmd::REFPB, at(3, 1), 50 + t("tRFCpb"), "Bank (REFpb,REFpb) tRFCpb");
}

TEST_F(HbmRules, refpb_then_act_other_bank_waits_tRREFD) {
  issue(50, Cmd::REFPB, at(3, 1));
  expect_wait(Cmd::ACT, at(0, 0), 50 + t("tRREFD"), "PseudoChannel (REFpb,ACT) tRREFD");
}

TEST_F(HbmRules, refpb_then_refpb_other_bank_waits_tRREFD) {
  issue(50, Cmd::REFPB, at(3, 1));
  expect_wait(Cmd::REFPB, at(0, 0), 50 + t("tRREFD"), "PseudoChannel (REFpb,REFpb) tRREFD");
}

TEST_F(HbmRules, refpb_then_all_bank_refresh_waits_tRFCpb) {
  issue(50, Cmd::REFPB, at(3, 1));
  expect_wait(Cmd::REF, at(0, 0), 50 + t("tRFCpb"), "PseudoChannel (REFpb,PREA|REF) tRFCpb");
}

TEST_F(HbmRules, refpb_then_prea_waits_tRFCpb) {
  issue(50, Cmd::REFPB, at(3, 1));
  expect_wait(Cmd::PREA, at(0, 0), 50 + t("tRFCpb"), "PseudoChannel (REFpb,PREA|REF) tRFCpb");
}

TEST_F(HbmRules, all_bank_refresh_blocks_refpb_for_tRFC) {
  issue(50, Cmd::REF, at(0, 0));
  expect_wait(Cmd::REFPB, at(2, 2), 50 + t("tRFC"), "PseudoChannel (REF,ACT|PRE|PREA|REF|REFpb) tRFC");
}

TEST_F(HbmRules, four_activates_then_refpb_waits_tFAW) {
  for (int i = 0; i < 4; ++i) issue(100 + i * t("tRRD_S"), Cmd::ACT, at(i, 0));
  expect_wait(Cmd::REFPB, at(0, 1), 100 + t("tFAW"), "PseudoChannel (ACT|REFpb,ACT|REFpb) tFAW window 4");
}

struct HbmRulesLongFaw : HbmRules {
  HbmRulesLongFaw() : HbmRules(distinct_spec({{"timing.tFAW", "30ck"}})) {}
};

TEST_F(HbmRulesLongFaw, a_refpb_counts_as_an_activate_in_tFAW) {
  issue(100, Cmd::REFPB, at(3, 0));
  for (int i = 0; i < 3; ++i) issue(100 + t("tRREFD") + i * t("tRRD_S"), Cmd::ACT, at(i, 0));
  // REFpb at 100 and ACTs at 111, 115, 119 fill the window; the fifth waits for 100 + tFAW.
  expect_wait(Cmd::ACT, at(0, 1), 100 + t("tFAW"), "PseudoChannel (ACT|REFpb,ACT|REFpb) tFAW window 4");
}

TEST_F(HbmRules, refresh_leaves_the_other_pseudo_channel_free) {
  issue(50, Cmd::REF, at(0, 0, 0, /*pc*/ 0));
  EXPECT_EQ(chk.earliest(Cmd::ACT, at(0, 0, 0, /*pc*/ 1)), 51);  // only the row bus
}

// ---- Bank group ----

TEST_F(HbmRules, rd_to_rd_same_bankgroup_waits_tCCD_L) {
  issue(0, Cmd::ACT, at(0, 0));
  issue(20, Cmd::ACT, at(0, 1));
  issue(60, Cmd::RD, at(0, 0));
  expect_wait(Cmd::RD, at(0, 1), 60 + t("tCCD_L"), "BankGroup (RD,RD) tCCD_L");
}

TEST_F(HbmRules, wr_to_wr_same_bankgroup_waits_tCCD_L) {
  issue(0, Cmd::ACT, at(0, 0));
  issue(20, Cmd::ACT, at(0, 1));
  issue(60, Cmd::WR, at(0, 0));
  expect_wait(Cmd::WR, at(0, 1), 60 + t("tCCD_L"), "BankGroup (WR,WR) tCCD_L");
}

TEST_F(HbmRules, wr_then_rd_same_bankgroup_waits_tCWL_tBL_tWTR_L) {
  issue(0, Cmd::ACT, at(0, 0));
  issue(20, Cmd::ACT, at(0, 1));
  issue(60, Cmd::WR, at(0, 0));
  expect_wait(Cmd::RD, at(0, 1), 60 + t("tCWL") + t("tBL") + t("tWTR_L"), "BankGroup (WR,RD) tCWL + tBL + tWTR_L");
}

TEST_F(HbmRules, act_then_act_same_bankgroup_waits_tRRD_L) {
  issue(10, Cmd::ACT, at(2, 0));
  expect_wait(Cmd::ACT, at(2, 1), 10 + t("tRRD_L"), "BankGroup (ACT,ACT) tRRD_L");
}

// ---- Bank ----

TEST_F(HbmRules, act_then_act_same_bank_waits_tRC) {
  issue(0, Cmd::ACT, at(1, 1, 5));
  issue(t("tRAS"), Cmd::PRE, at(1, 1, 5));
  expect_wait(Cmd::ACT, at(1, 1, 6), t("tRC"), "Bank (ACT,ACT) tRC");
}

TEST_F(HbmRules, act_then_rd_same_bank_waits_tRCD_RD) {
  issue(10, Cmd::ACT, at(1, 1, 5));
  expect_wait(Cmd::RD, at(1, 1, 5), 10 + t("tRCD_RD"), "Bank (ACT,RD) tRCD_RD");
}

TEST_F(HbmRules, act_then_wr_same_bank_waits_tRCD_WR) {
  issue(10, Cmd::ACT, at(1, 1, 5));
  expect_wait(Cmd::WR, at(1, 1, 5), 10 + t("tRCD_WR"), "Bank (ACT,WR) tRCD_WR");
}

TEST_F(HbmRules, act_then_pre_same_bank_waits_tRAS) {
  issue(10, Cmd::ACT, at(1, 1, 5));
  expect_wait(Cmd::PRE, at(1, 1, 5), 10 + t("tRAS"), "Bank (ACT,PRE) tRAS");
}

TEST_F(HbmRules, pre_then_act_same_bank_waits_tRP) {
  issue(0, Cmd::ACT, at(1, 1, 5));
  issue(40, Cmd::PRE, at(1, 1, 5));  // late enough that tRP, not tRC, binds
  expect_wait(Cmd::ACT, at(1, 1, 6), 40 + t("tRP"), "Bank (PRE,ACT) tRP");
}

TEST_F(HbmRules, rd_then_pre_same_bank_waits_tRTP) {
  issue(0, Cmd::ACT, at(1, 1, 5));
  issue(40, Cmd::RD, at(1, 1, 5));
  expect_wait(Cmd::PRE, at(1, 1, 5), 40 + t("tRTP"), "Bank (RD,PRE) tRTP");
}

TEST_F(HbmRules, wr_then_pre_same_bank_waits_tCWL_tBL_tWR) {
  issue(0, Cmd::ACT, at(1, 1, 5));
  issue(40, Cmd::WR, at(1, 1, 5));
  expect_wait(Cmd::PRE, at(1, 1, 5), 40 + t("tCWL") + t("tBL") + t("tWR"), "Bank (WR,PRE) tCWL + tBL + tWR");
}

// ---- HBM3 only ----

TEST_F(HbmRulesHbm3, pre_then_pre_waits_tPPD) {
  issue(0, Cmd::ACT, at(0, 0));
  issue(10, Cmd::ACT, at(1, 0));
  issue(100, Cmd::PRE, at(0, 0));
  expect_wait(Cmd::PRE, at(1, 0), 100 + t("tPPD"), "PseudoChannel (PRE,PRE) tPPD");
}

// ---- The tables as a whole ----

// Every row of every standard, generically: after each `after` command, each `before` command
// in the same scope instance (but a different lower-level instance, where the state allows)
// waits at least the row's gap.
TEST(HbmRuleTables, every_row_is_enforced_by_the_engine) {
  for (const std::string& file : {kHbm2, kHbm3}) {
    const HbmSpec spec = load_hbm_spec(file);
    const auto rules = resolve_rules(spec.rules(), spec.timing);
    for (const ResolvedRule& r : rules)
      for (Cmd a : kAllCmds)
        for (Cmd b : kAllCmds) {
          if (!(r.after & bit(a)) || !(r.before & bit(b))) continue;
          TimingEngine e(spec.org, rules);
          Address x = at(0, 0, 0, 0, 0), y = x;
          if (r.scope == Scope::Channel) y.pc = 1;
          if (r.scope == Scope::PseudoChannel) y.bank_group = 1;
          if (r.scope == Scope::BankGroup) y.bank = 1;
          const Cycle t0 = 1000;
          for (int i = 0; i < std::max(1, r.window); ++i) e.record(a, x, t0);
          EXPECT_GE(e.earliest(b, y), t0 + r.gap)
              << spec.name << ": " << r.label << " " << cmd_name(a) << "->" << cmd_name(b);
        }
  }
}

TEST(HbmRuleTables, gaps_are_expressions_of_config_fields) {
  const HbmSpec spec = distinct_spec();
  EXPECT_EQ(eval_gap("tCWL + tBL + tWR", spec.timing), 7 + 2 + 16);
  EXPECT_EQ(eval_gap("tCL - 3", spec.timing), 14);
  EXPECT_EQ(eval_gap(" 1 ", spec.timing), 1);
  EXPECT_THROW(eval_gap("tNOPE + 1", spec.timing), std::invalid_argument);
  EXPECT_THROW(eval_gap("tCL +", spec.timing), std::invalid_argument);
  EXPECT_THROW(eval_gap("tCL tBL", spec.timing), std::invalid_argument);
  EXPECT_THROW(eval_gap("tCL * 2", spec.timing), std::invalid_argument);
}

TEST(HbmRuleTables, a_pseudo_channel_command_in_a_bank_row_is_rejected) {
  Standard bad{"BAD", {"tRP"}, {{Scope::Bank, {Cmd::PREA}, {Cmd::ACT}, "tRP", 0, "test"}}};
  try {
    resolve_rules(bad, {{"tRP", 14}});
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("whole pseudo-channel"), std::string::npos) << e.what();
  }
}

TEST(HbmRuleTables, unknown_standard_lists_the_known_ones) {
  try {
    find_standard("DDR9");
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("HBM2, HBM3"), std::string::npos) << e.what();
  }
}

namespace {

// The production watch: a legal stream finishes quietly; a RD before tRCD after its ACT
// stops the run with the rule named (HBM3: tRCD_RD).
TEST(HbmProtocolWatch, FinishThrowsOnTheFirstViolation) {
  const HbmSpec spec = load_hbm_spec(kHbm3);
  Address a;
  a.row = 5;
  CommandEvent act;
  act.cycle = 10;
  act.cmd = Cmd::ACT;
  act.addr = a;
  CommandEvent rd = act;
  rd.cmd = Cmd::RD;
  rd.cycle = 10 + spec.t("tRCD_RD");
  ProtocolWatch ok(spec, 0);
  ok.on_command(act);
  ok.on_command(rd);
  EXPECT_NO_THROW(ok.finish());
  ProtocolWatch bad(spec, 0);
  rd.cycle -= 1;
  bad.on_command(act);
  bad.on_command(rd);
  try {
    bad.finish();
    FAIL() << "no violation reported";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("HBM protocol checker: 1 violation(s)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("tRCD"), std::string::npos) << e.what();
  }
}

}  // namespace
