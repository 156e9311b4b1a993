#pragma once
// Where the shipped presets (configs/) and the plot scripts (traces/plot/) are: $CSTSIM_CONFIG_DIR
// and $CSTSIM_PLOT_DIR when set; else next to the executable as `cmake --install` lays them out
// (<prefix>/bin/cstsim, <prefix>/share/cstsim/{configs,plot}); else the source tree it was built
// from.
#include <string>

namespace cstsim {

std::string config_dir();
std::string plot_dir();

}  // namespace cstsim
