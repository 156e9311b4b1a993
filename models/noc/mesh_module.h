#pragma once
// The whole mesh as one SystemC module (never one per router). A single
// clockless SC_METHOD advances the Network only at cycles where something can
// happen and sleeps otherwise: after each activation it asks the network for its
// next event and notifies one timed event there; with nothing in flight it does
// not wake until inject() or release_ejection() is called.
//
// Clock: SystemC time t is NoC cycle t / period (period = 1 / clock_hz, rounded
// to 1 ps). Cycle c is simulated during the activation at time c * period.
//
// Connecting endpoints (DMA engines, HBM channel controllers):
//   - inject(packet) from any process at time c*period; packet.cycle < 0 means c;
//     otherwise it must be >= c (offering in the future is fine). Same-time
//     injections are order-independent: the NI decides cycle c at (c+1)*period.
//   - on_delivery(callback): called during the activation at the delivery cycle d
//     (time d*period) with Delivery.cycle == d; the callback may inject (e.g. a
//     response with cycle d or later).
//   - set_ejection_capacity / release_ejection: back-pressure from a bounded
//     endpoint queue, per vnet, in flits; released room counts from the next cycle.
#include <cstdint>
#include <functional>

#include <systemc>

#include "models/noc/network.h"
#include "models/base/process_guard.h"

namespace cstsim::noc {

class MeshModule : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(MeshModule);
  MeshModule(sc_core::sc_module_name name, const NocConfig& config);

  void inject(Packet packet);
  void on_delivery(std::function<void(const Delivery&)> callback);
  void set_ejection_capacity(NodeId node, int vnet, int64_t flits);
  void release_ejection(NodeId node, int vnet, int64_t flits);

  int64_t current_cycle() const;
  sc_core::sc_time period() const { return period_; }
  const Mesh& mesh() const { return network_.mesh(); }
  Network& network() { return network_; }
  const Network& network() const { return network_; }
  const NocStats& stats() const { return network_.stats(); }
  uint64_t activations() const { return activations_; }  // times the process ran

 private:
  void wake();
  void guarded_wake() { guard_process([this] { wake(); }); }  // what SC_*(wake) registers
  void schedule();

  Network network_;
  sc_core::sc_time period_;
  sc_core::sc_event wake_event_;
  uint64_t activations_ = 0;
  bool in_wake_ = false;  // inside wake(): it reschedules on its way out
};

}  // namespace cstsim::noc
