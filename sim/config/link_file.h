#pragma once
// A chip-to-chip link preset (configs/interconnect/*.yaml) as the interconnect's LinkSpec
// (models/interconnect/fabric.h). Every problem is an InputError naming file, line and key.
#include <string>

#include "models/interconnect/fabric.h"

namespace cstsim {

struct LinkFile {
  std::string name, source;
  ic::LinkSpec spec;
};

// Keys: name, source, bandwidth_gbps (GB/s per direction, > 0, required), latency_ns (>= 0,
// whole ps, required), max_payload_bytes (>= 0; 0: one packet a message), header_bytes (>= 0),
// pj_per_bit (>= 0).
LinkFile load_link_file(const std::string& path);

}  // namespace cstsim
