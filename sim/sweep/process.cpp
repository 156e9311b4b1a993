#include "sim/sweep/process.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

namespace cstsim::sweep::proc {
namespace fs = std::filesystem;

std::string self_exe() {
  if (const char* e = std::getenv("CSTSIM_SWEEP_EXE"); e && *e) return fs::absolute(e).string();
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot read /proc/self/exe: " + ec.message());
  return p.string();
}

std::string exec_path() {
  if (const char* e = std::getenv("CSTSIM_SWEEP_EXE"); e && *e) return fs::absolute(e).string();
  return "/proc/self/exe";
}

namespace {

std::vector<char*> c_argv(const std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (const std::string& a : argv) out.push_back(const_cast<char*>(a.c_str()));
  out.push_back(nullptr);
  return out;
}

void write_all(int fd, const char* s) {
  size_t n = std::strlen(s);
  while (n > 0) {
    const ssize_t w = ::write(fd, s, n);
    if (w <= 0) return;
    s += w;
    n -= size_t(w);
  }
}

}  // namespace

pid_t spawn(const std::string& path, const std::vector<std::string>& argv, const std::string& log_path,
            const sigset_t& child_mask) {
  if (argv.empty()) throw std::runtime_error("spawn: empty command");
  const int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (log < 0) throw std::runtime_error(fmt::format("cannot open {}: {}", log_path, std::strerror(errno)));
  const int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  std::vector<char*> args = c_argv(argv);  // prepared before fork: the child only makes system calls
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(log);
    if (devnull >= 0) ::close(devnull);
    throw std::runtime_error(fmt::format("fork: {}", std::strerror(err)));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the driver died before prctl took effect
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int s : {SIGINT, SIGTERM, SIGCHLD, SIGPIPE, SIGHUP}) ::sigaction(s, &dfl, nullptr);
    ::sigprocmask(SIG_SETMASK, &child_mask, nullptr);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::dup2(log, 1);
    ::dup2(log, 2);
    ::execv(path.c_str(), args.data());
    write_all(2, "error: cannot execute ");
    write_all(2, path.c_str());
    write_all(2, ": ");
    write_all(2, std::strerror(errno));
    write_all(2, "\n");
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from the parent, so a kill(-pid) right after spawn finds the group
  ::close(log);
  if (devnull >= 0) ::close(devnull);
  return pid;
}

int capture(const std::vector<std::string>& argv, std::string& out, std::string* err) {
  int po[2], pe[2];
  if (::pipe2(po, O_CLOEXEC) != 0) return 127;
  if (::pipe2(pe, O_CLOEXEC) != 0) {
    ::close(po[0]);
    ::close(po[1]);
    return 127;
  }
  std::vector<char*> args = c_argv(argv);
  sigset_t none;
  sigemptyset(&none);
  const pid_t pid = ::fork();
  if (pid < 0) return 127;
  if (pid == 0) {
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::dup2(po[1], 1);
    ::dup2(err ? pe[1] : po[1], 2);
    ::execvp(args[0], args.data());
    write_all(2, "cannot execute ");
    write_all(2, args[0]);
    write_all(2, "\n");
    ::_exit(127);
  }
  ::close(po[1]);
  ::close(pe[1]);
  // Read both pipes until EOF (poll-free: stderr is small, read it after stdout
  // only when it is separate; a child filling stderr first would block, so drain
  // them alternately without blocking).
  ::fcntl(po[0], F_SETFL, O_NONBLOCK);
  ::fcntl(pe[0], F_SETFL, O_NONBLOCK);
  bool open_o = true, open_e = true;
  char buf[4096];
  std::string errtext;
  while (open_o || open_e) {
    bool progress = false;
    for (int k = 0; k < 2; ++k) {
      bool& open = k == 0 ? open_o : open_e;
      if (!open) continue;
      const ssize_t n = ::read(k == 0 ? po[0] : pe[0], buf, sizeof buf);
      if (n > 0) {
        (k == 0 ? out : errtext).append(buf, size_t(n));
        progress = true;
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        open = false;
        progress = true;
      }
    }
    if (!progress) ::usleep(2000);
  }
  ::close(po[0]);
  ::close(pe[0]);
  if (err) *err = errtext;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 127;
}

bool in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return false;
  std::string p = path;
  size_t start = 0;
  while (start <= p.size()) {
    const size_t end = p.find(':', start);
    const std::string dir = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const std::string f = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (::access(f.c_str(), X_OK) == 0) return true;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return false;
}

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./=:,+%@") ==
                        std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

}  // namespace cstsim::sweep::proc
