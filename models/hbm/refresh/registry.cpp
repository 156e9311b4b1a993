// The refresh policy registry's lookup. Implementations register themselves
// (CSTSIM_REGISTER in impl/); the anchors below only keep them linked in.
#include "models/hbm/refresh/i_refresh.h"

namespace cstsim::hbm {

int cstsim_anchor_AllBankRefresh();  // impl/all_bank.cpp
int cstsim_anchor_PerBankRefresh();  // impl/per_bank.cpp
int cstsim_anchor_NoRefresh();       // impl/none.cpp

namespace {
Registry<IRefreshPolicy>& policies() {
  static const int linked = cstsim_anchor_AllBankRefresh() + cstsim_anchor_PerBankRefresh() + cstsim_anchor_NoRefresh();
  (void)linked;
  return Registry<IRefreshPolicy>::instance();
}
}  // namespace

std::vector<std::string> refresh_policy_names() { return policies().names(); }

std::unique_ptr<IRefreshPolicy> make_refresh_policy(const std::string& name) {
  return policies().make(name, "refresh policy");
}

const IRefreshPolicy& refresh_policy(const std::string& name) { return policies().shared(name, "refresh policy"); }

}  // namespace cstsim::hbm
