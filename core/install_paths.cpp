#include "core/install_paths.h"

#include <cstdlib>
#include <filesystem>

#ifndef CSTSIM_CONFIG_DIR
#define CSTSIM_CONFIG_DIR "configs"
#endif
#ifndef CSTSIM_PLOT_DIR
#define CSTSIM_PLOT_DIR "traces/plot"
#endif

namespace cstsim {
namespace {

namespace fs = std::filesystem;

std::string find(const char* env, const char* installed, const char* built_in) {
  if (const char* v = std::getenv(env); v && *v) return v;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path share = exe.parent_path().parent_path() / "share" / "cstsim" / installed;
    if (fs::is_directory(share, ec)) return share.string();
  }
  return built_in;
}

}  // namespace

std::string config_dir() { return find("CSTSIM_CONFIG_DIR", "configs", CSTSIM_CONFIG_DIR); }
std::string plot_dir() { return find("CSTSIM_PLOT_DIR", "plot", CSTSIM_PLOT_DIR); }

}  // namespace cstsim
