#include "models/array/array_stats.h"

#include "models/array/fold_timing.h"

namespace cstsim {

ArrayLayerStats compute_layer_stats(const FoldPlan& p) {
  int64_t sum_r = 0, sum_c = 0, sum_rc = 0;
  for (const Fold& f : p.folds) {
    sum_r += f.rows_used;
    sum_c += f.cols_used;
    sum_rc += int64_t(f.rows_used) * f.cols_used;
  }
  ArrayLayerStats s;
  s.macs = p.M * p.N * p.K;
  s.mapping_efficiency = p.mapping_efficiency();
  const int64_t streamed = p.T * sum_r;  // stream words pushed into used rows
  switch (p.dataflow) {
    case Dataflow::WS:
      s.sram = {streamed, sum_rc, p.T * sum_c};
      break;
    case Dataflow::IS:
      s.sram = {sum_rc, streamed, p.T * sum_c};
      break;
    case Dataflow::OS:
      s.sram = {streamed, p.T * sum_c, sum_rc};
      break;
  }
  // SCALE-Sim v2's compute utilization, fitted to its reports (golden data in
  // ../shared/data/scalesim-v2): OS uses the fold length L, WS and IS use L+C-1.
  // All golden runs have R = C, so C-1 versus R-1 is not pinned down by data.
  const int64_t L = scalesim_fold_length(p);
  const double window = p.dataflow == Dataflow::OS ? double(L) : double(L + p.C - 1);
  s.compute_utilization = s.mapping_efficiency * double(p.T) / window;
  s.scalesim_ofmap_writes = s.sram.ofmap_writes;
  if (p.dataflow == Dataflow::OS) s.scalesim_ofmap_writes += p.fold_count() * (p.R + p.C);
  return s;
}

}  // namespace cstsim
