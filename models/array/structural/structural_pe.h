#pragma once
// The structural reference mode's PEs (--verify=structural): each PE an sc_module whose registers
// are its output signals, wired to its neighbours by sc_signals, latching on the rising edge of
// the grid's clock. They carry the same words as the register grids (models/array/
// stationary_grid.cpp, output_stationary_grid.cpp) and are checked against them every cycle.
// Words are 32-bit patterns (an int32 register or a float's bits) so one PE type serves every
// operand type; the arithmetic is grid_arith.h's, picked by PeArith.
#include <cstdint>

#include <systemc>

#include "core/num_type.h"

namespace cstsim::structural {

enum class PeArith { Int, Float, FloatFused };  // grid_arith.h: IntArith, FloatArith<false>, <true>

PeArith pe_arith(NumType operand);
// s + x * w in the arithmetic of `a` (one lane of a PE), on 32-bit patterns.
uint32_t mac_bits(PeArith a, uint32_t s, uint32_t x, uint32_t w);
// c + v: a result adding a fold's partial sum (WS/IS row folds).
uint32_t add_bits(PeArith a, uint32_t c, uint32_t v);
// A value as the PE registers hold it: an int32 for integer arithmetic (grid_arith.h's reg), the
// float's bits otherwise.
uint32_t to_word(PeArith a, float v);

using WordIn = sc_core::sc_in<uint32_t>;
using WordOut = sc_core::sc_out<uint32_t>;
using TagIn = sc_core::sc_in<int32_t>;
using TagOut = sc_core::sc_out<int32_t>;

// What every PE shares: the clock, a synchronous reset, its arithmetic, and a planted fault.
struct PeBase : sc_core::sc_module {
  sc_core::sc_in<bool> clk, rst;
  PeArith arith = PeArith::Int;
  bool flip_once = false;  // test hook: the next edge's sum gets its low bit flipped, once

 protected:
  PeBase(const sc_core::sc_module_name& name, int lanes) : sc_core::sc_module(name), lanes_(lanes) {}
  uint32_t planted(uint32_t sum) {
    if (flip_once) sum ^= 1u, flip_once = false;
    return sum;
  }
  const int lanes_;
};

// WS / IS: the streamed word x enters from the left and moves right; the partial sum enters from
// above, takes x times the weights of the bank x names, and moves down; the two weight banks
// shift down a column when `load` says their bank is being loaded. Row 0's psum_in is tied to
// zero and its ptag_in to its own x tag (a psum starts where its token enters the column).
// With 2:4 weights (WS, sparsity.skip_2_4) x carries the four activations of every group its
// word touches (x_lanes = 4 ceil(lanes / 2)) and each bank entry has a select, the x lane its
// kept weight multiplies, shifted down beside it (a dense layer loads selects 0, 1, ...).
struct StationaryPe : PeBase {
  sc_core::sc_vector<WordIn> x_in;
  TagIn xtag_in;
  sc_core::sc_in<bool> xbank_in;
  WordIn psum_in;
  TagIn ptag_in;
  sc_core::sc_vector<WordIn> w0_in, w1_in;  // the bank registers of the PE above (row 0: the edge)
  sc_core::sc_vector<TagIn> s0_in, s1_in;   // their selects (2:4 only)
  sc_core::sc_in<bool> load, load_bank;

  sc_core::sc_vector<WordOut> x_out;
  TagOut xtag_out;
  sc_core::sc_out<bool> xbank_out;
  WordOut psum_out;
  TagOut ptag_out;
  sc_core::sc_vector<WordOut> w0_out, w1_out;
  sc_core::sc_vector<TagOut> s0_out, s1_out;

  SC_HAS_PROCESS(StationaryPe);
  // `x_lanes` > lanes: a 2:4 PE (with selects).
  StationaryPe(const sc_core::sc_module_name& name, int lanes, int x_lanes);

 private:
  void edge();
  const int x_lanes_;
  const bool select_;
};

// OS: A enters from the left and moves right, B from above and moves down; the accumulator adds
// their product every edge. When A's word is the last of its output (a_last), the sum goes out on
// the result port (res_valid) and the accumulator restarts from zero.
struct OutputStationaryPe : PeBase {
  sc_core::sc_vector<WordIn> a_in, b_in;
  TagIn atag_in, btag_in;
  sc_core::sc_in<bool> alast_in;

  sc_core::sc_vector<WordOut> a_out, b_out;
  TagOut atag_out, btag_out;
  sc_core::sc_out<bool> alast_out;
  WordOut acc_out, res_out;
  sc_core::sc_out<bool> res_valid;

  SC_HAS_PROCESS(OutputStationaryPe);
  OutputStationaryPe(const sc_core::sc_module_name& name, int lanes);

 private:
  void edge();
};

}  // namespace cstsim::structural
