#include "models/interconnect/topology.h"

#include <stdexcept>

namespace cstsim::ic {

void Topology::connect(int a, int b) {
  if (link(a, b) >= 0) return;
  links_.push_back({a, b});
  out_[size_t(a)].push_back(int(links_.size()) - 1);
}

int Topology::link(int a, int b) const {
  for (int id : out_[size_t(a)])
    if (links_[size_t(id)].to == b) return id;
  return -1;
}

Topology Topology::ring(int chips, bool both_ways) {
  if (chips < 2) throw std::invalid_argument("a ring needs two chips");
  Topology t(Shape::Ring, both_ways ? "bidirectional_ring" : "ring", chips, chips);
  t.both_ways_ = both_ways;
  t.out_.resize(size_t(chips));
  for (int i = 0; i < chips; ++i) t.connect(i, (i + 1) % chips);
  if (both_ways)
    for (int i = 0; i < chips; ++i) t.connect((i + 1) % chips, i);
  return t;
}

Topology Topology::torus2d(int x, int y) {
  if (x < 2 || y < 2) throw std::invalid_argument("a 2-D torus needs at least 2 x 2 chips");
  Topology t(Shape::Torus, "torus2d", x * y, x * y);
  t.x_ = x;
  t.y_ = y;
  t.out_.resize(size_t(x * y));
  for (int r = 0; r < y; ++r)
    for (int c = 0; c < x; ++c) {
      const int me = r * x + c;
      t.connect(me, r * x + (c + 1) % x);
      t.connect(me, r * x + (c + x - 1) % x);
      t.connect(me, ((r + 1) % y) * x + c);
      t.connect(me, ((r + y - 1) % y) * x + c);
    }
  return t;
}

Topology Topology::fully_connected(int chips) {
  if (chips < 2) throw std::invalid_argument("fully connected needs two chips");
  Topology t(Shape::Full, "fully_connected", chips, chips);
  t.out_.resize(size_t(chips));
  for (int a = 0; a < chips; ++a)
    for (int b = 0; b < chips; ++b)
      if (a != b) t.connect(a, b);
  return t;
}

Topology Topology::switched(int chips) {
  if (chips < 2) throw std::invalid_argument("a switch needs two chips");
  Topology t(Shape::Switch, "switch", chips, chips + 1);
  t.out_.resize(size_t(chips + 1));
  for (int a = 0; a < chips; ++a) t.connect(a, chips);
  for (int a = 0; a < chips; ++a) t.connect(chips, a);
  return t;
}

std::vector<int> Topology::route(int src, int dst) const {
  if (src == dst || src < 0 || dst < 0 || src >= chips_ || dst >= chips_)
    throw std::invalid_argument("route: two different chips of the topology");
  std::vector<int> hops;
  auto step = [&](int a, int b) {
    const int id = link(a, b);
    if (id < 0) throw std::logic_error("route: no link");
    hops.push_back(id);
  };
  if (shape_ == Shape::Switch) {
    step(src, chips_);
    step(chips_, dst);
  } else if (shape_ == Shape::Full) {
    step(src, dst);
  } else if (shape_ == Shape::Torus) {
    // Along x, then along y, each the shorter way round (ties: increasing).
    auto walk = [&](int& at, int target, int size, int stride, int row_base) {
      const int from = (at - row_base) / stride % size, to = (target - row_base) / stride % size;
      const int forward = (to - from + size) % size;
      const int dir = forward <= size - forward ? 1 : -1;
      for (int p = from; p != to;) {
        const int next = (p + dir + size) % size;
        const int a = row_base + p * stride, b = row_base + next * stride;
        step(a, b);
        p = next;
      }
      at = row_base + to * stride;
    };
    int at = src;
    walk(at, (src / x_) * x_ + dst % x_, x_, 1, (src / x_) * x_);
    walk(at, dst, y_, x_, at % x_);
  } else {  // rings
    const int forward = (dst - src + chips_) % chips_;
    const int dir = !both_ways_ || forward <= chips_ - forward ? 1 : -1;
    for (int p = src; p != dst;) {
      const int next = (p + dir + chips_) % chips_;
      step(p, next);
      p = next;
    }
  }
  return hops;
}

}  // namespace cstsim::ic
