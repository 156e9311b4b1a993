// The dataflow registry's lookup. Implementations register themselves
// (CSTSIM_REGISTER in dataflows/); the anchors below only keep them linked in.
#include "models/array/array_dataflow.h"

#include <map>

#include "core/registry.h"

namespace cstsim {

int cstsim_anchor_WeightStationary();  // dataflows/stationary.cpp
int cstsim_anchor_InputStationary();   // dataflows/stationary.cpp
int cstsim_anchor_OutputStationary();  // dataflows/output_stationary.cpp

const ArrayDataflow& array_dataflow(Dataflow d) {
  static const int linked = cstsim_anchor_WeightStationary() + cstsim_anchor_InputStationary() +
                            cstsim_anchor_OutputStationary();
  (void)linked;
  // Implementations are stateless: one instance each, made on first use (the
  // simulation is single-threaded, SystemC included).
  static std::map<Dataflow, std::unique_ptr<ArrayDataflow>> made;
  auto it = made.find(d);
  if (it == made.end())
    it = made.emplace(d, Registry<ArrayDataflow>::instance().make(to_string(d), "dataflow")).first;
  return *it->second;
}

}  // namespace cstsim
