#pragma once
// From the front's ArchSpec to the models' AcceleratorSpec: each model's params by
// value, the HBM and NoC sub-files already inlined, the clusters' routers placed.
#include "models/accelerator/accelerator_spec.h"
#include "sim/config/arch_spec.h"

namespace cstsim {

AcceleratorSpec accelerator_spec(const ArchSpec& arch);

// The scratchpad an arch describes: sram.*_kib partitions, scratchpad.* geometry.
spad::ScratchpadParams scratchpad_params(const ArchSpec& arch);

// Router (x, y) of cluster k on a cols x rows mesh: clusters fill routers row by row
// from (noc.cluster_x, noc.cluster_y), the mesh centre by default.
std::vector<std::pair<int, int>> cluster_routers(const ArchSpec& arch, int cols, int rows, int clusters);

}  // namespace cstsim
