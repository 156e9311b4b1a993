#include "models/noc/network.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "models/noc/topology.h"

namespace cstsim::noc {

namespace {

constexpr int kOpposite[kPorts] = {kLocal, kSouth, kWest, kNorth, kEast};
constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

[[noreturn]] void invariant(const std::string& what) { throw std::logic_error("noc invariant: " + what); }

const NocConfig& checked(const NocConfig& config) {
  validate(config);  // before the mesh and the routing are built from it
  return config;
}

}  // namespace

struct Network::PacketState {
  Packet packet;
  int flits = 0;
  int sent = 0;       // flits the source NI has sent
  int delivered = 0;  // flits ejected, in order
  int dst_router = 0;
  int8_t dst_port = 0;
  int hops = 0;
  bool live = false;
};

// A source network interface: per-vnet FIFOs of offered packets, the packet each
// vnet is sending, and the output VCs (credits) of its injection channel.
struct Network::Ni {
  NodeId node = 0;
  int router = 0;
  int port = 0;
  std::vector<std::deque<uint32_t>> queue;  // per vnet
  std::vector<int64_t> current;             // per vnet: packet slot being sent, -1 none
  std::vector<int> current_vc;              // per vnet
  std::vector<OutputVc> out;                // per VC of the router's input port
  int rr = 0;                               // vnet served first
  size_t pending = 0;                       // packets queued or being sent
  bool active = false;
};

Network::Network(const NocConfig& config)
    : config_(checked(config)),
      mesh_(build_topology(config)),
      routing_(make_routing(config.routing)) {
  const RouterParams rp{config_.vnets, config_.vcs_per_vnet, config_.buffer_depth, config_.router_latency,
                        config_.vc_reuse == VcReuse::Atomic, config_.arbitration == Arbitration::Age};
  routers_.reserve(size_t(mesh_.routers()));
  for (int r = 0; r < mesh_.routers(); ++r) {
    std::array<OutputKind, kPorts> kinds{};
    for (int p = 0; p < kPorts; ++p)
      kinds[size_t(p)] = mesh_.neighbour(r, p) >= 0     ? OutputKind::Link
                         : mesh_.endpoint_at(r, p) >= 0 ? OutputKind::Sink
                                                        : OutputKind::None;
    routers_.emplace_back(r, rp, kinds);
  }
  nis_.resize(size_t(mesh_.nodes()));
  for (const Endpoint& e : mesh_.endpoints()) {
    Ni& ni = nis_[size_t(e.id)];
    ni.node = e.id;
    ni.router = e.router;
    ni.port = e.port;
    ni.queue.resize(size_t(config_.vnets));
    ni.current.assign(size_t(config_.vnets), -1);
    ni.current_vc.assign(size_t(config_.vnets), -1);
    ni.out.resize(size_t(config_.vcs()));
    for (OutputVc& o : ni.out) o.credits = CreditCounter(config_.buffer_depth);
  }
  size_t wheel = 1;
  while (wheel < size_t(std::max(config_.link_latency, config_.credit_latency) + 1)) wheel *= 2;
  wheel_.resize(wheel);
  wheel_mask_ = wheel - 1;
  unsent_.assign(size_t(mesh_.nodes() * config_.vnets), 0);
  stats_.link_busy.assign(mesh_.links().size(), 0);
  stats_.injected_flits_at.assign(size_t(mesh_.nodes()), 0);
  stats_.ejected_flits_at.assign(size_t(mesh_.nodes()), 0);
}

Network::~Network() = default;

void Network::set_delivery_callback(std::function<void(const Delivery&)> callback) {
  on_delivery_ = std::move(callback);
}

void Network::inject(const Packet& p) {
  const int nodes = mesh_.nodes();
  if (p.src < 0 || p.src >= nodes || p.dst < 0 || p.dst >= nodes)
    throw std::invalid_argument(
        fmt::format("noc inject: node ids must be in 0..{}, got src {} dst {}", nodes - 1, p.src, p.dst));
  if (p.vnet < 0 || p.vnet >= config_.vnets)
    throw std::invalid_argument(fmt::format("noc inject: vnet {} outside 0..{}", p.vnet, config_.vnets - 1));
  if (p.bytes < 0) throw std::invalid_argument("noc inject: negative packet size");
  const int64_t earliest = in_step_ ? now_ : now_ - 1;
  if (p.cycle < earliest)
    throw std::invalid_argument(
        fmt::format("noc inject: packet offered at cycle {}, but cycles before {} are simulated", p.cycle, earliest));
  const int64_t flits = (p.bytes + config_.flit_bytes - 1) / config_.flit_bytes;
  if (flits > 65535) throw std::invalid_argument("noc inject: packet longer than 65535 flits");
  uint32_t slot;
  if (free_slots_.empty()) {
    slot = uint32_t(packets_.size());
    packets_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  const Endpoint& dst = mesh_.endpoint(p.dst);
  PacketState& ps = packets_[slot];
  ps = PacketState{};
  ps.packet = p;
  ps.flits = int(std::max<int64_t>(1, flits));
  ps.dst_router = dst.router;
  ps.dst_port = int8_t(dst.port);
  ps.hops = mesh_.hops(p.src, p.dst);
  ps.live = true;
  future_.push({p.cycle, future_seq_++, slot});
  ++unsent_[size_t(p.src * config_.vnets + p.vnet)];
  ++stats_.packets_offered;
  ++live_packets_;
}

void Network::set_ejection_capacity(NodeId node, int vnet, int64_t flits) {
  if (node < 0 || node >= mesh_.nodes() || vnet < 0 || vnet >= config_.vnets || flits < 0)
    throw std::invalid_argument("noc set_ejection_capacity: bad node, vnet or flits");
  const Endpoint& e = mesh_.endpoint(node);
  routers_[size_t(e.router)].set_sink_capacity(e.port, vnet, flits);
  progress_ = true;  // may unblock a flit at the next cycle
}

void Network::release_ejection(NodeId node, int vnet, int64_t flits, int64_t cycle) {
  if (node < 0 || node >= mesh_.nodes() || vnet < 0 || vnet >= config_.vnets || flits < 0)
    throw std::invalid_argument("noc release_ejection: bad node, vnet or flits");
  // Inside a step (a delivery callback) the current cycle's releases are applied already.
  releases_.push_back({std::max(cycle, in_step_ ? now_ + 1 : now_), node, vnet, flits});
}

bool Network::idle() const { return live_packets_ == 0 && wheel_events_ == 0 && releases_.empty(); }

std::optional<int64_t> Network::next_event() const {
  if (progress_) return now_;
  int64_t best = kNever;
  if (wheel_events_ > 0) {
    for (int64_t k = 0; k < int64_t(wheel_.size()); ++k) {
      const Bucket& b = wheel_[size_t(now_ + k) & wheel_mask_];
      if (!b.flits.empty() || !b.credits.empty()) {
        best = now_ + k;
        break;
      }
    }
  }
  if (!future_.empty()) best = std::min(best, std::max(future_.top().cycle + 1, now_));
  for (const Release& r : releases_) best = std::min(best, std::max(r.cycle, now_));
  if (buffered_flits_ > 0)
    for (const Router& r : routers_) best = std::min(best, r.next_ready_after(now_ - 1));
  if (best == kNever) return std::nullopt;
  return best;
}

void Network::run_until(int64_t cycle) {
  while (true) {
    const std::optional<int64_t> e = next_event();
    if (!e || *e >= cycle) break;
    step(*e);
  }
  if (now_ < cycle) now_ = cycle;
}

void Network::step(int64_t c) {
  now_ = c;
  in_step_ = true;
  progress_ = false;
  busy_now_ = 0;
  ++steps_;
  apply_releases(c);
  if (c >= 1) {
    while (!future_.empty() && future_.top().cycle <= c - 1) {
      const uint32_t slot = future_.top().slot;
      future_.pop();
      const Packet& p = packets_[slot].packet;
      Ni& ni = nis_[size_t(p.src)];
      ni.queue[size_t(p.vnet)].push_back(slot);
      ++ni.pending;
      if (!ni.active) {
        ni.active = true;
        active_nis_.push_back(p.src);
      }
      progress_ = true;
    }
    run_nis(c - 1);
  }
  deliver_wires(c);
  run_routers(c);
  report_links(c, busy_now_);
  last_step_ = c;
  in_step_ = false;
  now_ = c + 1;
}

void Network::apply_releases(int64_t c) {
  if (releases_.empty()) return;
  for (size_t i = 0; i < releases_.size();) {
    const Release r = releases_[i];
    if (r.cycle > c) {
      ++i;
      continue;
    }
    const Endpoint& e = mesh_.endpoint(r.node);
    routers_[size_t(e.router)].release_sink(e.port, r.vnet, r.flits);
    releases_[i] = releases_.back();
    releases_.pop_back();
    progress_ = true;
  }
}

void Network::run_nis(int64_t n) {
  for (size_t i = 0; i < active_nis_.size();) {
    Ni& ni = nis_[size_t(active_nis_[i])];
    if (ni_send(ni, n)) progress_ = true;
    if (ni.pending == 0) {
      ni.active = false;
      active_nis_[i] = active_nis_.back();
      active_nis_.pop_back();
    } else {
      ++i;
    }
  }
}

bool Network::ni_send(Ni& ni, int64_t n) {
  const int vnets = config_.vnets, vpv = config_.vcs_per_vnet;
  bool changed = false;
  // VC allocation on the injection channel: the lowest free VC of the vnet.
  for (int v = 0; v < vnets; ++v) {
    if (ni.current[size_t(v)] >= 0 || ni.queue[size_t(v)].empty()) continue;
    for (int j = 0; j < vpv; ++j) {
      OutputVc& o = ni.out[size_t(v * vpv + j)];
      if (o.owner >= 0) continue;
      const uint32_t slot = ni.queue[size_t(v)].front();
      ni.queue[size_t(v)].pop_front();
      o.owner = int(slot);
      ni.current[size_t(v)] = slot;
      ni.current_vc[size_t(v)] = v * vpv + j;
      ++stats_.packets_injected;
      changed = true;
      break;
    }
  }
  // One flit per cycle onto the channel, round-robin over vnets holding a credit.
  for (int k = 0; k < vnets; ++k) {
    const int v = (ni.rr + k) % vnets;
    if (ni.current[size_t(v)] < 0) continue;
    const int vc = ni.current_vc[size_t(v)];
    OutputVc& o = ni.out[size_t(vc)];
    if (!o.credits.available()) continue;
    const uint32_t slot = uint32_t(ni.current[size_t(v)]);
    PacketState& ps = packets_[slot];
    Flit f;
    f.packet = slot;
    f.seq = uint16_t(ps.sent);
    f.kind = uint8_t((ps.sent == 0 ? Flit::kHead : 0) | (ps.sent == ps.flits - 1 ? Flit::kTail : 0));
    f.vnet = uint8_t(v);
    f.ready = n + config_.link_latency + config_.router_latency;
    f.born = ps.packet.cycle;
    ++ps.sent;
    o.credits.consume();
    send_flit(ni.router, ni.port, vc, f, n + config_.link_latency);
    ++stats_.flits_injected;
    ++stats_.injected_flits_at[size_t(ni.node)];
    if (f.tail()) {
      if (config_.vc_reuse == VcReuse::AfterTail) o.owner = -1;
      ni.current[size_t(v)] = -1;
      --ni.pending;
      --unsent_[size_t(ni.node * vnets + v)];
    }
    ni.rr = (v + 1) % vnets;
    changed = true;
    break;
  }
  return changed;
}

int Network::route(uint32_t slot, int router) const {
  const PacketState& ps = packets_[slot];
  if (router == ps.dst_router) return ps.dst_port;
  const int port = routing_->route(mesh_, router, ps.dst_router);
  if (mesh_.neighbour(router, port) < 0)
    invariant(
        fmt::format("routing '{}' leaves the mesh at router {} port {}", routing_->name(), router, port_name(port)));
  return port;
}

void Network::send_flit(int router, int port, int vc, const Flit& flit, int64_t arrival) {
  const int route_port = flit.head() ? route(flit.packet, router) : -1;
  bucket(arrival).flits.push_back({router, int8_t(port), int8_t(vc), int8_t(route_port), flit});
  ++wheel_events_;
}

void Network::deliver_wires(int64_t c) {
  Bucket& b = bucket(c);
  if (b.flits.empty() && b.credits.empty()) return;
  for (const FlitEvent& e : b.flits) {
    routers_[size_t(e.router)].accept(e.port, e.vc, e.flit, e.route);
    ++buffered_flits_;
  }
  for (const CreditEvent& e : b.credits) {
    if (!e.ni) {
      routers_[size_t(e.target)].credit(e.port, e.vc, e.tail);
      continue;
    }
    OutputVc& o = nis_[size_t(e.target)].out[size_t(e.vc)];
    o.credits.restore();
    if (e.tail && config_.vc_reuse == VcReuse::Atomic) {
      if (o.owner < 0 || !o.credits.full()) invariant("tail credit at an injection VC not owned or not drained");
      o.owner = -1;
    }
  }
  wheel_events_ -= b.flits.size() + b.credits.size();
  b.flits.clear();
  b.credits.clear();
  progress_ = true;
}

void Network::run_routers(int64_t c) {
  if (buffered_flits_ == 0) return;
  for (Router& r : routers_) {
    if (r.buffered() == 0) continue;
    departures_.clear();
    if (r.step(c, departures_)) progress_ = true;
    for (const Departure& d : departures_) depart(r.id(), d, c);
  }
}

void Network::depart(int r, const Departure& d, int64_t c) {
  ++stats_.flit_hops;
  --buffered_flits_;
  if (d.flit.head()) ++stats_.vc_allocations;
  // The freed input slot's credit goes back to whoever feeds that input.
  CreditEvent credit{0, false, 0, int8_t(d.in_vc), d.flit.tail()};
  const int up = mesh_.neighbour(r, d.in_port);
  if (up >= 0) {
    credit.target = up;
    credit.port = int8_t(kOpposite[d.in_port]);
  } else {
    credit.target = mesh_.endpoint_at(r, d.in_port);
    credit.ni = true;
  }
  bucket(c + config_.credit_latency).credits.push_back(credit);
  ++wheel_events_;

  if (routers_[size_t(r)].output_kind(d.out_port) == OutputKind::Sink) {
    eject(r, d, c);
    return;
  }
  const LinkId link = mesh_.link_at(r, d.out_port);
  ++stats_.link_busy[size_t(link)];
  ++stats_.link_flits;
  ++busy_now_;
  if (observer_) observer_->link_flit(c, link);
  Flit f = d.flit;
  f.ready = c + config_.link_latency + config_.router_latency;
  send_flit(mesh_.neighbour(r, d.out_port), kOpposite[d.out_port], d.out_vc, f, c + config_.link_latency);
}

void Network::eject(int r, const Departure& d, int64_t c) {
  const uint32_t slot = d.flit.packet;
  PacketState& ps = packets_[slot];
  const NodeId node = mesh_.endpoint_at(r, d.out_port);
  if (!ps.live || node != ps.packet.dst)
    invariant(fmt::format("flit of packet {} ejected at node {}", ps.packet.id, node));
  if (d.flit.seq != ps.delivered)
    invariant(fmt::format("packet {}: flit {} delivered, expected flit {}", ps.packet.id, d.flit.seq, ps.delivered));
  ++ps.delivered;
  ++stats_.flits_delivered;
  ++stats_.ejected_flits_at[size_t(node)];
  if (observer_) observer_->flit_delivered(c, node, ps.packet.id, d.flit.seq, ps.flits);
  if (!d.flit.tail()) return;
  if (ps.delivered != ps.flits)
    invariant(fmt::format("packet {}: tail after {} of {} flits", ps.packet.id, ps.delivered, ps.flits));
  const Delivery delivery{ps.packet, c, ps.flits, ps.hops};
  ps.live = false;
  free_slots_.push_back(slot);
  --live_packets_;
  ++stats_.packets_delivered;
  stats_.latency.add(delivery.latency());
  if (on_delivery_) on_delivery_(delivery);  // may inject: `ps` is not used after this
}

void Network::report_links(int64_t c, int busy) {
  if (!observer_) return;
  // A step with busy links made progress, so the next step is the next cycle and
  // the return to 0 is reported on time; this branch is a safety net only.
  if (last_step_ >= 0 && c > last_step_ + 1 && busy_links_ != 0) {
    observer_->links_busy(last_step_ + 1, 0);
    busy_links_ = 0;
  }
  if (busy != busy_links_) {
    observer_->links_busy(c, busy);
    busy_links_ = busy;
  }
}

void Network::check_invariants() const {
  const int vcs = config_.vcs(), depth = config_.buffer_depth;
  // Flits on wires per (router, input port, vc); credits on wires per upstream (router or NI).
  auto in_index = [&](int router, int port, int vc) {
    return (size_t(router) * kPorts + size_t(port)) * size_t(vcs) + size_t(vc);
  };
  std::vector<int> wire_flits(size_t(mesh_.routers()) * kPorts * size_t(vcs), 0);
  std::vector<int> wire_credits(wire_flits.size(), 0);
  std::vector<int> ni_credits(size_t(mesh_.nodes()) * size_t(vcs), 0);
  uint64_t events = 0;
  for (const Bucket& b : wheel_) {
    for (const FlitEvent& e : b.flits) ++wire_flits[in_index(e.router, e.port, e.vc)];
    for (const CreditEvent& e : b.credits) {
      if (e.ni)
        ++ni_credits[size_t(e.target) * size_t(vcs) + size_t(e.vc)];
      else
        ++wire_credits[in_index(e.target, e.port, e.vc)];
    }
    events += b.flits.size() + b.credits.size();
  }
  if (events != wheel_events_) invariant("wheel event count drifted");
  uint64_t buffered = 0;
  for (const Router& r : routers_) {
    buffered += uint64_t(r.buffered());
    for (int p = 0; p < kPorts; ++p) {
      for (int v = 0; v < vcs; ++v) {
        const int occupancy = r.input(p, v).size;
        if (occupancy < 0 || occupancy > depth) invariant("input VC occupancy outside 0..depth");
        const int up = mesh_.neighbour(r.id(), p);
        const NodeId src = mesh_.endpoint_at(r.id(), p);
        int held = 0, back = 0;
        if (up >= 0) {
          const int up_port = kOpposite[p];
          held = routers_[size_t(up)].output(up_port, v).credits.credits();
          back = wire_credits[in_index(up, up_port, v)];
        } else if (src >= 0) {
          held = nis_[size_t(src)].out[size_t(v)].credits.credits();
          back = ni_credits[size_t(src) * size_t(vcs) + size_t(v)];
        } else {
          continue;
        }
        const int on_wire = wire_flits[in_index(r.id(), p, v)];
        if (held < 0 || held > depth || held + on_wire + occupancy + back != depth)
          invariant(
              fmt::format("credits not conserved into router {} port {} VC {}: {} held + {} on wire + {} "
                          "buffered + {} returning != depth {}",
                          r.id(), port_name(p), v, held, on_wire, occupancy, back, depth));
      }
    }
  }
  if (buffered != buffered_flits_) invariant("buffered flit count drifted");
}

}  // namespace cstsim::noc
