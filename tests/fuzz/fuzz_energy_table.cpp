// The energy table reader (traces/post/energy_table.h).
#include "tests/fuzz/fuzz_util.h"
#include "traces/post/energy_table.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = cstsim::fuzz::write_input("e.yaml", data, size);
  cstsim::fuzz::expect_clean([&] { cstsim::post::load_energy_table(path); });
  return 0;
}
