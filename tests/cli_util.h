#pragma once
// Running the real cstsim binary from a test: its exit status and what it printed.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace cstsim::testing_util {

struct CliResult {
  int status;
  std::string out, err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// `prefix` is shell text before the binary (e.g. "cd DIR &&"); stdout and stderr
// go through files in `scratch`.
inline CliResult run_cli(const std::string& args, const std::filesystem::path& scratch, const std::string& prefix = "") {
  const std::string cmd = prefix + " " + std::string(CSTSIM_BINARY) + " " + args + " >" + (scratch / "stdout").string() +
                          " 2>" + (scratch / "stderr").string();
  const int rc = std::system(cmd.c_str());
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc), slurp(scratch / "stdout"), slurp(scratch / "stderr")};
}

// Every file below `dir` (not following links) with its contents; links as "-> target".
inline std::map<std::string, std::string> snapshot(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::map<std::string, std::string> out;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path& p = it->path();
    const std::string rel = fs::relative(p, dir).string();
    if (fs::is_symlink(it->symlink_status())) {
      out[rel] = "-> " + fs::read_symlink(p).string();
      it.disable_recursion_pending();
    } else if (fs::is_regular_file(it->symlink_status())) {
      out[rel] = slurp(p);
    } else {
      out[rel + "/"] = "";
    }
  }
  return out;
}

// A POSIX-shell word for `v`: single-quoted, ' as '\''.
inline std::string shell_word(const std::string& v) {
  std::string w = "'";
  for (char c : v) w += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return w + "'";
}

}  // namespace cstsim::testing_util
