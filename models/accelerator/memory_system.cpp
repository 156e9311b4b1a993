#include "models/accelerator/memory_system.h"

#include <algorithm>

namespace cstsim {

MemorySystemModule::MemorySystemModule(sc_core::sc_module_name name) : sc_module(name) {
  SC_HAS_PROCESS(MemorySystemModule);
  SC_METHOD(guarded_serve);  // a method, not a thread: it never waits inside, and costs no stack switch
  sensitive << work_;
  dont_initialize();
}

// Several clusters may ask in one delta cycle: one request per group, the latest asker
// kept (it is the one whose wait completed the set).
void MemorySystemModule::every_cluster_waits(MemoryGroup& group, int last) {
  for (Request& r : requests_)
    if (r.group == &group) {
      r.last = last;
      return;
    }
  requests_.push_back({&group, last});
  work_.notify();  // immediate: the process runs once the threads runnable now have run
}

void MemorySystemModule::forget(const MemoryGroup& group) {
  requests_.erase(std::remove_if(requests_.begin(), requests_.end(), [&](const Request& r) { return r.group == &group; }),
                  requests_.end());
}

// A request is a hint: by the time the process runs, clusters woken before it may have
// gone on, so the group is asked again whether it is stalled.
void MemorySystemModule::serve() {
  while (!requests_.empty()) {
    const Request r = requests_.front();
    requests_.pop_front();
    ++stats_.wakeups;
    if (r.group->stalled()) stats_.steps += r.group->drive(r.last);
  }
}

}  // namespace cstsim
