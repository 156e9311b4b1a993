// What cstsim may write, and how it fails when it cannot: --out replaces only a run
// directory (never the current directory or an input), a full or read-only disk is one
// error line with nothing left behind, planted symlinks are never written through,
// and clocks outside the physical range are input errors.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli_util.h"
#include "tests/test_util.h"

namespace fs = std::filesystem;
using cstsim::testing_util::CliResult;
using cstsim::testing_util::shell_word;
using cstsim::testing_util::slurp;
using cstsim::testing_util::snapshot;

namespace {

class OutputSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_ / "project");
    file("project/a.yaml", "name: t\narray: {rows: 8, cols: 8}\ndataflow: ws\n");
    file("project/w.yaml", "name: tiny\nlayers:\n  - {name: g1, M: 16, N: 16, K: 16}\n  - {name: g2, M: 8, N: 24, K: 12}\n");
    file("project/notes.txt", "my notes\n");
  }
  fs::path file(const std::string& name, const std::string& text) {
    fs::create_directories((dir_ / name).parent_path());
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return dir_ / name;
  }
  // cstsim run on the project's arch and workload, from inside the project directory.
  CliResult run(const std::string& out_and_options) {
    return cstsim::testing_util::run_cli("run -q --arch a.yaml --workload w.yaml --out " + out_and_options, dir_,
                                         "cd " + shell_word(project_.string()) + " &&");
  }
  CliResult cli(const std::string& args) { return cstsim::testing_util::run_cli(args, dir_); }
  static void expect_one_error_line(const CliResult& r, const std::string& says) {
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << "expected '" << says << "' in " << r.err;
  }
  cstsim::testing_util::TempDir tmp_;  // removed with the fixture
  const fs::path dir_ = tmp_.path, project_ = dir_ / "project";
};

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

TEST_F(OutputSafety, OutReplacesOnlyARunDirectory) {
  file("project/sub/keep.txt", "keep\n");
  file("project/inputs/w2.yaml", slurp(project_ / "w.yaml"));
  fs::create_directory_symlink("sub", project_ / "link");
  const auto before = snapshot(project_);
  const struct {
    std::string out, says;
  } refused[] = {
      {shell_word(project_.string()), "is the current directory or one of its parents"},
      {".", "is the current directory"},
      {"..", "is the current directory"},
      {". --force", "is the current directory"},
      {shell_word(project_.string()) + " --force", "is the current directory"},
      {"w.yaml", "is the input w.yaml"},
      {"w.yaml --force", "is the input w.yaml"},
      {"a.yaml --force", "is the input a.yaml"},
      {"sub", "exists and is not a cstsim run directory"},
      {"notes.txt", "exists and is not a directory"},
      {"link", "is a symbolic link"},
      {"/", "is the filesystem root"},
  };
  for (const auto& c : refused) {
    SCOPED_TRACE(c.out);
    expect_one_error_line(run(c.out), c.says);
    EXPECT_EQ(snapshot(project_), before) << "something was touched";
  }
  // An input in a directory: that directory is protected, even with --force.
  const CliResult r = cstsim::testing_util::run_cli(
      "run -q --arch a.yaml --workload inputs/w2.yaml --out inputs --force", dir_, "cd " + shell_word(project_.string()) + " &&");
  expect_one_error_line(r, "is the input inputs/w2.yaml or holds it");
  EXPECT_EQ(snapshot(project_), before);
  // The HBM and NoC files an arch names are inputs too.
  file("project/mem/h.yaml", slurp(std::string(CSTSIM_SOURCE_DIR) + "/configs/memory/hbm2-2000.yaml"));
  file("project/mem/n.yaml", slurp(std::string(CSTSIM_SOURCE_DIR) + "/configs/noc/npu-mesh-4x4.yaml"));
  file("project/h.yaml", "array: {rows: 16, cols: 16}\ndataflow: ws\nmemory: hierarchy\n"
                         "sram: {ifmap_kib: 32, filter_kib: 16, ofmap_kib: 48}\nhbm: {spec: mem/h.yaml}\n"
                         "noc: {spec: mem/n.yaml}\nscratchpad: {banks: 24, word_bytes: 32}\n");
  const auto with_subfiles = snapshot(project_);
  expect_one_error_line(cstsim::testing_util::run_cli("run -q --arch h.yaml --workload w.yaml --out mem --force", dir_,
                                                      "cd " + shell_word(project_.string()) + " &&"),
                        "is the input mem/h.yaml or holds it");
  EXPECT_EQ(snapshot(project_), with_subfiles);

  // A run directory is replaced; a rerun into it works; --force replaces a plain directory.
  ASSERT_EQ(run("r").status, 0);
  EXPECT_TRUE(fs::is_regular_file(project_ / "r" / ".cstsim-run"));
  const std::string first = slurp(project_ / "r" / "summary.json");
  file("project/r/stale.txt", "from before\n");
  ASSERT_EQ(run("r").status, 0);
  EXPECT_FALSE(fs::exists(project_ / "r" / "stale.txt"));
  EXPECT_EQ(slurp(project_ / "r" / "summary.json"), first);
  ASSERT_EQ(run("sub --force").status, 0);
  EXPECT_FALSE(fs::exists(project_ / "sub" / "keep.txt"));
  EXPECT_TRUE(fs::exists(project_ / "sub" / "summary.json"));
  for (const auto& e : fs::directory_iterator(project_))  // no staging or old copies left
    EXPECT_NE(e.path().filename().string()[0], '.') << e.path();
}

