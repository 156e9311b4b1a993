#include "core/json_spool.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <vector>

#include "core/out_file.h"

namespace cstsim::io {

namespace fs = std::filesystem;

namespace {

constexpr size_t kFlushBytes = 1 << 20;

// An unnamed file in `dir` (O_TMPFILE), or a named one unlinked at once where the filesystem
// has no O_TMPFILE.
int open_unnamed(const fs::path& dir) {
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  std::string templ = (dir / ".cstsim-spool-XXXXXX").string();
  std::vector<char> name(templ.begin(), templ.end());
  name.push_back('\0');
  fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) throw OutputError::from_errno(dir, "cannot create a temporary file in", errno);
  ::unlink(name.data());
  return fd;
}

}  // namespace

JsonArraySpool::JsonArraySpool(const fs::path& dir) : dir_(dir.empty() ? fs::path(".") : dir), fd_(open_unnamed(dir_)) {}

JsonArraySpool::~JsonArraySpool() {
  if (fd_ >= 0) ::close(fd_);
}

void JsonArraySpool::push(const nlohmann::ordered_json& element) {
  if (count_ > 0) buf_ += ",\n";
  buf_ += element.dump(2);
  ++count_;
  if (buf_.size() >= kFlushBytes) flush();
}

void JsonArraySpool::flush() {
  size_t done = 0;
  while (done < buf_.size()) {
    const ssize_t n = ::write(fd_, buf_.data() + done, buf_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw OutputError::from_errno(dir_, "cannot write a temporary file in", errno);
    done += size_t(n);
  }
  buf_.clear();
}

void JsonArraySpool::write_document(const fs::path& target, const nlohmann::ordered_json& document) {
  const std::string text = document.dump(2);
  const std::string mark = placeholder().dump();
  const size_t at = text.find(mark);
  if (at == std::string::npos || text.find(mark, at + 1) != std::string::npos)
    throw std::logic_error("JsonArraySpool: the document needs exactly one placeholder");
  const size_t line = text.rfind('\n', at) + 1;
  const size_t key_indent = text.find_first_not_of(' ', line) - line;
  const std::string indent = "\n" + std::string(key_indent + 2, ' ');

  flush();
  OutFile out(target);
  out.put(std::string_view(text).substr(0, at));
  if (count_ == 0) {
    out.put("[]");
  } else {
    // dump(2) of the array at this depth: every element line indented two past the key.
    out.put("[");
    out.put(indent);
    std::vector<char> chunk(kFlushBytes);
    std::string shifted;
    for (off_t offset = 0;;) {
      const ssize_t n = ::pread(fd_, chunk.data(), chunk.size(), offset);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw OutputError::from_errno(dir_, "cannot read back a temporary file in", errno);
      if (n == 0) break;
      offset += n;
      shifted.clear();
      for (ssize_t i = 0; i < n; ++i) {
        if (chunk[size_t(i)] == '\n') shifted += indent;
        else shifted += chunk[size_t(i)];
      }
      out.put(shifted);
    }
    out.put("\n" + std::string(key_indent, ' ') + "]");
  }
  out.put(std::string_view(text).substr(at + mark.size()));
  out.put("\n");
  out.commit();
}

}  // namespace cstsim::io
