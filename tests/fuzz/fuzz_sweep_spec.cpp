// Sweep specs (sim/sweep/spec.h), expanded against a small arch and workload beside them.
#include "sim/sweep/spec.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool ready = [] {
    cstsim::fuzz::write_text("a.yaml", "name: t\narray: {rows: 8, cols: 8}\ndataflow: ws\n");
    cstsim::fuzz::write_text("w.yaml", "name: w\nlayers:\n  - {name: g1, M: 16, N: 16, K: 16}\n");
    return true;
  }();
  (void)ready;
  const std::string path = cstsim::fuzz::write_input("s.yaml", data, size);
  cstsim::fuzz::expect_clean([&] { cstsim::sweep::expand(path); });
  return 0;
}
