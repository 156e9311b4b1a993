#pragma once
// The chip-to-chip interconnect's shape (issue 16; research in docs/design/multi-chip.md):
// nodes (chips first, then switches) joined by directed links, each direction of a physical
// link its own resource with its own state. A topology answers which directed links a message
// from one chip to another crosses. First sitting: ring (one or both directions), 2-D torus,
// fully connected, and a switch every chip has one port on. Inputs name them through one table
// (topologies.h); name() gives that table's spelling.
#include <cstdint>
#include <string>
#include <vector>

namespace cstsim::ic {

struct DirectedLink {
  int from = 0, to = 0;  // node ids
};

class Topology {
 public:
  // Chips 0..chips-1 in ring order; `both_ways`: every link also carries the other direction.
  static Topology ring(int chips, bool both_ways);
  // x by y chips (chip = row * x + column), every row and column a ring with both directions.
  static Topology torus2d(int x, int y);
  // A link in each direction between every pair of chips.
  static Topology fully_connected(int chips);
  // One switch (node `chips`); each chip has a link to it and one back.
  static Topology switched(int chips);

  const std::string& name() const { return name_; }
  int chips() const { return chips_; }
  // Every link also carries the other direction (all but a one-way ring).
  bool both_ways() const { return both_ways_; }
  // A torus's chips per row and rows; 0 on any other shape.
  int torus_x() const { return x_; }
  int torus_y() const { return y_; }
  int nodes() const { return nodes_; }
  const std::vector<DirectedLink>& links() const { return links_; }
  // The directed links a message from chip `src` to chip `dst` crosses, in order (src != dst):
  // the shortest way, ties to the lower-numbered direction (rings: clockwise first; tori: x then y).
  std::vector<int> route(int src, int dst) const;
  // The directed link from node a to node b, or -1.
  int link(int a, int b) const;

 private:
  enum class Shape { Ring, Torus, Full, Switch };  // how route() walks
  Topology(Shape shape, std::string name, int chips, int nodes)
      : shape_(shape), name_(std::move(name)), chips_(chips), nodes_(nodes) {}
  void connect(int a, int b);
  Shape shape_;
  std::string name_;
  int chips_ = 0, nodes_ = 0;
  int x_ = 0, y_ = 0;  // torus2d
  bool both_ways_ = true;
  std::vector<DirectedLink> links_;
  std::vector<std::vector<int>> out_;  // per node: its outgoing links
};

}  // namespace cstsim::ic
