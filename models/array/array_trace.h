#pragma once
// The array's part of R(t): which resources it declares, which action counters
// they feed, and the closed-form occupancy of a fold for the timing mode.
// The reference mode reports the same resources from what the registers did
// each cycle (RegisterArray::activity), and tests require identical traces.
#include <cstdint>
#include <string>
#include <vector>

#include "core/precision.h"
#include "plan/fold_plan.h"
#include "models/array/fold_timing.h"
#include "traces/sink.h"

namespace cstsim {

struct ArrayTraceIds {
  std::string owner;                  // the array's name in the trace ("array", "cluster1.array")
  trace::ResourceId busy = 0;         // C, device: the array is running a layer
  trace::ResourceId active_pes = 0;   // C, PE: PEs doing a mapped MAC this cycle
  trace::ResourceId stationary = 0;   // M (reg), byte: weight banks held (WS, IS) / live accumulators (OS)
  trace::ResourceId in_rows = 0;      // N, link: row edge links carrying an operand in
  trace::ResourceId in_cols = 0;      // N, link: column edge links carrying an operand in
  trace::ResourceId out = 0;          // N, link: output links carrying a result out
  int64_t stationary_bytes = 0;       // bytes per stationary element
  // mac.<precision>.nominal: the work a pass asks for (its M x N x K), counted when it starts;
  // mac.<precision>.executed is counted from active_pes, cycle by cycle: every PE word's `pack`
  // multiply lanes. A reduction that does not fill its last word leaves lanes multiplying the
  // zeros that pad it: mac.<precision>.padding, counted with the nominal work. Executed =
  // nominal + padding is a law (sim/run/invariants.cpp).
  // mac.<precision>.skipped: the pruned half of a 2:4 layer's MACs, which PEs that skip never do.
  // Executed = nominal - skipped + padding.
  trace::ActionId nominal_macs = 0, padding_macs = 0, skipped_macs = 0;
  // Lanes whose activation was zero (zero gating): executed, priced at mac.<type>.gated.
  trace::ActionId gated_macs = 0;
  // sram.read.psum: WS, IS folds after a column fold's first add to the partial sums the
  // scratchpad holds: one accumulator read per output element, as it leaves the array.
  trace::ActionId psum_reads = 0;
  int64_t accumulator_bytes = 0;
  int64_t operand_bytes = 0;  // a PE's register word: what an operand hop or latch moves
  // What the PEs do besides the MAC, each counted where it happens (models/array/README.md,
  // "Actions inside the array"): the streamed operands' hops from PE to PE, the partial sums'
  // register reads, writes and hops down a column (WS, IS: through every row to the bottom
  // edge, the rows a fold leaves unused included), and the stationary tile's writes and hops
  // down the column shift chain while it loads. Zero: not counted by this dataflow (OS binds
  // its accumulator's read and write to the active PEs instead).
  trace::ActionId operand_hops = 0;      // link.pe.operand, bytes
  trace::ActionId psum_register_reads = 0;  // reg.read.psum, bytes
  trace::ActionId psum_register_writes = 0; // reg.write.psum, bytes
  trace::ActionId psum_hops = 0;         // link.pe.psum, bytes
  trace::ActionId stationary_writes = 0; // reg.write.stationary, bytes
  trace::ActionId stationary_hops = 0;   // link.pe.stationary, bytes
  // controller: rocc (models/array/rocc_engine.cpp): what its DMA moves, counted when each mvin
  // or mvout completes; declared only when a layer runs that way.
  trace::ActionId rocc_read_ifmap = 0, rocc_read_filter = 0, rocc_read_bias = 0, rocc_write_ofmap = 0;
  trace::ActionId rocc_spad_write = 0, rocc_spad_read = 0;
};

// What the array's trace resources are sized by.
struct ArrayGeometry {
  int rows = 0, cols = 0;
  Dataflow dataflow = Dataflow::WS;
  Precision precision;
  bool skips_2_4 = false;  // arch sparsity.skip_2_4
  bool gates_zeros = false;  // arch sparsity.zero_gating
};

// The bits of a stored word of A and of B in one layer (PassPlan::a_word_bits, b_word_bits).
struct LayerWordBits {
  int layer, a_bits, b_bits;
};

// Declares the array's resources and binds the action counters to them; `layers`: the layers
// whose stored words differ from the run's (an operator graph's dtypes), counted at their own
// widths on the edge links and in the SRAM reads.
ArrayTraceIds declare_array_trace(trace::TraceSink& sink, const ArrayGeometry& array, const std::string& owner,
                                  const std::vector<LayerWordBits>& layers = {});

// Books the work a pass asks for, when it starts: nominal MACs, padding lanes, skipped (2:4) and
// gated (zero activations) lanes.
void book_pass_work(trace::TraceSink& sink, const ArrayTraceIds& ids, int64_t start, const FoldPlan& plan);
// A slice per fold on <owner>.folds (slices.csv): from its start to the cycle before the next
// fold starts (its end if sooner), so consecutive folds' slices never overlap where the
// overlapped pipeline overlaps the folds themselves.
void book_fold_slices(trace::TraceSink& sink, const ArrayTraceIds& ids, const std::string& layer, const LayerTiming& t);

// Announces fold g's occupancy changes (all at or after its FoldStart).
void announce_fold(trace::TraceSink& sink, const ArrayTraceIds& ids, const FoldPlan& plan, FoldPipeline pipeline,
                   const Fold& fold, const FoldTiming& timing);
// The partial-sum reads of fold g (announce_fold books them; the register-level mode, which
// reports the rest cycle by cycle, books them from the closed form's identical fold timing).
void announce_psum_reads(trace::TraceSink& sink, const ArrayTraceIds& ids, const FoldPlan& plan, const Fold& fold,
                         const FoldTiming& timing);

}  // namespace cstsim