// A 256 KiB tmpfs filled to leave less and less room: every run that does not fit ends
// with one error line naming the file it could not write, exit 2, and nothing in the
// filesystem but the filler. Then the same filesystem read-only. Needs a mount: in a
// user namespace (unshare -rm) or as root; skipped where neither is allowed.
TEST_F(OutputSafety, FullOrReadOnlyDiskIsOneLineAndLeavesNothing) {
  const fs::path mnt = dir_ / "mnt";
  fs::create_directories(mnt);
  const std::string script = R"SH(set -u
M="$1"; B="$2"; P="$3"
mount -t tmpfs -o size=256k tmpfs "$M" || exit 77
for kib in 0 100 150 170 180 190 195 200 205 210 215 220 225 230 235 240 245 250 254; do
  dd if=/dev/zero of="$M/fill" bs=1k count=$kib 2>/dev/null
  "$B" run -q --arch "$P/a.yaml" --workload "$P/w.yaml" --out "$M/sub/r" >/dev/null 2>"$M/../err.txt"
  rc=$?
  printf 'run %s %s %s|%s\n' "$kib" "$rc" "$(ls -A "$M" | tr '\n' ' ')" "$(cat "$M/../err.txt" | tr '\n' '~')"
  rm -rf "$M/sub" "$M/fill"
done
mount -o remount,ro "$M"
"$B" run -q --arch "$P/a.yaml" --workload "$P/w.yaml" --out "$M/r" >/dev/null 2>"$M/../err.txt"
printf 'ro 0 %s %s|%s\n' "$?" "$(ls -A "$M" | tr '\n' ' ')" "$(cat "$M/../err.txt" | tr '\n' '~')"
umount "$M"
)SH";
  file("disk.sh", script);
  const std::string args = shell_word((dir_ / "disk.sh").string()) + " " + shell_word(mnt.string()) + " " +
                           shell_word(CSTSIM_BINARY) + " " + shell_word(project_.string()) + " >" +
                           shell_word((dir_ / "disk.out").string()) + " 2>&1";
  int rc = std::system(("unshare -rm bash " + args).c_str());
  if (WEXITSTATUS(rc) != 0 && ::geteuid() == 0) rc = std::system(("bash " + args).c_str());
  if (WEXITSTATUS(rc) != 0) GTEST_SKIP() << "cannot mount a tmpfs here: " << slurp(dir_ / "disk.out");
  std::istringstream in(slurp(dir_ / "disk.out"));
  int ok = 0, failed = 0;
  std::set<std::string> files;  // which outputs ran out of room
  for (std::string line; std::getline(in, line);) {
    SCOPED_TRACE(line);
    std::istringstream f(line.substr(0, line.find('|')));
    std::string kind, left, rest;
    int kib = 0, status = -1;
    f >> kind >> kib >> status;
    std::getline(f, left);
    const std::string err = line.substr(line.find('|') + 1);
    if (kind == "ro") {
      EXPECT_EQ(status, 2);
      EXPECT_NE(err.find("Read-only file system"), std::string::npos);
      EXPECT_EQ(left, " ");
      continue;
    }
    if (status == 0) {
      ++ok;
      EXPECT_EQ(left, " fill sub ");
      continue;
    }
    ++failed;
    EXPECT_EQ(status, 2);  // not 134 (double free) or 1 (uncaught)
    EXPECT_EQ(left, " fill ") << "left behind";
    ASSERT_EQ(std::count(err.begin(), err.end(), '~'), 1) << "one line";
    EXPECT_EQ(err.rfind("error: ", 0), 0u);
    EXPECT_NE(err.find("No space left on device"), std::string::npos);
    const auto at = err.find("/sub/r/");
    if (at != std::string::npos) files.insert(err.substr(at + 7, err.find(':', at) - at - 7));
  }
  EXPECT_GE(ok, 1) << slurp(dir_ / "disk.out");
  EXPECT_GE(failed, 5);
  // The trace's streamed files (where the double free was) and the summary both ran out.
  EXPECT_TRUE(files.count("trace/rt.bin") || files.count("trace/actions.csv")) << joined(files);
  EXPECT_TRUE(files.count("summary.json") || files.count("report.json")) << joined(files);
}

