#include "models/interconnect/fabric.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "core/arith.h"

namespace cstsim::ic {

int Fabric::send(Message m) {
  for (int a : m.after)
    if (a < 0 || a >= int(messages_.size())) throw std::invalid_argument("fabric: a message waits for an unknown one");
  if (m.src == m.dst || m.bytes < 0) throw std::invalid_argument("fabric: a message goes from one chip to another");
  messages_.push_back(std::move(m));
  return int(messages_.size()) - 1;
}

int64_t Fabric::wire_bytes(int64_t bytes) const {
  const int64_t packets = spec_.max_payload > 0 ? std::max<int64_t>(1, (bytes + spec_.max_payload - 1) / spec_.max_payload) : 1;
  return bytes + packets * spec_.header;
}

int64_t Fabric::wire_ps(int64_t bytes) const {
  // bytes / (bytes per ns) in ps, rounded up; long double keeps 1 GiB messages exact to the ps.
  // A slow link and a large message may need more than the models can count: checked, not cast.
  const long double ps = (long double)wire_bytes(bytes) * 1000.0L / (long double)spec_.bytes_per_ns - 1e-9L;
  return checked_ps(std::max(ps, 0.0L), fmt::format("interconnect: a message of {} bytes on a {} GB/s link takes {:.3g} s",
                                                    bytes, spec_.bytes_per_ns, double(ps * 1e-12L)));
}

void Fabric::run() {
  links_.assign(topology_.links().size(), LinkStats{});
  timing_.assign(messages_.size(), MessageTiming{});
  std::vector<int64_t> link_free(topology_.links().size(), 0);
  std::vector<int> waiting(messages_.size(), 0);
  std::vector<std::vector<int>> dependents(messages_.size());
  std::vector<int64_t> inputs_in(messages_.size(), 0);
  for (size_t i = 0; i < messages_.size(); ++i) {
    waiting[i] = int(messages_[i].after.size());
    for (int a : messages_[i].after) dependents[size_t(a)].push_back(int(i));
  }
  // Events: (its first byte reaches hop `hop`'s link, message, hop, its last byte does).
  using Event = std::tuple<int64_t, int, int, int64_t>;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events;
  std::vector<std::vector<int>> routes(messages_.size());
  auto release = [&](int i) {
    const Message& m = messages_[size_t(i)];
    routes[size_t(i)] = topology_.route(m.src, m.dst);
    const int64_t at = checked_add_ps(std::max(m.ready_ps, inputs_in[size_t(i)]), m.reduce_ps, "interconnect: a collective's time");
    events.emplace(at, i, 0, at);
  };
  for (size_t i = 0; i < messages_.size(); ++i)
    if (waiting[i] == 0) release(int(i));
  while (!events.empty()) {
    const auto [head, i, hop, tail] = events.top();
    events.pop();
    const Message& m = messages_[size_t(i)];
    const int l = routes[size_t(i)][size_t(hop)];
    // Cut-through: a node forwards a message as its bytes come in, so the link may start with the
    // first byte and cannot end before the last one is in.
    const int64_t start = std::max(head, link_free[size_t(l)]);
    const int64_t end = std::max(checked_add_ps(start, wire_ps(m.bytes), "interconnect: a collective's time"), tail);
    link_free[size_t(l)] = end;
    LinkStats& s = links_[size_t(l)];
    s.payload_bytes += m.bytes;
    s.wire_bytes += wire_bytes(m.bytes);
    s.busy_ps += end - start;
    ++s.messages;
    s.energy_pj += double(wire_bytes(m.bytes)) * 8 * spec_.pj_per_bit;
    s.uses.push_back({i, start, end, wire_bytes(m.bytes)});
    if (hop == 0) timing_[size_t(i)].leave_ps = start;
    if (hop + 1 < int(routes[size_t(i)].size())) {
      events.emplace(start + spec_.latency_ps, i, hop + 1,
                     checked_add_ps(end, spec_.latency_ps, "interconnect: a collective's time"));
      continue;
    }
    const int64_t there = checked_add_ps(end, spec_.latency_ps, "interconnect: a collective's time");
    timing_[size_t(i)].arrive_ps = there;
    for (int d : dependents[size_t(i)]) {
      inputs_in[size_t(d)] = std::max(inputs_in[size_t(d)], there);
      if (--waiting[size_t(d)] == 0) release(d);
    }
  }
  for (size_t i = 0; i < messages_.size(); ++i)
    if (waiting[i] > 0) throw std::logic_error("fabric: a message waits for one that never arrives");
}

int64_t Fabric::end_ps() const {
  int64_t end = 0;
  for (const MessageTiming& t : timing_) end = std::max(end, t.arrive_ps);
  return end;
}

}  // namespace cstsim::ic
