#include "models/noc/router.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace cstsim::noc {

namespace {

[[noreturn]] void invariant(int router, const std::string& what) {
  throw std::logic_error(fmt::format("noc router {} invariant: {}", router, what));
}

}  // namespace

Router::Router(int id, const RouterParams& params, const std::array<OutputKind, kPorts>& outputs)
    : id_(id), p_(params), vcs_(params.vcs()), kind_(outputs) {
  if (p_.vnets < 1 || p_.vcs_per_vnet < 1 || p_.buffer_depth < 1 || p_.router_latency < 1)
    throw std::invalid_argument("Router: vnets, vcs_per_vnet, buffer_depth and router_latency must be >= 1");
  if (vcs_ > 64) throw std::invalid_argument("Router: at most 64 VCs per port");
  in_.resize(size_t(kPorts * vcs_));
  out_.resize(size_t(kPorts * vcs_));
  for (int p = 0; p < kPorts; ++p)
    for (int v = 0; v < vcs_; ++v)
      out_[size_t(index(p, v))].credits = CreditCounter(kind_[size_t(p)] == OutputKind::Link ? p_.buffer_depth : 0);
  flits_.resize(size_t(kPorts * vcs_ * p_.buffer_depth));
  pool_.assign(size_t(kPorts * p_.vnets), kUnbounded);
  ovc_rr_.assign(size_t(kPorts * p_.vnets), 0);
  va_rr_.assign(size_t(kPorts * p_.vnets), 0);
  va_words_ = (kPorts * vcs_ + 63) / 64;
  va_req_.assign(size_t(kPorts * p_.vnets * va_words_), 0);
  free_ovcs_.assign(size_t(kPorts * p_.vnets), p_.vcs_per_vnet);
}

const Flit& Router::front(int port, int vc) const {
  const InputVc& q = input(port, vc);
  return slot(index(port, vc), q.head);
}

void Router::accept(int port, int vc, const Flit& arriving, int route_port) {
  const int ivc = index(port, vc);
  InputVc& q = in_[size_t(ivc)];
  Flit f = arriving;
  if (q.size >= p_.buffer_depth)
    invariant(id_, fmt::format("input {} VC {} overflows its {} flits (sent without credit)", port_name(port), vc,
                               p_.buffer_depth));
  if (vc / p_.vcs_per_vnet != f.vnet)
    invariant(id_, fmt::format("flit of vnet {} on VC {} of vnet {}", f.vnet, vc, vc / p_.vcs_per_vnet));
  if (f.head()) {
    // A head never cuts into a packet still arriving; under atomic reuse upstream it
    // only enters an empty VC.
    if (q.open || (p_.atomic_vc_reuse && (q.size != 0 || q.out_port >= 0)))
      invariant(id_, fmt::format("head flit enters input {} VC {} still holding a packet", port_name(port), vc));
    if (route_port < 0 || route_port >= kPorts || kind_[size_t(route_port)] == OutputKind::None)
      invariant(id_, fmt::format("route to unconnected port {}", route_port));
    f.route = int8_t(route_port);
    // A VC empty of flits has sent its last tail, so a head arriving there is its front.
    if (q.size == 0) become_front(port, vc, f);
  } else if (!q.open) {
    invariant(id_, fmt::format("body flit on input {} VC {} without a head", port_name(port), vc));
  }
  q.open = !f.tail();
  const int tail_pos = q.head + q.size;
  slot(ivc, tail_pos >= p_.buffer_depth ? tail_pos - p_.buffer_depth : tail_pos) = f;
  if (q.size == 0) q.front_ready = f.ready;
  ++q.size;
  ++buffered_;
  nonempty_[size_t(port)] |= uint64_t(1) << vc;
}

// A head flit reaches the front of its input VC: its route becomes the VC's and it
// waits for VC allocation.
void Router::become_front(int port, int vc, const Flit& head) {
  InputVc& q = in_[size_t(index(port, vc))];
  q.out_port = head.route;
  q.out_vc = -1;
  ++waiting_va_;
  va_pending_[size_t(port)] |= uint64_t(1) << vc;
  va_dirty_ = true;
}

