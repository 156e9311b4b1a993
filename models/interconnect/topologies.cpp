#include "models/interconnect/topologies.h"

#include <stdexcept>

#include <fmt/format.h>

namespace cstsim::ic {

const std::vector<TopologyFamily>& topology_families() {
  static const std::vector<TopologyFamily> rows = {
      {"ring", "chips", false, [](int chips, int) { return Topology::ring(chips, false); }, {},
       "a ring with links one way"},
      {"bidirectional_ring", "chips", false, [](int chips, int) { return Topology::ring(chips, true); },
       {{"all_reduce", "bidirectional_ring"}}, "a ring with links both ways (an all-reduce sends half each way)"},
      {"torus2d", "chips, and chips per row (torus_x): chips / torus_x rows, each at least 2 by 2", true,
       [](int chips, int x) { return Topology::torus2d(x, chips / x); }, {{"all_reduce", "torus2d"}},
       "an x by y torus, every row and column a ring both ways (an all-reduce runs rows, then columns)"},
      {"fully_connected", "chips", false, [](int chips, int) { return Topology::fully_connected(chips); }, {},
       "a link each way between every pair of chips"},
      {"switch", "chips", false, [](int chips, int) { return Topology::switched(chips); }, {},
       "one switch, a port per chip"},
  };
  return rows;
}

std::vector<std::string> topology_names() {
  std::vector<std::string> out;
  for (const TopologyFamily& f : topology_families()) out.push_back(f.name);
  return out;
}

const TopologyFamily* topology_family(const std::string& name) {
  for (const TopologyFamily& f : topology_families())
    if (f.name == name) return &f;
  return nullptr;
}

std::string renamed_topology(const std::string& name) {
  static const std::map<std::string, std::string> old = {{"ring_both_ways", "bidirectional_ring"},
                                                         {"ring2", "bidirectional_ring"},
                                                         {"ring_bidirectional", "bidirectional_ring"},
                                                         {"full", "fully_connected"},
                                                         {"torus", "torus2d"}};
  if (name.rfind("torus:", 0) == 0) return "torus2d";  // the collective command's torus:XxY
  const auto it = old.find(name);
  return it == old.end() ? "" : it->second;
}

std::string topology_size_problem(const TopologyFamily& family, int chips, int per_row) {
  if (chips < 2) return fmt::format("{} needs at least 2 chips, got {}", family.name, chips);
  if (family.per_row && (per_row < 2 || chips % per_row != 0 || chips / per_row < 2))
    return fmt::format("{} chips do not make a torus of rows of {} (at least 2 by 2)", chips, per_row);
  return "";
}

Topology make_topology(const std::string& name, int chips, int per_row) {
  const TopologyFamily* f = topology_family(name);
  if (!f) throw std::logic_error("make_topology: unknown topology " + name);
  if (!topology_size_problem(*f, chips, per_row).empty())
    throw std::logic_error("make_topology: " + topology_size_problem(*f, chips, per_row));
  return f->make(chips, per_row);
}

}  // namespace cstsim::ic
