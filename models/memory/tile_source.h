#pragma once
// Where the array's stationary tiles come from when memory is not ideal. Both the
// closed-form timing and the register-level grid ask their own TileSource for
// fold g's tile, in fold order, passing the weight-load starts they have seen so
// far; a source must answer from those alone, so the two modes arrive at the same
// cycles independently (tests check it).
#include <cstdint>
#include <memory>
#include <vector>

#include "models/array/fold_plan.h"
#include "sim/config/arch_spec.h"

namespace cstsim {

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
  virtual const std::vector<Fetch>& fetches() const = 0;
  virtual const char* stall_cause() const = 0;  // key in summary "stalls"
  virtual const char* dram_level() const { return "hbm"; }
};

// nullptr under memory: ideal. One source per layer: it starts at `layer_start`.
std::unique_ptr<TileSource> make_tile_source(const ArchSpec& arch, const FoldPlan& plan, int64_t layer_start);

}  // namespace cstsim
