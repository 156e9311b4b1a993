// HbmModule's TLM-2.0 target socket: an approximately-timed initiator gets each BEGIN_RESP at
// the data-ready time the kernel-free device computes, one response at a time (response
// exclusion); b_transport returns at the data-ready time; bad payloads get the base
// protocol's error responses. One sc_start per test (each runs in its own process).
#include <gtest/gtest.h>

#include <memory>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "models/hbm/hbm_module.h"
#include "tests/hbm_util.h"

using namespace cstsim::hbm;

namespace {


struct Access {
  double at_ns;
  uint64_t addr;
  uint32_t bytes;
  bool write;
};

const std::vector<Access> kAccesses{{0, 0, 64, false},       {0, 4096, 32, false},    {3, 1 << 20, 128, true},
                                    {10, 64, 64, false},      {10, 8 << 20, 32, false}, {11, 2 << 20, 96, true},
                                    {40, 1 << 20, 64, false}, {41, 0, 32, true}};

// Sends kAccesses with nb_transport_fw at their times; takes BEGIN_RESP at once, or
// (hold > 0) ends each response `hold` later on the forward path.
struct AtInitiator : sc_core::sc_module {
  SC_HAS_PROCESS(AtInitiator);
  AtInitiator(sc_core::sc_module_name n, sc_core::sc_time hold) : sc_core::sc_module(n), socket("socket"), hold_(hold) {
    socket.register_nb_transport_bw(this, &AtInitiator::bw);
    SC_THREAD(run);
    SC_METHOD(end_response);
    sensitive << end_;
    dont_initialize();
  }
  void run() {
    for (size_t i = 0; i < kAccesses.size(); ++i) {
      const Access& a = kAccesses[i];
      const sc_core::sc_time at(a.at_ns, sc_core::SC_NS);
      if (at > sc_core::sc_time_stamp()) wait(at - sc_core::sc_time_stamp());
      tlm::tlm_generic_payload& p = payloads[i];
      p.set_command(a.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
      p.set_address(a.addr);
      p.set_data_ptr(data);
      p.set_data_length(a.bytes);
      p.set_streaming_width(a.bytes);
      p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      tlm::tlm_phase phase = tlm::BEGIN_REQ;
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      EXPECT_EQ(socket->nb_transport_fw(p, phase, delay), tlm::TLM_UPDATED);
      EXPECT_EQ(phase, tlm::END_REQ);
    }
  }
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase, sc_core::sc_time& delay) {
    EXPECT_EQ(phase, tlm::BEGIN_RESP);
    EXPECT_FALSE(open) << "BEGIN_RESP before the previous END_RESP";
    responses.emplace_back(size_t(&p - payloads.get()), sc_core::sc_time_stamp() + delay);
    if (hold_ == sc_core::SC_ZERO_TIME) return tlm::TLM_COMPLETED;
    open = true;
    end_.notify(hold_);
    return tlm::TLM_ACCEPTED;
  }
  void end_response() {
    open = false;
    tlm::tlm_phase phase = tlm::END_RESP;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    EXPECT_EQ(socket->nb_transport_fw(payloads[responses.back().first], phase, delay), tlm::TLM_COMPLETED);
  }
  tlm_utils::simple_initiator_socket<AtInitiator> socket;
  sc_core::sc_time hold_;
  sc_core::sc_event end_;
  bool open = false;
  unsigned char data[128] = {};
  std::unique_ptr<tlm::tlm_generic_payload[]> payloads{new tlm::tlm_generic_payload[kAccesses.size()]};  // not copyable
  std::vector<std::pair<size_t, sc_core::sc_time>> responses;  // (access, time)
};

// The same accesses on the kernel-free device, entering at the first HBM edge after their
// time: access -> data-ready cycle.
std::map<size_t, Cycle> device_done(const HbmSpec& spec) {
  HbmDevice dev(spec);
  for (size_t i = 0; i < kAccesses.size(); ++i) {
    const Access& a = kAccesses[i];
    HbmRequest r;
    r.addr = a.addr;
    r.bytes = a.bytes;
    r.is_write = a.write;
    r.id = i;
    r.cycle = Cycle(a.at_ns / spec.tck_ns) + 1;
    dev.submit(r);
  }
  dev.run_until(100'000);
  std::map<size_t, Cycle> done;
  for (const HbmCompletion& c : dev.take_completions()) done[size_t(c.id)] = c.done;
  return done;
}

TEST(HbmSocket, ApproximatelyTimedResponsesComeAtTheDeviceDataReadyTime) {
  const HbmSpec spec = load_hbm_spec(kHbm2);
  HbmModule hbm("hbm", spec);
  AtInitiator init("init", sc_core::SC_ZERO_TIME);
  init.socket.bind(hbm.socket);
  sc_core::sc_start();
  const std::map<size_t, Cycle> done = device_done(spec);
  ASSERT_EQ(init.responses.size(), kAccesses.size());
  for (const auto& [i, at] : init.responses) {
    EXPECT_EQ(at, hbm.time_of(done.at(i))) << "access " << i;
    EXPECT_EQ(init.payloads[i].get_response_status(), tlm::TLM_OK_RESPONSE);
  }
}

// An initiator that holds each response 50 ns: the next BEGIN_RESP waits for END_RESP.
TEST(HbmSocket, OneResponseAtATime) {
  const HbmSpec spec = load_hbm_spec(kHbm2);
  HbmModule hbm("hbm", spec);
  const sc_core::sc_time hold(50, sc_core::SC_NS);
  AtInitiator init("init", hold);
  init.socket.bind(hbm.socket);
  sc_core::sc_start();
  const std::map<size_t, Cycle> done = device_done(spec);
  ASSERT_EQ(init.responses.size(), kAccesses.size());
  sc_core::sc_time free = sc_core::SC_ZERO_TIME;  // when the response channel is free again
  Cycle last_done = 0;
  for (const auto& [i, at] : init.responses) {
    EXPECT_GE(done.at(i), last_done) << "responses go in completion order";
    last_done = done.at(i);
    // END_RESP frees the channel; the next BEGIN_RESP follows one delta later, at the same time.
    EXPECT_EQ(at, std::max(hbm.time_of(done.at(i)), free)) << "access " << i;
    free = at + hold;
  }
  EXPECT_GT(init.responses.back().second, hbm.time_of(last_done));  // the hold did delay some
}

struct LtInitiator : sc_core::sc_module {
  SC_HAS_PROCESS(LtInitiator);
  explicit LtInitiator(sc_core::sc_module_name n) : sc_core::sc_module(n), socket("socket") { SC_THREAD(run); }
  tlm::tlm_response_status send(tlm::tlm_command cmd, uint64_t addr, uint32_t bytes, unsigned char* enables = nullptr) {
    tlm::tlm_generic_payload p;
    p.set_command(cmd);
    p.set_address(addr);
    p.set_data_ptr(data);
    p.set_data_length(bytes);
    p.set_streaming_width(bytes);
    if (enables) {
      p.set_byte_enable_ptr(enables);
      p.set_byte_enable_length(bytes);
    }
    sc_core::sc_time delay(1.5, sc_core::SC_NS);  // the initiator's local time offset
    socket->b_transport(p, delay);
    EXPECT_EQ(delay, sc_core::SC_ZERO_TIME);
    return p.get_response_status();
  }
  void run() {
    wait(3, sc_core::SC_NS);  // + 1.5 ns offset: the read reaches the stack at 4.5 ns
    read = send(tlm::TLM_READ_COMMAND, 0, 32);
    read_back = sc_core::sc_time_stamp();
    beyond = send(tlm::TLM_READ_COMMAND, capacity, 32);
    unsigned char enables[32] = {};
    masked = send(tlm::TLM_WRITE_COMMAND, 0, 32, enables);
    ignore = send(tlm::TLM_IGNORE_COMMAND, 0, 32);
  }
  tlm_utils::simple_initiator_socket<LtInitiator> socket;
  unsigned char data[32] = {};
  uint64_t capacity = 0;
  sc_core::sc_time read_back;
  tlm::tlm_response_status read{}, beyond{}, masked{}, ignore{};
};

TEST(HbmSocket, BlockingTransportReturnsAtTheDataReadyTimeAndRefusesBadPayloads) {
  HbmModule hbm("hbm", load_hbm_spec(kHbm2));
  LtInitiator init("init");
  init.capacity = hbm.device().spec().org.capacity_bytes();
  init.socket.bind(hbm.socket);
  sc_core::sc_start();
  const HbmSpec& s = hbm.device().spec();
  EXPECT_EQ(init.read, tlm::TLM_OK_RESPONSE);
  // Enters at HBM cycle 5 (the first edge after 4.5 ns), an idle bank: ACT, RD, data.
  EXPECT_EQ(init.read_back, hbm.time_of(5 + s.t("tRCD_RD") + s.t("tCL") + s.t("tBL")));
  EXPECT_EQ(init.beyond, tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(init.masked, tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
  EXPECT_EQ(init.ignore, tlm::TLM_COMMAND_ERROR_RESPONSE);
}

}  // namespace

namespace {

// Closed-loop random traffic through the socket, one payload per request: the same
// cycles, latencies and command counts as the kernel-free device.
TEST(HbmSocket, ClosedLoopTrafficThroughTheSocketMatchesTheDevice) {
  const HbmSpec spec = load_hbm_spec(CSTSIM_SOURCE_DIR "/configs/memory/hbm3-6400.yaml",
                                     {{"organization.channels", "2"}, {"organization.rows", "256"}});
  TrafficOptions o;
  o.pattern = Pattern::Random;
  o.total_bytes = 128 << 10;
  o.request_bytes = 64;
  o.write_fraction = 0.3;
  o.outstanding = 24;
  const TrafficResult tlm = run_traffic_tlm(spec, o);
  HbmDevice dev(spec);
  const TrafficResult direct = run_traffic(dev, o, 1);
  EXPECT_EQ(tlm.requests, 2048u);
  EXPECT_EQ(tlm.end_cycle, direct.end_cycle);
  EXPECT_EQ(tlm.latencies, direct.latencies);
  EXPECT_EQ(tlm.stats.activates, direct.stats.activates);
  EXPECT_EQ(tlm.stats.reads, direct.stats.reads);
  EXPECT_EQ(tlm.stats.writes, direct.stats.writes);
  EXPECT_EQ(tlm.stats.bank_refreshes, direct.stats.bank_refreshes);
  EXPECT_EQ(tlm.stats.data_bus_busy, direct.stats.data_bus_busy);
}

}  // namespace
