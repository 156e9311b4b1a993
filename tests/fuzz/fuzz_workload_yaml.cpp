// The workload reader on YAML: layer lists and operator graphs (sim/workload/workload.h).
#include "sim/workload/workload.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = cstsim::fuzz::write_input("w.yaml", data, size);
  cstsim::fuzz::expect_clean([&] { cstsim::load_workload(path); });
  return 0;
}
