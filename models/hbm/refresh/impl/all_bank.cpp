// all_bank: a REF is due every tREFI (at tREFI, 2 tREFI, ...; due times do not drift when a
// REF goes late). Once due, the pseudo-channel stops serving requests, closes its open rows
// with one PREA and issues REF as soon as the timing rules allow; REF then holds the
// pseudo-channel for tRFC (the rule table's REF rows). One REF may be owed at a time.
#include <algorithm>

#include <fmt/format.h>

#include "models/hbm/refresh/i_refresh.h"

namespace cstsim::hbm {
namespace {

class AllBankRefresh final : public IRefreshPolicy {
 public:
  const char* name() const override { return "all_bank"; }
  std::string check(const HbmSpec& s) const override {
    if (s.timing.at("tREFI") <= s.timing.at("tRFC"))
      return fmt::format("must be longer than tRFC ({} cycles)", s.timing.at("tRFC"));
    return "";
  }
  double expected_share(const HbmSpec& s) const override { return double(s.t("tRFC")) / double(s.t("tREFI")); }
  int max_owed() const override { return 1; }

  void configure(const HbmSpec& s) override {
    tREFI_ = s.t("tREFI");
    due_ = tREFI_;
  }
  void start_at(Cycle s) override { due_ = std::max<Cycle>(1, (s + tREFI_ - 1) / tREFI_) * tREFI_; }
  void tick(Cycle now) override {
    if (!pending_ && now >= due_) pending_ = true;
  }
  Cycle next_due() const override { return pending_ ? kNever : due_; }
  bool owes() const override { return pending_; }
  std::optional<RefreshStep> next_step(const PcView& pc) override {
    if (!pending_) return std::nullopt;
    return RefreshStep{pc.banks.open_count() > 0 ? Cmd::PREA : Cmd::REF, -1};
  }
  Cycle period() const override { return tREFI_; }
  int commands_per_period() const override { return 1; }
  void shift(Cycle dt) override { due_ += dt; }
  void set_offset(Cycle offset, Cycle after) override {
    due_ += offset - offset_;
    offset_ = offset;
    if (due_ <= after) pending_ = true;  // issued, the next falls due a period after this one
  }
  bool holds_pc() const override { return pending_; }
  int withheld_bank() const override { return -1; }
  void issued(Cmd cmd, int) override {
    if (cmd != Cmd::REF) return;
    pending_ = false;
    due_ += tREFI_;
  }

 private:
  Cycle tREFI_ = 0;
  Cycle due_ = 0;
  Cycle offset_ = 0;  // set_offset
  bool pending_ = false;
};

}  // namespace

CSTSIM_REGISTER(IRefreshPolicy, AllBankRefresh, "all_bank")

}  // namespace cstsim::hbm
