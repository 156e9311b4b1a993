// The dataflow registry's lookup. Implementations register themselves
// (CSTSIM_REGISTER in dataflows/); the anchors below only keep them linked in.
#include "models/array/array_dataflow.h"

#include <stdexcept>
#include <vector>

#include "core/registry.h"

namespace cstsim {

int cstsim_anchor_WeightStationary();  // dataflows/stationary.cpp
int cstsim_anchor_InputStationary();   // dataflows/stationary.cpp
int cstsim_anchor_OutputStationary();  // dataflows/output_stationary.cpp

const ArrayDataflow& array_dataflow(Dataflow d) {
  if (d == Dataflow::RS) throw std::logic_error("row stationary runs processing passes (models/array/rs_timing.h), not folds");
  static const int linked = cstsim_anchor_WeightStationary() + cstsim_anchor_InputStationary() +
                            cstsim_anchor_OutputStationary();
  (void)linked;
  // Asked per fold, so the registry's shared instances are indexed once by dataflow.
  static const std::vector<const ArrayDataflow*> by_id = [] {
    std::vector<const ArrayDataflow*> out;
    for (const std::string& name : dataflow_names()) {
      const Dataflow id = *dataflow_named(name);
      if (id == Dataflow::RS) continue;
      if (out.size() <= size_t(id)) out.resize(size_t(id) + 1);
      out[size_t(id)] = &Registry<ArrayDataflow>::instance().shared(name, "dataflow");
    }
    return out;
  }();
  return *by_id[size_t(d)];
}

}  // namespace cstsim
