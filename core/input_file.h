#pragma once
// Every input file is checked before it is opened.
#include <filesystem>
#include <string>
#include <system_error>

#include "core/input_error.h"

namespace cstsim {

// An input must be a regular file: a directory fails in the middle of a read, and opening a FIFO
// or a device blocks or never ends. Checked before opening (stat does not block).
inline void check_input_file(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (st.type() == std::filesystem::file_type::not_found) throw InputError(path, 0, "", "cannot open file: no such file");
  if (ec || !std::filesystem::exists(st)) throw InputError(path, 0, "", "cannot open file: " + ec.message());  // name too long...
  if (std::filesystem::is_directory(st)) throw InputError(path, 0, "", "is a directory, not a file");
  if (!std::filesystem::is_regular_file(st))
    throw InputError(path, 0, "", "is not a regular file (a FIFO, device or socket would block or never end)");
}

// Whether `path` names a regular file, never throwing: a name too long or a component that is a
// file answers no (the caller says which key named it).
inline bool is_file(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

}  // namespace cstsim
