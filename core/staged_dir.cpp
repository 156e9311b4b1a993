#include "core/staged_dir.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <system_error>

#include "core/input_error.h"
#include "core/out_file.h"
#include "core/signal_cleanup.h"

namespace cstsim {
namespace fs = std::filesystem;

namespace {

// Absolute, with symlinks and ".." resolved as far as the path exists.
fs::path resolved(const fs::path& p) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(fs::absolute(p), ec);
  return ec ? fs::absolute(p).lexically_normal() : r;
}

// `outer` is `inner` or one of its parents (both resolved).
bool contains(const fs::path& outer, const fs::path& inner) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
    if (o->empty()) continue;  // a trailing separator
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

[[noreturn]] void refuse(const fs::path& target, const std::string& why) {
  throw InputError(target.string(), 0, "--out", why);
}

fs::path staging_prefix(const fs::path& target) { return "." + target.filename().string() + ".tmp-"; }

// Removes the staging directories of killed runs in `parent`, whatever --out they were for:
// recognised by name (".NAME.tmp-<owner>-...") and stamp, and left by a process of this host that
// is gone (a live one belongs to a concurrent run).
void remove_stale_staging(const fs::path& parent) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(parent, ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name[0] != '.' || name.find(".tmp-") == std::string::npos || !io::left_by_dead_process(name))
      continue;
    if (!fs::is_directory(e.symlink_status(ec)) || !fs::is_regular_file(fs::symlink_status(e.path() / kRunStamp, ec)))
      continue;
    fs::remove_all(e.path(), ec);
  }
}

}  // namespace

bool is_run_directory(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(fs::symlink_status(dir, ec)) && fs::is_regular_file(fs::symlink_status(dir / kRunStamp, ec)) &&
         fs::is_regular_file(fs::symlink_status(dir / "summary.json", ec));
}

void check_out_target(const fs::path& target, const std::vector<fs::path>& inputs, bool force) {
  if (target.empty()) refuse(target, "an output directory is required");
  const fs::path t = resolved(target);
  if (t == t.root_path()) refuse(target, "is the filesystem root");
  std::error_code ec;
  const fs::path cwd = resolved(fs::current_path(ec));
  if (!ec && contains(t, cwd)) refuse(target, "is the current directory or one of its parents; name a new directory");
  if (const char* home = std::getenv("HOME"); home && *home && contains(t, resolved(home)))
    refuse(target, "is the home directory or one of its parents");
  for (const fs::path& in : inputs)
    if (!in.empty() && contains(t, resolved(in)))
      refuse(target, "is the input " + in.string() + (t == resolved(in) ? "" : " or holds it"));
  const fs::file_status st = fs::symlink_status(target, ec);
  if (!fs::exists(st) || is_run_directory(target) || force) return;
  if (fs::is_symlink(st)) refuse(target, "is a symbolic link, not a run directory (--force replaces the link itself)");
  if (!fs::is_directory(st)) refuse(target, "exists and is not a directory; choose another --out, or --force to replace it");
  refuse(target, std::string("exists and is not a cstsim run directory (no ") + kRunStamp +
                     " and summary.json); choose another --out, or --force to replace it");
}

