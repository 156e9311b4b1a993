#pragma once
// ITopology: the router graph a NoC file describes (routers, their ports, the directed links
// between them and the endpoints attached to them), built once by the Network from the
// config. Registered by name (core/registry.h) as the routing functions are; the NoC file's
// `topology:` picks one, and `--describe noc` lists what is registered.
//
// Only the 2-D mesh is: a torus or a ring adds wrap-around links, and with them routing that
// picks the shorter way round and VC classes (a dateline) to keep dimension-order routing
// deadlock-free, which neither the routing functions nor the router's VC allocation have
// yet; and the memory controllers, which hang off the mesh's free edge ports, would need
// ports of their own.
#include <memory>
#include <string>
#include <vector>

#include "core/registry.h"
#include "models/noc/mesh.h"
#include "models/noc/noc_config.h"

namespace cstsim::noc {

class ITopology {
 public:
  virtual ~ITopology() = default;
  virtual const char* name() const = 0;
  virtual Mesh build(const NocConfig& config) const = 0;
};

// make_topology throws std::invalid_argument "unknown topology 'x' (known: mesh)".
std::unique_ptr<ITopology> make_topology(const std::string& name);
const ITopology& topology(const std::string& name);  // one shared instance per name
std::vector<std::string> topology_names();
// The graph `config` describes, by its topology.
inline Mesh build_topology(const NocConfig& config) { return topology(config.topology).build(config); }

// Bytes of flit buffers at the routers' inputs: vcs() x buffer_depth flits behind every
// router-to-router link and every endpoint's injection port (what leaks, for the energy table).
int64_t input_buffer_bytes(const NocConfig& config);

}  // namespace cstsim::noc
