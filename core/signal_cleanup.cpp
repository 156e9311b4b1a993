#include "core/signal_cleanup.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace cstsim::cleanup {
namespace {

constexpr int kSlots = 64;
constexpr size_t kPathBytes = 4096;

// A slot is written while `state` is 0, then published with 1 (release); the handler reads only
// published slots.
struct Slot {
  std::atomic<int> state{0};  // 0 free, 1 in use, 2 being filled
  pid_t owner = 0;
  char path[kPathBytes];
};
Slot slots[kSlots];
pthread_t main_thread;

void say(const char* s) {
  size_t n = std::strlen(s);  // strlen is async-signal-safe
  while (n > 0) {
    const ssize_t w = ::write(2, s, n);
    if (w <= 0) return;
    s += w;
    n -= size_t(w);
  }
}

// Removes `name` in the directory `at`, a directory with everything in it (never following a link).
void remove_at(int at, const char* name, int depth) {
  if (::unlinkat(at, name, 0) == 0 || errno == ENOENT) return;
  if (depth > 8) return;  // run directories are two deep; the stack may be a small coroutine's
  const int fd = ::openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  for (int pass = 0; pass < 8; ++pass) {  // removing while reading may skip names: read again
    if (::unlinkat(at, name, AT_REMOVEDIR) == 0) break;
    ::lseek(fd, 0, SEEK_SET);
    alignas(8) char buf[1024];
    while (true) {
      const ssize_t n = ::getdents64(fd, buf, sizeof buf);
      if (n <= 0) break;
      for (ssize_t off = 0; off < n;) {
        const auto* d = reinterpret_cast<const dirent64*>(buf + off);
        off += d->d_reclen;
        if (std::strcmp(d->d_name, ".") == 0 || std::strcmp(d->d_name, "..") == 0) continue;
        remove_at(fd, d->d_name, depth + 1);
      }
    }
  }
  ::close(fd);
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
  }
}

void on_signal(int sig) {
  // Another thread (the progress line's) passes it to the main thread, which is then not writing.
  if (!pthread_equal(pthread_self(), main_thread)) {
    ::pthread_kill(main_thread, sig);
    return;
  }
  const int saved = errno;
  const pid_t self = ::getpid();
  bool removed = false;
  for (Slot& s : slots)
    if (s.state.load(std::memory_order_acquire) == 1 && s.owner == self) {
      remove_at(AT_FDCWD, s.path, 0);
      s.state.store(0, std::memory_order_release);
      removed = true;
    }
  say("error: interrupted by ");
  say(signal_name(sig));
  say(removed ? " (nothing written; the partial output was removed)\n" : " (nothing written)\n");
  // End as the signal would have: the parent (a shell, a sweep) sees what happened.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigaction(sig, &dfl, nullptr);
  errno = saved;
  ::raise(sig);  // delivered when the handler returns (the signal is blocked in it)
}

}  // namespace

void install() {
  main_thread = pthread_self();
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  ::sigaction(SIGXFSZ, &ign, nullptr);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler == SIG_IGN) continue;
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int other : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&sa.sa_mask, other);  // one cleanup at a time
    ::sigaction(sig, &sa, nullptr);
  }
}

int add(const std::filesystem::path& path) {
  const std::string& p = path.native();
  if (p.empty() || p.size() >= kPathBytes) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (!slots[i].state.compare_exchange_strong(expected, 2, std::memory_order_acquire)) continue;
    std::memcpy(slots[i].path, p.c_str(), p.size() + 1);
    slots[i].owner = ::getpid();
    slots[i].state.store(1, std::memory_order_release);
    return i;
  }
  return -1;
}

void remove(int slot) {
  if (slot >= 0 && slot < kSlots) slots[slot].state.store(0, std::memory_order_release);
}

}  // namespace cstsim::cleanup