void Router::credit(int port, int vc, bool tail) {
  OutputVc& o = out_[size_t(index(port, vc))];
  if (kind_[size_t(port)] != OutputKind::Link) invariant(id_, "credit on a port without a downstream buffer");
  o.credits.restore();
  if (tail && p_.atomic_vc_reuse) {
    if (o.owner < 0) invariant(id_, fmt::format("tail credit for free output {} VC {}", port_name(port), vc));
    if (!o.credits.full())
      invariant(id_, fmt::format("output {} VC {} freed with {} credits missing", port_name(port), vc,
                                 o.credits.depth() - o.credits.credits()));
    o.owner = -1;
    ++free_ovcs_[size_t(port * p_.vnets + vc / p_.vcs_per_vnet)];
    va_dirty_ = true;
  }
}

void Router::set_sink_capacity(int port, int vnet, int64_t flits) {
  if (kind_[size_t(port)] != OutputKind::Sink) throw std::invalid_argument("set_sink_capacity: not an ejection port");
  if (flits < 0) throw std::invalid_argument("set_sink_capacity: negative capacity");
  pool_[size_t(port * p_.vnets + vnet)] = flits;
}

void Router::release_sink(int port, int vnet, int64_t flits) {
  int64_t& pool = pool_[size_t(port * p_.vnets + vnet)];
  if (pool == kUnbounded) return;
  if (flits < 0) throw std::invalid_argument("release_sink: negative flits");
  pool += flits;
}

bool Router::can_send(const InputVc& q, int vc) const {
  const int op = q.out_port;
  if (kind_[size_t(op)] == OutputKind::Sink) return pool_[size_t(op * p_.vnets + vc / p_.vcs_per_vnet)] > 0;
  return out_[size_t(index(op, q.out_vc))].credits.available();
}

int64_t Router::next_ready_after(int64_t cycle) const {
  int64_t best = kUnbounded;
  if (buffered_ == 0) return best;
  for (int ivc = 0; ivc < kPorts * vcs_; ++ivc) {
    const InputVc& q = in_[size_t(ivc)];
    if (q.size == 0) continue;
    const int64_t r = q.front_ready;
    if (r > cycle && r < best) best = r;
  }
  return best;
}

namespace {

// Calls fn(bit) for the set bits of `mask` in the order from, from+1, ..., width-1, 0, ..., from-1;
// stops early when fn returns true. Always inlined: as a call, the lambda it gets is copied through the
// stack on every VC allocation and switch allocation (a profile's top cost in the router).
template <typename Fn>
[[gnu::always_inline]] inline bool rotated_bits(uint64_t mask, int from, Fn fn) {
  const uint64_t high = from >= 64 ? 0 : mask & (~uint64_t(0) << from);
  for (uint64_t m = high; m; m &= m - 1)
    if (fn(__builtin_ctzll(m))) return true;
  for (uint64_t m = mask & ~high; m; m &= m - 1)
    if (fn(__builtin_ctzll(m))) return true;
  return false;
}

// The same over a set held in `words` 64-bit words (bit i of the set is bit i % 64 of word i / 64).
template <typename Fn>
[[gnu::always_inline]] inline bool rotated_bits(const uint64_t* set, int words, int from, Fn fn) {
  if (words == 1) return rotated_bits(set[0], from, fn);
  const int w0 = from >> 6, b0 = from & 63;
  auto walk = [&](int w, uint64_t m) {
    for (; m; m &= m - 1)
      if (fn(w * 64 + __builtin_ctzll(m))) return true;
    return false;
  };
  if (walk(w0, set[w0] & (~uint64_t(0) << b0))) return true;
  for (int k = 1; k < words; ++k)
    if (const int w = (w0 + k) % words; walk(w, set[w])) return true;
  return b0 > 0 && walk(w0, set[w0] & ((uint64_t(1) << b0) - 1));
}

}  // namespace

