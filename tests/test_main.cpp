// SystemC owns main(); GoogleTest runs from sc_main. Each test that elaborates
// a model must run in its own process (gtest_discover_tests does that).
#include <gtest/gtest.h>
#include <systemc>

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
