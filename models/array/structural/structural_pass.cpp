#include "models/array/structural/structural_pass.h"

#include <cmath>
#include <map>

#include <fmt/format.h>
#include <sysc/tracing/sc_tracing_ids.h>

#include "models/array/structural/rs_structural_grid.h"
#include "models/array/structural/structural_grid.h"

namespace cstsim {
namespace {

// The grids of the live StructuralArrays, by (chip, cluster): one run per process.
std::map<std::pair<int, int>, structural::ClockedGrid*>& registry() {
  static std::map<std::pair<int, int>, structural::ClockedGrid*> grids;
  return grids;
}

template <class Grid>
Grid* grid_of(int chip, int cluster) {
  const auto it = registry().find({chip, cluster});
  return it == registry().end() ? nullptr : dynamic_cast<Grid*>(it->second);
}

}  // namespace

StructuralPass::StructuralPass(int chip, int cluster, const RegisterArray& grid, const GemmData& data)
    : grid_(grid_of<structural::StructuralGrid>(chip, cluster)) {
  if (grid_) grid_->begin(grid, data);
}

void StructuralPass::cycle() {
  if (grid_) grid_->cycle();
}

RsStructuralPass::RsStructuralPass(int chip, int cluster, const RsLayerPlan& plan, const RsData& data)
    : grid_(grid_of<structural::RsStructuralGrid>(chip, cluster)) {
  if (grid_) grid_->begin(plan, data);
}

void RsStructuralPass::cycle(const RsGridView& grid) {
  if (grid_) grid_->cycle(grid);
}

void RsStructuralPass::finish() {
  if (grid_) grid_->finish();
}

StructuralArrays::StructuralArrays(const StructuralConfig& c) {
  const sc_core::sc_time period(std::round(1e12 / c.clock_hz), sc_core::SC_PS);  // the array module's
  if (!c.vcd.empty()) {
    vcd_ = sc_core::sc_create_vcd_trace_file(c.vcd.c_str());
    // The simulation's own resolution, without SystemC's note saying so on stderr.
    sc_core::sc_report_handler::set_actions(sc_core::SC_ID_TRACING_TIMESCALE_UNIT_, sc_core::SC_DO_NOTHING);
    vcd_->set_time_unit(1, sc_core::SC_PS);
  }
  for (int chip = 0; chip < c.chips; ++chip)
    for (int cluster = 0; cluster < c.clusters; ++cluster) {
      const std::string name = fmt::format("structural_chip{}_cluster{}", chip, cluster);
      if (c.dataflow == Dataflow::RS)
        grids_.push_back(std::make_unique<structural::RsStructuralGrid>(
            name.c_str(), c.rows, c.cols, structural::RsPeSizes{c.rs_filter_spad, c.rs_ifmap_spad, c.rs_psum_spad},
            period));
      else
        grids_.push_back(
            structural::make_structural_grid(name.c_str(), c.dataflow, c.rows, c.cols, c.lanes, period, c.sparse_2_4));
      registry()[{chip, cluster}] = grids_.back().get();
      if (vcd_) grids_.back()->trace(vcd_);
    }
}

StructuralArrays::~StructuralArrays() {
  close_trace();
  registry().clear();
}

void StructuralArrays::close_trace() {
  if (vcd_) sc_core::sc_close_vcd_trace_file(vcd_);
  vcd_ = nullptr;
}

int64_t StructuralArrays::cycles_compared() const {
  int64_t n = 0;
  for (const auto& g : grids_) n += g->cycles_compared();
  return n;
}

int64_t StructuralArrays::passes() const {
  int64_t n = 0;
  for (const auto& g : grids_) n += g->passes();
  return n;
}

int64_t StructuralArrays::pes() const {
  int64_t n = 0;
  for (const auto& g : grids_) n += int64_t(g->rows()) * g->cols();
  return n;
}

}  // namespace cstsim
