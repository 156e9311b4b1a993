// The trace reader (traces/reader.h) on a trace/ folder cut from the input: manifest.json,
// resources.csv, layers.csv, actions.csv and rt.bin, in that order, separated by lines "%%\n".
// Every record and every action row is read, as post and export do.
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_util.h"
#include "traces/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool made = std::filesystem::create_directories(cstsim::fuzz::scratch() / "trace") || true;
  (void)made;
  const std::string in(reinterpret_cast<const char*>(data), size);
  static const char* const kFiles[] = {"manifest.json", "resources.csv", "layers.csv", "actions.csv", "rt.bin"};
  size_t at = 0;
  for (const char* name : kFiles) {
    const size_t cut = in.find("\n%%\n", at);
    const std::string part = in.substr(at, cut == std::string::npos ? std::string::npos : cut - at);
    cstsim::fuzz::write_text(std::string("trace/") + name, part);
    at = cut == std::string::npos ? in.size() : cut + 4;
  }
  cstsim::fuzz::expect_clean([] {
    cstsim::trace::TraceReader reader(cstsim::fuzz::scratch() / "trace");
    cstsim::trace::Record r{};
    while (reader.next(r)) {
    }
    reader.for_each_action([](const cstsim::trace::ActionRow&) {});
  });
  return 0;
}