TEST_F(OutputSafety, PlantedSymlinksAreNeverWrittenThrough) {
  ASSERT_EQ(run("r").status, 0);
  const fs::path victim = file("victim.txt", "VICTIM\n"), r = project_ / "r";
  for (const char* name : {".report.json.tmp", "report.json", "report.txt", "energy_windows.csv"}) {
    fs::remove(r / name);
    fs::create_symlink(victim, r / name);
  }
  // post rewrites only its own reports: a link (or a foreign file) is refused, and with
  // --force the link itself is replaced, never written through.
  expect_one_error_line(cli("post " + r.string()), "report.json: post: is a symbolic link; --force rewrites it");
  EXPECT_EQ(cli("post --force " + r.string()).status, 0) << slurp(dir_ / "stderr");
  EXPECT_EQ(slurp(victim), "VICTIM\n");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(r / "report.json")));
  EXPECT_EQ(cli("post " + r.string()).status, 0) << slurp(dir_ / "stderr");  // its own reports: rewritten
  file("project/r/report.txt", "my own notes\n");
  expect_one_error_line(cli("post " + r.string()), "report.txt: post: exists and is not a report.txt written by cstsim");
  EXPECT_EQ(slurp(r / "report.txt"), "my own notes\n");
  // export: a link or a foreign file at --out is refused; an earlier export is replaced.
  fs::create_symlink(victim, dir_ / "link.csv");
  expect_one_error_line(cli("export csv " + r.string() + " --out " + (dir_ / "link.csv").string()), "symbolic link");
  expect_one_error_line(cli("export csv " + r.string() + " --out " + victim.string()), "is not a cstsim csv export");
  EXPECT_EQ(slurp(victim), "VICTIM\n");
  EXPECT_EQ(cli("export csv " + r.string() + " --out " + (dir_ / "rt.csv").string()).status, 0);
  EXPECT_EQ(cli("export csv " + r.string() + " --out " + (dir_ / "rt.csv").string()).status, 0);
  expect_one_error_line(cli("export vcd " + r.string() + " --out " + (dir_ / "rt.csv").string()),
                        "is not a cstsim vcd export");
  EXPECT_EQ(slurp(victim), "VICTIM\n");
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.csv"));
}

TEST_F(OutputSafety, HierarchyClocksOutsideThePhysicalRangeAreInputErrors) {
  const std::string base = "run -q --arch " + std::string(CSTSIM_SOURCE_DIR) + "/configs/arch/npu-128-hbm3.yaml" +
                           " --workload " + (project_ / "w.yaml").string() + " --out " + (dir_ / "r").string();
  const struct {
    std::string set, says;
  } cases[] = {
      {"clock_hz=3e12", "above 100 GHz"},        // was SIGFPE: the period rounded to 0 ps
      {"clock_hz=1e-30", "below 1 MHz"},         // was a signed overflow
      {"clock_hz=1.9e12", "above 100 GHz"},      // was silently run at 1 ps
      {"clock_hz=1e3", "did you mean 1e9?"},     // was a 41 s crawl
      {"clock_hz=999999937", "no common time base"},
      {"clock_hz=1000000000.5", "whole number of Hz"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.set);
    expect_one_error_line(cli(base + " --set " + c.set), c.says);
    EXPECT_FALSE(fs::exists(dir_ / "r"));
  }
  // The NoC's own clock, from its file.
  std::string noc = slurp(std::string(CSTSIM_SOURCE_DIR) + "/configs/noc/npu-mesh-4x4.yaml");
  const auto at = noc.find("clock_hz:");
  ASSERT_NE(at, std::string::npos);
  noc = noc.substr(0, at) + "clock_hz: 1.0e13" + noc.substr(noc.find('\n', at));
  const fs::path nocfile = file("noc.yaml", noc);
  expect_one_error_line(cli(base + " --set noc.spec=" + nocfile.string()), "noc.yaml");
  EXPECT_NE(slurp(dir_ / "stderr").find("clock_hz: 10000000000000 Hz is above 100 GHz"), std::string::npos)
      << slurp(dir_ / "stderr");
}

