// none: no refresh at all. The bound the refreshing policies are measured against (and what
// a run shorter than tREFI costs under either of them); not a DRAM that keeps its data.
#include "models/hbm/refresh/i_refresh.h"

namespace cstsim::hbm {
namespace {

class NoRefresh final : public IRefreshPolicy {
 public:
  const char* name() const override { return "none"; }
  std::string check(const HbmSpec&) const override { return ""; }
  double expected_share(const HbmSpec&) const override { return 0.0; }
  int max_owed() const override { return 0; }
  void configure(const HbmSpec&) override {}
  void start_at(Cycle) override {}
  void tick(Cycle) override {}
  Cycle next_due() const override { return kNever; }
  bool owes() const override { return false; }
  std::optional<RefreshStep> next_step(const PcView&) override { return std::nullopt; }
  bool holds_pc() const override { return false; }
  int withheld_bank() const override { return -1; }
  void issued(Cmd, int) override {}
};

}  // namespace

CSTSIM_REGISTER(IRefreshPolicy, NoRefresh, "none")

}  // namespace cstsim::hbm
