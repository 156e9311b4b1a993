#pragma once
// overlap: pipeline (seed 001's inter-layer pipelining): a layer's outputs stay in the
// scratchpad as the next layer's input instead of going to HBM and back, where
//   - the next layer reads the previous layer's output (LayerPlan::input_from) and both run as
//     one pass on every cluster (with several, each makes its share of the outputs and streams
//     all of the input, so each sends its share to every cluster: all clusters or none);
//   - its input is the stream operand (WS, OS: A; under IS A goes through the tile FIFO) and
//     is all resident from its start (every read of it free from the start);
//   - that input, as the next layer reads it (its blocks; a convolution's ifmap with its zero
//     border), fits the stream partition beside the previous layer's own tile FIFO and stream
//     slots, on every cluster.
// Then the previous pass's write-backs move its outputs, requantized, out of the ofmap
// partition and into the next layer's stream partition through the scratchpad ports (no HBM;
// the mesh only to other clusters: PassPlan::outputs_on_chip_to), laid out there as the next
// layer reads them; the input's whole room is taken from the first write-back's issue (the zero
// border and block padding are not moved), and the next pass finds its input there
// (PassPlan::on_chip_reads) and releases it as its folds are done with it. Both layers' HBM
// bytes drop by what no longer moves. Runs before plan_prefetch, which then leaves room for it.
#include "plan/plan.h"
#include "sim/config/arch_spec.h"

namespace cstsim {

void plan_pipeline(const ArchSpec& arch, Plan& plan);

}  // namespace cstsim
