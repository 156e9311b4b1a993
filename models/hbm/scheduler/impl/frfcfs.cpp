// FR-FCFS (Rixner et al., ISCA 2000) with an open-page guard:
//  1. only candidates whose command is ready now are issued ("first ready");
//  2. among those, row hits (RD/WR to the open row) beat row commands;
//  3. then the oldest request wins ("first come, first served").
// The guard: a PRE that would close a row other queued requests still hit is not eligible,
// so a ready conflict never destroys pending hits (Ramulator's plain FRFCFS lets it).
#include "models/hbm/scheduler/i_scheduler.h"

namespace cstsim::hbm {
namespace {

class FrFcfs final : public IScheduler {
 public:
  Decision decide(const std::vector<Candidate>& cands, Cycle now) const override {
    Decision d;
    for (size_t i = 0; i < cands.size(); ++i) {
      const Candidate& c = cands[i];
      if (c.closes_pending_hits) continue;
      if (c.ready > now) {
        if (c.ready < d.wake) d.wake = c.ready;
        continue;
      }
      if (d.pick < 0 || better(c, cands[size_t(d.pick)])) d.pick = int(i);
    }
    return d;
  }
  const char* name() const override { return "frfcfs"; }

 private:
  static bool better(const Candidate& a, const Candidate& b) {
    if (a.row_hit != b.row_hit) return a.row_hit;
    return a.seq < b.seq;
  }
};

}  // namespace

CSTSIM_REGISTER(IScheduler, FrFcfs, "frfcfs")

}  // namespace cstsim::hbm
