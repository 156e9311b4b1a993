#include "sim/mapper/pipeline.h"

#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/mapper/prefetch.h"

namespace cstsim {

namespace {

// What cluster k's pass of the next layer would keep on chip: its reads of the input, their
// bytes, and the bytes its outputs as the previous layer writes them.
struct KeptInput {
  std::vector<int> reads;
  int64_t input_bytes = 0, output_bytes = 0;
};

// Why the previous layer's output cannot stay on chip as `next`'s input (empty: it can).
std::string why_not(const Plan& plan, const PassPlan& running, const PassPlan& next, KeptInput& kept) {
  if (next.idle() || running.idle()) return "a cluster has no share of one of the layers";
  if (next.dma.stream_partition != running.dma.stream_partition) return "the layers stream from different partitions";
  const LayerDmaPlan program = dma_program(fold_plan(plan, next), next);
  for (size_t k = 0; k < program.reads.size(); ++k) {
    const DmaTransfer& t = program.reads[k];
    if (t.operand != Operand::Stream) continue;
    if (t.after_fold >= 0) return "its input is not all resident at once (stream slices alternate)";
    kept.reads.push_back(int(k));
    kept.input_bytes += t.bytes;
  }
  if (kept.reads.empty()) return "it reads no stream";
  const std::string& partition = next.dma.stream_partition;
  const int64_t held = held_by_pass(running.dma, partition);
  if (held + kept.input_bytes > running.dma.stream_partition_bytes)
    return fmt::format("no room: its {} B input beside the previous layer's {} B in the {} partition of {} B",
                       kept.input_bytes, held, partition, running.dma.stream_partition_bytes);
  kept.output_bytes = dma_program(fold_plan(plan, running), running).write_bytes();
  return "";
}

}  // namespace

void plan_pipeline(const ArchSpec& a, Plan& plan) {
  if (a.memory != MemoryMode::Hierarchy || a.overlap != "pipeline") return;
  const bool is = !roles(plan.dataflow).tile_is_filter;
  for (size_t i = 1; i < plan.layers.size(); ++i) {
    LayerPlan& layer = plan.layers[i];
    LayerPlan& previous = plan.layers[i - 1];
    if (layer.input_from != int(i) - 1) continue;
    std::string& why = layer.input_not_on_chip;
    if (plan.program.kernels_between(i)) {
      why = "vector kernels run in between";
      continue;
    }
    if (is) {
      why = "dataflow is: the input is the tile operand, through the tile FIFO";
      continue;
    }
    if (layer.repeats_across_clusters || previous.repeats_across_clusters) {
      why = "repeats spread across clusters: a cluster's outputs are not its share of the next input";
      continue;
    }
    // Every cluster streams all of the input, which every cluster's outputs make: all or none.
    std::vector<KeptInput> kept(layer.clusters.size());
    for (size_t k = 0; k < layer.clusters.size() && why.empty(); ++k) {
      const std::vector<PassPlan>& now = previous.clusters[k].passes;
      const std::vector<PassPlan>& then = layer.clusters[k].passes;
      why = now.size() != 1 || then.size() != 1 ? "stream passes: each layer must run as one"
                                                : why_not(plan, now.front(), then.front(), kept[k]);
      if (!why.empty() && layer.clusters.size() > 1) why = fmt::format("cluster {}: {}", k, why);
    }
    if (!why.empty()) continue;
    for (size_t k = 0; k < layer.clusters.size(); ++k) {
      PassPlan& running = previous.clusters[k].passes.front();
      PassPlan& next = layer.clusters[k].passes.front();
      running.outputs_on_chip_to = next.dma.stream_partition;
      running.outputs_on_chip_room = kept[k].input_bytes;
      next.on_chip_reads = kept[k].reads;
      previous.hbm_write_bytes -= kept[k].output_bytes;
      layer.hbm_read_bytes -= kept[k].input_bytes;
      layer.ifmap_read_bytes -= kept[k].input_bytes;  // the stream is the ifmap under WS and OS
    }
  }
}

}  // namespace cstsim
