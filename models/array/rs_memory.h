#pragma once
// Where a row-stationary layer's data comes from when memory is not ideal: a DRAM channel
// into the global buffer (memory: channel). Both the timing mode and the register-level grid
// ask their own source when each pass may start, in pass order, telling it what they saw of
// the pass before; the source answers from that alone, so the two modes meet the same cycles
// independently (tests check it).
#include <cstdint>
#include <string>
#include <vector>

#include "models/array/rs_timing.h"
#include "plan/rs_plan.h"

namespace cstsim {

// One transfer over the channel (accelerator cycles).
struct RsTransfer {
  enum Kind { Filters, Ifmap, Ofmap } kind = Filters;
  int64_t pass = 0;
  int64_t bytes = 0;
  int64_t issue = 0, start = 0, end = 0;  // wanted from, first and last cycle on the channel
};
const char* to_string(RsTransfer::Kind k);

class RsMemory {
 public:
  virtual ~RsMemory() = default;
  // The first cycle pass `pass` may start (its filters and ifmap block in the buffers).
  // `previous`: the pass before it as the caller ran it (start, last MAC); nullptr for the first.
  virtual int64_t ready(size_t pass, const RsPassTiming* previous) = 0;
  // After the last pass (its last MAC `last`): the cycle the layer's last transfer ends.
  virtual int64_t drain(const RsPassTiming& last) = 0;
  virtual const std::vector<RsTransfer>& transfers() const = 0;
};

// A channel of `bytes_per_cycle` with `latency` cycles from a read's last byte to its data in
// the buffer, one transfer at a time, in the order they are wanted:
//   - pass p's filters go into the filter prefetch buffer while pass p-1 runs (from its start);
//   - its ifmap block (the first pass of a block) once the passes of the block before it have
//     done their last MAC: the buffer's ifmap part holds one block (Eyeriss does not compute
//     while it loads ifmaps);
//   - the ofmaps of a pass that ends a reduction go back from the cycle after its last MAC.
class RsChannel : public RsMemory {
 public:
  RsChannel(const RsLayerPlan& plan, double bytes_per_cycle, int64_t latency, int64_t layer_start);
  int64_t ready(size_t pass, const RsPassTiming* previous) override;
  int64_t drain(const RsPassTiming& last) override;
  const std::vector<RsTransfer>& transfers() const override { return transfers_; }

 private:
  int64_t move(RsTransfer::Kind kind, size_t pass, int64_t bits, int64_t wanted);  // its end, or wanted - 1
  const RsLayerPlan& plan_;
  double bytes_per_cycle_;
  int64_t latency_;
  int64_t layer_start_;
  int64_t free_at_;  // first cycle the channel is free
  std::vector<RsTransfer> transfers_;
};

}  // namespace cstsim
