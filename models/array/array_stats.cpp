#include "models/array/array_stats.h"

#include <algorithm>

#include "models/array/array_dataflow.h"

namespace cstsim {

ArrayLayerStats compute_layer_stats(const FoldPlan& p) {
  FoldSums sums;
  int64_t psum_reads = 0;
  const bool sums_in_pes = roles(p.dataflow).stationary_outputs;
  for (const Fold& f : p.folds) {
    if (!sums_in_pes && f.row0 > 0) psum_reads += p.T * f.cols_used;
    sums.rows += f.rows_used;
    sums.cols += f.cols_used;
    sums.pes += int64_t(f.rows_used) * f.cols_used;
    sums.stream_rows += f.t * f.rows_used;
    sums.stream_cols += f.t * f.cols_used;
    if (f.drains) sums.drained_pes += int64_t(f.rows_used) * f.cols_used;
  }
  const ArrayDataflow& df = array_dataflow(p.dataflow);
  ArrayLayerStats s;
  s.macs = p.M * p.N * p.k_values;
  // SCALE-Sim's two averages, summed fold by fold in its order (column folds outside) and
  // divided as it divides, so that its reports match to the last bit.
  const double pes = double(p.R) * p.C, window = pes * df.scalesim_utilization_window(p);
  double mapped = 0, computing = 0;
  for (int64_t fc = 0; fc < p.col_folds; ++fc)
    for (int64_t fr = 0; fr < p.row_folds; ++fr) {
      const int64_t used = std::min<int64_t>(p.R, p.Sr - fr * p.R) * std::min<int64_t>(p.C, p.Sc - fc * p.C);
      mapped += double(used) / pes;
      computing += double(used * p.T) / window;
    }
  const double tiles = double(p.row_folds * p.col_folds);  // K chunks of a tile count once
  s.mapping_efficiency = mapped / tiles;
  s.sram = df.sram_counts(p, sums);
  s.compute_utilization = computing / tiles;
  s.scalesim_ofmap_writes = s.sram.ofmap_writes + df.scalesim_extra_ofmap_writes(p);
  s.psum_reads = psum_reads;
  return s;
}

}  // namespace cstsim
