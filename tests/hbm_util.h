#pragma once
// What the HBM tests share: the shipped presets, an address by its parts, and an observer that
// keeps every command.
#include <cstdint>
#include <string>
#include <vector>

#include "models/hbm/hbm_observer.h"
#include "models/hbm/hbm_types.h"

inline const std::string kHbm2 = CSTSIM_SOURCE_DIR "/configs/memory/hbm2-2000.yaml";
inline const std::string kHbm3 = CSTSIM_SOURCE_DIR "/configs/memory/hbm3-6400.yaml";

inline cstsim::hbm::Address at(int bg, int bank, int64_t row = 0, int pc = 0, int ch = 0) {
  cstsim::hbm::Address a;
  a.channel = ch;
  a.pc = pc;
  a.bank_group = bg;
  a.bank = bank;
  a.row = row;
  return a;
}

struct CommandLog : cstsim::hbm::HbmObserver {
  std::vector<cstsim::hbm::CommandEvent> events;
  void on_command(const cstsim::hbm::CommandEvent& e) override { events.push_back(e); }
};
