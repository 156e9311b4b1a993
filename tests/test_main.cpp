// SystemC owns the simulation; GoogleTest runs from sc_main. Each test that
// elaborates a model must run in its own process (gtest_discover_tests does that).
#include <cstdlib>

#include <gtest/gtest.h>
#include <systemc>

#include "models/base/sanitizer_stack.h"

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  const int status = sc_core::sc_elab_and_sim(argc, argv);
  // SystemC's last switch back from a coroutine leaves AddressSanitizer without the main stack's
  // bounds; LeakSanitizer's scan at exit would then read a freed coroutine stack and fault.
  cstsim::sanitizer::on_main_stack();
  return status;
}
