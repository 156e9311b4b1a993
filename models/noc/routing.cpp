#include "models/noc/routing.h"

#include <functional>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace cstsim::noc {

namespace {

Port step_x(Coord at, Coord dst) { return dst.x > at.x ? kEast : kWest; }
Port step_y(Coord at, Coord dst) { return dst.y > at.y ? kNorth : kSouth; }

using Factory = std::function<std::unique_ptr<IRouting>()>;

// One row per routing function: the config name and how to make it.
const std::vector<std::pair<std::string, Factory>>& registry() {
  static const std::vector<std::pair<std::string, Factory>> rows = {
      {"xy", [] { return std::make_unique<XyRouting>(); }},
      {"yx", [] { return std::make_unique<YxRouting>(); }},
  };
  return rows;
}

}  // namespace

Port XyRouting::route(const Mesh& mesh, int at_router, int dst_router) const {
  const Coord at = mesh.coord(at_router), dst = mesh.coord(dst_router);
  return at.x != dst.x ? step_x(at, dst) : step_y(at, dst);
}

Port YxRouting::route(const Mesh& mesh, int at_router, int dst_router) const {
  const Coord at = mesh.coord(at_router), dst = mesh.coord(dst_router);
  return at.y != dst.y ? step_y(at, dst) : step_x(at, dst);
}

const std::vector<std::string>& routing_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& row : registry()) out.push_back(row.first);
    return out;
  }();
  return names;
}

std::unique_ptr<IRouting> make_routing(const std::string& name) {
  for (const auto& [known, make] : registry())
    if (known == name) return make();
  throw std::invalid_argument(fmt::format("unknown routing '{}' (known: {})", name, fmt::join(routing_names(), ", ")));
}

}  // namespace cstsim::noc
