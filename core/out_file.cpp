#include "core/out_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/input_error.h"
#include "core/input_file.h"
#include "core/signal_cleanup.h"

namespace cstsim::io {
namespace fs = std::filesystem;

OutputError::OutputError(const fs::path& path, const std::string& message)
    : std::runtime_error(InputError::one_line(path.string() + ": " + message)) {}

OutputError::OutputError(const std::string& line) : std::runtime_error(InputError::one_line(line)) {}

OutputError OutputError::from_errno(const fs::path& path, const std::string& what, int err) {
  return OutputError(path, what + ": " + std::strerror(err));
}

unsigned file_mode_mask() {
  static const unsigned mask = [] {
    const mode_t m = ::umask(022);
    ::umask(m);
    return unsigned(m);
  }();
  return mask;
}

OutFile::OutFile(fs::path target) : target_(std::move(target)) {
  if (target_.filename().empty()) throw OutputError(target_, "names a directory, not a file");
  const fs::path dir = target_.has_parent_path() ? target_.parent_path() : fs::path(".");
  std::string templ = (dir / ("." + target_.filename().string() + ".tmp-" + owner_tag() + "-XXXXXX")).string();
  std::vector<char> name(templ.begin(), templ.end());
  name.push_back('\0');
  fd_ = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd_ < 0) throw OutputError::from_errno(target_, "cannot create", errno);
  tmp_ = name.data();
  cleanup_slot_ = cleanup::add(tmp_);
  // mkostemp makes the file 0600; give it the mode an ordinary create would.
  if (::fchmod(fd_, mode_t(0666 & ~file_mode_mask())) != 0) fail("cannot set the mode of", errno);
}

OutFile::~OutFile() {
  if (settled_) return;
  if (fd_ >= 0) ::close(fd_);
  ::unlink(tmp_.c_str());
  cleanup::remove(cleanup_slot_);
}

void OutFile::fail(const std::string& what, int err) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(tmp_.c_str());
  cleanup::remove(cleanup_slot_);
  settled_ = true;  // nothing left to clean up
  throw OutputError::from_errno(target_, what, err);
}

namespace {

// Writes all of [p, p + n) at the file offset, or at `offset` if it is >= 0; 0 or errno.
int write_all(int fd, const char* p, size_t n, int64_t offset = -1) {
  while (n > 0) {
    const ssize_t k = offset < 0 ? ::write(fd, p, n) : ::pwrite(fd, p, n, off_t(offset));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return k < 0 ? errno : EIO;
    p += k;
    n -= size_t(k);
    if (offset >= 0) offset += k;
  }
  return 0;
}

}  // namespace

void OutFile::write(const void* data, size_t bytes) {
  if (buf_.size() + bytes > kFlushBytes) flush();
  if (bytes >= kFlushBytes) {  // large blocks go straight to the file
    crc_.process_bytes(data, bytes);
    appended_ += bytes;
    if (const int err = write_all(fd_, static_cast<const char*>(data), bytes)) fail("cannot write", err);
    return;
  }
  buf_.append(static_cast<const char*>(data), static_cast<const char*>(data) + bytes);
}

void OutFile::flush() {
  crc_.process_bytes(buf_.data(), buf_.size());
  appended_ += buf_.size();
  if (const int err = write_all(fd_, buf_.data(), buf_.size())) fail("cannot write", err);
  buf_.clear();
}

void OutFile::write_at(uint64_t offset, const void* data, size_t bytes) {
  if (fd_ < 0) throw std::logic_error("OutFile::write_at after commit");
  flush();
  if (const int err = write_all(fd_, static_cast<const char*>(data), bytes, int64_t(offset))) fail("cannot write", err);
}

void OutFile::commit() {
  if (fd_ < 0) throw std::logic_error("OutFile::commit twice");
  flush();
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("cannot write", errno);  // a delayed write error (NFS, full disk) shows here
  if (std::rename(tmp_.c_str(), target_.c_str()) != 0) fail("cannot replace", errno);
  cleanup::remove(cleanup_slot_);
  settled_ = true;
}

void write_file(const fs::path& target, std::string_view text) {
  OutFile f(target);
  f.put(text);
  f.commit();
}

namespace {

std::string host_hash() {
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  uint32_t h = 2166136261u;  // FNV-1a
  for (const char* c = host; *c; ++c) h = (h ^ uint8_t(*c)) * 16777619u;
  return fmt::format("{:08x}", h);
}

}  // namespace

std::string owner_tag() {
  static const std::string host = host_hash();
  return "h" + host + ".p" + std::to_string(::getpid());
}

bool left_by_dead_process(const std::string& name) {
  static const std::string host = ".tmp-h" + host_hash() + ".p";
  const auto at = name.find(host);
  if (at == std::string::npos) return false;
  char* end = nullptr;
  const long pid = std::strtol(name.c_str() + at + host.size(), &end, 10);
  return pid > 0 && *end == '-' && ::kill(pid_t(pid), 0) != 0 && errno == ESRCH;
}

void remove_stale_temporaries(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (fs::is_regular_file(e.symlink_status(ec)) && left_by_dead_process(e.path().filename().string()))
      fs::remove(e.path(), ec);
}

std::string read_file(const fs::path& path) {
  return read_input(path.string());
}

void check_replaceable(const fs::path& target, const std::string& key, bool force,
                       const std::function<bool(std::string_view)>& ours, const std::string& what,
                       const std::string& hint) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(target, ec);
  if (!fs::exists(st) || force) return;
  if (fs::is_symlink(st)) throw InputError(target.string(), 0, key, "is a symbolic link" + hint);
  if (!fs::is_regular_file(st)) throw InputError(target.string(), 0, key, "exists and is not a regular file" + hint);
  std::ifstream in(target, std::ios::binary);
  std::string head(1024, '\0');
  in.read(head.data(), std::streamsize(head.size()));
  head.resize(size_t(in.gcount()));
  if (!ours(head)) throw InputError(target.string(), 0, key, "exists and is not " + what + hint);
}

void append_file(const fs::path& path, std::string_view text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) throw OutputError::from_errno(path, "cannot open for appending", errno);
  int err = write_all(fd, text.data(), text.size());
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) throw OutputError::from_errno(path, "cannot write", err);
}

}  // namespace cstsim::io
