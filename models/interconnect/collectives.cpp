#include "models/interconnect/collectives.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/arith.h"

namespace cstsim::ic {

int64_t Collective::end_ps(const Fabric& f) const {
  int64_t end = 0;
  for (int m : messages) end = std::max(end, f.timing(m).arrive_ps);
  return end;
}

namespace {

// Byte k of n parts of `bytes`: the first bytes % n parts one larger.
int64_t part(int64_t bytes, int64_t n, int64_t k) { return bytes / n + (k < bytes % n ? 1 : 0); }

// A collective with nothing sent yet, on f's chips.
Collective none_yet(const Fabric& f) {
  Collective c;
  c.sent_by_chip.assign(size_t(f.topology().chips()), 0);
  return c;
}

Message message(int src, int dst, int64_t bytes, const CollectiveOptions& o) {
  Message m;
  m.src = src;
  m.dst = dst;
  m.bytes = bytes;
  m.ready_ps = size_t(src) < o.ready_by_chip.size() ? std::max(o.start_ps, o.ready_by_chip[size_t(src)]) : o.start_ps;
  m.collective = o.id;
  return m;
}

// Sends m as part of c; returns its id.
int post(Fabric& f, Collective& c, const Message& m) {
  const int id = f.send(m);
  c.messages.push_back(id);
  c.sent_by_chip[size_t(m.src)] += m.bytes;
  return id;
}

int64_t reduce_ps(double ps_per_byte, int64_t bytes) {
  return checked_ps((long double)ps_per_byte * (long double)bytes, "interconnect: the reduction of a collective's chunk");
}

// Ring steps [first, last) of a reduce-scatter then all-gather schedule over `ring`: step k, chip
// position i sends chunk (i - k) mod N to position i + 1, after step k - 1's message into i (the
// same slice). Steps below N - 1 reduce what arrived before forwarding it, and so does step N - 1
// (it forwards the chunk its last reduction completed).
Collective ring_steps(Fabric& f, const std::vector<int>& ring, int64_t bytes, const CollectiveOptions& o, int first,
                      int last) {
  const int n = int(ring.size());
  if (n < 2) throw std::invalid_argument("a ring collective needs two chips");
  Collective c = none_yet(f);
  std::vector<std::vector<int>> previous(static_cast<size_t>(n));  // per position: its last step's message per slice
  for (int k = first; k < last; ++k) {
    std::vector<std::vector<int>> now(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      const int from = ring[size_t(i)], to = ring[size_t((i + 1) % n)];
      const int64_t chunk = part(bytes, n, ((i - k) % n + n) % n);
      const int64_t slices = o.slice_bytes > 0 ? std::max<int64_t>(1, (chunk + o.slice_bytes - 1) / o.slice_bytes) : 1;
      const std::vector<int>& into = previous[size_t((i + n - 1) % n)];
      for (int64_t j = 0; j < slices; ++j) {
        Message msg = message(from, to, part(chunk, slices, j), o);
        if (k > first) {
          msg.after.push_back(into[size_t(j)]);
          if (k <= n - 1) msg.reduce_ps = reduce_ps(o.reduce_ps_per_byte, msg.reduce_bytes = msg.bytes);
        } else {
          if (size_t(from) < o.after_by_chip.size() && o.after_by_chip[size_t(from)] >= 0)
            msg.after.push_back(o.after_by_chip[size_t(from)]);
          if (size_t(from) < o.pending_reduce_bytes_by_chip.size()) {  // every slice waits for it, one counts it
            const int64_t pending = o.pending_reduce_bytes_by_chip[size_t(from)];
            msg.reduce_ps = reduce_ps(o.pending_reduce_ps_per_byte, pending);
            if (j == 0) msg.reduce_bytes = pending;
          }
        }
        now[size_t(i)].push_back(post(f, c, msg));
      }
    }
    previous = std::move(now);
  }
  return c;
}

void merge(Collective& into, const Collective& more) {
  into.messages.insert(into.messages.end(), more.messages.begin(), more.messages.end());
  if (into.sent_by_chip.size() < more.sent_by_chip.size()) into.sent_by_chip.resize(more.sent_by_chip.size(), 0);
  for (size_t k = 0; k < more.sent_by_chip.size(); ++k) into.sent_by_chip[k] += more.sent_by_chip[k];
}

}  // namespace

Collective ring_all_reduce(Fabric& f, const std::vector<int>& ring, int64_t bytes, const CollectiveOptions& o) {
  return ring_steps(f, ring, bytes, o, 0, 2 * int(ring.size()) - 2);
}

Collective ring_reduce_scatter(Fabric& f, const std::vector<int>& ring, int64_t bytes, const CollectiveOptions& o) {
  return ring_steps(f, ring, bytes, o, 0, int(ring.size()) - 1);
}

Collective ring_all_gather(Fabric& f, const std::vector<int>& ring, int64_t bytes, const CollectiveOptions& o) {
  // The all-gather half: each chip starts with its own chunk; nothing to reduce.
  CollectiveOptions plain = o;
  plain.reduce_ps_per_byte = 0;
  return ring_steps(f, ring, bytes, plain, int(ring.size()) - 1, 2 * int(ring.size()) - 2);
}

Collective bidirectional_ring_all_reduce(Fabric& f, const std::vector<int>& ring, int64_t bytes,
                                         const CollectiveOptions& o) {
  std::vector<int> back(ring.rbegin(), ring.rend());
  Collective c = ring_all_reduce(f, ring, bytes - bytes / 2, o);
  merge(c, ring_all_reduce(f, back, bytes / 2, o));
  return c;
}

Collective halving_doubling_all_reduce(Fabric& f, const std::vector<int>& chips, int64_t bytes,
                                       const CollectiveOptions& o) {
  const int n = int(chips.size());
  int steps = 0;
  while ((1 << steps) < n) ++steps;
  if (n < 2 || (1 << steps) != n) throw std::invalid_argument("halving-doubling needs a power-of-two number of chips");
  Collective c = none_yet(f);
  std::vector<int> last_in(size_t(n), -1);  // per position: the message it last received
  std::vector<int64_t> held(size_t(n), bytes);
  std::vector<int64_t> unadded(size_t(n), 0);  // per position: received, not yet added
  auto exchange = [&](int k, bool halving) {
    const int d = halving ? 1 << k : n >> (k + 1);
    std::vector<int> now(static_cast<size_t>(n), -1);
    std::vector<int64_t> next(held), next_unadded(size_t(n), 0);
    for (int i = 0; i < n; ++i) {
      const int partner = i ^ d;
      // Halving: send the half the partner keeps (the larger half to the lower position); doubling:
      // send all that is held, the partner's half comes back.
      const int64_t h = held[size_t(i)];
      Message msg = message(chips[size_t(i)], chips[size_t(partner)], halving ? (i < partner ? h / 2 : h - h / 2) : h, o);
      if (last_in[size_t(i)] >= 0) msg.after.push_back(last_in[size_t(i)]);
      // What arrived in the last halving step is added before anything leaves.
      msg.reduce_ps = reduce_ps(o.reduce_ps_per_byte, msg.reduce_bytes = unadded[size_t(i)]);
      next_unadded[size_t(partner)] = halving ? msg.bytes : 0;
      now[size_t(partner)] = post(f, c, msg);
      next[size_t(partner)] = halving ? held[size_t(partner)] - msg.bytes : held[size_t(partner)] + msg.bytes;
    }
    held = next;
    unadded = next_unadded;
    last_in = now;
  };
  for (int k = 0; k < steps; ++k) exchange(k, true);
  for (int k = 0; k < steps; ++k) exchange(k, false);
  return c;
}

Collective torus_all_reduce(Fabric& f, int x, int y, int64_t bytes, const CollectiveOptions& o) {
  Collective all = none_yet(f);
  CollectiveOptions phase = o;
  phase.after_by_chip.assign(size_t(x * y), -1);
  // Each phase's rings start on a chip once the previous phase's last message into it arrived.
  // A row's reduce-scatter leaves position p of the row with chunk (p + 1) mod x, reduced: the
  // columns' phases run on that chunk (column `line` holds position `line` of every row).
  phase.pending_reduce_ps_per_byte = o.reduce_ps_per_byte;
  auto run = [&](bool rows, bool scatter) {
    Collective done;
    std::vector<int64_t> pending(size_t(x * y), 0);  // a reduce-scatter's last chunk, added at the next phase
    for (int line = 0; line < (rows ? y : x); ++line) {
      std::vector<int> ring;
      for (int p = 0; p < (rows ? x : y); ++p) ring.push_back(rows ? line * x + p : p * x + line);
      const int64_t size = rows ? bytes : part(bytes, x, (line + 1) % x);
      const Collective c = scatter ? ring_reduce_scatter(f, ring, size, phase) : ring_all_gather(f, ring, size, phase);
      merge(done, c);
      const int n = int(ring.size());
      for (int p = 0; p < n && scatter; ++p) pending[size_t(ring[size_t(p)])] = part(size, n, (p + 1) % n);
    }
    phase.pending_reduce_bytes_by_chip = pending;
    for (int m : done.messages) phase.after_by_chip[size_t(f.messages()[size_t(m)].dst)] = m;  // the later ids arrive later
    merge(all, done);
  };
  run(true, true);
  run(false, true);
  run(false, false);
  run(true, false);
  return all;
}

Collective all_to_all(Fabric& f, const std::vector<int>& chips, int64_t bytes, const CollectiveOptions& o) {
  const int n = int(chips.size());
  Collective c = none_yet(f);
  for (int a = 0; a < n; ++a)
    for (int d = 1; d < n; ++d) {  // to the next chips first, so each link's queue is in a fixed order
      const int b = (a + d) % n;
      post(f, c, message(chips[size_t(a)], chips[size_t(b)], part(bytes, n, b), o));
    }
  return c;
}

Collective point_to_point(Fabric& f, int src, int dst, int64_t bytes, const CollectiveOptions& o) {
  Collective c = none_yet(f);
  post(f, c, message(src, dst, bytes, o));
  return c;
}

}  // namespace cstsim::ic
