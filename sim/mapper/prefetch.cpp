#include "sim/mapper/prefetch.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace cstsim {

namespace {

int64_t partition_bytes(const DmaBuffers& d, const std::string& name) {
  return name == d.stationary_partition ? d.stationary_partition_bytes : d.stream_partition_bytes;
}

// Bytes the memory could move besides the running pass's own while it computes: its folds
// stream back to back in the overlapped pipeline, max(T, R) cycles each plus the array's fill
// and drain (R + C), at the path's peak (the HBM's, or the cluster's ejection port: a flit per
// NoC cycle), less the pass's own reads and write-backs. An estimate, not a promise: the memory
// may be slower than its peak.
int64_t spare_bytes(const Plan& plan, const PassPlan& running, double bytes_per_cycle) {
  const FoldPlan f = fold_plan(plan, running);
  double cycles = double(f.R + f.C);
  for (const Fold& g : f.folds) cycles += double(std::max<int64_t>(g.t, f.R));
  const LayerDmaPlan own = dma_program(f, running);
  return std::max<int64_t>(0, int64_t(cycles * bytes_per_cycle) - own.read_bytes() - own.write_bytes());
}

// What the running pass holds of each read partition: its own buffers (held_by_pass) and, with
// overlap: pipeline, its outputs kept for the next layer.
std::map<std::string, int64_t> held_by(const PassPlan& running) {
  std::map<std::string, int64_t> held;
  for (const std::string& p : {running.dma.stationary_partition, running.dma.stream_partition})
    held[p] = held_by_pass(running.dma, p);
  if (!running.outputs_on_chip_to.empty()) held[running.outputs_on_chip_to] += running.outputs_on_chip_room;
  return held;
}

// The reads of `next`'s program that may load while `running` runs.
std::vector<int> prefetchable(const Plan& plan, const PassPlan& running, const PassPlan& next,
                              bool a_just_written, bool b_just_written, double bytes_per_cycle) {
  const LayerDmaPlan program = dma_program(fold_plan(plan, next), next);
  const bool is = !roles(plan.dataflow).tile_is_filter;
  std::map<std::string, int64_t> used = held_by(running);
  const int64_t budget = spare_bytes(plan, running, bytes_per_cycle);
  int64_t moved = 0;
  std::vector<int> reads;
  for (size_t k = 0; k < program.reads.size(); ++k) {
    const DmaTransfer& t = program.reads[k];
    if (t.after_fold >= 0) break;  // its slot waits for a fold of the next pass
    // Beyond what the next pass's first fold waits for, only what the memory can bring while
    // the running pass computes (the pass ends when its prefetch is in).
    if (t.fold > 0 && moved + t.bytes > budget) break;
    const bool stationary = t.operand == Operand::Stationary;
    const bool of_a = stationary == is;  // IS: the tiles are A; WS, OS: the stream is A
    if (of_a ? a_just_written : b_just_written) continue;  // the running pass still writes it
    const std::string& p = stationary ? next.dma.stationary_partition : next.dma.stream_partition;
    if (used[p] + t.bytes > partition_bytes(running.dma, p)) continue;
    used[p] += t.bytes;
    moved += t.bytes;
    reads.push_back(int(k));
  }
  return reads;
}

}  // namespace

int64_t held_by_pass(const DmaBuffers& d, const std::string& partition) {
  int64_t held = 0;
  if (partition == d.stationary_partition) held += int64_t(d.fifo_tiles) * d.stationary_slot;
  if (partition == d.stream_partition) held += d.stream_resident ? d.stream_slot : 2 * d.stream_slot;
  return held;
}

void plan_prefetch(const ArchSpec& a, Plan& plan) {
  if (a.memory != MemoryMode::Hierarchy || (a.overlap != "prefetch" && a.overlap != "pipeline")) return;
  const hbm::HbmSpec& h = a.hbm_spec;
  const double hbm = h.peak_gbps() * 1e9 / a.clock_hz;
  const double port = double(a.noc_config.flit_bytes) * a.noc_config.clock_hz / a.clock_hz;
  const double bytes_per_cycle = std::min(hbm, port);
  for (int k = 0; k < a.clusters; ++k) {
    const PassPlan* running = nullptr;  // the cluster's previous pass, in run order
    int running_layer = -1;
    for (size_t i = 0; i < plan.layers.size(); ++i) {
      LayerPlan& l = plan.layers[i];
      std::vector<PassPlan>& passes = l.clusters[size_t(k)].passes;
      for (size_t p = 0; p < passes.size(); ++p) {
        PassPlan& next = passes[p];
        if (p == 0 && plan.program.kernels_between(i)) running = nullptr;  // the vector unit's traffic comes between
        if (running && running->has_dma && next.has_dma) {
          const bool a_written = p == 0 && l.input_from >= 0 && l.input_from == running_layer;
          const bool b_written = p == 0 && l.weight_from >= 0 && l.weight_from == running_layer;
          next.prefetch = prefetchable(plan, *running, next, a_written, b_written, bytes_per_cycle);
        }
        running = &next;
        running_layer = int(i);
      }
    }
  }
}

}  // namespace cstsim