StagedDir::StagedDir(fs::path target, bool force) : target_(std::move(target)), force_(force) {
  if (target_.filename().empty()) target_ = target_.parent_path();
  const fs::path parent = target_.has_parent_path() ? target_.parent_path() : fs::path(".");
  std::error_code ec;
  // Parents this run creates are removed again if it fails: a failed run leaves nothing.
  for (fs::path p = fs::absolute(parent); !p.empty() && !fs::exists(fs::symlink_status(p, ec)); p = p.parent_path()) {
    created_parents_.push_back(p);
    if (p == p.root_path()) break;
  }
  fs::create_directories(parent, ec);
  if (ec) {
    remove_created_parents();
    throw io::OutputError(parent, "cannot create the directory: " + ec.message());
  }
  const std::string prefix = staging_prefix(target_).string();
  remove_stale_staging(parent);
  std::string templ = (parent / (prefix + io::owner_tag() + "-XXXXXX")).string();
  if (!::mkdtemp(templ.data())) {
    const int err = errno;
    remove_created_parents();
    throw io::OutputError::from_errno(target_, "cannot create a staging directory beside it", err);
  }
  staging_ = templ;
  cleanup_slot_ = cleanup::add(staging_);
  // The stamp goes in first: it marks the staging directory as ours while it exists
  // and the run directory afterwards.
  try {
    io::write_file(staging_ / kRunStamp, "cstsim run directory: `cstsim run --out` may replace this directory\n");
  } catch (const io::OutputError& e) {
    fs::remove_all(staging_, ec);
    cleanup::remove(cleanup_slot_);
    remove_created_parents();
    rethrow_for_target(e);
  }
}

StagedDir::~StagedDir() {
  if (!committed_) {
    std::error_code ec;
    fs::remove_all(staging_, ec);
    remove_created_parents();
  }
  cleanup::remove(cleanup_slot_);  // after a swap the old contents were under the staging name until removed
}

void StagedDir::remove_created_parents() {
  std::error_code ec;
  for (const fs::path& p : created_parents_) fs::remove(p, ec);  // deepest first; only if empty
}

void StagedDir::rethrow_for_target(const io::OutputError& e) const {
  std::string m = e.what();
  const std::string staged = staging_.string();
  if (m.compare(0, staged.size(), staged) == 0) m = target_.string() + m.substr(staged.size());
  throw io::OutputError(m + " (the run directory was not written)");
}

void StagedDir::commit() {
  if (::chmod(staging_.c_str(), mode_t(0777 & ~io::file_mode_mask())) != 0)
    throw io::OutputError::from_errno(staging_, "cannot set the mode of", errno);
  // A new target: never clobber one that appeared meanwhile (a plain rename would
  // silently replace an empty directory).
  if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, target_.c_str(), RENAME_NOREPLACE) == 0) {
    committed_ = true;
    return;
  }
  if (errno != EEXIST && errno != EINVAL && errno != ENOSYS)
    throw io::OutputError::from_errno(target_, "cannot create", errno);
  std::error_code ec;
  if (fs::exists(fs::symlink_status(target_, ec)) && !force_ && !is_run_directory(target_))
    refuse(target_, "appeared during the run and is not a cstsim run directory; nothing was replaced");
  // Swap, so the target is never missing; the old contents end up under the staging name.
  if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) == 0) {
    committed_ = true;
    fs::remove_all(staging_, ec);
    return;
  }
  if (errno != EINVAL && errno != ENOSYS) throw io::OutputError::from_errno(target_, "cannot replace", errno);
  // A filesystem that cannot swap: move the old target into a fresh holder, then rename.
  std::string holder =
      (target_.parent_path() / ("." + target_.filename().string() + ".old-" + io::owner_tag() + "-XXXXXX")).string();
  if (!::mkdtemp(holder.data())) throw io::OutputError::from_errno(target_, "cannot make room to replace", errno);
  const bool had_target = fs::exists(fs::symlink_status(target_, ec));
  if (had_target && std::rename(target_.c_str(), (fs::path(holder) / "old").c_str()) != 0) {
    const int err = errno;
    fs::remove(holder, ec);
    throw io::OutputError::from_errno(target_, "cannot replace", err);
  }
  if (std::rename(staging_.c_str(), target_.c_str()) != 0) {
    const int err = errno;
    if (had_target) std::rename((fs::path(holder) / "old").c_str(), target_.c_str());  // put it back
    fs::remove_all(holder, ec);
    throw io::OutputError::from_errno(target_, "cannot replace", err);
  }
  committed_ = true;
  fs::remove_all(holder, ec);
}

}  // namespace cstsim
