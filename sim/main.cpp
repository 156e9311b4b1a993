// SystemC's kernel calls sc_main. Our own main() only silences the kernel's
// banner (it prints before sc_main runs) and hands over to SystemC.
#include <cstdlib>

#include <systemc>

#include "models/base/sanitizer_stack.h"

#include "sim/cli/cli.h"

int sc_main(int argc, char** argv) { return cstsim::cli_main(argc, argv); }

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  const int status = sc_core::sc_elab_and_sim(argc, argv);
  // SystemC's last switch back from a coroutine leaves AddressSanitizer without the main stack's
  // bounds; LeakSanitizer's scan at exit would then read a freed coroutine stack and fault.
  cstsim::sanitizer::on_main_stack();
  return status;
}
