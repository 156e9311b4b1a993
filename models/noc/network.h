#pragma once
// Network: the whole mesh as one plain C++ object — routers, links, endpoint
// network interfaces (NI), packet table, stats. No SystemC; MeshModule wraps it.
//
// Time: integer NoC cycles. step(c) does, in order:
//   1. ejection capacity released for cycle c;
//   2. the NIs' decisions for cycle c-1 (packets offered at cycles <= c-1 take a
//      free VC of their vnet at the router input and send one flit per cycle per
//      NI, round-robin over vnets, when they hold a credit). Deciding a cycle late
//      makes the result independent of the order in which same-cycle callers
//      inject; a flit sent at n reaches the router at n + link_latency >= c;
//   3. flits and credits whose wire delay ends at c are written;
//   4. every router allocates and traverses (Router::step) for cycle c; a flit
//      leaving at c reaches the next router at c + link_latency, where it may
//      leave from c + link_latency + router_latency on; its credit reaches the
//      upstream at c + credit_latency; a flit leaving through an ejection port is
//      delivered at c.
// Zero-load latency, offered at t0, H routers on the path, F flits:
//   tail delivered at t0 + H * (router_latency + link_latency) + F - 1
// (each router is preceded by one wire: the injection channel or a mesh link),
// exact as long as buffer_depth >= link + router + credit latency.
//
// Cycles where nothing can happen are skipped, not stepped: next_event() is the
// earliest cycle whose step can change anything.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <vector>

#include "models/noc/mesh.h"
#include "models/noc/noc_config.h"
#include "models/noc/noc_stats.h"
#include "models/noc/packet.h"
#include "models/noc/router.h"
#include "models/noc/routing.h"

namespace cstsim::noc {

// Optional hooks for traces and tests; every call is made while the cycle it
// names is being simulated (never behind).
class NocObserver {
 public:
  virtual ~NocObserver() = default;
  // Number of router-to-router links carrying a flit changed: `busy` holds from
  // `cycle` on (r_N in links; only changes are reported, 0 included).
  virtual void links_busy(int64_t /*cycle*/, int /*busy*/) {}
  // A flit entered `link` at `cycle` (one call per flit and link).
  virtual void link_flit(int64_t /*cycle*/, LinkId /*link*/) {}
  // Flit `seq` of `flits` of packet `packet_id` left the network at endpoint `node`.
  virtual void flit_delivered(int64_t /*cycle*/, NodeId /*node*/, uint64_t /*packet_id*/, int /*seq*/, int /*flits*/) {}
};

class Network {
 public:
  explicit Network(const NocConfig& config);
  ~Network();
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  const NocConfig& config() const { return config_; }
  const Mesh& mesh() const { return mesh_; }

  // Offers a packet at its source NI at packet.cycle, which must be >= now() - 1
  // (the NI cycle not yet decided; from inside a delivery callback: >= the
  // delivery cycle). Bad ids, vnet, size or cycle: std::invalid_argument.
  void inject(const Packet& packet);
  // Called for every packet whose tail is delivered, during step(delivery cycle).
  // The callback may inject(), release_ejection() or set_ejection_capacity(), but
  // must not call run_until().
  void set_delivery_callback(std::function<void(const Delivery&)> callback);
  void set_observer(NocObserver* observer) { observer_ = observer; }

  // Bounded ejection (e.g. an HBM controller's request queue): from now on the
  // endpoint accepts at most `flits` more flits of `vnet` until it releases them.
  // Unbounded by default. release_ejection makes `flits` more room from `cycle`
  // (>= now()) on.
  void set_ejection_capacity(NodeId node, int vnet, int64_t flits);
  void release_ejection(NodeId node, int vnet, int64_t flits, int64_t cycle);

  // Simulates every cycle < `cycle` in which something can happen; now() == cycle after.
  void run_until(int64_t cycle);
  // Earliest cycle >= now() whose step can change anything; nullopt when nothing
  // will happen without outside input (idle(), or stalled()).
  std::optional<int64_t> next_event() const;
  int64_t now() const { return now_; }  // all cycles < now() are simulated

