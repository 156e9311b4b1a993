#include "sim/mapper/pipeline.h"

#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/mapper/prefetch.h"

namespace cstsim {

void plan_pipeline(const ArchSpec& a, Plan& plan) {
  if (a.memory != "hierarchy" || a.overlap != "pipeline" || a.clusters != 1) return;
  const bool is = !roles(plan.dataflow).tile_is_filter;
  for (size_t i = 1; i < plan.layers.size(); ++i) {
    LayerPlan& layer = plan.layers[i];
    LayerPlan& previous = plan.layers[i - 1];
    if (layer.input_from != int(i) - 1) continue;
    if (is) {
      layer.input_not_on_chip = "dataflow is: the input is the tile operand, through the tile FIFO";
      continue;
    }
    std::string& why_not = layer.input_not_on_chip;
    if (layer.clusters.front().passes.size() != 1 || previous.clusters.front().passes.size() != 1) {
      why_not = "stream passes: each layer must run as one";
      continue;
    }
    PassPlan& next = layer.clusters.front().passes.front();
    PassPlan& running = previous.clusters.front().passes.front();
    if (!next.has_dma || !running.has_dma || next.idle() || running.idle()) continue;
    if (next.dma.stream_partition != running.dma.stream_partition) {
      why_not = "the layers stream from different partitions";
      continue;
    }
    const LayerDmaPlan program = dma_program(fold_plan(plan, next), next);
    std::vector<int> reads;
    int64_t input_bytes = 0;
    bool resident = true;
    for (size_t k = 0; k < program.reads.size(); ++k) {
      const DmaTransfer& t = program.reads[k];
      if (t.operand != Operand::Stream) continue;
      if (t.after_fold >= 0) {  // a slice that waits for a fold: not all of the input is held at once
        resident = false;
        break;
      }
      reads.push_back(int(k));
      input_bytes += t.bytes;
    }
    if (!resident || reads.empty()) {
      why_not = "its input is not all resident at once (stream slices alternate)";
      continue;
    }
    const int64_t output_bytes = dma_program(fold_plan(plan, running), running).write_bytes();
    const std::string& partition = next.dma.stream_partition;
    if (const int64_t held = held_by_pass(running.dma, partition); held + input_bytes > running.dma.stream_partition_bytes) {
      why_not = fmt::format("no room: its {} B input beside the previous layer's {} B in the {} partition of {} B",
                            input_bytes, held, partition, running.dma.stream_partition_bytes);
      continue;
    }
    running.outputs_on_chip_to = partition;
    running.outputs_on_chip_room = input_bytes;
    next.on_chip_reads = reads;
    previous.hbm_write_bytes -= output_bytes;
    layer.hbm_read_bytes -= input_bytes;
    layer.ifmap_read_bytes -= input_bytes;  // the stream is the ifmap under WS and OS
  }
}

}  // namespace cstsim
