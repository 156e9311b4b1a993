#pragma once
// NocConfig: every parameter of the mesh NoC, fixed at construction (gem5 style).
// Defaults are the NoC schema's rows (noc_schema(), as --describe prints them) and equal
// configs/noc/mesh-4x4.yaml; each default's source is given there and in
// models/noc/README.md. All latencies are in cycles of the NoC clock.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/schema.h"
#include "models/noc/mesh.h"

namespace cstsim::noc {

// When an output VC may take its next packet. AfterTail (BookSim's rule): as soon as
// the tail of the packet holding it has left through the switch, so packets follow
// each other into the downstream VC and a link runs at one flit per cycle whenever
// credits allow (D >= credit round trip), whatever the packet length. Atomic: only
// when the tail's credit is back (the downstream VC is empty), so a VC carries one
// packet per round trip and short packets cannot fill a link.
enum class VcReuse { AfterTail, Atomic };  // in the order of vc_reuse_names()
const char* vc_reuse_name(VcReuse r);
const std::vector<std::string>& vc_reuse_names();

// Which of several flits that want the same output goes first (VC and switch allocation).
// RoundRobin: rotating priority per output, fair to each input port locally, which in a
// chain of merges halves a far source's share at every merge (the parking-lot problem: with
// every source saturated the k-th router from a hotspot gives its farthest source 1/2^k).
// Age: the flit of the oldest packet (offered to the network first), ties rotating, which
// serves sources in the order they injected, so each gets its share of a hotspot wherever it
// sits (Abts & Weisser, SC 2007; BookSim2's `priority = age`).
enum class Arbitration { RoundRobin, Age };  // in the order of arbitration_names()
const char* arbitration_name(Arbitration a);
const std::vector<std::string>& arbitration_names();

// Every key of a NoC file: type, unit, default, range, doc (the ranges are the ones
// load_noc_config enforces).
const schema::Table& noc_schema();

// The schema's default of `key`, parsed: the one place each NocConfig default is written.
inline int noc_default(const char* key) { return int(noc_schema().default_integer(key)); }
// A choice key's default as the enum whose values `names` lists in order.
inline int noc_default_position(const char* key, const std::vector<std::string>& names) {
  return int(std::find(names.begin(), names.end(), noc_schema().default_choice(key)) - names.begin());
}

struct NocConfig {
  std::string name = "mesh-4x4";
  std::string source;                    // file it was loaded from ("" when built in code)
  std::string topology = noc_schema().default_choice("topology");  // a name known to make_topology() (topology.h)
  int cols = noc_default("mesh.cols");   // routers along x (West -> East)
  int rows = noc_default("mesh.rows");   // routers along y (South -> North)
  std::vector<EdgeNodeSpec> edge_nodes;  // extra endpoints on free edge ports (memory controllers)
  std::string routing = noc_schema().default_choice("routing");  // a name known to make_routing()
  int flit_bytes = noc_default("flit_bytes");          // Garnet ni_flit_size (128 bit)
  int router_latency = noc_default("router_latency");  // cycles from buffer write to switch traversal (Garnet default 1)
  int link_latency = noc_default("link_latency");      // cycles on a wire, injection channel included
  int credit_latency = noc_default("credit_latency");  // cycles for a credit to reach the upstream
  int buffer_depth = noc_default("buffer_depth");      // flits per input VC (Noxim 4, Garnet 4 per data VC)
  int vnets = noc_default("vnets");                    // 0 = request, 1 = response (protocol-deadlock freedom)
  int vcs_per_vnet = noc_default("vcs_per_vnet");      // performance knob; 1 is enough for correctness
  VcReuse vc_reuse = VcReuse(noc_default_position("vc_reuse", vc_reuse_names()));
  Arbitration arbitration = Arbitration(noc_default_position("arbitration", arbitration_names()));
  double clock_hz = noc_schema().default_number("clock_hz");  // NoC clock, for the SystemC module's period only

  int vcs() const { return vnets * vcs_per_vnet; }
  // Flits of a packet of `bytes` payload bytes: ceil(bytes / flit_bytes), at least 1.
  int flits_for(int64_t bytes) const;
  // The smallest buffer depth at which one VC streams one flit per cycle
  // (credit round trip): below it, serialization is credit-bound.
  int full_rate_depth() const { return link_latency + router_latency + credit_latency; }
};

// Checks ranges; throws InputError naming `file` (and line 0: the fields come from code).
void validate(const NocConfig& config);

// Loads a NoC YAML file (schema in configs/noc/mesh-4x4.yaml); errors are InputError
// with file:line:key. Unset keys keep the defaults above.
NocConfig load_noc_config(const std::string& path);

// Every field that shapes the network, one `key=value` line each (the name and source
// left out): equal configs give equal text, so it can be hashed.
std::string canonical_text(const NocConfig& config);

// `--set key=value` overrides (scalar keys, dotted: mesh.cols=8), then checks the
// result; errors are InputError("--set", 0, key, ...).
void apply_overrides(NocConfig& config, const std::vector<std::pair<std::string, std::string>>& overrides);
// The keys apply_overrides takes.
std::vector<std::string> override_keys();

// Reserved vnet numbers used by the bench and suggested to the DMA/HBM wiring.
inline constexpr int kRequestVnet = 0;
inline constexpr int kResponseVnet = 1;

}  // namespace cstsim::noc
