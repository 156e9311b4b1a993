#include "models/noc/mesh_module.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace cstsim::noc {

MeshModule::MeshModule(sc_core::sc_module_name name, const NocConfig& config) : sc_module(name), network_(config) {
  // SystemC time only orders the processes; cycles are counted as integers.
  period_ = sc_core::sc_time(std::round(1e12 / config.clock_hz), sc_core::SC_PS);
  SC_METHOD(guarded_wake);
  sensitive << wake_event_;
  dont_initialize();
}

int64_t MeshModule::current_cycle() const { return int64_t(sc_core::sc_time_stamp().value() / period_.value()); }

void MeshModule::inject(Packet packet) {
  const int64_t now = current_cycle();
  if (packet.cycle < 0) packet.cycle = now;
  if (packet.cycle < now)
    throw std::invalid_argument(
        fmt::format("{}: packet offered at cycle {} in the past (now {})", name(), packet.cycle, now));
  network_.inject(packet);
  schedule();
}

void MeshModule::on_delivery(std::function<void(const Delivery&)> callback) {
  network_.set_delivery_callback(std::move(callback));
}

void MeshModule::set_ejection_capacity(NodeId node, int vnet, int64_t flits) {
  network_.set_ejection_capacity(node, vnet, flits);
  schedule();
}

void MeshModule::release_ejection(NodeId node, int vnet, int64_t flits) {
  network_.release_ejection(node, vnet, flits, current_cycle() + 1);
  schedule();
}

void MeshModule::wake() {
  ++activations_;
  in_wake_ = true;
  network_.run_until(current_cycle() + 1);  // delivery callbacks may inject or release here
  in_wake_ = false;
  schedule();
}

// One pending notification at the earliest next event; sc_event keeps the
// earlier of two timed notifications, so calling this again is harmless.
void MeshModule::schedule() {
  if (in_wake_) return;
  const std::optional<int64_t> next = network_.next_event();
  if (!next) return;
  // Wake exactly at the start of cycle `next`, even if the caller runs between edges.
  const sc_core::sc_time at = period_ * double(*next), now = sc_core::sc_time_stamp();
  if (at <= now)
    wake_event_.notify(sc_core::SC_ZERO_TIME);
  else
    wake_event_.notify(at - now);
}

}  // namespace cstsim::noc
