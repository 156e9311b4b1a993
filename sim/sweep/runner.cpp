#include "sim/sweep/runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "sim/sweep/process.h"
#include "sim/sweep/sweep_dir.h"

namespace cstsim::sweep {
namespace fs = std::filesystem;

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string host_name() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string clock_text(double s) {
  if (!std::isfinite(s) || s < 0) return "--:--";
  const long t = std::lround(s);
  if (t >= 3600) return fmt::format("{}:{:02}:{:02}", t / 3600, (t / 60) % 60, t % 60);
  return fmt::format("{}:{:02}", t / 60, t % 60);
}

// The error a failed attempt printed: its last "error:" line, else its last line.
std::string error_text(const fs::path& log, std::streamoff from) {
  std::ifstream in(log, std::ios::binary);
  in.seekg(from);
  std::string line, last, last_error;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty() || line.rfind("=== ", 0) == 0) continue;
    last = line;
    if (line.rfind("error:", 0) == 0 || line.find("[error]") != std::string::npos) last_error = line;
  }
  std::string out = !last_error.empty() ? last_error : !last.empty() ? last : "(no output)";
  if (out.size() > 400) out = out.substr(0, 400) + "...";
  return out;
}

void noop_handler(int) {}

class Progress {
 public:
  Progress(size_t total, double total_cost, bool quiet)
      : total_(total), total_cost_(total_cost), quiet_(quiet), tty_(::isatty(2) == 1), t0_(now_s()) {}

  void update(int ok, int failed, size_t running, double cost_done, bool force = false) {
    if (quiet_) return;
    const double t = now_s();
    if (!force && t - last_ < (tty_ ? 0.25 : 10.0)) return;
    last_ = t;
    const size_t done = size_t(ok + failed);
    const double elapsed = t - t0_;
    double eta = NAN;
    if (done == total_) eta = 0;
    else if (cost_done > 0 && total_cost_ > 0) eta = (total_cost_ - cost_done) / (cost_done / elapsed);
    const int pct = total_ ? int(100.0 * double(done) / double(total_)) : 100;
    if (tty_) {
      constexpr int kWidth = 28;
      const int fill = total_ ? int(kWidth * double(done) / double(total_)) : kWidth;
      std::string bar(size_t(fill), '#');
      bar.resize(kWidth, '-');
      std::fprintf(stderr, "\r\033[Ksweep [%s] %zu/%zu (%d%%)  ok %d  failed %d  running %zu  %s elapsed  ETA %s",
                   bar.c_str(), done, total_, pct, ok, failed, running, clock_text(elapsed).c_str(),
                   clock_text(eta).c_str());
      std::fflush(stderr);
      drawn_ = true;
    } else {
      const auto state = std::make_tuple(done, failed, running);
      if (force && state == printed_) return;  // the line just printed says the same
      printed_ = state;
      spdlog::info("sweep: {}/{} points ({}%), {} ok, {} failed, {} running, {} elapsed, ETA {}", done, total_, pct, ok,
                   failed, running, clock_text(elapsed), clock_text(eta));
    }
  }
  // A message line above the bar.
  void message(const std::string& text) {
    clear();
    spdlog::warn("{}", text);
  }
  void clear() {
    if (drawn_) {
      std::fprintf(stderr, "\r\033[K");
      std::fflush(stderr);
      drawn_ = false;
      last_ = 0;
    }
  }
  void finish() {
    if (tty_ && drawn_) {
      std::fprintf(stderr, "\n");
      drawn_ = false;
    }
  }

 private:
  size_t total_;
  double total_cost_;
  bool quiet_, tty_;
  double t0_, last_ = 0;
  bool drawn_ = false;
  std::tuple<size_t, int, size_t> printed_{size_t(-1), -1, 0};
};

struct Running {
  int index = 0;
  int lock_fd = -1;
  double start = 0;
  bool timed_out = false;
  std::streamoff log_from = 0;
};

}  // namespace

