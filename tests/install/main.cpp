// Loads a workload with the installed library and prints its MACs: the library's headers,
// its static libraries and their dependencies all resolve from the package alone.
#include <cstdint>
#include <iostream>

#include <systemc>

#include "sim/workload/workload.h"

int sc_main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: consumer WORKLOAD\n";
    return 2;
  }
  const cstsim::Workload w = cstsim::load_workload(argv[1]);
  int64_t macs = 0;
  for (const cstsim::Layer& l : w.layers) macs += l.macs();
  std::cout << macs << "\n";
  return 0;
}
