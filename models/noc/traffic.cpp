#include "models/noc/traffic.h"

#include <stdexcept>

#include <fmt/format.h>

namespace cstsim::noc {

TrafficKind parse_traffic(const std::string& name) {
  if (name == "uniform") return TrafficKind::Uniform;
  if (name == "transpose") return TrafficKind::Transpose;
  if (name == "hotspot") return TrafficKind::Hotspot;
  throw std::invalid_argument(fmt::format("unknown traffic '{}' (known: uniform, transpose, hotspot)", name));
}

const char* traffic_name(TrafficKind kind) {
  switch (kind) {
    case TrafficKind::Uniform:
      return "uniform";
    case TrafficKind::Transpose:
      return "transpose";
    case TrafficKind::Hotspot:
      return "hotspot";
  }
  return "?";
}

Traffic::Traffic(const Mesh& mesh, const TrafficSpec& spec) : mesh_(mesh), spec_(spec) {
  if (spec.kind == TrafficKind::Transpose && mesh.cols() != mesh.rows())
    throw std::invalid_argument(
        fmt::format("transpose traffic needs a square mesh, got {}x{}", mesh.cols(), mesh.rows()));
  if (spec.kind == TrafficKind::Hotspot) {
    if (spec.hotspot < 0 || spec.hotspot >= mesh.tile_nodes())
      throw std::invalid_argument("hotspot node is not a tile node of the mesh");
    if (!(spec.hotspot_fraction >= 0 && spec.hotspot_fraction <= 1))
      throw std::invalid_argument("hotspot fraction must be in [0, 1]");
  }
  for (NodeId n = 0; n < mesh.tile_nodes(); ++n) {
    const Coord c = mesh.coord(n);
    if (spec.kind == TrafficKind::Transpose && c.x == c.y) continue;
    sources_.push_back(n);
  }
}

NodeId Traffic::destination(NodeId src, std::mt19937_64& rng) const {
  const int n = mesh_.tile_nodes();
  switch (spec_.kind) {
    case TrafficKind::Uniform:
      return NodeId(std::uniform_int_distribution<int>(0, n - 1)(rng));
    case TrafficKind::Transpose: {
      const Coord c = mesh_.coord(src);
      return mesh_.node(c.y, c.x);
    }
    case TrafficKind::Hotspot:
      if (std::uniform_real_distribution<double>(0, 1)(rng) < spec_.hotspot_fraction) return spec_.hotspot;
      return NodeId(std::uniform_int_distribution<int>(0, n - 1)(rng));
  }
  return src;
}

double Traffic::weight(NodeId src, NodeId dst) const {
  const int n = mesh_.tile_nodes();
  switch (spec_.kind) {
    case TrafficKind::Uniform:
      return 1.0 / n;
    case TrafficKind::Transpose: {
      const Coord c = mesh_.coord(src);
      return dst == mesh_.node(c.y, c.x) ? 1.0 : 0.0;
    }
    case TrafficKind::Hotspot:
      return (1 - spec_.hotspot_fraction) / n + (dst == spec_.hotspot ? spec_.hotspot_fraction : 0.0);
  }
  return 0;
}

ChannelBound channel_bound(const Mesh& mesh, const IRouting& routing, const Traffic& traffic) {
  std::vector<double> link(mesh.links().size(), 0.0), eject(size_t(mesh.nodes()), 0.0);
  for (NodeId s : traffic.sources()) {
    for (NodeId d = 0; d < mesh.tile_nodes(); ++d) {
      const double w = traffic.weight(s, d);
      if (w == 0) continue;
      eject[size_t(d)] += w;
      const int dst = mesh.endpoint(d).router;
      for (int r = mesh.endpoint(s).router; r != dst;) {
        const int port = routing.route(mesh, r, dst);
        link[size_t(mesh.link_at(r, port))] += w;
        r = mesh.neighbour(r, port);
      }
    }
  }
  ChannelBound b{0, 1.0, "injection", {}};  // every source's injection channel carries its whole rate
  for (size_t i = 0; i < link.size(); ++i) {
    if (link[i] > b.max_load) {
      b.max_load = link[i];
      b.channel = mesh.links()[i].name;
    }
  }
  for (size_t i = 0; i < eject.size(); ++i) {
    if (eject[i] > b.max_load) {
      b.max_load = eject[i];
      b.channel = "ejection " + mesh.endpoint(NodeId(i)).name;
    }
  }
  b.link_load = std::move(link);
  b.throughput = 1.0 / b.max_load;
  return b;
}

}  // namespace cstsim::noc
