// Must NOT compile: PE·s and byte·s are different quantities (seed 000 §52-53).
// Built with -DCSTSIM_SAME_UNITS it adds like units and must compile, so the
// failure of the other build is the unit check and not a broken file.
#include "core/units.h"

int main() {
  cstsim::units::PESeconds compute{80};
#ifdef CSTSIM_SAME_UNITS
  cstsim::units::PESeconds other{500};
#else
  cstsim::units::ByteSeconds other{500};
#endif
  auto sum = compute + other;
  return int(sum.value) == 580 ? 0 : 1;
}
