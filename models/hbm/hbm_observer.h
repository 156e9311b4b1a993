#pragma once
// What the HBM model reports as it runs, for the protocol checker, traces and tests.
// Commands arrive in non-decreasing cycle order across the whole stack.
#include "models/hbm/hbm_types.h"

namespace cstsim::hbm {

struct CommandEvent {
  Cycle cycle = 0;
  Cmd cmd = Cmd::ACT;
  Address addr;
  int channel_open_rows = 0;  // banks with an open row in addr.channel after the command
  // RD/WR: the data burst occupies addr's pseudo-channel data bus over [data_begin, data_end).
  Cycle data_begin = 0, data_end = 0;
};

class HbmObserver {
 public:
  virtual ~HbmObserver() = default;
  virtual void on_command(const CommandEvent& event) = 0;
  // Sampled mode: channel `channel` skipped an idle stretch of `periods` refresh periods at
  // once, from cycle `at` on (ChannelController::skip_idle): every bank of it was closed and
  // refreshed `periods` times over it, and its commands resume `periods` periods later.
  virtual void on_idle_skip(int /*channel*/, Cycle /*at*/, int64_t /*periods*/) {}
};

}  // namespace cstsim::hbm
