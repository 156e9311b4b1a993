#pragma once
// What every fuzz target shares: the input written to a file of the reader's own kind in a
// directory of the process's own, and the one outcome allowed besides success, an InputError (or
// an OutputError for an unwritable file). Any other exception escapes, and libFuzzer reports it
// as a crash with the input that caused it: that is the finding.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/input_error.h"

namespace cstsim::fuzz {

inline const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = [] {
    const std::filesystem::path d = std::filesystem::temp_directory_path() / ("cstsim-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

inline std::string write_input(const std::string& name, const uint8_t* data, size_t size) {
  const std::filesystem::path p = scratch() / name;
  std::ofstream(p, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), std::streamsize(size));
  return p.string();
}

inline void write_text(const std::string& name, const std::string& text) {
  std::ofstream(scratch() / name, std::ios::binary | std::ios::trunc) << text;
}

// Runs `read`; an InputError is the reader refusing the input, which is right.
template <class Read>
void expect_clean(Read&& read) {
  try {
    read();
  } catch (const InputError&) {
  }
}

}  // namespace cstsim::fuzz

// libsystemc (linked for the config readers' headers) asks for sc_main; libFuzzer owns main().
extern "C" int sc_main(int, char**) { return 0; }
