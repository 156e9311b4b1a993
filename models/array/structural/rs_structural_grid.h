#pragma once
// Row stationary's structural grid: R x C RsPe modules (rs_structural_pe.h) on one link path,
// the networks' buses that feed them, and the check that compares them with the register grid
// (models/array/rs_grid.h) after every cycle. The register grid's controller decides (when a
// pass and a step start, how many words each network carries in a cycle); the driver turns each
// decision into bus words of its own, from the plan and the operands (the psums that come back
// from its own copy of the global buffer), and the PEs do the rest: scratchpads, windows, MACs
// and the column chains. After each edge every PE of the pass is compared with its register
// twin (filter scratchpad, window, psums, FIFO depth), each chain position that added this
// cycle with the register grid's running sum, every psum the output network writes with the
// buffer's word, and the output rows, MACs and words out with the register grid's.
#include <cstdint>
#include <deque>
#include <vector>

#include <systemc>

#include "models/array/rs_grid.h"
#include "models/array/structural/rs_structural_pe.h"
#include "models/array/structural/structural_grid.h"

namespace cstsim {

namespace structural {

// The arch's PE scratchpads (words): rs.filter_spad, rs.ifmap_spad, rs.psum_spad (the
// psums a link carries at once).
struct RsPeSizes {
  int filter = 224, ifmap = 12, psum = 24;
};

class RsStructuralGrid final : public ClockedGrid {
 public:
  RsStructuralGrid(const sc_core::sc_module_name& name, int rows, int cols, const RsPeSizes& sizes,
                   sc_core::sc_time period);
  // A new layer, before its first cycle: one reset edge clears every PE.
  void begin(const RsLayerPlan& plan, const RsData& data);
  // After each cycle of the register grid (throws StructuralMismatch).
  void cycle(const RsGridView& grid);
  // After the register grid's last cycle: nothing left on the way out.
  void finish() const;
  void trace(sc_core::sc_trace_file* tf) const override;

 protected:
  PeBase& pe(int row, int col) override { return pes_[size_t(col) * R_ + size_t(R_ - 1 - row)]; }

 private:
  struct FilterWord {
    int32_t dest, addr;
    uint32_t value;
  };
  struct Flight {  // a started step whose psums have not all reached the top of their chains
    int64_t pass, step;
    int32_t tag;
    RsPeConfig config;
  };
  struct Out {  // a step's column sums, queued for the psum output network
    int64_t pass, step;
    std::vector<uint32_t> sums;
    int64_t sent = 0;
  };

  void start_pass(int64_t pass);
  void drive(int64_t c, const RsGridView& g, bool new_pass);
  void compare(int64_t c, const RsGridView& g);
  void compare_pes(int64_t c, const RsGridView& g);
  void compare_chains(int64_t c, const RsGridView& g);
  void collect_tops(int64_t c);
  void send_out(int64_t c, const RsGridView& g, std::vector<std::pair<int64_t, int64_t>>& rows_out);
  [[noreturn]] void fail(int64_t c, const std::string& what) const;
  size_t glb_index(int64_t pass, int64_t step, int64_t w) const;
  const RsPe& at(int k) const { return pes_[size_t(k)]; }
  int path(const RsPeConfig& c, int chain, int pos) const;

  const RsPeSizes sizes_;
  const RsLayerPlan* plan_ = nullptr;
  const RsData* data_ = nullptr;
  PeArith arith_ = PeArith::Int;
  bool gating_ = false;
  std::vector<uint32_t> glb_;  // the driver's global buffer: psums and ofmaps as the output network wrote them

  // The pass on the PEs and what the driver has sent of it.
  int64_t pass_ = -1, started_ = -1;
  RsPeConfig config_;
  std::vector<FilterWord> filters_;
  size_t filters_sent_ = 0;
  std::vector<int64_t> ifmap_rows_;  // strip rows some PE reads, ascending
  int64_t ifmap_step_ = 0, ifmap_channel_ = 0, ifmap_s_ = 0;
  size_t ifmap_row_ = 0;
  int64_t psums_in_ = 0;
  int32_t tags_ = 0;  // steps started over the layer
  std::deque<Flight> flights_;
  std::deque<Out> out_;
  RsCounts last_{};  // the register grid's words and MACs after the cycle before
  int64_t psum_out_words_ = 0;
  size_t events_seen_ = 0;

  sc_core::sc_vector<RsPe> pes_;
  sc_core::sc_signal<bool> cfg_load_{"cfg_load"}, step_start_{"step_start"};
  sc_core::sc_signal<RsPeConfig> cfg_{"cfg"};
  sc_core::sc_signal<int32_t> step_col_{"step_col"}, step_tag_{"step_tag"};
  sc_core::sc_vector<sc_core::sc_signal<bool>> fb_valid_;
  sc_core::sc_vector<sc_core::sc_signal<int32_t>> fb_dest_, fb_addr_;
  sc_core::sc_vector<sc_core::sc_signal<uint32_t>> fb_data_;
  sc_core::sc_signal<bool> ib_valid_{"ib_valid"};
  sc_core::sc_signal<int32_t> ib_set_{"ib_set"}, ib_row_{"ib_row"};
  sc_core::sc_signal<uint32_t> ib_data_{"ib_data"};
  sc_core::sc_vector<sc_core::sc_signal<bool>> pb_valid_;
  sc_core::sc_vector<sc_core::sc_signal<int32_t>> pb_dest_, pb_k_;
  sc_core::sc_vector<sc_core::sc_signal<uint32_t>> pb_data_;
  // The links, per PE and plane (words: per PE, plane, psum), and the path's tied-off start.
  sc_core::sc_vector<sc_core::sc_signal<bool>> link_valid_;
  sc_core::sc_vector<sc_core::sc_signal<int32_t>> link_tag_;
  sc_core::sc_vector<sc_core::sc_signal<uint32_t>> link_;
  sc_core::sc_vector<sc_core::sc_signal<bool>> none_valid_;
  sc_core::sc_vector<sc_core::sc_signal<int32_t>> none_tag_;
  sc_core::sc_vector<sc_core::sc_signal<uint32_t>> none_;
};

}  // namespace structural
}  // namespace cstsim
