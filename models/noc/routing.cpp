#include "models/noc/routing.h"

#include "core/registry.h"

namespace cstsim::noc {

namespace {

Port step_x(Coord at, Coord dst) { return dst.x > at.x ? kEast : kWest; }
Port step_y(Coord at, Coord dst) { return dst.y > at.y ? kNorth : kSouth; }

}  // namespace

Port XyRouting::route(const Mesh& mesh, int at_router, int dst_router) const {
  const Coord at = mesh.coord(at_router), dst = mesh.coord(dst_router);
  return at.x != dst.x ? step_x(at, dst) : step_y(at, dst);
}

Port YxRouting::route(const Mesh& mesh, int at_router, int dst_router) const {
  const Coord at = mesh.coord(at_router), dst = mesh.coord(dst_router);
  return at.y != dst.y ? step_y(at, dst) : step_x(at, dst);
}

// Both functions are in this file, which make_routing links in: no anchor needed.
CSTSIM_REGISTER(IRouting, XyRouting, "xy")
CSTSIM_REGISTER(IRouting, YxRouting, "yx")

std::vector<std::string> routing_names() { return Registry<IRouting>::instance().names(); }

std::unique_ptr<IRouting> make_routing(const std::string& name) {
  return Registry<IRouting>::instance().make(name, "routing");
}

}  // namespace cstsim::noc
