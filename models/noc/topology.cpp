#include "models/noc/topology.h"

namespace cstsim::noc {
namespace {

// mesh: cols x rows routers, each linked to its four neighbours; the edge nodes (memory
// controllers) on the otherwise unused outward ports of the edge routers (mesh.h).
class MeshTopology final : public ITopology {
 public:
  const char* name() const override { return "mesh"; }
  Mesh build(const NocConfig& c) const override { return Mesh(c.cols, c.rows, c.edge_nodes); }
};

}  // namespace

CSTSIM_REGISTER(ITopology, MeshTopology, "mesh")

// The implementations are in this file, which every lookup links in: no anchor needed.
std::vector<std::string> topology_names() { return Registry<ITopology>::instance().names(); }

std::unique_ptr<ITopology> make_topology(const std::string& name) {
  return Registry<ITopology>::instance().make(name, "topology");
}

const ITopology& topology(const std::string& name) { return Registry<ITopology>::instance().shared(name, "topology"); }

int64_t input_buffer_bytes(const NocConfig& config) {
  const Mesh mesh = build_topology(config);
  const int64_t inputs = int64_t(mesh.links().size() + mesh.endpoints().size());
  return inputs * config.vcs() * config.buffer_depth * config.flit_bytes;
}

}  // namespace cstsim::noc
