#pragma once
// Where the array's stationary tiles come from when memory is not ideal. Both the
// closed-form timing and the register-level grid ask their own TileSource for
// fold g's tile, in fold order, passing the weight-load starts they have seen so
// far; a source must answer from those alone, so the two modes arrive at the same
// cycles independently (tests check it).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "plan/fold_plan.h"
#include "models/accelerator/accelerator_spec.h"
#include "plan/dma_program.h"

namespace cstsim {

// What the FIFO of memory: channel | hbm holds, one tile per fold, by dataflow:
//   WS / IS: the fold's stationary tile (r x c); its slot frees when the fold
//            starts loading it into the weight banks (hold 0);
//   OS:      the fold's block of B (K x c, streamed down the columns while A comes
//            from the on-chip buffer); its slot frees once the last element has
//            entered column c-1, at S + T - 1 + (c - 1) (hold T + c - 1).
struct FifoTiles {
  std::vector<int64_t> bytes;  // per fold
  std::vector<int64_t> hold;   // per fold: cycles from its start until its slot is free
  int64_t frees_at(int fold, const std::vector<int64_t>& starts) const {
    return starts[size_t(fold)] + hold[size_t(fold)];
  }
};
// `padded`: each tile a whole R x C block in DRAM (ChannelParams::padded_tiles).
FifoTiles fifo_tiles_of(const FoldPlan& plan, const Precision& precision, bool padded = false);

class TileSource {
 public:
  struct Fetch {        // one tile's transfer, accelerator cycles
    int64_t issue = 0;  // its FIFO slot was free from here
    int64_t start = 0;  // first byte requested / sent
    int64_t end = 0;    // last byte delivered
    int64_t ready = 0;  // first cycle the array may shift it in
    int64_t bytes = 0;
  };
  virtual ~TileSource() = default;
  virtual int fifo_tiles() const = 0;
  // Arrival of fold g's tile. Called with g = 0, 1, 2, ... (repeats allowed);
  // load_starts[j] is fold j's weight-load start for every j < g.
  virtual int64_t ready(int g, const std::vector<int64_t>& load_starts) = 0;
  // The register grid asks at its cycle `now` (from when fold g could load): the
  // arrival if it is at or before `now`. A source shared with other arrays that
  // step in lockstep may not look past `now` and answers now + 1 for "not yet".
  virtual int64_t poll(int g, const std::vector<int64_t>& load_starts, int64_t /*now*/) {
    return ready(g, load_starts);
  }
  // The grid tells when fold g began loading (load_starts[g] is set).
  virtual void fold_started(int /*g*/, const std::vector<int64_t>& /*load_starts*/) {}
  virtual const std::vector<Fetch>& fetches() const = 0;
  virtual const char* stall_cause() const = 0;  // key in summary "stalls"
  virtual const char* dram_level() const { return "hbm"; }
  // Fold g waited for its data over the cycles [from, to): add them to `causes`
  // by what held the data up. By default all of it is stall_cause().
  virtual void explain_stall(int /*g*/, int64_t from, int64_t to, std::map<std::string, int64_t>& causes) const {
    causes[stall_cause()] += to - from;
  }
  // The layer's memory traffic ended after its last fold, over [from, to): add those cycles by
  // what held the last write-back up (after drain()). By default all of it is stall_cause().
  virtual void explain_drain(int64_t from, int64_t to, std::map<std::string, int64_t>& causes) const {
    causes[stall_cause()] += to - from;
  }
  // After the last fold (load_starts complete): finish what is still in flight
  // (outputs going back to memory); returns the cycle the layer's memory traffic
  // is done, or -1 when the source moves nothing after the last fold.
  virtual int64_t drain(const std::vector<int64_t>& /*load_starts*/) { return -1; }
};

// A memory backend: what `memory:` names, registered under that name
// (core/registry.h; implementations next to their sources). It makes the source a
// pass's array asks for its tiles.
class MemoryBackend {
 public:
  virtual ~MemoryBackend() = default;
  virtual std::unique_ptr<TileSource> make_source(const AcceleratorSpec& spec, const FoldPlan& plan,
                                                  int64_t layer_start, const LayerDmaPlan* program,
                                                  bool record_timeline) const = 0;
};
std::vector<std::string> memory_backend_names();

// The registered backend of spec.memory; nullptr under memory: ideal. One source per pass: it starts at `layer_start`.
// memory: hierarchy executes `program` (the pass's DMA program) on a private memory
// system; `record_timeline` keeps occupancy for the trace.
std::unique_ptr<TileSource> make_tile_source(const AcceleratorSpec& spec, const FoldPlan& plan, int64_t layer_start,
                                             const LayerDmaPlan* program = nullptr, bool record_timeline = false);

}  // namespace cstsim
