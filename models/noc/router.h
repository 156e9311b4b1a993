#pragma once
// One input-queued virtual-channel mesh router, as plain C++ (no kernel).
//
// State:
//   - 5 input units (Local, N, E, S, W), each with vcs() input VCs: a FIFO of at
//     most buffer_depth flits, the route of the packet it holds and the output VC
//     allocated to it;
//   - 5 output units, each with vcs() output VCs: credits for the downstream
//     input VC and the input VC that owns it. A "sink" output feeds an endpoint
//     (ejection): no credits, an optional per-vnet capacity pool instead.
// VC v belongs to vnet v / vcs_per_vnet; a packet only ever uses VCs of its vnet.
//
// Per cycle (step): a flit may leave once cycle >= flit.ready (buffer write
// cycle + router_latency). Route computation happened at the head's buffer write.
//   1. VC allocation, one arbiter per (output port, vnet): the ready heads asking
//      for its VCs are granted the free ones in rotating order over input VCs,
//      from one past the last input VC it granted; each takes the next free
//      output VC (round-robin per output port and vnet).
//   2. Switch allocation, separable input-first: each input port picks one of its
//      VCs that has a ready flit, an output VC and a credit (round-robin); each
//      output port grants one requesting input port (round-robin). Pointers move
//      past the winner only when it wins.
//   With oldest_first (NocConfig::arbitration == Age) every one of these choices
//   takes the flit of the oldest packet instead, ties in the rotating order.
//   3. Switch traversal: winners leave (one flit per input and per output port).
// VC reuse (NocConfig::vc_reuse): after_tail frees an output VC when the tail
// leaves through the switch, so an input VC may hold the end of one packet and
// the start of the next (a FIFO of packets; a head waits to reach the front before
// its VC allocation). atomic frees it when the tail's credit comes back, i.e. when
// the downstream buffer holds nothing of the packet: an input VC then holds at
// most one packet.
#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "models/noc/credit.h"
#include "models/noc/mesh.h"
#include "models/noc/packet.h"

namespace cstsim::noc {

struct RouterParams {
  int vnets = 2;
  int vcs_per_vnet = 2;
  int buffer_depth = 4;
  int router_latency = 1;
  bool atomic_vc_reuse = false;  // NocConfig::vc_reuse == Atomic
  bool oldest_first = false;     // NocConfig::arbitration == Age
  int vcs() const { return vnets * vcs_per_vnet; }
};

enum class OutputKind : uint8_t { None, Link, Sink };

struct InputVc {
  int64_t front_ready = 0;  // `ready` of the front flit (cached: the hot test of every cycle)
  int head = 0;             // ring index of the front flit
  int size = 0;             // flits buffered
  int8_t out_port = -1;     // route of the front packet (from its head flit once at the front)
  int8_t out_vc = -1;       // output VC allocated to it, -1 before VC allocation
  bool open = false;        // the last flit written was not a tail: a packet is still arriving
};

struct OutputVc {
  CreditCounter credits;  // free slots downstream (unused on sink ports)
  int owner = -1;         // input VC index (port * vcs + vc) holding it, -1 when free
};

// A flit leaving the router this cycle.
struct Departure {
  int in_port = 0, in_vc = 0, out_port = 0, out_vc = 0;
  Flit flit;
};

class Router {
 public:
  static constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();

  Router(int id, const RouterParams& params, const std::array<OutputKind, kPorts>& outputs);

  // Buffer write of a flit arriving on (port, vc); a head flit brings its route.
  void accept(int port, int vc, const Flit& flit, int route_port);
  // A credit from downstream for output (port, vc); the tail's credit frees the VC.
  void credit(int port, int vc, bool tail);
  // Allocation and traversal for `cycle`; appends the departures. True if anything
  // changed (a VC was allocated or a flit left).
  bool step(int64_t cycle, std::vector<Departure>& out);

  // Ejection capacity of a sink port, per vnet, in flits (kUnbounded by default).
  void set_sink_capacity(int port, int vnet, int64_t flits);
  void release_sink(int port, int vnet, int64_t flits);
  int64_t sink_capacity(int port, int vnet) const { return pool_[size_t(port * p_.vnets + vnet)]; }

  int id() const { return id_; }
  int buffered() const { return buffered_; }
  // Earliest `ready` later than `cycle` among front flits (kUnbounded if none).
  int64_t next_ready_after(int64_t cycle) const;
  const InputVc& input(int port, int vc) const { return in_[size_t(port * vcs_ + vc)]; }
  const OutputVc& output(int port, int vc) const { return out_[size_t(port * vcs_ + vc)]; }
  OutputKind output_kind(int port) const { return kind_[size_t(port)]; }
  const Flit& front(int port, int vc) const;

 private:
  int index(int port, int vc) const { return port * vcs_ + vc; }
  Flit& slot(int ivc, int pos) { return flits_[size_t(ivc * p_.buffer_depth + pos)]; }
  const Flit& slot(int ivc, int pos) const { return flits_[size_t(ivc * p_.buffer_depth + pos)]; }
  bool can_send(const InputVc& q, int vc) const;
  void become_front(int port, int vc, const Flit& head);
  bool allocate_vcs(int64_t cycle);
  bool try_allocate(int port, int vc, int64_t cycle);

  int id_;
  RouterParams p_;
  int vcs_;
  std::array<OutputKind, kPorts> kind_;
  std::vector<InputVc> in_;    // kPorts * vcs
  std::vector<OutputVc> out_;  // kPorts * vcs
  std::vector<Flit> flits_;    // kPorts * vcs * depth ring buffers
  std::vector<int64_t> pool_;  // kPorts * vnets: sink capacity left
  int buffered_ = 0;
  int waiting_va_ = 0;                         // input VCs whose front head has no output VC
  std::array<uint64_t, kPorts> va_pending_{};  // per input port: bit v = VC v waits for VC allocation
  std::array<uint64_t, kPorts> nonempty_{};    // per input port: bit v = VC v holds flits
  std::vector<int> va_rr_;                     // kPorts * vnets: input VC (port-major) that goes first
  std::vector<int> ovc_rr_;                    // kPorts * vnets: next output VC to try
  int va_words_ = 1;                           // words of a set over all input VCs (kPorts * vcs bits)
  std::vector<uint64_t> va_req_;               // scratch: per (output port, vnet), bit ivc = input VC ivc asks
  std::vector<int> free_ovcs_;                 // kPorts * vnets: output VCs with no owner
  // VC allocation runs only when it can grant: after a head began to wait or an output VC
  // freed (va_dirty_), or once a waiting head's flit is ready (va_wake_). Between, it would
  // find every waiting head not ready or its output VCs all owned, and change nothing.
  bool va_dirty_ = true;
  int64_t va_wake_ = 0;
  std::array<int, kPorts> sa_in_rr_{};         // per input port: next VC to try
  std::array<int, kPorts> sa_out_rr_{};        // per output port: next input port to grant
  std::array<int, kPorts> req_vc_{};           // scratch: input port's chosen VC (-1 none)
  std::array<int64_t, kPorts> req_born_{};     // scratch: the chosen flit's packet birth cycle
  std::array<uint32_t, kPorts> req_in_{};      // scratch: per output port, bit ip = input port requests it
};

}  // namespace cstsim::noc
