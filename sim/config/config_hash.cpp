#include "sim/config/config_hash.h"

#include <sstream>

#include <fmt/format.h>

#include "models/hbm/hbm_spec.h"
#include "traces/post/energy_table.h"
#include "models/noc/noc_config.h"

namespace cstsim {
namespace {

// Each line of `text` with `prefix` in front.
std::string prefixed(const std::string& prefix, const std::string& text) {
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);) out += prefix + line + "\n";
  return out;
}

// The lines of a workload: what its layers are, and the training and sparsity that change them.
std::string workload_text(const ArchSpec& arch, const Workload& w) {
  std::string text;
  if (w.training) text += "training=" + w.training->recompute + "\n";
  for (const Layer& l : w.layers)
    if (l.weights_2_4) text += "sparse_2_4=" + l.name + "\n";
  for (const Layer& l : w.layers)  // only where it changes a result: the PEs gate
    if (arch.zero_gating && l.input_density < 1) text += fmt::format("input_density={},{}\n", l.name, l.input_density);
  return text;
}

std::string layer_text(const Workload& w) {
  std::string text;
  for (const Layer& l : w.layers) text += fmt::format("layer={},{},{},{}\n", l.name, l.M, l.N, l.K);
  return text;
}

std::string hash_of(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

}  // namespace

std::string config_text(const ArchSpec& arch, const Workload& w, const std::string& mode, uint64_t seed) {
  std::string text;
  std::istringstream in(canonical_text(arch));
  for (std::string line; std::getline(in, line);)  // the sub-files by content, below
    if (line.rfind("hbm.spec=", 0) != 0 && line.rfind("noc.spec=", 0) != 0 && line.rfind("energy=", 0) != 0 &&
        line.rfind("interconnect.link=", 0) != 0)
      text += line + "\n";
  if (arch.chips > 1) {  // the link preset by what it says
    const ic::LinkSpec& l = arch.link_spec;
    text += fmt::format("interconnect.link.bytes_per_ns={}\ninterconnect.link.latency_ps={}\n"
                        "interconnect.link.max_payload={}\ninterconnect.link.header={}\ninterconnect.link.pj_per_bit={}\n",
                        l.bytes_per_ns, l.latency_ps, l.max_payload, l.header, l.pj_per_bit);
  }
  if (!arch.energy.empty()) text += prefixed("energy.", post::to_yaml(post::load_energy_table(arch.energy)));
  if (has_hbm(arch.memory))
    text += prefixed("hbm.", hbm::canonical_text(arch.hbm_spec));
  if (arch.memory == MemoryMode::Hierarchy) text += prefixed("noc.", noc::canonical_text(arch.noc_config));
  text += "mode=" + mode + "\n";
  text += workload_text(arch, w);
  if (mode == "reference") text += fmt::format("seed={}\n", seed);
  return text + layer_text(w);
}

std::string config_hash(const ArchSpec& arch, const Workload& w, const std::string& mode, uint64_t seed) {
  return hash_of(config_text(arch, w, mode, seed));
}

std::string run_config_hash(const ArchSpec& arch, const std::vector<Workload>& shares, const std::string& mode,
                            uint64_t seed) {
  std::string text = config_text(arch, shares.at(0), mode, seed);
  // Pipeline stages differ: every stage's layers (the other splits give every chip chip 0's share).
  if (arch.pipeline_parallel > 1)
    for (size_t k = 1; k < shares.size(); ++k)
      text += fmt::format("stage={}\n", k) + workload_text(arch, shares[k]) + layer_text(shares[k]);
  return hash_of(text);
}

}  // namespace cstsim
