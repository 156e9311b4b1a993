// FCFS: strictly in order per pseudo-channel. Only the oldest request's next command may go;
// younger row hits wait behind it. The baseline FR-FCFS is measured against.
#include "models/hbm/scheduler/i_scheduler.h"

namespace cstsim::hbm {
namespace {

class Fcfs final : public IScheduler {
 public:
  Decision decide(const std::vector<Candidate>& cands, Cycle now) const override {
    Decision d;
    int oldest = -1;
    for (size_t i = 0; i < cands.size(); ++i)
      if (oldest < 0 || cands[i].seq < cands[size_t(oldest)].seq) oldest = int(i);
    if (oldest < 0) return d;
    if (cands[size_t(oldest)].ready <= now)
      d.pick = oldest;
    else
      d.wake = cands[size_t(oldest)].ready;
    return d;
  }
  const char* name() const override { return "fcfs"; }
};

}  // namespace

CSTSIM_REGISTER(IScheduler, Fcfs, "fcfs")

}  // namespace cstsim::hbm
