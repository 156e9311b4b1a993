#pragma once
// Register-level reference mode: real operand values move through the PE
// registers one cycle at a time, and a small controller decides when folds
// start from what it observes in those registers (never from the closed-form
// timing). It defines the array's timing; fold_timing.h must agree with it.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "models/array/array_events.h"
#include "plan/fold_plan.h"
#include "models/array/gemm_data.h"

namespace cstsim {

class TileSource;

// Raised when the registers show a structural hazard the controller should
// have prevented (two results on one bus, mixed tokens in a PE): a model bug.
class ArrayHazard : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// What the registers did in the last stepped cycle (the occupancy the trace reports).
struct CycleActivity {
  int64_t active_pes = 0;  // PEs that performed a mapped MAC
  int64_t in_rows = 0;     // row edge links that carried an operand in
  int64_t in_cols = 0;     // column edge links that carried an operand in (weight load or B stream)
  int64_t out = 0;         // output links that carried a result out
  // Inside the array (ArrayTraceIds): operand words that hopped from one PE to the next; WS,
  // IS: live partial sums written (every row, pass-through included) and those read from the
  // PE above (one hop each); stationary words written and moved down the shift chain.
  int64_t operand_hops = 0;
  int64_t psum_writes = 0, psum_moves = 0;
  int64_t stationary_writes = 0, stationary_hops = 0;
};

// One PE's registers after the last step, read-only, for the structural mode
// (models/array/structural/), which compares its PE signals with them. Values are 32-bit words
// (an int32 register or a float's bits); operands have `lanes` lanes (the plan's pack), valid
// until the next step. WS/IS: x is the streamed operand and x_tag its token (-1: none), x_bank
// the weight bank it meets, w the two banks, sum/sum_tag the partial sum passed down. OS: x is A
// (x_tag, x_last its token and last-step mark), y is B (y_tag), sum the accumulator, and
// `out` the result it put on its column's bus this cycle (out_valid: one that is kept). WS with
// 2:4 weights: x has the four activations of every group its word touches (4 ceil(lanes / 2)
// lanes) and sel[b] the x lane each kept weight of bank b takes (null when dense).
struct PeRegisters {
  const void* x = nullptr;
  const void* y = nullptr;
  const void* w[2] = {nullptr, nullptr};
  const uint8_t* sel[2] = {nullptr, nullptr};
  int32_t x_tag = -1, y_tag = -1, sum_tag = -1;
  uint8_t x_bank = 0, x_last = 0;
  uint32_t sum = 0;
  bool out_valid = false;
  uint32_t out = 0;
};

struct EdgeCounts {  // operand words that crossed the array edge (SRAM side)
  int64_t ifmap_reads = 0;
  int64_t filter_reads = 0;
  int64_t ofmap_writes = 0;
};

class RegisterArray {
 public:
  virtual ~RegisterArray() = default;
  // Advances one clock cycle.
  virtual void step() = 0;
  // memory: channel / hbm: the weight load of a fold waits for its tile from `tiles`.
  void attach_tiles(TileSource* tiles) { tiles_ = tiles; }
  // Flips the low bit of PE(row, col)'s sum register: lets tests prove the checker catches faults.
  virtual void corrupt(int row, int col) = 0;
  bool done() const { return folds_ended_ == int64_t(plan_.folds.size()); }
  const FoldPlan& plan() const { return plan_; }
  FoldPipeline pipeline() const { return pipeline_; }
  // PE(row, col)'s registers now (see PeRegisters); false if this grid does not expose them.
  virtual bool pe_registers(int /*row*/, int /*col*/, PeRegisters& /*out*/) const { return false; }
  int64_t now() const { return now_; }
  int64_t end_cycle() const { return end_cycle_; }
  const std::vector<ArrayEvent>& events() const { return events_; }
  const EdgeCounts& counts() const { return counts_; }
  // Active PE-cycles: one per PE per cycle that performed a real MAC.
  int64_t mac_count() const { return macs_; }
  // Zero gating (plan().input_density < 1): lanes of active PEs whose A value was zero, counted
  // from the registers (padding lanes, zeros too, included).
  int64_t gated_count() const { return gated_; }
  // The layer's result C = A*B (M x N, row-major; integers as their accumulator's signed
  // value, floats exactly); complete once done().
  virtual std::vector<double> result() const = 0;
  int64_t pe_updates() const { return pe_updates_; }
  const CycleActivity& activity() const { return activity_; }
  // WS/IS: changes of the weight banks' contents, in elements, as (cycle, delta);
  // cleared by the call. (OS accumulators are live exactly while a PE is active.)
  std::vector<std::pair<int64_t, int64_t>> take_residency_changes() { return std::exchange(residency_, {}); }

 protected:
  RegisterArray(const FoldPlan& plan, FoldPipeline pipeline, int64_t start);
  void emit(int64_t cycle, EventKind kind, int fold, int64_t index = 0) {
    events_.push_back({cycle, kind, fold, index});
  }
  void fold_ended(int fold, int64_t cycle);
  bool scalesim() const { return pipeline_ == FoldPipeline::ScaleSim; }
  int fold_count() const { return int(plan_.folds.size()); }
  // The fold's last output has left the array: it ends now (overlapped) or at its slot end (scalesim).
  void fold_drained(int fold);
  // scalesim: may fold g take the array now (its slot has come and fold g-1 has ended)?
  // SCALE-Sim's slot of fold g: L cycles from start + g L, later by the stalls its memory added
  // before it (FoldPlan::scalesim_stalls, InterfaceBandwidth: USER).
  int64_t slot_start(int fold) const {
    return start_ + int64_t(fold) * slot_ + (plan_.scalesim_stalls.empty() ? 0 : plan_.scalesim_stalls[size_t(fold)]);
  }
  bool slot_open(int fold) const { return now_ >= slot_start(fold) && folds_ended_ >= fold; }
  // scalesim: ends the fold whose slot closes this cycle; it must have drained.
  void close_slot();

  const FoldPlan plan_;
  const FoldPipeline pipeline_;
  const int64_t start_;
  const int R_, C_;
  const int64_t T_;
  int64_t now_;
  int64_t end_cycle_ = -1;
  int64_t folds_ended_ = 0;
  int64_t macs_ = 0;
  int64_t gated_ = 0;
  const bool count_gated_;  // plan_.input_density < 1
  int64_t pe_updates_ = 0;
  EdgeCounts counts_;
  std::vector<ArrayEvent> events_;
  const int64_t slot_;             // SCALE-Sim's fold length L
  std::vector<char> drained_;
  int next_slot_end_ = 0;
  CycleActivity activity_;
  std::vector<std::pair<int64_t, int64_t>> residency_;
  TileSource* tiles_ = nullptr;
};

std::unique_ptr<RegisterArray> make_register_array(const FoldPlan& plan, FoldPipeline pipeline,
                                                   int64_t start, const GemmData& data);

struct RegisterRun {
  std::vector<ArrayEvent> events;
  int64_t end_cycle = 0;
  EdgeCounts counts;
  int64_t macs = 0;
  int64_t pe_updates = 0;
  std::vector<double> result;
};

// Steps a register array to completion without SystemC (tests, benchmarks).
RegisterRun run_register_level(const FoldPlan& plan, FoldPipeline pipeline, int64_t start,
                               const GemmData& data);

}  // namespace cstsim