bool Router::try_allocate(int port, int vc, int64_t cycle) {
  const int ivc = index(port, vc);
  InputVc& q = in_[size_t(ivc)];
  if (q.front_ready > cycle) return false;
  const Flit& f = slot(ivc, q.head);
  if (!f.head()) invariant(id_, "front flit without an output VC is not a head");
  const int op = q.out_port, vnet = f.vnet;
  int& free = free_ovcs_[size_t(op * p_.vnets + vnet)];
  if (free == 0) return false;
  int& rr = ovc_rr_[size_t(op * p_.vnets + vnet)];
  for (int j = 0, c = rr; j < p_.vcs_per_vnet; ++j, c = c + 1 == p_.vcs_per_vnet ? 0 : c + 1) {
    const int ovc = vnet * p_.vcs_per_vnet + c;
    OutputVc& o = out_[size_t(index(op, ovc))];
    if (o.owner >= 0) continue;
    o.owner = ivc;
    --free;
    q.out_vc = int8_t(ovc);
    rr = c + 1 == p_.vcs_per_vnet ? 0 : c + 1;
    --waiting_va_;
    va_pending_[size_t(port)] &= ~(uint64_t(1) << vc);
    return true;
  }
  return false;
}

// Output-side round-robin per (output port, vnet): the heads asking for an output port's VCs of
// their vnet are granted in rotating order over input VCs (port-major), starting one past the
// last one granted there. A single pointer shared by all outputs would be reset by every grant
// elsewhere (a request leaving the Local port each cycle puts West last at every ejection VC
// that frees), starving an input port for hundreds of cycles.
bool Router::allocate_vcs(int64_t cycle) {
  bool any = false;
  va_dirty_ = false;
  va_wake_ = kUnbounded;
  uint64_t keys = 0;  // (output port, vnet) pairs asked for this cycle (kPorts x vnets <= 40)
  for (int ip = 0; ip < kPorts; ++ip)
    for (uint64_t m = va_pending_[size_t(ip)]; m; m &= m - 1) {
      const int vc = __builtin_ctzll(m);
      const int ivc = index(ip, vc);
      const InputVc& q = in_[size_t(ivc)];
      if (q.front_ready > cycle) {
        va_wake_ = std::min(va_wake_, q.front_ready);
        continue;
      }
      const int key = q.out_port * p_.vnets + vc / p_.vcs_per_vnet;
      if (free_ovcs_[size_t(key)] == 0) continue;  // nothing to grant there: the loop below would not run
      keys |= uint64_t(1) << key;
      va_req_[size_t(key * va_words_ + (ivc >> 6))] |= uint64_t(1) << (ivc & 63);
    }
  for (; keys; keys &= keys - 1) {
    const int key = __builtin_ctzll(keys);
    uint64_t* req = &va_req_[size_t(key * va_words_)];
    int last = -1;
    while (free_ovcs_[size_t(key)] > 0) {
      // The first asking VC in rotating order over input VCs (port-major), from one past the last
      // one granted here; with oldest_first the oldest head, ties in that order.
      int pick = -1;
      int64_t born = 0;
      rotated_bits(req, va_words_, va_rr_[size_t(key)], [&](int ivc) {
        const int64_t b = slot(ivc, in_[size_t(ivc)].head).born;
        if (pick < 0 || b < born) {
          pick = ivc;
          born = b;
        }
        return !p_.oldest_first;
      });
      if (pick < 0) break;
      req[pick >> 6] &= ~(uint64_t(1) << (pick & 63));
      if (try_allocate(pick / vcs_, pick % vcs_, cycle)) last = pick;
    }
    std::fill(req, req + va_words_, 0);  // scratch: clean for the next cycle
    if (last < 0) continue;
    va_rr_[size_t(key)] = last + 1 == kPorts * vcs_ ? 0 : last + 1;
    any = true;
  }
  return any;
}

