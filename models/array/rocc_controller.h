#pragma once
// The command stream of a Gemmini-style accelerator, timed (arch `controller: rocc`;
// models/array/README.md, "A RoCC controller"). The host hands the accelerator one loop per
// tile (LoopConv, LoopMatmul); the loop unrolls into mvin, preload, compute and mvout commands,
// one a cycle, into a reorder buffer of rob_entries; three controllers run them in order, each
// its own: the load controller's DMA reads (requests of at most request_bytes, max_in_flight
// outstanding, latency cycles each, the bus moving bus_bytes_per_cycle each way), the execute
// controller's mesh, the store controller's DMA writes. Two loops are in flight: the next
// tile's loads overlap this tile's computes, and a tile's loads wait until the tile two before
// has finished reading the scratchpad half they overwrite. Plain C++: no SystemC.
#include <cstdint>
#include <map>
#include <string>

#include "plan/rocc_plan.h"

namespace cstsim {

struct RoccTiming {
  int64_t cycles = 0;          // first command issued to the last one complete
  int64_t loops = 0;           // tiles (LoopConv / LoopMatmul instances)
  // Commands by kind: mvin (scratchpad), mvin_acc (bias into the accumulator), preload (new
  // weights into the mesh), preload_keep (the weights kept: only the output address), compute, mvout.
  std::map<std::string, int64_t> commands;
  int64_t mesh_cycles = 0;     // cycles the execute controller spent on preloads and computes
  int64_t rows_streamed = 0;   // A rows the computes fed the mesh (padding rows not counted)
  int64_t macs = 0;            // useful MACs, compute by compute (rows x output channels x reduction rows)
  // PE-cycles of the computes' mapped PEs (output channels x reduction rows, for the cycles each
  // compute holds the mesh): the useful MACs plus the zero rows padding short blocks.
  int64_t mapped_pe_cycles = 0;
  int64_t bytes_read = 0, bytes_written = 0;  // by the DMA
  int64_t read_requests = 0, write_requests = 0;
  // The execute controller's idle cycles before a command, by what held it: "rocc_dma" (its
  // loads were not in), "rocc_issue" (it was not yet issued: the reorder buffer full, or the
  // loop still issuing the tile's loads); and after its last compute, "rocc_drain" (the last
  // results and mvouts). mesh_cycles + these = cycles, exactly.
  std::map<std::string, int64_t> idle;
  int64_t rob_full_cycles = 0;  // cycles the issue waited for a free reorder-buffer entry
};

// Hears each command as the controllers run it (cycles from the layer's cycle 0), in issue order.
class RoccListener {
 public:
  enum class Operand { Input, Weight, Bias, Output };
  virtual ~RoccListener() = default;
  // A compute feeds `rows` rows of A from `start`, one a cycle, into `cols` x `depth` PEs (output
  // channels by the reduction's rows): rows x cols x depth useful MACs. It holds the mesh `busy`
  // cycles (padded: dim, the rows past `rows` zeros).
  virtual void compute(int64_t start, int64_t busy, int64_t rows, int64_t cols, int64_t depth) = 0;
  // A preload shifts `depth` rows of `cols` new weights into the mesh from `start`.
  virtual void preload(int64_t start, int64_t cols, int64_t depth) = 0;
  // An mvin (Input, Weight, Bias) or an mvout (Output) moved `bytes`, its last at `complete`.
  virtual void moved(int64_t complete, Operand what, int64_t bytes) = 0;
};

// Times the layer's loops one after another from cycle 0.
RoccTiming time_rocc_layer(const RoccLayerPlan& plan, RoccListener* listener = nullptr);

}  // namespace cstsim
