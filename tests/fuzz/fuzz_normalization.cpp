// The normalization reader (traces/post/normalization.h).
#include "tests/fuzz/fuzz_util.h"
#include "traces/post/normalization.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = cstsim::fuzz::write_input("n.yaml", data, size);
  cstsim::fuzz::expect_clean([&] { cstsim::post::load_normalization(path); });
  return 0;
}
