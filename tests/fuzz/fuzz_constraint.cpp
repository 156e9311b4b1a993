// Sweep constraint expressions (sim/sweep/constraint.h): parsed, then evaluated at a point whose
// keys hold numbers and words.
#include <string>

#include "sim/sweep/constraint.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto is_key = [](const std::string& k) { return k == "array.rows" || k == "array.cols" || k == "dataflow" || k == "batch"; };
  cstsim::fuzz::expect_clean([&] {
    const auto c = cstsim::sweep::Constraint::parse(text, "s.yaml", 1, is_key);
    c.holds([](const std::string& k) { return k == "dataflow" ? std::string("ws") : k == "batch" ? "0" : "128"; });
  });
  return 0;
}
