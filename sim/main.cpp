// SystemC's kernel calls sc_main. Our own main() only silences the kernel's
// banner (it prints before sc_main runs) and hands over to SystemC.
#include <cstdlib>

#include <systemc>

#include "sim/cli/cli.h"

int sc_main(int argc, char** argv) { return cstsim::cli_main(argc, argv); }

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