bool Router::step(int64_t cycle, std::vector<Departure>& out) {
  if (buffered_ == 0) return false;
  bool changed = waiting_va_ > 0 && (va_dirty_ || cycle >= va_wake_) && allocate_vcs(cycle);

  // Switch allocation, input stage: one candidate VC per input port (round-robin), over the
  // ports holding a flit that has its output VC (a bit walk: most ports are empty).
  uint32_t inputs = 0, outputs = 0;
  for (int ip = 0; ip < kPorts; ++ip) inputs |= uint32_t((nonempty_[size_t(ip)] & ~va_pending_[size_t(ip)]) != 0) << ip;
  for (; inputs; inputs &= inputs - 1) {
    const int ip = __builtin_ctz(inputs);
    req_vc_[size_t(ip)] = -1;
    int64_t born = 0;
    rotated_bits(nonempty_[size_t(ip)] & ~va_pending_[size_t(ip)], sa_in_rr_[size_t(ip)], [&](int vc) {
      const InputVc& q = in_[size_t(index(ip, vc))];
      if (q.out_vc < 0) return false;
      if (q.front_ready > cycle || !can_send(q, vc)) return false;
      const int64_t b = slot(index(ip, vc), q.head).born;
      if (req_vc_[size_t(ip)] < 0 || b < born) {
        req_vc_[size_t(ip)] = vc;
        born = b;
      }
      return !p_.oldest_first;
    });
    if (req_vc_[size_t(ip)] >= 0) {
      const int op = in_[size_t(index(ip, req_vc_[size_t(ip)]))].out_port;
      req_in_[size_t(op)] = (outputs >> op & 1 ? req_in_[size_t(op)] : 0) | 1u << ip;
      outputs |= 1u << op;
      req_born_[size_t(ip)] = born;
    }
  }
  // Output stage: one input port per requested output port (round-robin); then traversal.
  for (; outputs; outputs &= outputs - 1) {
    const int op = __builtin_ctz(outputs);
    const uint32_t requests = req_in_[size_t(op)];
    int ip = sa_out_rr_[size_t(op)];
    while (!(requests >> ip & 1)) ip = ip + 1 == kPorts ? 0 : ip + 1;
    if (p_.oldest_first)  // the oldest nomination; ties go to the rotating pointer's order
      for (int k = 1, c = ip + 1 == kPorts ? 0 : ip + 1; k < kPorts; ++k, c = c + 1 == kPorts ? 0 : c + 1)
        if ((requests >> c & 1) && req_born_[size_t(c)] < req_born_[size_t(ip)]) ip = c;
    const int vc = req_vc_[size_t(ip)];
    const int ivc = index(ip, vc);
    InputVc& q = in_[size_t(ivc)];
    const Flit f = slot(ivc, q.head);
    const int ovc = q.out_vc;
    OutputVc& o = out_[size_t(index(op, ovc))];
    if (o.owner != ivc) invariant(id_, "switch grant to an input VC that does not own its output VC");
    if (kind_[size_t(op)] == OutputKind::Sink) {
      int64_t& pool = pool_[size_t(op * p_.vnets + f.vnet)];
      if (pool != kUnbounded) --pool;
      if (f.tail()) {  // nothing downstream to drain
        o.owner = -1;
        ++free_ovcs_[size_t(op * p_.vnets + f.vnet)];
        va_dirty_ = true;
      }
    } else {
      o.credits.consume();
      if (f.tail() && !p_.atomic_vc_reuse) {  // the next packet may follow it into the downstream VC
        o.owner = -1;
        ++free_ovcs_[size_t(op * p_.vnets + f.vnet)];
        va_dirty_ = true;
      }
    }
    q.head = q.head + 1 == p_.buffer_depth ? 0 : q.head + 1;
    --q.size;
    if (q.size > 0) q.front_ready = slot(ivc, q.head).ready;
    --buffered_;
    if (q.size == 0) nonempty_[size_t(ip)] &= ~(uint64_t(1) << vc);
    if (f.tail()) {
      q.out_port = -1;
      q.out_vc = -1;
      if (q.size != 0) {
        const Flit& next = slot(ivc, q.head);
        if (p_.atomic_vc_reuse || !next.head()) invariant(id_, "flits behind a tail in the same VC");
        become_front(ip, vc, next);
      }
    }
    out.push_back({ip, vc, op, ovc, f});
    sa_in_rr_[size_t(ip)] = vc + 1 == vcs_ ? 0 : vc + 1;
    sa_out_rr_[size_t(op)] = ip + 1 == kPorts ? 0 : ip + 1;
    changed = true;
  }
  return changed;
}

}  // namespace cstsim::noc
