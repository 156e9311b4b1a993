#pragma once
// Synthetic traffic patterns over the tile nodes of a mesh (edge nodes excluded),
// and the ideal throughput of a pattern under a deterministic routing function.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "models/noc/mesh.h"
#include "models/noc/routing.h"

namespace cstsim::noc {

enum class TrafficKind { Uniform, Transpose, Hotspot };

struct TrafficSpec {
  TrafficKind kind = TrafficKind::Uniform;
  NodeId hotspot = 0;             // Hotspot: the hot node
  double hotspot_fraction = 0.2;  // Hotspot: share of packets sent to it; the rest is uniform
};

// Parses "uniform", "transpose", "hotspot"; std::invalid_argument otherwise.
TrafficKind parse_traffic(const std::string& name);
const char* traffic_name(TrafficKind kind);

class Traffic {
 public:
  // Transpose needs a square mesh (std::invalid_argument otherwise).
  Traffic(const Mesh& mesh, const TrafficSpec& spec);
  // Tile nodes that send: all of them, except the diagonal under transpose
  // (whose transpose is themselves).
  const std::vector<NodeId>& sources() const { return sources_; }
  // uniform: any tile node, the source included (as BookSim's `uniform`, so the
  // bisection bound of a k x k mesh is exactly 4/k); transpose: (x, y) -> (y, x);
  // hotspot: the hot node with probability hotspot_fraction, else uniform.
  NodeId destination(NodeId src, std::mt19937_64& rng) const;
  // Probability that a packet from src goes to dst.
  double weight(NodeId src, NodeId dst) const;

 private:
  const Mesh& mesh_;
  TrafficSpec spec_;
  std::vector<NodeId> sources_;
};

// Ideal (channel-load) throughput in flits per source node per cycle: 1 / the
// largest expected load on any channel (mesh link, injection or ejection channel)
// per unit injection rate, routing every (src, dst) pair with `routing`: the
// highest rate at which *every* source can inject. For uniform traffic on a k x k
// mesh with even k this is min(1, 4/k), and it also bounds the average accepted
// rate (half of every source's traffic crosses the bisection). Under a
// deterministic permutation (transpose) sources away from the busiest channel can
// do better, so the average accepted rate may exceed it; the busiest channels
// still saturate.
struct ChannelBound {
  double throughput = 0;          // flits/node/cycle
  double max_load = 0;            // flits/cycle on the busiest channel per flit/node/cycle offered
  std::string channel;            // its name
  std::vector<double> link_load;  // per LinkId, flits/cycle per flit/node/cycle offered
};
ChannelBound channel_bound(const Mesh& mesh, const IRouting& routing, const Traffic& traffic);

}  // namespace cstsim::noc
