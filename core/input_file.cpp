#include "core/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ext/stdio_filebuf.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <system_error>

namespace cstsim {
namespace fs = std::filesystem;

namespace {

std::mutex read_mutex;
std::vector<fs::path>& read_list() {
  static std::vector<fs::path> list;
  return list;
}

void remember_input(const std::string& path) {
  std::lock_guard<std::mutex> lock(read_mutex);
  for (const fs::path& p : read_list())
    if (p == path) return;
  read_list().emplace_back(path);
}

[[noreturn]] void not_regular(const std::string& path, bool directory) {
  if (directory) throw InputError(path, 0, "", "is a directory, not a file");
  throw InputError(path, 0, "", "is not a regular file (a FIFO, device or socket would block or never end)");
}

}  // namespace

void check_input_file(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (st.type() == fs::file_type::not_found) throw InputError(path, 0, "", "cannot open file: no such file");
  if (ec || !fs::exists(st)) throw InputError(path, 0, "", "cannot open file: " + ec.message());  // name too long...
  if (!fs::is_regular_file(st)) not_regular(path, fs::is_directory(st));
  remember_input(path);
}

int open_input(const std::string& path) {
  check_input_file(path);  // the usual messages for a missing file, a directory, a FIFO
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw InputError(path, 0, "", std::string("cannot open file: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const bool dir = S_ISDIR(st.st_mode);
    ::close(fd);
    not_regular(path, dir);
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

std::string read_input(const std::string& path) {
  const int fd = open_input(path);
  std::string text;
  char block[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, block, sizeof block);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      throw InputError(path, 0, "", std::string("cannot read: ") + std::strerror(err));
    }
    if (n == 0) break;
    text.append(block, size_t(n));
  }
  ::close(fd);
  return text;
}

InputStream::InputStream(const std::string& path) : std::istream(nullptr) {
  // libstdc++'s filebuf over a descriptor it closes when destroyed.
  buf_ = std::make_unique<__gnu_cxx::stdio_filebuf<char>>(open_input(path), std::ios::in | std::ios::binary, 1 << 16);
  rdbuf(buf_.get());
}

InputStream::~InputStream() = default;

std::FILE* fopen_input(const std::string& path) {
  const int fd = open_input(path);
  std::FILE* f = ::fdopen(fd, "rb");
  if (!f) {
    const int err = errno;
    ::close(fd);
    throw InputError(path, 0, "", std::string("cannot open file: ") + std::strerror(err));
  }
  return f;
}

std::vector<fs::path> inputs_read() {
  std::lock_guard<std::mutex> lock(read_mutex);
  return read_list();
}

}  // namespace cstsim
