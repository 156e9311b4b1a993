#pragma once
// The 2-D mesh topology: routers at (x, y), their ports, the directed links
// between them, and the endpoints (network interfaces) attached to them.
//
// Coordinates: x grows to the East (0 .. cols-1), y grows to the North
// (0 .. rows-1). Router id = y * cols + x.
//
// Endpoints (NodeId):
//   - 0 .. cols*rows-1: one "tile" endpoint per router on its Local port;
//     node(x, y) == router id.
//   - cols*rows ..: "edge" endpoints, in the order of the config's edge_nodes,
//     each attached to the otherwise unused outward port of an edge router
//     (e.g. {side: west, index: 2} hangs off router (0, 2)'s West port). This is
//     where HBM channel controllers go: they have their own injection and
//     ejection channels and do not share the tile's Local port.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace cstsim::noc {

using NodeId = int32_t;
using LinkId = int32_t;

enum Port : int { kLocal = 0, kNorth = 1, kEast = 2, kSouth = 3, kWest = 4 };
inline constexpr int kPorts = 5;
const char* port_name(int port);

enum class Side { North, East, South, West };
const char* side_name(Side side);
Port side_port(Side side);

struct Coord {
  int x = 0, y = 0;
  bool operator==(const Coord& o) const { return x == o.x && y == o.y; }
  bool operator!=(const Coord& o) const { return !(*this == o); }
};

// An extra endpoint on the edge: `index` counts along the side (x for North and
// South, y for East and West).
struct EdgeNodeSpec {
  Side side = Side::West;
  int index = 0;
  int line = 0;  // config line, for errors (0 when built in code)
};

struct Endpoint {
  NodeId id = 0;
  int router = 0;
  Port port = kLocal;  // router port it is attached to
  bool edge = false;
  std::string name;  // "n(1,2)" or "west2"
};

// A directed router-to-router link, leaving `from` through `from_port`.
struct LinkInfo {
  LinkId id = 0;
  int from = 0, to = 0;
  Port from_port = kLocal, to_port = kLocal;
  std::string name;  // "r(1,2)E>r(2,2)"
};

class Mesh {
 public:
  Mesh(int cols, int rows, const std::vector<EdgeNodeSpec>& edge_nodes = {});

  int cols() const { return cols_; }
  int rows() const { return rows_; }
  int routers() const { return cols_ * rows_; }
  int nodes() const { return int(endpoints_.size()); }
  int tile_nodes() const { return routers(); }

  Coord coord(int router) const { return {router % cols_, router / cols_}; }
  int router_at(Coord c) const { return c.y * cols_ + c.x; }
  NodeId node(int x, int y) const { return router_at({x, y}); }
  // The edge endpoint on `side` at `index`, or -1 if none is configured there.
  NodeId edge_node(Side side, int index) const;

  const Endpoint& endpoint(NodeId id) const { return endpoints_[size_t(id)]; }
  const std::vector<Endpoint>& endpoints() const { return endpoints_; }
  // Router reached through `port` of `router`, or -1 (mesh boundary or Local).
  int neighbour(int router, int port) const { return neighbour_[size_t(router)][size_t(port)]; }
  // Endpoint attached to `port` of `router`, or -1.
  NodeId endpoint_at(int router, int port) const { return attached_[size_t(router)][size_t(port)]; }
  // Link leaving `router` through `port`, or -1 (no neighbour there).
  LinkId link_at(int router, int port) const { return link_[size_t(router)][size_t(port)]; }
  const std::vector<LinkInfo>& links() const { return links_; }

  // Routers a packet traverses from src to dst: Manhattan distance + 1. This is
  // the H of the zero-load latency H * (t_router + t_link) + flits - 1.
  int hops(NodeId src, NodeId dst) const;

 private:
  int cols_, rows_;
  std::vector<Endpoint> endpoints_;
  std::vector<std::array<int, kPorts>> neighbour_, attached_, link_;
  std::vector<LinkInfo> links_;
};

}  // namespace cstsim::noc
