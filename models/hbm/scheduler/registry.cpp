// The scheduler registry's lookup. Implementations register themselves
// (CSTSIM_REGISTER in impl/); the anchors below only keep them linked in.
#include "models/hbm/scheduler/i_scheduler.h"

namespace cstsim::hbm {

int cstsim_anchor_FrFcfs();  // impl/frfcfs.cpp
int cstsim_anchor_Fcfs();    // impl/fcfs.cpp

namespace {
const Registry<IScheduler>& schedulers() {
  static const int linked = cstsim_anchor_FrFcfs() + cstsim_anchor_Fcfs();
  (void)linked;
  return Registry<IScheduler>::instance();
}
}  // namespace

std::vector<std::string> scheduler_names() { return schedulers().names(); }

std::unique_ptr<IScheduler> make_scheduler(const std::string& name) { return schedulers().make(name, "scheduler"); }

}  // namespace cstsim::hbm
