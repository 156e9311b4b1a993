#include "models/hbm/hbm_module.h"

#include <memory>
#include <stdexcept>

#include <tlm_utils/simple_initiator_socket.h>

namespace cstsim::hbm {

HbmModule::HbmModule(sc_core::sc_module_name name, HbmSpec spec, IdleRefresh idle_refresh)
    : sc_core::sc_module(name),
      socket("socket"),
      device_(std::move(spec)),
      period_(sc_core::sc_time(device_.spec().tck_ns, sc_core::SC_NS)),
      idle_refresh_(idle_refresh),
      arrivals_(this, &HbmModule::arrive) {
  socket.register_nb_transport_fw(this, &HbmModule::nb_transport_fw);
  socket.register_b_transport(this, &HbmModule::b_transport);
  if (period_.value() == 0 || period_ != sc_core::sc_time(device_.spec().tck_ns * 1000.0, sc_core::SC_PS))
    throw std::invalid_argument("HBM tCK is not a whole number of SystemC time units");
  SC_METHOD(guarded_process);  // runs once at time 0 (Timed: schedules the first refresh), then on wake_
  sensitive << wake_;
  SC_METHOD(guarded_send_response);  // the next BEGIN_RESP once the initiator ended the last
  sensitive << response_freed_;
  dont_initialize();
}

Cycle HbmModule::submit(HbmRequest request) {
  if (request.id >= kSocketTag) throw std::invalid_argument("HBM request id from 2^63 up: reserved for the socket");
  return enter(request);
}

Cycle HbmModule::enter(HbmRequest request) {
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
  for (const HbmCompletion& c : device_.take_completions()) {
    if (c.id >= kSocketTag)
      respond(c);
    else if (callback_)
      callback_(c);
  }
  schedule();
}

void HbmModule::schedule() {
  const Cycle e = device_.next_event(idle_refresh_ == IdleRefresh::Timed);
  if (e >= kNever) return;  // Lazy and idle: refresh catches up at the next request or sync()
  wake_.notify(time_of(e) - sc_core::sc_time_stamp());
}

bool HbmModule::accept(tlm::tlm_generic_payload& trans) const {
  const uint64_t capacity = device_.spec().org.capacity_bytes();
  if (!trans.is_read() && !trans.is_write())
    trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
  else if (trans.get_data_length() == 0 || trans.get_address() >= capacity ||
           trans.get_data_length() > capacity - trans.get_address())
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
  else if (trans.get_byte_enable_ptr())
    trans.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
  else if (trans.get_streaming_width() < trans.get_data_length())
    trans.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
  else
    return true;
  return false;
}

uint64_t HbmModule::submit_payload(tlm::tlm_generic_payload& trans) {
  HbmRequest r;
  r.addr = trans.get_address();
  r.bytes = trans.get_data_length();
  r.is_write = trans.is_write();
  r.id = next_tag_++;
  enter(r);
  return r.id;
}

tlm::tlm_sync_enum HbmModule::nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                              sc_core::sc_time& delay) {
  if (phase == tlm::BEGIN_REQ) {
    arrivals_.notify(trans, phase, delay);
    phase = tlm::END_REQ;
    delay = sc_core::SC_ZERO_TIME;
    return tlm::TLM_UPDATED;
  }
  if (phase == tlm::END_RESP) {
    response_open_ = false;
    response_freed_.notify(sc_core::SC_ZERO_TIME);  // not from inside the initiator's call
    return tlm::TLM_COMPLETED;
  }
  throw std::logic_error("HBM socket: unexpected phase from the initiator");
}

// At the request's own time: an error answers at once, else it enters the controller.
void HbmModule::arrive(tlm::tlm_generic_payload& trans, const tlm::tlm_phase&) {
  if (!accept(trans)) {
    responses_.push_back(&trans);
    send_response();
    return;
  }
  in_flight_[submit_payload(trans)] = {&trans, nullptr};
}

void HbmModule::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  if (delay != sc_core::SC_ZERO_TIME) wait(delay);
  delay = sc_core::SC_ZERO_TIME;
  if (!accept(trans)) return;
  sc_core::sc_event done;
  in_flight_[submit_payload(trans)] = {&trans, &done};
  wait(done);
}

void HbmModule::respond(const HbmCompletion& c) {
  const auto it = in_flight_.find(c.id);
  if (it == in_flight_.end()) throw std::logic_error("HBM socket: a completion for no request");
  const Pending p = it->second;
  in_flight_.erase(it);
  p.trans->set_response_status(tlm::TLM_OK_RESPONSE);
  if (p.blocking) {
    p.blocking->notify();
    return;
  }
  responses_.push_back(p.trans);
  send_response();
}

