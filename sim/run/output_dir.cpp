#include "sim/run/output_dir.h"

#include <fstream>
#include <stdexcept>
#include <system_error>

#include <cerrno>
#include <cstdlib>

#include <signal.h>
#include <unistd.h>

namespace cstsim {
namespace fs = std::filesystem;

StagedDir::StagedDir(fs::path target) : target_(std::move(target)) {
  if (target_.filename().empty()) target_ = target_.parent_path();
  const fs::path parent = target_.has_parent_path() ? target_.parent_path() : fs::path(".");
  fs::create_directories(parent);
  const std::string prefix = "." + target_.filename().string() + ".tmp-";
  staging_ = parent / (prefix + std::to_string(::getpid()));
  // A run killed with SIGKILL leaves its staging directory behind; remove those whose
  // process is gone (a live one belongs to a concurrent run of the same target).
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(parent, ec)) {
    const std::string name = e.path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    if (pid > 0 && ::kill(pid_t(pid), 0) != 0 && errno == ESRCH) fs::remove_all(e.path(), ec);
  }
  fs::remove_all(staging_);
  fs::create_directory(staging_);
}

StagedDir::~StagedDir() {
  if (!committed_) {
    std::error_code ec;
    fs::remove_all(staging_, ec);
  }
}

void StagedDir::commit() {
  std::error_code ec;
  fs::path old;
  if (fs::exists(target_)) {
    old = target_.parent_path() / ("." + target_.filename().string() + ".old-" + std::to_string(::getpid()));
    fs::remove_all(old, ec);
    fs::rename(target_, old);
  }
  fs::rename(staging_, target_);
  committed_ = true;
  if (!old.empty()) fs::remove_all(old, ec);
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace cstsim
