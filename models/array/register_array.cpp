#include "models/array/register_array.h"

#include "models/array/array_dataflow.h"
#include "models/array/fold_timing.h"

#include <limits>

#include <fmt/format.h>

namespace cstsim {


RegisterArray::RegisterArray(const FoldPlan& plan, FoldPipeline pipeline, int64_t start)
    : plan_(plan), pipeline_(pipeline), start_(start), R_(plan.R), C_(plan.C), T_(plan.T),
      now_(start), count_gated_(plan.input_density < 1), slot_(scalesim_fold_length(plan)), drained_(plan.folds.size(), 0) {
  // Tokens are tagged fold*T + t in 32 bits.
  if (double(plan.folds.size()) * double(plan.T) >= double(std::numeric_limits<int32_t>::max()))
    throw std::invalid_argument(fmt::format(
        "layer too large for the register-level mode ({} folds x {} stream rows)",
        plan.folds.size(), plan.T));
}

void RegisterArray::fold_ended(int fold, int64_t cycle) {
  emit(cycle, EventKind::FoldEnd, fold);
  ++folds_ended_;
  end_cycle_ = std::max(end_cycle_, cycle);
  // SCALE-Sim's memory may stall the last fold's rows too: the layer ends when it has served them.
  const std::vector<int64_t>& stalls = plan_.scalesim_stalls;
  if (scalesim() && !stalls.empty() && fold + 1 == fold_count())
    end_cycle_ = std::max(end_cycle_, cycle + stalls.back() - stalls[size_t(fold)]);
}

void RegisterArray::fold_drained(int fold) {
  if (scalesim()) drained_[size_t(fold)] = 1;
  else fold_ended(fold, now_);
}

void RegisterArray::close_slot() {
  if (!scalesim() || next_slot_end_ >= fold_count() || now_ != slot_start(next_slot_end_) + slot_ - 1) return;
  if (!drained_[size_t(next_slot_end_)])
    throw ArrayHazard(fmt::format("fold {} still in flight at the end of its slot", next_slot_end_));
  fold_ended(next_slot_end_++, now_);
}


std::unique_ptr<RegisterArray> make_register_array(const FoldPlan& plan, FoldPipeline pipeline,
                                                   int64_t start, const GemmData& data) {
  if (data.M != plan.M || data.N != plan.N || data.K != plan.nominal_k() || data.sparse_2_4 != plan.sparse_2_4)
    throw std::invalid_argument("operand shape does not match the fold plan");
  return array_dataflow(plan.dataflow).make_grid(plan, pipeline, start, data);
}

RegisterRun run_register_level(const FoldPlan& plan, FoldPipeline pipeline, int64_t start,
                               const GemmData& data) {
  auto grid = make_register_array(plan, pipeline, start, data);
  while (!grid->done()) grid->step();
  RegisterRun run;
  run.events = grid->events();
  run.end_cycle = grid->end_cycle();
  run.counts = grid->counts();
  run.macs = grid->mac_count();
  run.pe_updates = grid->pe_updates();
  run.result = grid->result();
  return run;
}

}  // namespace cstsim