// ------------------------------------------------------------ signals and file-size limits

// Starts cstsim with `args` in `dir` (stdout and stderr to dir/stdout, dir/stderr), with default
// signal dispositions (whatever ctest set) and optionally a file-size limit (ulimit -f).
pid_t start_cstsim(const fs::path& dir, std::vector<std::string> args, rlim_t fsize = RLIM_INFINITY) {
  args.insert(args.begin(), CSTSIM_BINARY);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGXFSZ}) ::signal(s, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (!::freopen("stderr", "w", stderr) || !::freopen("stdout", "w", stdout)) ::_exit(126);
    const rlimit lim{fsize, fsize};
    if (fsize != RLIM_INFINITY) ::setrlimit(RLIMIT_FSIZE, &lim);
    std::vector<char*> c;
    for (std::string& a : args) c.push_back(a.data());
    c.push_back(nullptr);
    ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    ::execv(c[0], c.data());
    ::_exit(127);
  }
  return pid;
}

// Names in `dir` of a staging directory or temporary of `out` (".out.tmp-...").
std::vector<std::string> staged(const fs::path& dir, const std::string& out) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("." + out + ".tmp-", 0) == 0) names.push_back(e.path().filename());
  return names;
}

std::vector<std::string> long_run(const std::string& out) {
  return {"run", "-q", "--arch", std::string(CSTSIM_SOURCE_DIR) + "/configs/arch/npu-128-hbm3.yaml", "--workload",
          std::string(CSTSIM_SOURCE_DIR) + "/configs/workloads/resnet50.csv", "--out", out};
}

// SIGTERM, SIGINT or SIGHUP while a run writes its trace: the staging directory is removed, one
// line says so, and the process ends by the signal (as a shell or a sweep expects).
TEST_F(OutputSafety, InterruptedRunRemovesItsStagingDirectoryAndSaysSoInOneLine) {
  for (const auto& [sig, name] : {std::pair{SIGTERM, "SIGTERM"}, std::pair{SIGINT, "SIGINT"}, std::pair{SIGHUP, "SIGHUP"}}) {
    SCOPED_TRACE(name);
    const pid_t pid = start_cstsim(dir_, long_run("o"));
    bool began = false;  // the staging directory exists: the run is writing
    for (int i = 0; i < 1500 && !began; ++i) {
      began = !staged(dir_, "o").empty();
      if (!began) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_TRUE(began) << "no staging directory appeared: " << slurp(dir_ / "stderr");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // into the simulation and its trace
    ASSERT_EQ(::kill(pid, sig), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended by itself first (status " << WEXITSTATUS(status) << ")";
    EXPECT_EQ(WTERMSIG(status), sig);
    const std::string err = slurp(dir_ / "stderr");
    EXPECT_EQ(err.rfind(std::string("error: interrupted by ") + name, 0), 0u) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_TRUE(staged(dir_, "o").empty()) << "left: " << staged(dir_, "o").front();
    EXPECT_FALSE(fs::exists(dir_ / "o"));
  }
}

// With SIGXFSZ ignored, the write over the limit fails with EFBIG: one line, exit 2, the staging
// directory removed. A plot's figures too (Python's write fails the same way), none left.
TEST_F(OutputSafety, FileSizeLimitIsOneErrorLine) {
  const pid_t pid = start_cstsim(dir_, long_run("o"), 64 * 1024);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  const std::string err = slurp(dir_ / "stderr");
  expect_one_error_line({WEXITSTATUS(status), "", err}, "File too large");
  EXPECT_TRUE(staged(dir_, "o").empty());
  EXPECT_FALSE(fs::exists(dir_ / "o"));

  if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "/usr/bin/python3 has no matplotlib (Debian package python3-matplotlib)";
  ASSERT_EQ(run(shell_word((dir_ / "r").string())).status, 0);
  const pid_t plot = start_cstsim(dir_, {"plot", "r"}, 4 * 1024);
  ASSERT_EQ(::waitpid(plot, &status, 0), plot);
  ASSERT_TRUE(WIFEXITED(status));
  expect_one_error_line({WEXITSTATUS(status), "", slurp(dir_ / "stderr")}, "File too large");
  EXPECT_FALSE(fs::exists(dir_ / "r" / "figures")) << "figures left behind";
}

}  // namespace