void HbmModule::send_response() {
  while (!response_open_ && !responses_.empty()) {
    tlm::tlm_generic_payload* trans = responses_.front();
    responses_.pop_front();
    tlm::tlm_phase phase = tlm::BEGIN_RESP;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    const tlm::tlm_sync_enum s = socket->nb_transport_bw(*trans, phase, delay);
    // TLM_ACCEPTED: END_RESP comes later on the forward path.
    response_open_ = s == tlm::TLM_ACCEPTED || (s == tlm::TLM_UPDATED && phase != tlm::END_RESP);
  }
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

// The same closed loop through the TLM-2.0 socket: each request a payload sent with
// BEGIN_REQ, each BEGIN_RESP a completion (arrival and data-ready cycle from the times).
struct TlmTrafficSource : sc_core::sc_module {
  SC_HAS_PROCESS(TlmTrafficSource);
  TlmTrafficSource(sc_core::sc_module_name name, HbmModule& hbm, TrafficRecorder& rec)
      : sc_core::sc_module(name), socket("socket"), hbm_(hbm), rec_(rec) {
    socket.register_nb_transport_bw(this, &TlmTrafficSource::bw);
    socket.bind(hbm.socket);
    for (const HbmRequest& r : rec_.initial()) to_send_.push_back(r);
    SC_METHOD(send);  // at time 0, then whenever a response made a next request
    sensitive << more_;
  }
  struct Sent {
    HbmRequest request;
    Cycle arrival;
  };
  void send() {
    for (const HbmRequest& r : to_send_) {
      if (free_.empty()) {
        payloads_.push_back(std::make_unique<tlm::tlm_generic_payload>());
        free_.push_back(payloads_.back().get());
      }
      tlm::tlm_generic_payload* p = free_.back();
      free_.pop_back();
      p->set_command(r.is_write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
      p->set_address(r.addr);
      p->set_data_length(uint32_t(r.bytes));
      p->set_streaming_width(uint32_t(r.bytes));
      p->set_data_ptr(data_);
      p->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      sent_[p] = {r, hbm_.arrival_cycle(sc_core::sc_time_stamp())};
      tlm::tlm_phase phase = tlm::BEGIN_REQ;
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      if (socket->nb_transport_fw(*p, phase, delay) != tlm::TLM_UPDATED || phase != tlm::END_REQ)
        throw std::logic_error("HBM socket traffic: request not accepted at once");
    }
    to_send_.clear();
  }
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase, sc_core::sc_time& delay) {
    if (phase != tlm::BEGIN_RESP || p.get_response_status() != tlm::TLM_OK_RESPONSE)
      throw std::logic_error("HBM socket traffic: unexpected response");
    const auto it = sent_.find(&p);
    HbmCompletion c;
    c.id = it->second.request.id;
    c.addr = it->second.request.addr;
    c.bytes = it->second.request.bytes;
    c.is_write = it->second.request.is_write;
    c.arrival = it->second.arrival;
    c.done = Cycle((sc_core::sc_time_stamp() + delay).value() / hbm_.period().value());
    sent_.erase(it);
    free_.push_back(&p);  // TLM_COMPLETED: ours again (reused from a later delta)
    if (auto next = rec_.on_completion(c)) {
      to_send_.push_back(*next);
      more_.notify(sc_core::SC_ZERO_TIME);  // sent at this time, from our own process
    }
    return tlm::TLM_COMPLETED;
  }
  tlm_utils::simple_initiator_socket<TlmTrafficSource> socket;
  HbmModule& hbm_;
  TrafficRecorder& rec_;
  std::vector<HbmRequest> to_send_;
  std::map<const tlm::tlm_generic_payload*, Sent> sent_;
  std::vector<std::unique_ptr<tlm::tlm_generic_payload>> payloads_;  // as many as were ever in flight
  std::vector<tlm::tlm_generic_payload*> free_;
  unsigned char data_[1] = {};  // the model moves no data; a valid pointer all the same
  sc_core::sc_event more_;
};

}  // namespace

TrafficResult run_traffic_tlm(const HbmSpec& spec, const TrafficOptions& options) {
  HbmModule hbm("hbm", spec);
  TrafficRecorder rec(hbm.device(), options, 1);
  TlmTrafficSource source("traffic", hbm, rec);
  sc_core::sc_start();
  ProcessErrors::rethrow_if_any();
  hbm.device().run_until(rec.end_cycle());
  return rec.finish(hbm.device());
}

TrafficResult run_traffic_systemc(const HbmSpec& spec, const TrafficOptions& options) {
  HbmModule hbm("hbm", spec);
  TrafficRecorder rec(hbm.device(), options, 1);
  TrafficSource source("traffic", hbm, rec);
  hbm.set_completion_callback([&](const HbmCompletion& c) {
    if (auto next = rec.on_completion(c)) hbm.submit(*next);
  });
  sc_core::sc_start();
  ProcessErrors::rethrow_if_any();
  // The run ends when the last request completes; count refresh up to that cycle.
  hbm.device().run_until(rec.end_cycle());
  return rec.finish(hbm.device());
}

}  // namespace cstsim::hbm
