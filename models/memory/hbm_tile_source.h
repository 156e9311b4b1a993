#pragma once
// memory: hbm. Stationary tiles are read from one HBM stack (models/hbm, bank
// timing, refresh, FR-FCFS) by a DMA that issues `request_bytes` reads, at most
// one per HBM cycle and at most `max_outstanding` in flight, tile after tile.
// A tile may be requested once its FIFO slot is free (as for the channel). The
// FIFO rule makes the slots of the next fifo_tiles-1 tiles known already, so the
// DMA runs ahead on them while the HBM works, like real prefetch; it never needs
// to submit a request in the HBM's past.
#include <cstdint>
#include <memory>
#include <vector>

#include "models/dma/clock_base.h"
#include "models/hbm/hbm_device.h"
#include "models/memory/memory_params.h"
#include "models/memory/tile_source.h"

namespace cstsim::hbm {
class ProtocolWatch;
}

namespace cstsim {

class HbmTileSource : public TileSource {
 public:
  // check_protocol: an independent checker (models/hbm/checker.h) hears every command;
  // a violation throws std::logic_error once the pass's last tile is in.
  HbmTileSource(hbm::HbmSpec spec, const HbmDmaParams& dma, double clock_hz, FifoTiles tiles,
                int64_t layer_start, bool check_protocol = true);
  ~HbmTileSource() override;

  int fifo_tiles() const override { return fifo_tiles_; }
  int64_t ready(int g, const std::vector<int64_t>& load_starts) override;
  const std::vector<Fetch>& fetches() const override { return fetches_; }
  const char* stall_cause() const override { return "hbm"; }
  const hbm::HbmDevice& device() const { return *device_; }

 private:
  int64_t to_hbm(int64_t acc_cycle) const;    // first HBM cycle at or after it
  int64_t to_acc(int64_t hbm_cycle) const;    // first accelerator cycle at or after it
  bool issue_one(int known_tiles, const std::vector<int64_t>& load_starts);
  void complete_some();

  std::unique_ptr<hbm::HbmDevice> device_;
  std::unique_ptr<hbm::ProtocolWatch> checker_;
  ClockBase clocks_;  // the array clock and the HBM clock on one exact time base
  int fifo_tiles_, max_outstanding_;
  int64_t request_bytes_;
  FifoTiles tiles_;
  int64_t layer_start_;
  std::vector<Fetch> fetches_;          // filled as tiles complete (ready) or start
  std::vector<int64_t> remaining_;      // requests still in flight or unissued, per tile
  std::vector<int64_t> last_done_;      // latest completion per tile, HBM cycles
  int next_tile_ = 0;                   // tile whose requests are being issued
  int64_t next_offset_ = 0;             // bytes of it already requested
  int64_t cursor_ = 0;                  // next HBM cycle the DMA may issue in
  int outstanding_ = 0;
  int completed_ = 0;                   // tiles 0..completed_-1 have arrived
};

}  // namespace cstsim
