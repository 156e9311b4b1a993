#include "models/memory/hbm_tile_source.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "core/registry.h"
#include "models/hbm/checker.h"

namespace cstsim {

HbmTileSource::~HbmTileSource() = default;

HbmTileSource::HbmTileSource(hbm::HbmSpec spec, const HbmDmaParams& dma, double clock_hz,
                             FifoTiles tiles, int64_t layer_start, bool check_protocol)
    : device_(std::make_unique<hbm::HbmDevice>(std::move(spec))),
      clocks_(make_clock_base(clock_hz, clock_hz, device_->spec().tck_ns)),
      fifo_tiles_(dma.fifo_tiles),
      max_outstanding_(dma.max_outstanding),
      request_bytes_(dma.request_bytes),
      tiles_(std::move(tiles)),
      layer_start_(layer_start),
      fetches_(tiles_.bytes.size()),
      remaining_(tiles_.bytes.size(), 0),
      last_done_(tiles_.bytes.size(), 0) {
  for (size_t j = 0; j < tiles_.bytes.size(); ++j) {
    remaining_[j] = (tiles_.bytes[j] + request_bytes_ - 1) / request_bytes_;
    fetches_[j].bytes = tiles_.bytes[j];
  }
  device_->start_at(to_hbm(layer_start_));  // refresh keeps the run's phase
  if (check_protocol) {
    checker_ = std::make_unique<hbm::ProtocolWatch>(device_->spec(), to_hbm(layer_start_));
    device_->add_observer(checker_.get());
  }
}

// Both clocks start at time 0; a cycle c of a clock with period p covers [c p, (c+1) p).
// Periods are whole ticks of the exact common base, so the crossing rounds nothing.
int64_t HbmTileSource::to_hbm(int64_t acc_cycle) const {
  return (acc_cycle * clocks_.acc + clocks_.hbm - 1) / clocks_.hbm;
}
int64_t HbmTileSource::to_acc(int64_t hbm_cycle) const {
  return (hbm_cycle * clocks_.hbm + clocks_.acc - 1) / clocks_.acc;
}

// Issues the next read if the DMA may: a request slot is free and the tile's FIFO slot is known.
bool HbmTileSource::issue_one(int known_tiles, const std::vector<int64_t>& load_starts) {
  if (outstanding_ >= max_outstanding_ || next_tile_ >= int(tiles_.bytes.size()) || next_tile_ >= known_tiles)
    return false;
  const int j = next_tile_;
  Fetch& f = fetches_[size_t(j)];
  if (next_offset_ == 0) {
    f.issue = j >= fifo_tiles_ ? tiles_.frees_at(j - fifo_tiles_, load_starts) : layer_start_;
    cursor_ = std::max(cursor_, to_hbm(f.issue));
  }
  const int64_t at = std::max(cursor_, device_->processed() + 1);
  if (next_offset_ == 0) f.start = to_acc(at);
  // Tiles sit back to back in the stack, each from a 1 KiB-aligned base.
  const uint64_t capacity = device_->spec().org.capacity_bytes();
  const uint64_t base = (uint64_t(j) * uint64_t((tiles_.bytes[size_t(j)] + 1023) / 1024 * 1024)) % capacity;
  const int64_t bytes = std::min(request_bytes_, tiles_.bytes[size_t(j)] - next_offset_);
  hbm::HbmRequest r;
  r.addr = (base + uint64_t(next_offset_)) % capacity;
  if (r.addr + uint64_t(bytes) > capacity) r.addr = 0;
  r.bytes = uint64_t(bytes);
  r.id = uint64_t(j);
  r.cycle = at;
  device_->submit(r);
  ++outstanding_;
  cursor_ = at + 1;  // one request per HBM cycle
  next_offset_ += bytes;
  if (next_offset_ >= tiles_.bytes[size_t(j)]) {
    ++next_tile_;
    next_offset_ = 0;
  }
  return true;
}

void HbmTileSource::complete_some() {
  const hbm::Cycle next = device_->next_event();
  if (next == hbm::kNever) throw std::logic_error("HBM tile source: waiting for a tile with nothing in flight");
  device_->run_until(next);
  for (const hbm::HbmCompletion& c : device_->take_completions()) {
    --outstanding_;
    const size_t j = size_t(c.id);
    last_done_[j] = std::max<int64_t>(last_done_[j], c.done);
    --remaining_[j];
  }
  while (completed_ < int(tiles_.bytes.size()) && remaining_[size_t(completed_)] == 0 &&
         completed_ < next_tile_) {
    Fetch& f = fetches_[size_t(completed_)];
    f.end = to_acc(last_done_[size_t(completed_)]);
    f.ready = std::max(f.end, f.start);
    ++completed_;
  }
  if (checker_ && completed_ == int(tiles_.bytes.size())) checker_->finish();  // the pass's last tile is in
}

int64_t HbmTileSource::ready(int g, const std::vector<int64_t>& load_starts) {
  // Tiles up to g + fifo - 1 have a known FIFO slot: load_starts holds every j < g.
  const int known = std::min<int>(int(tiles_.bytes.size()), g + fifo_tiles_);
  while (completed_ <= g) {
    while (issue_one(known, load_starts)) {
    }
    complete_some();
  }
  return fetches_[size_t(g)].ready;
}

namespace {

class HbmMemory final : public MemoryBackend {
 public:
  std::unique_ptr<TileSource> make_source(const AcceleratorSpec& a, const FoldPlan& plan, int64_t start, const LayerDmaPlan*, bool) const override {
    return std::make_unique<HbmTileSource>(a.hbm, a.hbm_dma, a.clock_hz, fifo_tiles_of(plan, a.array.precision), start,
                                           a.check_hbm_protocol);
  }
};

}  // namespace

CSTSIM_REGISTER(MemoryBackend, HbmMemory, "hbm")

}  // namespace cstsim
