// The arch readers and their validation: cstsim YAML, or a SCALE-Sim .cfg when the input starts
// with '[' (sim/config/arch_spec.h). The HBM and NoC files an arch names are read too when they
// exist (the seeds name none: a name is fuzzed like any other value).
#include "sim/config/arch_spec.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const bool cfg = size > 0 && data[0] == '[';
  const std::string path = cstsim::fuzz::write_input(cfg ? "a.cfg" : "a.yaml", data, size);
  cstsim::fuzz::expect_clean([&] { cstsim::load_arch(path); });
  return 0;
}
