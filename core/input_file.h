#pragma once
// Every input file is opened here: regular files only, never a wait on a FIFO or a device.
#include <cstdio>
#include <filesystem>
#include <istream>
#include <memory>
#include <string>
#include <vector>

#include "core/input_error.h"

namespace cstsim {

// An input must be a regular file: a directory fails in the middle of a read, and opening a FIFO
// or a device blocks or never ends. Checked before opening (stat does not block). Records `path`
// among inputs_read().
void check_input_file(const std::string& path);

// Opens `path` for reading and returns the descriptor (close-on-exec, blocking reads). The open
// itself cannot block (O_NONBLOCK, cleared afterwards) and the type is checked again on the open
// descriptor, so a FIFO swapped in after check_input_file is refused too. InputError otherwise.
int open_input(const std::string& path);

// The whole file, through open_input.
std::string read_input(const std::string& path);

// A stream over open_input(path), for readers that go line by line.
class InputStream : public std::istream {
 public:
  explicit InputStream(const std::string& path);
  ~InputStream() override;
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;

 private:
  std::unique_ptr<std::streambuf> buf_;
};

// A stdio stream over open_input(path) (fclose it).
std::FILE* fopen_input(const std::string& path);

// Every file this process checked or opened as an input, in order, each once: what `run --out
// --force` must never delete, however the file was reached (a preset of a preset, a base table).
std::vector<std::filesystem::path> inputs_read();

// Whether `path` names a regular file, never throwing: a name too long or a component that is a
// file answers no (the caller says which key named it).
inline bool is_file(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

}  // namespace cstsim
