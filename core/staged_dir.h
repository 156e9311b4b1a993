#pragma once
// Outputs appear all at once or not at all: files are written into a hidden
// sibling directory (mkdtemp, 0700 until commit), which is swapped onto the target
// when everything is there. A run directory carries a stamp file, and --out
// replaces an existing target only if it carries the stamp (or with --force).
#include <filesystem>
#include <string>
#include <vector>

#include "core/out_file.h"

namespace cstsim {

// The stamp `cstsim run` writes into every run directory it makes.
inline constexpr const char* kRunStamp = ".cstsim-run";

// A real directory (not a link) holding the stamp and summary.json as regular files.
bool is_run_directory(const std::filesystem::path& dir);

// Whether `target` may become a run directory; throws InputError(target, 0, "--out", why).
// Never the filesystem root, the home directory, the current directory or one of its
// parents, an input or a directory holding one - not even with `force`. An existing
// target must be a run directory unless `force`.
void check_out_target(const std::filesystem::path& target, const std::vector<std::filesystem::path>& inputs,
                      bool force);

class StagedDir {
 public:
  // Creates the staging directory (and the target's parents); call check_out_target first.
  StagedDir(std::filesystem::path target, bool force);
  ~StagedDir();  // removes the staging directory unless committed
  StagedDir(const StagedDir&) = delete;
  StagedDir& operator=(const StagedDir&) = delete;

  const std::filesystem::path& path() const { return staging_; }  // write here
  // Puts the staged directory in the target's place (atomically where the filesystem
  // can swap), then removes what was there. Throws InputError if the target has become
  // something that may not be replaced, OutputError if the filesystem refuses.
  void commit();
  // An OutputError about a file in the staging directory, restated for the target.
  [[noreturn]] void rethrow_for_target(const io::OutputError& error) const;

 private:
  void remove_created_parents();
  std::vector<std::filesystem::path> created_parents_;  // deepest first
  std::filesystem::path target_;
  std::filesystem::path staging_;
  bool force_ = false;
  bool committed_ = false;
  int cleanup_slot_ = -1;  // the staging directory, for a signal handler to remove
};

}  // namespace cstsim
