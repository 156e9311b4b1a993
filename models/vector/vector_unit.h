#pragma once
// The vector unit beside each cluster's array: norms, softmax, activations, RoPE, residual adds,
// (de)quantization, gathers and KV-cache appends (plan/vector_kernel.h). One SystemC module per
// cluster with one clockless process; the cluster's sequence (the array's thread) hands it a
// kernel between two layers and waits for it: the array and the vector unit take turns, in the
// graph's order.
//
// Timing. `lanes` lanes each do per_lane[c] operations of class c (add, mul, special) per cycle;
// the classes take turns on the lanes, so a tile of r rows computes in
//   max(sum_c ceil(r ops_per_row[c] / (lanes per_lane[c])), ceil(r row_bytes / port_bytes))
// cycles, the second term its own scratchpad ports (port_bytes per cycle, reads and writes),
// and the kernel's results come out `latency` cycles after its last tile computed.
// Memory: hierarchy: per tile, one DMA read per row operand into the ifmap partition (two tiles
// of slots: tile t + 2 loads once tile t has computed) and one DMA write per result from the
// ofmap partition (two slots: tile t waits for the write-back of tile t - 2), through the same
// DMA, NoC and HBM as the array's traffic; operands read once load before the first tile. A tile
// computes when its reads are in the scratchpad, its output slot is free and the lanes are.
// Other memory modes: the operands are on chip (what those modes assume for all but the array's
// stationary tiles), so a kernel takes its compute cycles.
// With several clusters each unit takes a contiguous share of the tiles, side by side.
// fidelity: sampled (docs/sampling.md, "Vector kernels"): a kernel's tiles are one stratum. Its
// first 4 tiles and its last 8 (4 of warm-up) are simulated, and of the body between them windows of 4 warm-up tiles
// and 8 measured ones, one in each of n equal strata (the first right after the head). A skipped
// tile moves nothing; it waits the windows' mean wait for its operands (the control variate is the
// tile's compute time, which is exact), its bytes are counted exactly and the HBM's and NoC's other
// figures at the simulated tiles' rate per byte. Before a skipped span the window's write-backs
// drain; after it the next window's reads are enqueued afresh.
#include <array>
#include <map>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "models/memory/cluster_memory.h"
#include "models/memory/memory_group.h"
#include "models/vector/vector_params.h"
#include "models/vector/vector_result.h"
#include "plan/vector_kernel.h"
#include "traces/sink.h"
#include "models/base/process_guard.h"

namespace cstsim {

// A kernel's DMA transfer of `bytes` from HBM byte `from`: the kBlockAlign-aligned run that covers them.
DmaTransfer kernel_transfer(uint64_t from, int64_t bytes, bool write);

class VectorUnitModule : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(VectorUnitModule);
  VectorUnitModule(sc_core::sc_module_name name, VectorParams params, double clock_hz);
  // Its trace resources and counters (`prefix`: its cluster's, with several); `hierarchy`: also
  // the counters of its kernels' DMA traffic.
  void declare(trace::TraceSink& sink, const std::string& prefix, bool hierarchy);

  // Runs cluster `cluster`'s share (of `clusters`) of kernel k from cycle `start`, its traffic on
  // `group` (nullptr: operands on chip) and, with `mirror`, the same traffic on a second memory
  // system (the register grids' under --verify, which must see what the closed form's sees).
  // Called from the cluster's thread; returns once the unit's process has finished it. `trace`
  // (may be nullptr) is told as the kernel goes what it has announced.
  VectorKernelResult execute(const VectorKernelPlan& k, int64_t start, MemoryGroup* group, MemoryGroup* mirror,
                             int cluster, int clusters, KernelTrace* trace = nullptr);
  // fidelity: sampled: kernels of at least `min_tiles` tiles (and enough for the windows) on one
  // cluster simulate a head, a tail and windows of their tiles, the rest estimated (below).
  void sample_kernels(int64_t min_tiles) { sample_min_tiles_ = std::max<int64_t>(min_tiles, 1); }
  const VectorParams& params() const { return params_; }
  sc_core::sc_time period() const { return period_; }
  // A tile with operands `ops` (by class) moving in_bytes and out_bytes through the unit's ports,
  // from cycle `begin`: its cycles, booked in `r` and (record) on the trace.
  int64_t book_tile(const std::array<int64_t, 3>& ops, int64_t in_bytes, int64_t out_bytes, int64_t begin,
                    bool record, VectorKernelResult& r) const;
  // Finished transfers of a kernel: what the DMA did goes on the trace (record), then they are forgotten.
  void retire(DmaSystem& dma, std::vector<int>& ids, bool record) const;

 private:
  struct Job;
  void run();  // the unit's process: one kernel per request
  void guarded_run() { guard_process([this] { run(); }); }  // what SC_*(run) registers
  VectorKernelResult simulate(const Job& job, MemoryGroup* group, bool record);
  int64_t tile_cycles(const std::array<int64_t, 3>& ops, int64_t bytes) const;

  const VectorParams params_;
  sc_core::sc_time period_;
  trace::TraceSink* sink_ = nullptr;
  trace::ResourceId lanes_busy_ = 0;
  std::array<trace::ActionId, 3> op_actions_{};
  trace::ActionId spad_read_ = 0, spad_write_ = 0, hbm_read_ = 0, hbm_write_ = 0, dma_spad_write_ = 0,
                  dma_spad_read_ = 0;
  sc_core::sc_event start_, done_;
  const Job* job_ = nullptr;
  VectorKernelResult result_;
  int64_t sample_min_tiles_ = 0;  // 0: every tile simulated
};

}  // namespace cstsim
