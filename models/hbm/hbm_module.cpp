#include "models/hbm/hbm_module.h"

#include <stdexcept>

namespace cstsim::hbm {

HbmModule::HbmModule(sc_core::sc_module_name name, HbmSpec spec, IdleRefresh idle_refresh)
    : sc_core::sc_module(name),
      device_(std::move(spec)),
      period_(sc_core::sc_time(device_.spec().tck_ns, sc_core::SC_NS)),
      idle_refresh_(idle_refresh) {
  if (period_.value() == 0 || period_ != sc_core::sc_time(device_.spec().tck_ns * 1000.0, sc_core::SC_PS))
    throw std::invalid_argument("HBM tCK is not a whole number of SystemC time units");
  SC_METHOD(process);  // runs once at time 0 (Timed: schedules the first refresh), then on wake_
  sensitive << wake_;
}

Cycle HbmModule::submit(HbmRequest request) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  request.cycle = arrival_cycle(now);
  device_.submit(request);
  // An earlier pending notification wins; a later one is replaced by this.
  wake_.notify(time_of(request.cycle) - now);
  return request.cycle;
}

void HbmModule::process() {
  ++activations_;
  const Cycle now = Cycle(sc_core::sc_time_stamp().value() / period_.value());
  device_.run_until(now);
  for (const HbmCompletion& c : device_.take_completions())
    if (callback_) callback_(c);
  schedule();
}

void HbmModule::schedule() {
  const Cycle e = device_.next_event(idle_refresh_ == IdleRefresh::Timed);
  if (e >= kNever) return;  // Lazy and idle: refresh catches up at the next request or sync()
  wake_.notify(time_of(e) - sc_core::sc_time_stamp());
}

void HbmModule::sync() { device_.run_until(Cycle(sc_core::sc_time_stamp().value() / period_.value())); }

namespace {

// Sends the first requests at time 0; HbmModule's callback sends the rest.
struct TrafficSource : sc_core::sc_module {
  SC_HAS_PROCESS(TrafficSource);
  TrafficSource(sc_core::sc_module_name name, HbmModule& hbm, TrafficRecorder& rec)
      : sc_core::sc_module(name), hbm_(hbm), rec_(rec) {
    SC_THREAD(run);
  }
  void run() {
    for (const HbmRequest& r : rec_.initial()) hbm_.submit(r);
  }
  HbmModule& hbm_;
  TrafficRecorder& rec_;
};

}  // namespace

TrafficResult run_traffic_systemc(const HbmSpec& spec, const TrafficOptions& options) {
  HbmModule hbm("hbm", spec);
  TrafficRecorder rec(hbm.device(), options, 1);
  TrafficSource source("traffic", hbm, rec);
  hbm.set_completion_callback([&](const HbmCompletion& c) {
    if (auto next = rec.on_completion(c)) hbm.submit(*next);
  });
  sc_core::sc_start();
  // The run ends when the last request completes; count refresh up to that cycle.
  hbm.device().run_until(rec.end_cycle());
  return rec.finish(hbm.device());
}

}  // namespace cstsim::hbm