  bool idle() const;                                             // no packet offered, queued, buffered or on a wire
  bool stalled() const { return !idle() && !next_event(); }      // waiting for a release, or deadlocked
  uint64_t packets_in_network() const { return live_packets_; }  // offered, not yet delivered
  // Packets offered at `node` on `vnet` whose tail has not left its NI yet: the
  // source queue length an endpoint can use for its own back-pressure.
  uint64_t unsent(NodeId node, int vnet) const { return unsent_[size_t(node * config_.vnets + vnet)]; }
  uint64_t steps() const { return steps_; }  // cycles actually simulated (the rest were skipped)

  const NocStats& stats() const { return stats_; }
  // Credit conservation on every channel and VC: credits held upstream + flits on
  // the wire + flits in the downstream buffer + credits on the way back == depth.
  // Throws std::logic_error on a violation. O(network size); for tests.
  void check_invariants() const;
  const Router& router(int id) const { return routers_[size_t(id)]; }

 private:
  struct PacketState;
  struct Ni;
  struct FlitEvent {
    int router;
    int8_t port, vc;
    int8_t route;
    Flit flit;
  };
  struct CreditEvent {
    int target;  // router id, or endpoint id when `ni`
    bool ni;
    int8_t port, vc;
    bool tail;
  };
  struct Bucket {
    std::vector<FlitEvent> flits;
    std::vector<CreditEvent> credits;
  };
  struct Future {
    int64_t cycle;
    uint64_t seq;
    uint32_t slot;
    bool operator>(const Future& o) const { return cycle != o.cycle ? cycle > o.cycle : seq > o.seq; }
  };
  struct Release {
    int64_t cycle;
    NodeId node;
    int vnet;
    int64_t flits;
  };

  void step(int64_t cycle);
  void apply_releases(int64_t cycle);
  void run_nis(int64_t ni_cycle);
  bool ni_send(Ni& ni, int64_t ni_cycle);
  void deliver_wires(int64_t cycle);
  void run_routers(int64_t cycle);
  void depart(int router, const Departure& d, int64_t cycle);
  void eject(int router, const Departure& d, int64_t cycle);
  void send_flit(int router, int port, int vc, const Flit& flit, int64_t arrival);
  int route(uint32_t slot, int router) const;
  Bucket& bucket(int64_t cycle) { return wheel_[size_t(cycle) & wheel_mask_]; }
  void report_links(int64_t cycle, int busy);

  NocConfig config_;
  Mesh mesh_;
  std::unique_ptr<IRouting> routing_;
  std::vector<Router> routers_;
  std::vector<Ni> nis_;
  std::vector<int> active_nis_;
  std::vector<PacketState> packets_;
  std::vector<uint32_t> free_slots_;
  std::priority_queue<Future, std::vector<Future>, std::greater<Future>> future_;
  std::vector<Release> releases_;
  std::vector<uint64_t> unsent_;  // per node * vnets + vnet
  std::vector<Bucket> wheel_;     // a power-of-two ring of cycles > max(link, credit latency)
  size_t wheel_mask_ = 0;
  uint64_t wheel_events_ = 0;
  std::vector<Departure> departures_;
  std::function<void(const Delivery&)> on_delivery_;
  NocObserver* observer_ = nullptr;
  NocStats stats_;
  int64_t now_ = 0;
  bool progress_ = false;  // the last step changed something
  bool in_step_ = false;   // inside step(now_): injections must be for now_ or later
  int busy_now_ = 0;       // links entered during the current step
  uint64_t live_packets_ = 0;
  uint64_t buffered_flits_ = 0;
  uint64_t future_seq_ = 0;
  uint64_t steps_ = 0;
  int busy_links_ = 0;  // last reported
  int64_t last_step_ = -1;
};

}  // namespace cstsim::noc
