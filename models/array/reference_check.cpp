#include "models/array/reference_check.h"

#include <cstring>

#include <fmt/format.h>

namespace cstsim {

int64_t accumulation_chunk(const FoldPlan& plan) {
  return roles(plan.dataflow).stationary_outputs ? plan.k_values : int64_t(plan.R) * plan.pack;
}

bool cut_for_check(const ChipCut& cut, int chips) {
  return chips > 1 && (cut.dim == ChipCut::Dim::N || cut.dim == ChipCut::Dim::K);
}

GemmData pass_operands(const FoldPlan& plan, const PassPlan& pass, Precision types, uint64_t seed, const ChipCut& cut,
                       int chip, int chips) {
  if (pass.a_type) types.activation = pass.a_type;
  if (pass.b_type) types.weight = pass.b_type;
  if (!cut_for_check(cut, chips))
    return make_random_gemm(plan.M, plan.N, plan.nominal_k(), seed, types, plan.sparse_2_4, plan.input_density);
  const bool n_cut = cut.dim == ChipCut::Dim::N;
  const GemmData whole = make_random_gemm(plan.M, n_cut ? plan.N * chips : plan.N,
                                          n_cut ? plan.nominal_k() : plan.nominal_k() * chips, seed, types,
                                          plan.sparse_2_4, plan.input_density);
  return chip < 0 ? whole : chip_share(whole, n_cut, chip, chips);
}

std::vector<std::string> reference_problems(const RegisterArray& grid, const std::vector<ArrayEvent>& expected,
                                            int64_t grid_end, int64_t timing_end, const ArrayLayerStats& stats,
                                            const GemmData& data) {
  std::vector<std::string> problems;
  // Timing: every event of the register grid must be where the closed form puts it.
  if (std::string d = first_difference(expected, grid.events()); !d.empty()) problems.push_back("timing: " + d);
  if (grid_end != timing_end)
    problems.push_back(fmt::format("timing: layer ends at cycle {}, timing mode says {}", grid_end, timing_end));
  // Values: the reference GEMM in the grid's types and order, compared bit for bit.
  const std::vector<double> want = reference_gemm(data, accumulation_chunk(grid.plan()));
  const std::vector<double> got = grid.result();
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::memcmp(&want[i], &got[i], sizeof(double)) != 0) {
      problems.push_back(fmt::format("value: C[{}][{}] = {}, reference GEMM gives {} ({})", int64_t(i) / data.N,
                                     int64_t(i) % data.N, got[i], want[i], to_string(data.operand)));
      break;
    }
  }
  // Traffic and work: counted word by word, against the closed form.
  const EdgeCounts& c = grid.counts();
  const EdgeCounts& e = stats.sram;
  if (c.ifmap_reads != e.ifmap_reads || c.filter_reads != e.filter_reads || c.ofmap_writes != e.ofmap_writes)
    problems.push_back(fmt::format("sram: counted ifmap/filter/ofmap {}/{}/{}, expected {}/{}/{}", c.ifmap_reads,
                                   c.filter_reads, c.ofmap_writes, e.ifmap_reads, e.filter_reads, e.ofmap_writes));
  if (grid.mac_count() != stats.macs)
    problems.push_back(fmt::format("macs: counted {}, expected {}", grid.mac_count(), stats.macs));
  // Zero gating: every zero A value meets the N columns of B, and padding lanes hold zeros too.
  const FoldPlan& p = grid.plan();
  if (p.input_density < 1) {
    const int64_t want_gated = p.zero_inputs() * p.N + p.M * p.N * (p.K * p.pack - p.k_values);
    if (grid.gated_count() != want_gated)
      problems.push_back(fmt::format("gating: counted {} lanes with a zero activation, expected {}", grid.gated_count(),
                                     want_gated));
  }
  return problems;
}

}  // namespace cstsim
