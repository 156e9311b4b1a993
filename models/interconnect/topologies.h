#pragma once
// The chip topologies' one name table: a row per family with the spelling every input uses (the
// arch's interconnect.topology, `cstsim collective --topology`) and every output prints, how its
// size is given, and its factory. Readers resolve names here and nowhere else. Spellings that
// were used before and are now refused (no silent aliases) map to their row's name, so the error
// can say what to write instead.
#include <map>
#include <string>
#include <vector>

#include "models/interconnect/topology.h"

namespace cstsim::ic {

struct TopologyFamily {
  std::string name;   // the one spelling
  std::string shape;  // how its size is given, for help texts
  bool per_row = false;  // a torus: chips per row given too (interconnect.torus_x, --torus-x)
  Topology (*make)(int chips, int per_row) = nullptr;
  // op -> the algorithm a run uses for it on this family, where not the op's own default
  // (collective_algorithm.h: default_algorithm).
  std::map<std::string, std::string> algorithms;
  std::string doc;  // one line
};

const std::vector<TopologyFamily>& topology_families();
std::vector<std::string> topology_names();
// The row of `name`, or nullptr (then renamed_topology says whether it is an old spelling).
const TopologyFamily* topology_family(const std::string& name);
// The family an old spelling became ("ring_both_ways" -> "bidirectional_ring"), or "".
std::string renamed_topology(const std::string& name);
// Why `chips` (and `per_row`, for a torus) do not make this family, or "" when they do.
std::string topology_size_problem(const TopologyFamily& family, int chips, int per_row);
// The topology; the name and size must have been checked (a logic error otherwise).
Topology make_topology(const std::string& name, int chips, int per_row = 0);

}  // namespace cstsim::ic
