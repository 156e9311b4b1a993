#pragma once
// The structural mode in a run (--verify=structural): one structural grid per array (chip,
// cluster), elaborated before sc_start by StructuralArrays, and the array module's reference
// mode calling into it once per pass (StructuralPass) and once per cycle. Without a
// StructuralArrays alive, StructuralPass does nothing.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "plan/dataflow.h"

namespace sc_core {
class sc_trace_file;
}

namespace cstsim {

class RegisterArray;
struct GemmData;
struct RsLayerPlan;
struct RsData;
class RsGridView;
namespace structural {
class ClockedGrid;
class StructuralGrid;
class RsStructuralGrid;
}

class StructuralPass {
 public:
  // At a pass's start, `grid` built and not yet stepped: resets the array's structural grid.
  StructuralPass(int chip, int cluster, const RegisterArray& grid, const GemmData& data);
  // After each step of the register grid: the PEs' clock edge and the comparison (exit 3 on a
  // mismatch, naming cycle, PE and signal).
  void cycle();

 private:
  structural::StructuralGrid* grid_ = nullptr;
};

// Row stationary: a layer's passes on the register grid (rs_grid.h), whose probe calls cycle().
class RsStructuralPass {
 public:
  // Before the layer's first cycle: resets the array's structural grid.
  RsStructuralPass(int chip, int cluster, const RsLayerPlan& plan, const RsData& data);
  bool active() const { return grid_ != nullptr; }
  // After each cycle of the register grid (exit 3 on a mismatch, naming cycle, PE and signal).
  void cycle(const RsGridView& grid);
  // After its last: every step's psums out.
  void finish();

 private:
  structural::RsStructuralGrid* grid_ = nullptr;
};

struct StructuralConfig {
  int rows = 0, cols = 0, lanes = 1;  // the array, and the operand lanes of a PE word (pack)
  Dataflow dataflow = Dataflow::WS;
  int chips = 1, clusters = 1;
  double clock_hz = 1e9;
  std::string vcd;  // the PE signals' VCD file without its ".vcd" ("": none)
  int rs_filter_spad = 224, rs_ifmap_spad = 12, rs_psum_spad = 24;  // dataflow rs: the PEs' scratchpads (words)
  bool sparse_2_4 = false;  // sparsity.skip_2_4 (ws): PEs that also take 2:4-compressed weights
};

class StructuralArrays {
 public:
  explicit StructuralArrays(const StructuralConfig& config);  // elaborates; before sc_start
  ~StructuralArrays();
  StructuralArrays(const StructuralArrays&) = delete;
  StructuralArrays& operator=(const StructuralArrays&) = delete;

  int64_t cycles_compared() const;  // over every array
  int64_t passes() const;  // the register grid's passes compared (row stationary: processing passes)
  int64_t pes() const;  // structural PEs elaborated
  // Writes out and closes the VCD file (after sc_start; idempotent).
  void close_trace();

 private:
  std::vector<std::unique_ptr<structural::ClockedGrid>> grids_;
  sc_core::sc_trace_file* vcd_ = nullptr;
};

}  // namespace cstsim
