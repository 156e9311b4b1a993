#include "models/noc/mesh.h"

#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>

namespace cstsim::noc {

const char* port_name(int port) {
  static const char* names[kPorts] = {"L", "N", "E", "S", "W"};
  return port >= 0 && port < kPorts ? names[port] : "?";
}

const char* side_name(Side side) {
  switch (side) {
    case Side::North:
      return "north";
    case Side::East:
      return "east";
    case Side::South:
      return "south";
    case Side::West:
      return "west";
  }
  return "?";
}

Port side_port(Side side) {
  switch (side) {
    case Side::North:
      return kNorth;
    case Side::East:
      return kEast;
    case Side::South:
      return kSouth;
    case Side::West:
      return kWest;
  }
  return kLocal;
}

Mesh::Mesh(int cols, int rows, const std::vector<EdgeNodeSpec>& edge_nodes) : cols_(cols), rows_(rows) {
  if (cols < 1 || rows < 1) throw std::invalid_argument("Mesh: cols and rows must be positive");
  const int n = routers();
  neighbour_.assign(size_t(n), {-1, -1, -1, -1, -1});
  attached_.assign(size_t(n), {-1, -1, -1, -1, -1});
  link_.assign(size_t(n), {-1, -1, -1, -1, -1});
  for (int r = 0; r < n; ++r) {
    const Coord c = coord(r);
    if (c.y + 1 < rows_) neighbour_[size_t(r)][kNorth] = router_at({c.x, c.y + 1});
    if (c.x + 1 < cols_) neighbour_[size_t(r)][kEast] = router_at({c.x + 1, c.y});
    if (c.y > 0) neighbour_[size_t(r)][kSouth] = router_at({c.x, c.y - 1});
    if (c.x > 0) neighbour_[size_t(r)][kWest] = router_at({c.x - 1, c.y});
  }
  static const int opposite[kPorts] = {kLocal, kSouth, kWest, kNorth, kEast};
  for (int r = 0; r < n; ++r) {
    for (int p = 1; p < kPorts; ++p) {
      const int to = neighbour_[size_t(r)][size_t(p)];
      if (to < 0) continue;
      LinkInfo l;
      l.id = LinkId(links_.size());
      l.from = r;
      l.to = to;
      l.from_port = Port(p);
      l.to_port = Port(opposite[p]);
      const Coord a = coord(r), b = coord(to);
      l.name = fmt::format("r({},{}){}>r({},{})", a.x, a.y, port_name(p), b.x, b.y);
      link_[size_t(r)][size_t(p)] = l.id;
      links_.push_back(l);
    }
  }
  for (int r = 0; r < n; ++r) {
    const Coord c = coord(r);
    endpoints_.push_back({NodeId(r), r, kLocal, false, fmt::format("n({},{})", c.x, c.y)});
    attached_[size_t(r)][kLocal] = NodeId(r);
  }
  for (const EdgeNodeSpec& e : edge_nodes) {
    const bool along_x = e.side == Side::North || e.side == Side::South;
    const int extent = along_x ? cols_ : rows_;
    if (e.index < 0 || e.index >= extent)
      throw std::invalid_argument(
          fmt::format("Mesh: {} edge index {} outside 0..{}", side_name(e.side), e.index, extent - 1));
    Coord c;
    switch (e.side) {
      case Side::North:
        c = {e.index, rows_ - 1};
        break;
      case Side::South:
        c = {e.index, 0};
        break;
      case Side::East:
        c = {cols_ - 1, e.index};
        break;
      case Side::West:
        c = {0, e.index};
        break;
    }
    const int r = router_at(c);
    const Port p = side_port(e.side);
    if (attached_[size_t(r)][size_t(p)] >= 0)
      throw std::invalid_argument(fmt::format("Mesh: two edge nodes at {} {}", side_name(e.side), e.index));
    const NodeId id = NodeId(endpoints_.size());
    endpoints_.push_back({id, r, p, true, fmt::format("{}{}", side_name(e.side), e.index)});
    attached_[size_t(r)][size_t(p)] = id;
  }
}

NodeId Mesh::edge_node(Side side, int index) const {
  for (const Endpoint& e : endpoints_) {
    if (!e.edge || e.port != side_port(side)) continue;
    const Coord c = coord(e.router);
    if ((side == Side::North || side == Side::South ? c.x : c.y) == index) return e.id;
  }
  return -1;
}

int Mesh::hops(NodeId src, NodeId dst) const {
  const Coord a = coord(endpoint(src).router), b = coord(endpoint(dst).router);
  return std::abs(a.x - b.x) + std::abs(a.y - b.y) + 1;
}

}  // namespace cstsim::noc
