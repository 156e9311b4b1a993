#pragma once
// HbmModule: the SystemC shell around one HBM stack (HbmDevice). One clockless SC_METHOD for
// the whole stack sleeps until the device's next event (a command that becomes legal, an
// arrival, a data-ready cycle) - idle and steady stretches are jumped, never stepped.
//
// Clock domain. The stack runs on its own clock (spec.tck_ns); the caller may run on any
// other clock. A request submitted at simulation time t enters the controller at HBM cycle
// floor(t / tCK) + 1 - the first HBM clock edge strictly after t (one synchroniser stage; it
// also makes the result independent of delta-cycle order). Its completion callback runs at
// simulation time done x tCK, inside this module's process: push or notify there, do not
// wait. A caller on clock T converts back with ceil(t / T).
//
// TLM-2.0 target (`socket`, base protocol), so the stack binds into any SystemC platform:
//   nb_transport_fw (approximately timed): BEGIN_REQ is accepted at once (TLM_UPDATED,
//     END_REQ; the controller queue is the device's) and reaches the controller at its time
//     (sc_time_stamp() + delay, the arrival rule above); BEGIN_RESP comes back on the
//     backward path at the data-ready time, one response at a time (the base protocol's
//     response exclusion rule: the next waits for END_RESP or TLM_COMPLETED).
//   b_transport (loosely timed): waits out `delay`, submits, returns at the data-ready time
//     with delay 0.
// A payload is a READ or WRITE of data_length bytes at address (a byte address in the stack,
// mapped as HbmDevice maps it); anything else gets the base protocol's error responses.
// It is a timing model: the data array is neither read nor written.
#include <deque>
#include <functional>
#include <map>
#include <systemc>
#include <tlm>
#include <tlm_utils/peq_with_cb_and_phase.h>
#include <tlm_utils/simple_target_socket.h>

#include "models/hbm/hbm_device.h"
#include "models/hbm/traffic.h"
#include "models/base/process_guard.h"

namespace cstsim::hbm {

// How refresh runs while no request is outstanding.
enum class IdleRefresh {
  // The process sleeps; the REFs of an idle stretch are issued (at their exact cycles) when the
  // next request arrives or sync() is called. sc_start() returns once traffic ends. Observers
  // then hear of those commands late (after simulated time passed them).
  Lazy,
  // The process wakes for every refresh step even when idle, so observers hear of every command
  // at its own time (what a trace sink needs). The run never runs out of events: end it with
  // sc_stop() or sc_start(duration).
  Timed,
};

class HbmModule : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(HbmModule);
  HbmModule(sc_core::sc_module_name name, HbmSpec spec, IdleRefresh idle_refresh = IdleRefresh::Lazy);

  tlm_utils::simple_target_socket_optional<HbmModule> socket;  // may stay unbound (submit() is the direct API)

  using CompletionCallback = std::function<void(const HbmCompletion&)>;
  void set_completion_callback(CompletionCallback callback) { callback_ = std::move(callback); }

  // Accepts a request at the current simulation time (request.cycle is overwritten) and
  // returns the HBM cycle it enters the controller. Errors as HbmDevice::submit; ids from
  // 2^63 up are the socket's (std::invalid_argument).
  Cycle submit(HbmRequest request);

  sc_core::sc_time period() const { return period_; }
  sc_core::sc_time time_of(Cycle c) const { return period_ * double(c); }
  Cycle arrival_cycle(const sc_core::sc_time& t) const { return Cycle(t.value() / period_.value()) + 1; }
  // Brings the lazily-run idle refresh and the counters up to the current time; call before
  // reading statistics at the end of a run.
  void sync();

  // How many times the process ran: proof that idle time is jumped, not stepped.
  uint64_t activations() const { return activations_; }

  HbmDevice& device() { return device_; }
  const HbmDevice& device() const { return device_; }

 private:
  void process();
  void guarded_process() { guard_process([this] { process(); }); }  // what SC_*(process) registers
  void schedule();
  // TLM-2.0 target side.
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  bool accept(tlm::tlm_generic_payload& trans) const;  // false: an error response is set
  void arrive(tlm::tlm_generic_payload& trans, const tlm::tlm_phase& phase);  // the PEQ's callback
  uint64_t submit_payload(tlm::tlm_generic_payload& trans);
  Cycle enter(HbmRequest request);  // submit() without the id check
  void respond(const HbmCompletion& c);
  void send_response();
  void guarded_send_response() { guard_process([this] { send_response(); }); }  // what SC_*(send_response) registers

  HbmDevice device_;
  sc_core::sc_time period_;
  sc_core::sc_event wake_;
  CompletionCallback callback_;
  IdleRefresh idle_refresh_;
  uint64_t activations_ = 0;
  // Socket requests carry tags from kSocketTag up, apart from submit()'s callers' ids.
  static constexpr uint64_t kSocketTag = uint64_t(1) << 63;
  uint64_t next_tag_ = kSocketTag;
  struct Pending {
    tlm::tlm_generic_payload* trans;
    sc_core::sc_event* blocking;  // b_transport's caller waits on it; nullptr: nb_transport
  };
  std::map<uint64_t, Pending> in_flight_;
  tlm_utils::peq_with_cb_and_phase<HbmModule> arrivals_;
  std::deque<tlm::tlm_generic_payload*> responses_;  // done, not yet sent
  bool response_open_ = false;  // a BEGIN_RESP waits for its END_RESP
  sc_core::sc_event response_freed_;
};

// Runs `options` closed-loop on a fresh HbmModule with a small source module and sc_start():
// the same traffic as run_traffic(device, options, 1). Elaborates, so once per process.
TrafficResult run_traffic_systemc(const HbmSpec& spec, const TrafficOptions& options);
// The same through `socket`: one payload per request, approximately timed. Same result.
TrafficResult run_traffic_tlm(const HbmSpec& spec, const TrafficOptions& options);

}  // namespace cstsim::hbm
