// The scheduler registry. Implementations register themselves (CSTSIM_HBM_REGISTER_SCHEDULER);
// the one line per implementation below only keeps them linked in from the static library.
#include <fmt/format.h>

#include <map>
#include <stdexcept>

#include "models/hbm/scheduler/i_scheduler.h"

namespace cstsim::hbm {

int scheduler_anchor_FrFcfs();  // impl/frfcfs.cpp
int scheduler_anchor_Fcfs();    // impl/fcfs.cpp

namespace {
std::map<std::string, SchedulerFactory>& registry() {
  static std::map<std::string, SchedulerFactory> r;
  return r;
}
}  // namespace

bool register_scheduler(const std::string& name, SchedulerFactory factory) {
  return registry().emplace(name, std::move(factory)).second;
}

std::vector<std::string> scheduler_names() {
  static const int linked = scheduler_anchor_FrFcfs() + scheduler_anchor_Fcfs();
  (void)linked;
  std::vector<std::string> out;
  for (const auto& [name, factory] : registry()) out.push_back(name);
  return out;
}

std::unique_ptr<IScheduler> make_scheduler(const std::string& name) {
  const std::vector<std::string> known = scheduler_names();
  auto it = registry().find(name);
  if (it == registry().end())
    throw std::invalid_argument(fmt::format("unknown scheduler '{}' (known: {})", name, fmt::join(known, ", ")));
  return it->second();
}

}  // namespace cstsim::hbm
