#include "models/array/array_stats.h"

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
  }
  const ArrayDataflow& df = array_dataflow(p.dataflow);
  ArrayLayerStats s;
  s.macs = p.M * p.N * p.k_values;
  s.mapping_efficiency = p.mapping_efficiency();
  s.sram = df.sram_counts(p, sums);
  s.compute_utilization = s.mapping_efficiency * double(p.T) / df.scalesim_utilization_window(p);
  s.scalesim_ofmap_writes = s.sram.ofmap_writes + df.scalesim_extra_ofmap_writes(p);
  s.psum_reads = psum_reads;
  return s;
}

}  // namespace cstsim
