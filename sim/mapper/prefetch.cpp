#include "sim/mapper/prefetch.h"

#include <map>
#include <string>
#include <vector>

namespace cstsim {

namespace {

// What a pass's own buffers hold of each read partition at most: its tile FIFO, its stream
// slots (one resident block, or two alternating slices).
std::map<std::string, int64_t> held_by(const DmaBuffers& d) {
  std::map<std::string, int64_t> held;
  held[d.stationary_partition] += int64_t(d.fifo_tiles) * d.stationary_slot;
  held[d.stream_partition] += d.stream_resident ? d.stream_slot : 2 * d.stream_slot;
  return held;
}

int64_t partition_bytes(const DmaBuffers& d, const std::string& name) {
  return name == d.stationary_partition ? d.stationary_partition_bytes : d.stream_partition_bytes;
}

// The reads of `next`'s program that may load while `running` runs.
std::vector<int> prefetchable(const Plan& plan, const PassPlan& running, const PassPlan& next,
                              bool reads_previous_output) {
  const LayerDmaPlan program = dma_program(fold_plan(plan, next), next);
  const bool is = !roles(plan.dataflow).tile_is_filter;
  std::map<std::string, int64_t> used = held_by(running.dma);
  std::vector<int> reads;
  for (size_t k = 0; k < program.reads.size(); ++k) {
    const DmaTransfer& t = program.reads[k];
    if (t.after_fold >= 0) break;  // its slot waits for a fold of the next pass
    const bool stationary = t.operand == Operand::Stationary;
    const bool of_a = stationary == is;  // IS: the tiles are A; WS, OS: the stream is A
    if (of_a && reads_previous_output) continue;
    const std::string& p = stationary ? next.dma.stationary_partition : next.dma.stream_partition;
    if (used[p] + t.bytes > partition_bytes(running.dma, p)) continue;
    used[p] += t.bytes;
    reads.push_back(int(k));
  }
  return reads;
}

}  // namespace

void plan_prefetch(const ArchSpec& a, Plan& plan) {
  if (a.memory != "hierarchy" || a.overlap != "prefetch") return;
  for (int k = 0; k < a.clusters; ++k) {
    const PassPlan* running = nullptr;  // the cluster's previous pass, in run order
    int running_layer = -1;
    for (size_t i = 0; i < plan.layers.size(); ++i) {
      LayerPlan& l = plan.layers[i];
      std::vector<PassPlan>& passes = l.clusters[size_t(k)].passes;
      for (size_t p = 0; p < passes.size(); ++p) {
        PassPlan& next = passes[p];
        if (running && running->has_dma && next.has_dma) {
          const bool reads_previous_output = p == 0 && l.input_from >= 0 && l.input_from == running_layer;
          next.prefetch = prefetchable(plan, *running, next, reads_previous_output);
        }
        running = &next;
        running_layer = int(i);
      }
    }
  }
}

}  // namespace cstsim
