#pragma once
// A multi-chip run's pieces that come from the arch (chips > 1): the interconnect's parameters and
// the rate at which a chip adds what it receives in an all-reduce, and the run's `chips` report.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/array/layer_result.h"
#include "models/interconnect/chip_set.h"
#include "models/vector/vector_result.h"
#include "plan/plan.h"
#include "sim/config/arch_spec.h"
#include "sim/run/run_workloads.h"
#include "sim/workload/data_parallel.h"
#include "sim/workload/workload.h"

namespace cstsim {

// A received chunk is added to the chip's own on its vector unit before it goes on: per value one
// add on a lane, and two reads and a write through its ports, whichever is slower, at the arch's
// clock and stored value width (the unit's rates: the addition is not queued on the unit's model;
// a collective of wider values, a row split's partial sums, runs at its own width's rate,
// ic::ChipSetParams::reduce_ps_per_byte). 0 without a vector unit.
double reduce_ps_per_byte(const ArchSpec& a);

// The arch's interconnect (interconnect.*, its link preset) for `chips` chips.
ic::Topology chip_topology(const ArchSpec& a);
ic::ChipSetParams chip_set_params(const ArchSpec& a);

// summary.json's `chips`: the split, each chip's end and MACs (counted by its arrays), every
// collective as it ran, every directed link's bytes, busy time and energy, and Γ_comm's edges
// between chips with the synchronizations.
// Cycles a chip spent on the work every chip does whole (Workload::whole_on_every_chip): the spans
// of those layers and kernels as they ran (at most `end_cycle`, the first cycle after the chip's run).
int64_t whole_work_cycles(const Workload& share, const Plan& plan, const std::vector<ArrayLayerResult>& layers,
                          const std::vector<VectorKernelResult>& vector, const std::vector<FlashKernelResult>& flash,
                          int64_t end_cycle);

// `shares`: every chip's workload; `whole_cycles`: per chip, whole_work_cycles. Pipeline stages add `pipeline`: each stage's layers and its idle
// time, counted (waiting for a micro-batch, sending, done before the wall), against GPipe's bubble.
nlohmann::ordered_json chips_json(const ArchSpec& a, const std::vector<Workload>& shares, const ic::ChipSet& chips,
                                  const std::vector<int64_t>& end_cycle, const std::vector<int64_t>& macs,
                                  const std::vector<int64_t>& whole_cycles);

// The run's collectives in ChipSet's order: the plan's when every chip runs the same share, else
// (pipeline stages) every stage's sends by their id.
std::vector<CollectiveKernelPlan> run_collectives(const std::vector<Workload>& shares);

// One line for stdout under the layer table (which is chip 0's share): the chips, the wall time,
// the collectives and the interconnect's bytes.
std::string chips_line(const nlohmann::ordered_json& chips);

}  // namespace cstsim
