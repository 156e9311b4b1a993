#pragma once
// Reader for SCALE-Sim v2 .cfg files (Python configparser INI: "[section]",
// "key: value" or "key = value", keys case-insensitive, '#'/';' comment lines).
#include <string>

#include "sim/config/arch_fields.h"

namespace cstsim {

// Maps ArrayHeight/ArrayWidth/Dataflow/*SramSzkB/run_name onto arch keys and
// implies fold_pipeline=scalesim, memory=ideal. The other SCALE-Sim keys are
// accepted and ignored; unknown sections or keys, duplicates and
// SparsitySupport=true throw InputError with the line.
ArchFields read_scalesim_cfg(const std::string& path);

}  // namespace cstsim
