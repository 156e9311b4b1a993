#pragma once
// A chip of a ChipSet in tests: its process reaches collective 0 at cycle 0 and keeps the cycle
// its part ends.
#include <cstdint>

#include <systemc>

#include "models/interconnect/chip_set.h"

namespace cstsim::testing_util {

struct CollectiveChip : sc_core::sc_module {
  SC_HAS_PROCESS(CollectiveChip);
  CollectiveChip(sc_core::sc_module_name name, ic::ChipSet& set, int chip, int64_t& end)
      : sc_core::sc_module(name), set_(set), chip_(chip), end_(end) {
    SC_THREAD(run);
  }
  void run() { end_ = set_.collective(chip_, 0, 0); }
  ic::ChipSet& set_;
  int chip_;
  int64_t& end_;
};

}  // namespace cstsim::testing_util
