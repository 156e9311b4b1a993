#pragma once
// A small memory: hierarchy accelerator built in code (16x16, 64/32/32 KiB, 16 banks of
// 64 B), shared by the tests that run the hierarchy without an arch file.
#include <string>

#include "sim/config/arch_spec.h"

namespace cstsim::testing_util {

inline std::string config_path(const std::string& rel) { return std::string(CSTSIM_SOURCE_DIR) + "/configs/" + rel; }

// `hbm`: a path under configs/; `noc`: a full path.
inline ArchSpec small_hierarchy(const std::string& hbm, const std::string& noc, int clusters = 1) {
  ArchSpec a;
  a.source = "arch.yaml";
  a.rows = a.cols = 16;
  a.clusters = clusters;
  a.memory = MemoryMode::Hierarchy;
  a.hbm.spec = config_path(hbm);
  a.noc.spec = noc;
  a.ifmap_sram_kib = 64;
  a.filter_sram_kib = 32;
  a.ofmap_sram_kib = 32;
  a.scratchpad.banks = 16;
  a.scratchpad.word_bytes = 64;
  resolve_sub_files(a);
  return a;
}

}  // namespace cstsim::testing_util
