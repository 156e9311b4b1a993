#pragma once
// IScheduler: which queued request of a pseudo-channel goes next (Ramulator 2's
// controller/scheduler/i_scheduler.h, DRAMSys' SchedulerIF). The contract:
//  - the controller lists the requests in the PC's window with the one command each needs next
//    (RD/WR on a row hit, ACT on a closed bank, PRE on a conflict) and the earliest cycle the
//    timing engine allows it. Requests of one bank that need the same command are equally
//    ready, so only the oldest of them is listed (at most 3 candidates per bank);
//  - the scheduler only orders and filters: it returns the candidate to issue now (ready <= now)
//    or none, and the earliest later cycle at which it would pick one if nothing changes.
//    It never decides timing legality; the controller issues only what the engine allows.
// Implementations live in impl/ and register under the name the YAML uses
// (controller.scheduler: frfcfs).
#include <memory>
#include <string>
#include <vector>

#include "core/registry.h"
#include "models/hbm/hbm_types.h"

namespace cstsim::hbm {

struct Candidate {
  int request = 0;       // index in the PC's window
  Cmd cmd = Cmd::RD;     // the command that request needs next
  Cycle ready = 0;       // earliest cycle the timing rules allow cmd
  uint64_t seq = 0;      // arrival order (smaller = older)
  bool row_hit = false;  // cmd is RD/WR to the open row
  // cmd is PRE and other queued requests still hit the row it would close.
  bool closes_pending_hits = false;
};

struct Decision {
  int pick = -1;        // index into the candidates to issue now, or -1
  Cycle wake = kNever;  // earliest cycle > now at which a pick could happen (no state change)
};

class IScheduler {
 public:
  virtual ~IScheduler() = default;
  virtual Decision decide(const std::vector<Candidate>& candidates, Cycle now) const = 0;
  virtual const char* name() const = 0;
};

// Registry (core/registry.h): implementations register with
// CSTSIM_REGISTER(IScheduler, Class, "name") inside namespace cstsim::hbm.
// make_scheduler throws std::invalid_argument "unknown scheduler 'x' (known: a, b)".
std::unique_ptr<IScheduler> make_scheduler(const std::string& name);
std::vector<std::string> scheduler_names();

}  // namespace cstsim::hbm
