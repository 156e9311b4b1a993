#pragma once
// The modules a run is made of, as data: for summary.json and `cstsim run -v`.
#include <string>
#include <vector>

namespace cstsim {

struct ModuleInfo {
  std::string name;  // hierarchical, "accelerator.cluster0.array"
  std::string kind;  // accelerator, cluster, array, scratchpad, dma, noc, hbm, hbm_controller
  // The SystemC processes it owns ("thread", "method"; several joined by ", "), found in the module
  // tree, and when it owns none, why not.
  std::string process;
  std::string no_process_because;
  // The memory side's processes (memory: hierarchy): how often each ran and the events it
  // stepped (counts), -1 for other modules.
  int64_t activations = -1;
  int64_t events = -1;
};

// As an indented tree, one module per line.
std::string module_tree(const std::vector<ModuleInfo>& modules);

}  // namespace cstsim