PoolStats run_points(const Plan& plan, const fs::path& dir, const std::vector<int>& indices, const PoolOptions& o) {
  PoolStats st;
  const double t0 = now_s();
  st.considered = int(indices.size());
  std::vector<int> queue;
  for (int i : indices) {
    if (point_done(dir, plan.tasks.at(size_t(i)), plan.run.trace)) ++st.already_done;
    else queue.push_back(i);
  }
  std::stable_sort(queue.begin(), queue.end(),
                   [&](int a, int b) { return plan.tasks[size_t(a)].cost > plan.tasks[size_t(b)].cost; });
  double total_cost = 0, cost_done = 0;
  for (int i : queue) total_cost += plan.tasks[size_t(i)].cost;
  if (!o.quiet)
    spdlog::info("sweep: {} point(s), {} done before, {} to run with {} worker(s){}", indices.size(), st.already_done,
                 queue.size(), std::max(1, o.jobs),
                 o.timeout_s > 0 ? fmt::format(", timeout {} s each", o.timeout_s) : std::string());
  if (queue.empty()) {
    st.wall_s = now_s() - t0;
    return st;
  }

  const std::string exe = proc::self_exe(), exec = proc::exec_path();
  const std::string host = host_name();
  sigset_t watch, orig;
  sigemptyset(&watch);
  for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&watch, s);
  ::sigprocmask(SIG_BLOCK, &watch, &orig);
  struct sigaction sa {}, old_chld {};
  sa.sa_handler = noop_handler;  // SIGCHLD must not be ignored, or it would never be pending
  ::sigaction(SIGCHLD, &sa, &old_chld);

  Progress progress(queue.size(), total_cost, o.quiet);
  std::map<pid_t, Running> running;
  size_t next = 0;
  bool stop = false;
  const int jobs = std::max(1, o.jobs);

  auto start = [&](int i) {
    const Task& t = plan.tasks[size_t(i)];
    const int fd = ::open(dirs::lock(dir, i).c_str(), O_CREAT | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 || ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      if (fd >= 0) ::close(fd);
      ++st.busy;
      cost_done += t.cost;
      return;
    }
    if (point_done(dir, t, plan.run.trace)) {  // finished by another process since we looked
      ::close(fd);
      ++st.already_done;
      cost_done += t.cost;
      return;
    }
    // Staging directories of an attempt that was killed.
    const std::string tmp = "." + std::to_string(i) + ".tmp-", old = "." + std::to_string(i) + ".old-";
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir / "points", ec)) {
      const std::string n = e.path().filename().string();
      if (n.rfind(tmp, 0) == 0 || n.rfind(old, 0) == 0) fs::remove_all(e.path(), ec);
    }
    std::vector<std::string> argv{exe};
    for (std::string& a : point_args(plan, t, dir.string())) argv.push_back(std::move(a));
    std::string cmd;
    for (const std::string& a : argv) cmd += (cmd.empty() ? "" : " ") + proc::shell_quote(a);
    const fs::path log = dirs::log(dir, i);
    io::append_file(log, fmt::format("=== point {} attempt: {} on {} (driver pid {})\n=== {}\n", i, utc_now(), host, ::getpid(), cmd));
    Running r;
    r.index = i;
    r.lock_fd = fd;
    r.start = now_s();
    std::error_code sec;
    r.log_from = std::streamoff(fs::file_size(log, sec));
    try {
      const pid_t pid = proc::spawn(exec, argv, log.string(), orig);
      running.emplace(pid, r);
    } catch (const std::exception& e) {
      ::close(fd);
      io::write_file(dirs::failed(dir, i), fmt::format("cannot start\nerror: {}\n", e.what()));
      ++st.failed;
      progress.message(fmt::format("point {} failed: cannot start: {}", i, e.what()));
    }
  };

  auto finish = [&](pid_t pid, int status) {
    auto it = running.find(pid);
    if (it == running.end()) return;
    const Running r = it->second;
    running.erase(it);
    const Task& t = plan.tasks[size_t(r.index)];
    const double wall = now_s() - r.start;
    const fs::path log = dirs::log(dir, r.index);
    const bool exited0 = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    const bool ok = !r.timed_out && exited0 && point_done(dir, t, plan.run.trace);
    std::error_code ec;
    if (ok) {
      fs::remove(dirs::failed(dir, r.index), ec);
      nlohmann::ordered_json h{{"host_name", host}, {"host_wall_s", wall}, {"host_finished_utc", utc_now()}};
      io::write_file(dirs::host(dir, r.index), h.dump() + "\n");
      if (!plan.run.keep_trace) {
        fs::remove(dirs::point(dir, r.index) / "trace" / "rt.bin", ec);
        fs::remove(dirs::point(dir, r.index) / "trace" / "actions.csv", ec);
      }
      io::append_file(log, fmt::format("=== exit 0 after {:.3f} s\n", wall));
      ++st.ok;
    } else if (stop && !r.timed_out) {
      io::append_file(log, "=== interrupted (not recorded as failed)\n");
    } else {
      std::string reason;
      if (r.timed_out) reason = fmt::format("timeout after {} s", o.timeout_s);
      else if (WIFSIGNALED(status)) reason = fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
      else if (!exited0) reason = fmt::format("exit status {}", WEXITSTATUS(status));
      else reason = "exit status 0 but no summary.json and report.json with the task's config_hash";
      const std::string err = r.timed_out ? "error: the point did not finish within the time limit (--timeout)"
                                          : error_text(log, r.log_from);
      io::write_file(dirs::failed(dir, r.index), reason + "\n" + err + "\n");
      io::append_file(log, fmt::format("=== failed after {:.3f} s: {}\n", wall, reason));
      ++st.failed;
      progress.message(fmt::format("point {} failed: {}: {}", r.index, reason, err));
    }
    cost_done += t.cost;
    ::close(r.lock_fd);
  };

  while (true) {
    while (!stop && running.size() < size_t(jobs) && next < queue.size()) start(queue[next++]);
    if (running.empty() && (stop || next >= queue.size())) break;
    double wait = 0.25;
    const double tnow = now_s();
    if (o.timeout_s > 0)
      for (const auto& [pid, r] : running)
        if (!r.timed_out) wait = std::min(wait, std::max(0.0, r.start + o.timeout_s - tnow));
    timespec ts{time_t(wait), long((wait - std::floor(wait)) * 1e9)};
    siginfo_t info;
    const int sig = ::sigtimedwait(&watch, &info, &ts);
    if ((sig == SIGINT || sig == SIGTERM || sig == SIGHUP) && !stop) {
      stop = true;
      st.interrupted = true;
      for (const auto& [pid, r] : running) ::kill(-pid, SIGKILL);
    }
    std::vector<pid_t> pids;
    for (const auto& [pid, r] : running) pids.push_back(pid);
    for (pid_t pid : pids) {
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) finish(pid, status);
    }
    const double after = now_s();
    if (o.timeout_s > 0)
      for (auto& [pid, r] : running)
        if (!r.timed_out && after >= r.start + o.timeout_s) {
          r.timed_out = true;
          ::kill(-pid, SIGKILL);
        }
    progress.update(st.ok, st.failed, running.size(), cost_done);
  }
  progress.update(st.ok, st.failed, 0, cost_done, true);
  progress.finish();
  ::sigaction(SIGCHLD, &old_chld, nullptr);
  ::sigprocmask(SIG_SETMASK, &orig, nullptr);
  st.wall_s = now_s() - t0;
  if (st.interrupted)
    spdlog::warn("sweep: interrupted; the points that were running were stopped; rerun the same command to resume");
  return st;
}

}  // namespace cstsim::sweep
