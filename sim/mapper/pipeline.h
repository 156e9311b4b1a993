#pragma once
// overlap: pipeline (seed 001's inter-layer pipelining): a layer's outputs stay in the
// scratchpad as the next layer's input instead of going to HBM and back, where
//   - the next layer reads the previous layer's output (LayerPlan::input_from) and both run as
//     one pass on one cluster (with several, each holds only its share of the outputs);
//   - its input is the stream operand (WS, OS: A; under IS A goes through the tile FIFO) and
//     is all resident from its start (every read of it free from the start);
//   - the outputs as stored are the input as read, byte for byte (the same blocks: a square
//     array, or rows and columns cut alike), so what one layer leaves the next one holds;
//   - they fit the stream partition beside the previous layer's own tile FIFO and stream slots.
// Then the previous pass's write-backs move its outputs, requantized, out of the ofmap
// partition and into the next layer's stream partition through the scratchpad ports (neither
// NoC nor HBM: PassPlan::outputs_on_chip_to), and the next pass finds its input there
// (PassPlan::on_chip_reads). Both layers' HBM bytes drop by them. Runs before plan_prefetch,
// which then leaves room for them.
#include "plan/plan.h"
#include "sim/config/arch_spec.h"

namespace cstsim {

void plan_pipeline(const ArchSpec& arch, Plan& plan);

}  // namespace cstsim
