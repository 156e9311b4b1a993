#pragma once
// Row-stationary passes (Eyeriss; docs/design/row-stationary.md, models/array/README.md "Row
// stationary"): how a convolution is cut into processing passes on a rows x cols array of PEs
// with filter, ifmap and psum scratchpads, and what each pass moves over the array's networks.
//
// A pass holds, in every PE of its placed sets (plan/rs_placement.h), q channels of p filters
// of one filter row in the filter scratchpad, and streams n images' ifmap rows through it, one
// output column at a time (a "step"). Of the replicated sets, t hold different filters (they
// share the ifmap) and r different channels (their psums add up in the array). The passes run
//   for group: for filter block (m filters): for strip: for image block (n):
//     for channel block (q r channels): for filter-row fold: for filters of the block (p t): pass
// so an ifmap block in the global buffer serves the m/(p t) passes of the innermost loop, and
// psums stay in the global buffer until the last channel block and row fold have added to them.
#include <cstdint>
#include <string>
#include <vector>

#include "plan/rs_placement.h"

namespace cstsim {

// One convolution. H and W include the zero border; groups split C and M into independent
// convolutions of C/groups channels and M/groups filters, one after another.
struct RsShape {
  int64_t N = 1;          // images
  int64_t C = 1, M = 1;   // channels and filters of one group
  int64_t groups = 1;
  int64_t H = 1, W = 1;   // ifmap rows and columns
  int64_t R = 1, S = 1;   // filter rows and columns
  int64_t U = 1;          // stride
  int64_t E() const { return (H - R) / U + 1; }
  int64_t F() const { return (W - S) / U + 1; }
  int64_t macs() const { return groups * N * M * C * R * S * E() * F(); }
};

// What bounds the mapping: the array, the PEs' scratchpads (words) and the global buffer's
// room for ifmaps and psums (bits, and the bits of an ifmap value and a psum; Eyeriss: 224,
// 12, 24 words and 100 kB of 16-bit words).
struct RsLimits {
  int rows = 12, cols = 14;
  int64_t filter_spad = 224, ifmap_spad = 12, psum_spad = 24;
  int64_t glb_bits = 100 * 1024 * 8;
  // memory: hierarchy: the scratchpad's ifmap and ofmap partitions hold them apart (0: one pool),
  // and its filter partition a pass's filters (0: no bound).
  int64_t glb_ifmap_bits = 0, glb_psum_bits = 0, glb_filter_bits = 0;
  int ifmap_bits = 16, psum_bits = 16, weight_bits = 16;
};

// Eyeriss's mapping parameters (JSSC 2017 Table II), chosen by plan_rs.
struct RsMapping {
  RsPlacement place;
  int64_t n = 1;  // images per pass
  int64_t p = 1;  // filters per PE
  int64_t q = 1;  // channels per PE
  int64_t r = 1;  // replicated sets with different channels (psums added in the array)
  int64_t t = 1;  // replicated sets with different filters (sharing the ifmap)
  int64_t m = 1;  // filters whose psums the global buffer holds (a multiple of p t, or M)
  // Global-buffer values the largest pass group holds: n q r ifmap rows of a strip, n m psum rows.
  int64_t glb_ifmap_values = 0, glb_psum_values = 0;
};

// The mapping of `shape` under `limits`, or an explanation of why none fits (why_not set).
// Search: every strip width (strip-mined sets), q (q S <= ifmap_spad), p (p q S <=
// filter_spad, p <= psum_spad), split of the replicated sets into r channel sets and t filter
// sets, and n, each with the most filters m whose psums fit in the global buffer beside the
// pass group's ifmap rows (glb_bits). The mapping with the least access energy wins: DRAM words
// x 200 plus global-buffer words x 6 (Sze et al., Proc. IEEE 2017, Fig. 22's normalized costs),
// counted from the pass loop; ties go to fewer compute cycles. Eyeriss chose its mappings by
// energy the same way (JSSC 2017 §IV-A, ref. [32]).
struct RsPlanResult {
  RsMapping mapping;
  std::string why_not;
};
RsPlanResult plan_rs(const RsShape& shape, const RsLimits& limits);

// One processing pass.
struct RsPass {
  int64_t group = 0;
  int64_t image0 = 0, images = 1;
  int64_t row0 = 0, rows = 1;                 // ofmap rows of its strip
  int64_t filter_row0 = 0, filter_rows = 1;   // filter rows of its fold (PE rows of a set)
  int64_t channel0 = 0, channels = 1;         // r sets of q channels, the last ones fewer
  int64_t filter0 = 0, filters = 1;           // t sets of p filters, the last ones fewer
  bool first_reduction = true;   // its psums start at zero (else they come back from the buffer)
  bool last_reduction = true;    // its psums are final (they go out as ofmaps)
  bool new_ifmap_block = true;   // the first pass of its ifmap block in the global buffer
  int64_t producer = -1;         // the pass whose psums it adds to (-1: first_reduction)
};

// What a pass is made of, as the array sees it (every count exact for the pass).
struct RsPassShape {
  int64_t p_max = 0, q_max = 0;  // the largest share of one PE (sets with fewer idle)
  int64_t steps = 0;             // images x F output columns
  int64_t step_cycles = 0;       // q_max S p_max: MACs of the fullest PE per step
  int64_t filter_words = 0;      // distinct filter values loaded (each multicast along its PE row)
  int64_t psum_words = 0;        // psums one step puts out (and takes in, unless first_reduction)
  int64_t chain = 0;             // PEs a column's psums add up through (r x filter_rows)
  int64_t active_pes = 0;
  int64_t ifmap_rows = 0;        // distinct (channel, ifmap row) pairs of the pass
  // Distinct ifmap values step j needs that the steps before it in the same image did not.
  int64_t step_words(const RsShape& s, int64_t j) const;
  int64_t macs = 0;              // useful MACs of the pass
};

// How a feature map lies in DRAM: raw, or run-length coded (Eyeriss, JSSC 2017 §IV-B) with
// `density` of its values nonzero.
struct RsCoding {
  bool rlc = false;
  double density = 1.0;
};

struct RsLayerPlan {
  RsShape shape;
  RsMapping mapping;
  std::vector<RsPass> passes;
  RsCoding ifmap, ofmap;          // in DRAM
  // Zero gating (arch sparsity.zero_gating): the fraction of the ifmap's values that are nonzero;
  // the zeros are placed as FoldPlan::is_placed_zero places them over the whole ifmap tensor
  // ([group][image][channel][row][column], padding included). 1: no gating counted.
  double gating_density = 1.0;
  int act_bits = 16, weight_bits = 16;  // a stored ifmap/ofmap value and filter value
};

// Bits of `values` values of `bits` each, run-length coded as Eyeriss does: pairs of a 5-bit
// zero run (0-31) and a value, as many pairs as fit in a 64-bit word (three of 16-bit values).
// The floor(values (1 - density)) zeros are spread evenly (FoldPlan::zero_count), so each
// nonzero takes one pair with the run before it, and a run longer than 31 one more per 32 zeros
// (a pair whose value is a zero); zeros after the last nonzero take pairs of their own.
int64_t rlc_bits(int64_t values, double density, int bits);

// What pass `pass` moves over the DRAM interface (bits, coded where the plan says): its
// filters (every pass), its ifmap block (the first pass of the block), its ofmaps (the last
// reduction).
struct RsPassTraffic {
  int64_t filter_bits = 0, ifmap_bits = 0, ofmap_bits = 0;
};
RsPassTraffic rs_pass_traffic(const RsLayerPlan& plan, const RsPass& pass);

// The passes of `shape` under `mapping`, in run order.
RsLayerPlan make_rs_layer_plan(const RsShape& shape, const RsMapping& mapping);

RsPassShape rs_pass_shape(const RsLayerPlan& plan, const RsPass& pass);

// Zero gating: the MACs of `pass` whose ifmap value is zero (each value meets every filter of the
// pass in every PE that reads its row and every output column whose window covers it); 0 when
// plan.gating_density is 1.
int64_t rs_gated_macs(const RsLayerPlan& plan, const RsPass& pass);

// The (set, channel) and (set, filter) shares of a pass: set i of `sets` gets
// [i * per, min((i + 1) * per, total)) of `total`.
inline int64_t rs_share(int64_t total, int64_t per, int64_t i) {
  const int64_t lo = i * per;
  return lo >= total ? 0 : (total - lo < per ? total - lo : per);
}

}  // namespace cstsim
