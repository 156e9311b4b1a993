#pragma once
// Outputs appear all at once or not at all: files are written into a hidden
// sibling directory, which is renamed onto the target when everything is there.
#include <filesystem>
#include <string>

namespace cstsim {

class StagedDir {
 public:
  explicit StagedDir(std::filesystem::path target);
  ~StagedDir();  // removes the staging directory unless committed
  StagedDir(const StagedDir&) = delete;
  StagedDir& operator=(const StagedDir&) = delete;

  const std::filesystem::path& path() const { return staging_; }  // write here
  // Replaces `target` with the staged directory.
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path staging_;
  bool committed_ = false;
};

// Writes `text` to `path` (within a staged directory).
void write_text(const std::filesystem::path& path, const std::string& text);

}  // namespace cstsim
