#pragma once
// Accelerators built in code for the tests that need no arch file: a small array on ideal memory,
// the same on memory: hierarchy, and a small hierarchy accelerator (16x16, 64/32/32 KiB, 16 banks
// of 64 B) shared by the tests that run the hierarchy.
#include <cstdint>
#include <string>

#include "sim/config/arch_spec.h"

namespace cstsim::testing_util {

inline std::string config_path(const std::string& rel) { return std::string(CSTSIM_SOURCE_DIR) + "/configs/" + rel; }

// rows x cols PEs, each SRAM partition `sram_kib` KiB (0: not given), dataflow `d`; every other key
// its default (1 GHz, overlapped folds, memory ideal, one cluster, no vector unit). Errors name the
// file arch.yaml.
inline ArchSpec code_arch(int rows, int cols, int64_t sram_kib = 0, Dataflow d = Dataflow::WS) {
  ArchSpec a;
  a.source = "arch.yaml";
  a.rows = rows;
  a.cols = cols;
  a.dataflow = d;
  a.ifmap_sram_kib = a.filter_sram_kib = a.ofmap_sram_kib = sram_kib;
  return a;
}

// `a` on memory: hierarchy. `hbm`: a path under configs/; `noc`: a full path.
inline ArchSpec on_hierarchy(ArchSpec a, const std::string& hbm, const std::string& noc) {
  a.memory = MemoryMode::Hierarchy;
  a.hbm.spec = config_path(hbm);
  a.noc.spec = noc;
  resolve_sub_files(a);
  return a;
}

inline ArchSpec small_hierarchy(const std::string& hbm, const std::string& noc, int clusters = 1) {
  ArchSpec a = code_arch(16, 16);
  a.clusters = clusters;
  a.ifmap_sram_kib = 64;
  a.filter_sram_kib = 32;
  a.ofmap_sram_kib = 32;
  a.scratchpad.banks = 16;
  a.scratchpad.word_bytes = 64;
  return on_hierarchy(a, hbm, noc);
}

}  // namespace cstsim::testing_util
