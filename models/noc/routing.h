#pragma once
// Routing functions. The contract: given the router a head flit is at and the
// router its destination endpoint hangs off (different routers), return the
// output port towards it. The port must lead to a neighbour router (the network
// checks). Ejection at the destination router is not the routing function's
// business: the network sends the packet out of the port its endpoint is
// attached to (Local for tiles, the side port for edge endpoints).
//
// Deadlock freedom is the routing function's duty together with the VC scheme:
// dimension-order routing (XY, YX) has no cyclic channel dependency on a mesh,
// so one VC per vnet suffices. An adaptive function would return a set of ports
// and need escape VCs; it is not provided.
#include <memory>
#include <string>
#include <vector>

#include "models/noc/mesh.h"

namespace cstsim::noc {

class IRouting {
 public:
  virtual ~IRouting() = default;
  virtual const char* name() const = 0;
  virtual Port route(const Mesh& mesh, int at_router, int dst_router) const = 0;
};

// X first (East/West) until the column matches, then Y.
class XyRouting : public IRouting {
 public:
  const char* name() const override { return "xy"; }
  Port route(const Mesh& mesh, int at_router, int dst_router) const override;
};

// Y first, then X (the mirror image; also deadlock-free).
class YxRouting : public IRouting {
 public:
  const char* name() const override { return "yx"; }
  Port route(const Mesh& mesh, int at_router, int dst_router) const override;
};

// Registered by config name (core/registry.h); throws std::invalid_argument
// "unknown routing 'x' (known: xy, yx)".
std::unique_ptr<IRouting> make_routing(const std::string& name);
std::vector<std::string> routing_names();

}  // namespace cstsim::noc
