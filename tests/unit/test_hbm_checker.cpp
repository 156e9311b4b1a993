// The protocol checker catches illegal command sequences - timing, row-buffer state, bus
// conflicts, time order, missed refreshes - and names what was broken.
#include <gtest/gtest.h>

#include "models/hbm/checker.h"
#include "models/hbm/hbm_spec.h"
#include "tests/hbm_util.h"

using namespace cstsim::hbm;

namespace {

HbmSpec spec() { return load_hbm_spec(CSTSIM_SOURCE_DIR "/configs/memory/hbm2-2000.yaml"); }

// Records the sequence; returns the first violation's text ("" when all were legal).
struct Seq {
  HbmSpec s;
  explicit Seq(HbmSpec sp = spec()) : s(std::move(sp)) {}
  ProtocolChecker chk{s};
  Seq& operator()(Cycle c, Cmd cmd, const Address& a) {
    chk.record(cmd, a, c);
    return *this;
  }
  std::string first() const { return chk.violations().empty() ? "" : chk.violations().front().what; }
};

}  // namespace

TEST(HbmChecker, accepts_a_legal_hand_written_sequence) {
  Seq s;
  const Cycle rcd = s.s.t("tRCD_RD"), ras = s.s.t("tRAS"), rp = s.s.t("tRP");
  // RD to group 1 waits for its own tRCD (4 + 12); the third RD for tCCD_S after it.
  s(0, Cmd::ACT, at(0, 0, 7))(4, Cmd::ACT, at(1, 0, 9))(rcd, Cmd::RD, at(0, 0, 7))(4 + rcd, Cmd::RD, at(1, 0, 9))(
      4 + rcd + 2, Cmd::RD, at(0, 0, 7))(ras + 4, Cmd::PREA, at(0, 0))(ras + 4 + rp, Cmd::REF, at(0, 0));
  EXPECT_EQ(s.first(), "");
  EXPECT_EQ(s.chk.commands(), 7u);
}

TEST(HbmChecker, catches_a_read_before_tRCD_and_names_the_rule) {
  Seq s;
  s(0, Cmd::ACT, at(0, 0, 7))(s.s.t("tRCD_RD") - 1, Cmd::RD, at(0, 0, 7));
  EXPECT_NE(s.first().find("Bank (ACT,RD) tRCD_RD"), std::string::npos) << s.first();
  EXPECT_NE(s.first().find("RD at 11 < earliest 12"), std::string::npos) << s.first();
}

TEST(HbmChecker, catches_a_read_to_a_closed_bank) {
  Seq s;
  s(5, Cmd::RD, at(0, 0, 7));
  EXPECT_NE(s.first().find("RD to a closed bank"), std::string::npos) << s.first();
}

TEST(HbmChecker, catches_a_read_to_a_row_that_is_not_open) {
  Seq s;
  s(0, Cmd::ACT, at(0, 0, 7))(40, Cmd::RD, at(0, 0, 8));
  EXPECT_NE(s.first().find("RD to row 8 while row 7 is open"), std::string::npos) << s.first();
}

TEST(HbmChecker, catches_an_activate_to_an_open_bank) {
  Seq s;
  s(0, Cmd::ACT, at(0, 0, 7))(100, Cmd::ACT, at(0, 0, 8));
  EXPECT_NE(s.first().find("ACT to an open bank"), std::string::npos) << s.first();
}

TEST(HbmChecker, catches_a_precharge_of_a_closed_bank) {
  Seq s;
  s(3, Cmd::PRE, at(2, 1));
  EXPECT_NE(s.first().find("PRE to a closed bank"), std::string::npos) << s.first();
}

TEST(HbmChecker, catches_a_refresh_with_open_banks) {
  Seq s;
  s(0, Cmd::ACT, at(0, 0, 7))(4, Cmd::ACT, at(1, 0, 7))(500, Cmd::REF, at(0, 0));
  EXPECT_NE(s.first().find("REF with 2 bank(s) open"), std::string::npos) << s.first();
}

TEST(HbmChecker, catches_a_fifth_activate_inside_tFAW) {
  // The HBM2 preset's tFAW (16) is exactly 4 x tRRD_S, so it never binds alone; use 20 here.
  Seq s(load_hbm_spec(CSTSIM_SOURCE_DIR "/configs/memory/hbm2-2000.yaml", {{"timing.tFAW", "20ns"}}));
  // Four ACTs at 0, 4, 8, 12 fill the window; the fifth may go at 20, not 19.
  for (int i = 0; i < 4; ++i) s(4 * i, Cmd::ACT, at(i, 0));
  s(19, Cmd::ACT, at(0, 1));
  EXPECT_NE(s.first().find("tFAW window 4"), std::string::npos) << s.first();
  EXPECT_EQ(s.chk.violations().size(), 1u);
}

