#pragma once
// Row stationary's structural PE (--verify=structural; models/array/rs_grid.h is the register
// grid it is checked against). Eyeriss-style: a PE keeps the filter rows of its set row in its
// filter scratchpad, slides a window over the ifmap row its ID names (ifmap rows go to the PEs on
// a diagonal, U x + y = row), and adds its psums into a partial sum that climbs its column
// chain one PE a cycle. The filter, ifmap and psum-input networks are buses the grid drives;
// each PE takes the words whose destination ID is its own (Eyeriss's multicast controllers).
// The chain links are the only PE-to-PE wires: PE k of the grid's fixed link path takes PE
// k - 1's link (rs_place says which PEs a pass's chains use). Two link planes, one per output
// FIFO place: a step's psums ride the plane of its parity, so two steps' sums never meet.
#include <cstdint>
#include <ostream>
#include <vector>

#include <systemc>

#include "models/array/structural/structural_pe.h"

namespace cstsim::structural {

// What every PE learns at a pass's start (the scan chain of Eyeriss's configuration): the
// pass's shape and mapping.
struct RsPeConfig {
  int32_t rows = 0, filter_rows = 0;  // ofmap rows of the strip, filter rows of the fold
  int32_t r_sets = 0, t_sets = 0;     // channel sets, filter sets
  int32_t channels = 0, filters = 0;  // of the pass
  int32_t q = 1, p = 1;               // channels and filters per PE (the mapping's)
  int32_t S = 1, U = 1;
  bool first_reduction = true;  // its psums start at zero (else the chain's bottom takes the buffer's)
  int32_t q_max() const { return q < channels ? q : channels; }
  int32_t p_max() const { return p < filters ? p : filters; }
  int32_t chain() const { return r_sets * filter_rows; }  // PEs a column's psums climb through
  int32_t chains() const { return t_sets * rows; }
  bool operator==(const RsPeConfig& o) const;
};
std::ostream& operator<<(std::ostream& os, const RsPeConfig& c);
void sc_trace(sc_core::sc_trace_file* tf, const RsPeConfig& c, const std::string& name);

// Where a pass's logical PE lies on the link path (index k: column k / rows, bottom to top).
// Chains as tall as the array or less stack from the bottom of a column, as many as fit, one
// column after another; taller ones (or too many) follow each other along the path, across the
// top of one column to the bottom of the next.
struct RsPlace {
  bool active = false;
  int32_t ri = 0, ti = 0, y = 0, x = 0;  // channel set, filter set, filter row, ofmap row
  int32_t chain = 0, pos = 0;            // column chain ti * rows + x, and position in it (0: bottom)
};
RsPlace rs_place(const RsPeConfig& c, int rows, int cols, int index);
// The path index of chain `chain`'s position `pos` (-1 when the pass does not fit the array).
int rs_path_index(const RsPeConfig& c, int rows, int cols, int chain, int pos);
// Grid coordinates of path index k.
inline int rs_path_row(int rows, int k) { return rows - 1 - k % rows; }
inline int rs_path_col(int rows, int k) { return k / rows; }

// Words a cycle on the filter and psum-input networks (rs_timing.h kRsWideNetworkWords).
inline constexpr int kRsBusLanes = 4;

struct RsPe : PeBase {
  // Configuration, at a pass's start.
  sc_core::sc_in<bool> cfg_load;
  sc_core::sc_in<RsPeConfig> cfg;
  // A step's start: its output column within the image, and its number over the layer (its
  // parity is the link plane its psums take).
  sc_core::sc_in<bool> step_start;
  TagIn step_col, step_tag;
  // Filter network: lane n writes filter word `addr` of the PEs of set row `dest`.
  sc_core::sc_vector<sc_core::sc_in<bool>> fb_valid;
  sc_core::sc_vector<TagIn> fb_dest, fb_addr;
  sc_core::sc_vector<WordIn> fb_data;
  // Ifmap network: one word for the PEs of channel set `set` that read strip row `row`.
  sc_core::sc_in<bool> ib_valid;
  TagIn ib_set, ib_row;
  WordIn ib_data;
  // Psum input network: filter `k`'s psum for the bottom PE of chain `dest`.
  sc_core::sc_vector<sc_core::sc_in<bool>> pb_valid;
  sc_core::sc_vector<TagIn> pb_dest, pb_k;
  sc_core::sc_vector<WordIn> pb_data;
  // The chain link from the PE before on the path, and to the one after: per plane a valid bit,
  // the step's number and `link_words` psums.
  sc_core::sc_vector<sc_core::sc_in<bool>> link_valid_in;
  sc_core::sc_vector<TagIn> link_tag_in;
  sc_core::sc_vector<WordIn> link_in;
  sc_core::sc_vector<sc_core::sc_out<bool>> link_valid;
  sc_core::sc_vector<TagOut> link_tag;
  sc_core::sc_vector<WordOut> link;

  // The scratchpads and the MAC sequencer: registers of this PE alone (read by the grid's
  // comparison after an edge, and traced).
  std::vector<uint32_t> filter;  // [k][c][s]: p_max x q_max x S of the pass
  std::vector<uint32_t> window;  // [c][s]
  std::vector<uint32_t> psum;    // the p accumulators
  std::vector<uint32_t> psum_in; // the buffer's psums the next step starts from (chain bottoms)
  std::vector<uint32_t> fifo;    // the ifmap input FIFO (a ring of ifmap_spad words)
  int32_t fifo_head = 0, fifo_count = 0;
  int32_t mac = 0;               // the step's MAC (channel, tap, filter innermost)
  bool computing = false;
  int64_t macs = 0, zero_macs = 0, dropped = 0;  // MACs run, of them on a zero ifmap value; words with no room
  RsPeConfig config;
  RsPlace place;

  SC_HAS_PROCESS(RsPe);
  // PE `index` of a rows x cols grid's link path; links of `link_words` psums; a window and
  // FIFO of `ifmap_spad` words (the filter scratchpad takes the pass's p q S).
  RsPe(const sc_core::sc_module_name& name, int rows, int cols, int index, int link_words, int ifmap_spad);

 private:
  void edge();
  void chain_plane(int b);

  const int rows_, cols_, index_, W_;
  // Per link plane: the psums of the last step of that parity as its last MAC left them, that
  // step's number, whether this PE is its chain's bottom, and (bottoms) whether it has yet to
  // send them.
  std::vector<uint32_t> done_[2];
  int32_t done_tag_[2] = {-1, -1};
  bool done_bottom_[2] = {false, false}, launch_[2] = {false, false};
  int32_t tag_ = -1;  // the running step's number
};

}  // namespace cstsim::structural
