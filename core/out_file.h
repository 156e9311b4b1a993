#pragma once
// Every file cstsim writes goes through OutFile: it is created under a fresh,
// unguessable name in the target's own directory (mkostemp: O_CREAT | O_EXCL,
// so a planted name or symlink is never opened), every write and the close are
// checked, and it is renamed onto the target only by commit(). rename() replaces
// a symlink at the target itself, never the file it points to. Until commit() the
// target is untouched; a failed or abandoned file is unlinked.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/crc32.h"
#include <fmt/format.h>

namespace cstsim::io {

// An output could not be written (disk full, read-only target, ...). The CLI prints
// it as one line and exits with status 2, like bad input.
class OutputError : public std::runtime_error {
 public:
  OutputError(const std::filesystem::path& path, const std::string& message);
  explicit OutputError(const std::string& line);  // a whole message, made one line
  // "PATH: what: strerror(err)"
  static OutputError from_errno(const std::filesystem::path& path, const std::string& what, int err);
};

class OutFile {
 public:
  explicit OutFile(std::filesystem::path target);  // throws OutputError
  ~OutFile();  // unlinks the temporary unless committed; never throws
  OutFile(const OutFile&) = delete;
  OutFile& operator=(const OutFile&) = delete;

  template <typename... T>
  void print(fmt::format_string<T...> f, T&&... args) {
    fmt::format_to(fmt::appender(buf_), f, std::forward<T>(args)...);
    if (buf_.size() >= kFlushBytes) flush();
  }
  void put(std::string_view s) { write(s.data(), s.size()); }
  void write(const void* data, size_t bytes);
  // Overwrites bytes already written, e.g. a header patched once the counts are known.
  void write_at(uint64_t offset, const void* data, size_t bytes);
  // Flushes, closes (checked) and renames onto the target.
  void commit();
  const std::filesystem::path& target() const { return target_; }
  // What write, put and print appended (not write_at): its size (at any time) and, once committed,
  // its CRC-32, for a manifest that lets a reader tell a damaged file (traces/manifest.h).
  uint64_t appended_bytes() const { return appended_ + buf_.size(); }  // buffered bytes included
  uint32_t appended_crc32() const { return crc_.checksum(); }

 private:
  static constexpr size_t kFlushBytes = 1 << 20;
  void flush();
  [[noreturn]] void fail(const std::string& what, int err);

  std::filesystem::path target_, tmp_;
  int fd_ = -1;
  fmt::memory_buffer buf_;
  bool settled_ = false;  // committed, or failed and cleaned up
  int cleanup_slot_ = -1;  // the temporary, for a signal handler to remove
  Crc32 crc_;
  uint64_t appended_ = 0;
};

// The whole of `text` as the file `target`, through an OutFile.
void write_file(const std::filesystem::path& target, std::string_view text);

// Appends to a log file, never through a symlink (O_NOFOLLOW); throws OutputError.
void append_file(const std::filesystem::path& path, std::string_view text);

// Temporaries are named .NAME.tmp-<owner>-XXXXXX, the owner being this host (a hash of
// its name) and process: "h1a2b3c4d.p12345". In a directory several hosts share (a
// sweep on a cluster) a host only ever cleans up after its own dead processes.
std::string owner_tag();
// Whether `name` holds ".tmp-<owner>-" of a process of this host that no longer exists.
bool left_by_dead_process(const std::string& name);
// Removes the regular files in `dir` that an OutFile of a killed process left behind.
void remove_stale_temporaries(const std::filesystem::path& dir);

// The whole file (for copying an input into the run directory); InputError if unreadable.
std::string read_file(const std::filesystem::path& path);

// Whether a command may write the file `target`: yes if nothing is there, or a regular
// file whose first kilobyte `ours` recognises as this command's own output (`what`);
// anything else only with `force`. Throws InputError(target, 0, key, why) otherwise,
// so no command overwrites a file it did not make.
void check_replaceable(const std::filesystem::path& target, const std::string& key, bool force,
                       const std::function<bool(std::string_view head)>& ours, const std::string& what,
                       const std::string& hint = "; choose another path, or --force to replace it");

// The process's umask, read once.
unsigned file_mode_mask();

}  // namespace cstsim::io