TEST(HbmChecker, catches_two_column_commands_in_one_cycle_on_a_channel) {
  Seq s;
  s(0, Cmd::ACT, at(0, 0, 1, /*pc*/ 0))(2, Cmd::ACT, at(0, 0, 1, /*pc*/ 1))(50, Cmd::RD, at(0, 0, 1, 0))(
      50, Cmd::RD, at(0, 0, 1, 1));
  EXPECT_NE(s.first().find("Channel (RD|WR,RD|WR) 1"), std::string::npos) << s.first();
}

TEST(HbmChecker, allows_one_row_and_one_column_command_in_the_same_cycle) {
  Seq s;
  s(0, Cmd::ACT, at(0, 0, 1))(50, Cmd::RD, at(0, 0, 1))(50, Cmd::ACT, at(1, 0, 3));
  EXPECT_EQ(s.first(), "");
}

TEST(HbmChecker, catches_commands_out_of_time_order) {
  Seq s;
  s(100, Cmd::ACT, at(0, 0))(90, Cmd::ACT, at(1, 0, 0, 0, /*ch*/ 1));
  EXPECT_NE(s.first().find("earlier than the previous command"), std::string::npos) << s.first();
}

TEST(HbmChecker, catches_an_address_outside_the_stack) {
  Seq s;
  s(0, Cmd::ACT, at(0, 0, /*row*/ 1 << 20));
  EXPECT_NE(s.first().find("outside the stack"), std::string::npos) << s.first();
}

TEST(HbmChecker, catches_a_missed_refresh) {
  Seq s;
  const Cycle refi = s.s.t("tREFI");
  s.chk.expect_refresh(refi, 1);
  s(refi + 5, Cmd::REF, at(0, 0));  // pc0 refreshes once; nobody else does
  s.chk.finish(2 * refi);
  ASSERT_FALSE(s.chk.violations().empty());
  EXPECT_NE(s.first().find("ch0 pc1 bg0 ba0: refreshed 0 times by cycle 7800, at least 1 required"), std::string::npos)
      << s.first();
  EXPECT_EQ(s.chk.violations().size(), size_t(s.s.org.pcs() - 1)) << "one report per pseudo-channel short";
}

TEST(HbmChecker, catches_a_per_bank_refresh_to_an_open_bank) {
  Seq s;
  s(0, Cmd::ACT, at(0, 0, 7))(500, Cmd::REFPB, at(1, 2))(600, Cmd::REFPB, at(0, 0));
  EXPECT_EQ(s.chk.violations().size(), 1u);  // the closed bank may be refreshed, the open one not
  EXPECT_NE(s.first().find("REFpb at 600: REFpb to an open bank (row 7 is open)"), std::string::npos) << s.first();
}

TEST(HbmChecker, a_per_bank_refresh_counts_for_its_bank_only) {
  Seq s;
  const Cycle refi = s.s.t("tREFI"), rrefd = s.s.t("tRREFD");
  s.chk.expect_refresh(refi, 0);
  // Every bank of every PC but ch0 pc0 bg3 ba3 gets a REFpb in the first tREFI.
  Cycle t = 100;
  for (int ch = 0; ch < s.s.org.channels; ++ch)
    for (int pc = 0; pc < s.s.org.pseudo_channels; ++pc)
      for (int bg = 0; bg < 4; ++bg)
        for (int ba = 0; ba < 4; ++ba) {
          if (ch == 0 && pc == 0 && bg == 3 && ba == 3) continue;
          s(t, Cmd::REFPB, at(bg, ba, 0, pc, ch));
          t += rrefd;  // also covers tRREFD and tFAW within one PC (rules of the shared table)
        }
  EXPECT_EQ(s.first(), "");
  s.chk.finish(refi);
  ASSERT_EQ(s.chk.violations().size(), 1u);
  EXPECT_NE(s.first().find("ch0 pc0 bg3 ba3: refreshed 0 times by cycle 3900, at least 1 required"), std::string::npos)
      << s.first();
}

TEST(HbmChecker, earliest_is_never_when_the_state_forbids_the_command) {
  Seq s;
  EXPECT_EQ(s.chk.earliest(Cmd::RD, at(0, 0)), kNever);
  s(0, Cmd::ACT, at(0, 0, 3));
  EXPECT_EQ(s.chk.earliest(Cmd::RD, at(0, 0, 3)), s.s.t("tRCD_RD"));
  EXPECT_EQ(s.chk.earliest(Cmd::REF, at(0, 0)), kNever);
  EXPECT_EQ(s.chk.earliest(Cmd::REFPB, at(0, 0)), kNever);           // its bank is open
  EXPECT_LT(s.chk.earliest(Cmd::REFPB, at(1, 0)), kNever);           // another, closed bank
  EXPECT_EQ(s.chk.earliest(Cmd::REFPB, at(1, 0)), s.s.t("tRRD_S"));  // (ACT,REFpb) tRRD_S
}
