#pragma once
// `cstsim run --describe [SECTION]`: the arch schema (every key: type, unit, default
// or required, one-line doc), and with --arch the resolved keys of the HBM and NoC
// files it names, with their values, as --set spells them.
#include <string>

#include "sim/config/arch_spec.h"

namespace cstsim {

// Throws InputError naming the section when it is no group of the arch or its files.
std::string describe_config(const std::string& section, const std::string& arch_path, const Overrides& overrides);

}  // namespace cstsim
