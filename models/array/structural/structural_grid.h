#pragma once
// A grid of R x C structural PEs (structural_pe.h) wired by sc_signals, with the driver that
// feeds its edges and the check that compares it with a register grid (register_array.h) cycle
// for cycle. The caller steps the register grid; after each step, cycle() drives the edge words
// that cycle carries (from the fold plan, the operands and the fold starts the register grid's
// controller chose, with the same skew), gives the PEs one clock edge and compares every PE's
// registers with the register grid's, and, once the layer is done, the outputs that left the
// array with the register grid's result. Called from a SystemC thread (it waits delta cycles).
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <systemc>

#include "models/array/structural/structural_pe.h"
#include "plan/dataflow.h"

namespace cstsim {

class RegisterArray;
struct GemmData;

namespace structural {

// The structural grid and the register grid disagree: a model bug (exit 3). The message names
// the cycle, the PE and the signal.
class StructuralMismatch : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// What every structural grid has: its PEs' clock and reset, one clock edge at a time, the
// mismatch message naming cycle, PE and signal, and the figures summary.json reports.
class ClockedGrid : public sc_core::sc_module {
 public:
  int rows() const { return R_; }
  int cols() const { return C_; }
  // Test hook: PE(row, col) adds wrong (its sum's low bit flipped) at the edge of `cycle`, once.
  void plant_fault(int64_t cycle, int row, int col);
  // Adds every PE's registers (and the clock, reset and edge links) to `tf`, named
  // <grid>.pe_<row>_<col>.<signal>. Before sc_start.
  virtual void trace(sc_core::sc_trace_file* tf) const = 0;

  int64_t cycles_compared() const { return cycles_; }
  int64_t passes() const { return passes_; }

 protected:
  SC_HAS_PROCESS(ClockedGrid);
  ClockedGrid(const sc_core::sc_module_name& name, int rows, int cols, sc_core::sc_time period);
  virtual PeBase& pe(int row, int col) = 0;
  // One rising edge; the planted fault armed first when `cycle` is its cycle.
  void clock_edge(int64_t cycle);
  // One edge with the reset high: every PE cleared.
  void reset();

  [[noreturn]] void mismatch(int64_t c, int row, int col, const std::string& signal, int64_t reg, int64_t got) const;
  void expect(int64_t c, int row, int col, const char* signal, int64_t reg, int64_t got) const {
    if (reg != got) mismatch(c, row, col, signal, reg, got);
  }
  void trace_common(sc_core::sc_trace_file* tf) const;
  std::string pe_name(int row, int col, const char* signal) const;

  const int R_, C_;
  // The clock rises from the caller's thread and falls in this module's own process.
  sc_core::sc_signal<bool, sc_core::SC_MANY_WRITERS> clk_{"clk"};
  sc_core::sc_signal<bool> rst_{"rst"};
  int64_t cycles_ = 0, passes_ = 0;

 private:
  void edge();
  void fall();

  const sc_core::sc_time half_;
  sc_core::sc_event fall_;
  int64_t fault_cycle_ = -1;
  int fault_row_ = 0, fault_col_ = 0;
};

class StructuralGrid : public ClockedGrid {
 public:
  int lanes() const { return L_; }
  virtual bool runs(Dataflow d) const = 0;
  virtual bool takes_2_4() const { return false; }  // its PEs also run 2:4-compressed weights

  // A new layer (pass) on `reg`, not yet stepped: one reset edge clears every PE.
  void begin(const RegisterArray& reg, const GemmData& data);
  // After each step of the register grid (throws StructuralMismatch).
  void cycle();

 protected:
  StructuralGrid(const sc_core::sc_module_name& name, int rows, int cols, int lanes, sc_core::sc_time period);
  // The edge words of cycle c; the comparison after its edge (outputs collected into result_).
  virtual void drive(int64_t c) = 0;
  virtual void compare(int64_t c) = 0;

  // The 32-bit words of `lanes` lanes (-1: the grid's) at `reg` (a register grid's) against signals.
  template <class Signals>
  void expect_lanes(int64_t c, int row, int col, const char* signal, const void* reg, const Signals& got,
                    size_t first, int lanes = -1) const;
  // A result word that left PE(row, col) at cycle c for output `index` (WS/IS: added to it).
  void output(int64_t c, int row, int col, size_t index, uint32_t value, bool add);

  const int L_;
  const RegisterArray* reg_ = nullptr;
  const GemmData* data_ = nullptr;
  PeArith arith_ = PeArith::Int;
  // Each fold's weight-load start (FoldStart) and stream start (FirstInput), as the register
  // grid's controller chose them; -1 until then.
  std::vector<int64_t> load_start_, stream_start_;

 private:
  void follow_events();
  void check_results() const;

  size_t events_seen_ = 0;
  std::vector<uint32_t> result_;       // the outputs as they left the array, M x N
  std::vector<int64_t> result_cycle_;  // the cycle each last changed
};

template <class Signals>
void StructuralGrid::expect_lanes(int64_t c, int row, int col, const char* signal, const void* reg,
                                  const Signals& got, size_t first, int lanes) const {
  const int n = lanes < 0 ? L_ : lanes;
  for (int q = 0; q < n; ++q) {
    uint32_t want;
    std::memcpy(&want, static_cast<const char*>(reg) + 4 * q, 4);
    const uint32_t have = got[first + size_t(q)].read();
    if (want != have) mismatch(c, row, col, n > 1 ? std::string(signal) + "_" + std::to_string(q) : signal, want, have);
  }
}

// The grid for `dataflow` (ws, is: StationaryPe; os: OutputStationaryPe); `period` is the
// array's clock (the clock signal falls half a period after each edge). `sparse_2_4` (ws): PEs
// that also take 2:4-compressed weights (sparsity.skip_2_4).
std::unique_ptr<StructuralGrid> make_structural_grid(const char* name, Dataflow dataflow, int rows, int cols,
                                                     int lanes, sc_core::sc_time period, bool sparse_2_4 = false);

}  // namespace structural
}  // namespace cstsim
