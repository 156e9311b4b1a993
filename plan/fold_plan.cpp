#include "plan/fold_plan.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>

namespace cstsim {

double FoldPlan::mapping_efficiency() const {
  double used = 0;
  for (const Fold& f : folds) used += double(f.rows_used) * f.cols_used;
  return used / (double(fold_count()) * R * C);
}

std::pair<int64_t, int64_t> fold_grid(Dataflow dataflow, int R, int C, int64_t M, int64_t N, int64_t K, int pack) {
  const DataflowRoles& r = roles(dataflow);
  const GemmDims dims{M, N, (K + pack - 1) / pack};
  return {(dims[r.Sr] + R - 1) / R, (dims[r.Sc] + C - 1) / C};
}

FoldPlan make_fold_plan(Dataflow dataflow, int R, int C, int64_t M, int64_t N, int64_t K, int pack) {
  if (R <= 0 || C <= 0 || M <= 0 || N <= 0 || K <= 0 || pack <= 0)
    throw std::invalid_argument("make_fold_plan: sizes must be positive");
  FoldPlan p;
  p.dataflow = dataflow;
  p.R = R;
  p.C = C;
  p.M = M;
  p.N = N;
  p.K = (K + pack - 1) / pack;
  p.pack = pack;
  p.k_values = K;
  const DataflowRoles& r = roles(dataflow);
  const GemmDims dims{M, N, p.K};
  p.Sr = dims[r.Sr];
  p.Sc = dims[r.Sc];
  p.T = dims[r.T];
  std::tie(p.row_folds, p.col_folds) = fold_grid(dataflow, R, C, M, N, K, pack);
  p.folds.reserve(size_t(p.row_folds * p.col_folds));
  for (int64_t fc = 0; fc < p.col_folds; ++fc) {
    for (int64_t fr = 0; fr < p.row_folds; ++fr) {
      Fold f;
      f.index = int(p.folds.size());
      f.row0 = fr * R;
      f.col0 = fc * C;
      f.rows_used = int(std::min<int64_t>(R, p.Sr - f.row0));
      f.cols_used = int(std::min<int64_t>(C, p.Sc - f.col0));
      f.t = p.T;
      p.folds.push_back(f);
    }
  }
  return p;
}

int64_t FoldPlan::stream_words(int64_t row0, int64_t rows) const {
  if (!sparse_2_4) return rows;
  const int64_t first = 4 * (row0 * pack / 2), last = std::min(nominal_k(), 4 * (((row0 + rows) * pack - 1) / 2 + 1));
  return (last - first + pack - 1) / pack;
}

FoldPlan with_stream(const FoldPlan& whole, int64_t t) {
  const Dim stream = roles(whole.dataflow).T;
  if (stream == Dim::K && t == whole.K) return whole;
  GemmDims dims{whole.M, whole.N, whole.k_values};
  dims[stream] = stream == Dim::K ? t * whole.pack : t;  // t counts words when the stream is K (OS)
  FoldPlan p = make_fold_plan(whole.dataflow, whole.R, whole.C, dims.M, dims.N, dims.K, whole.pack);
  p.sparse_2_4 = whole.sparse_2_4;
  p.input_density = whole.input_density;
  return p;
}

FoldPlan with_k_chunks(const FoldPlan& whole, int64_t n) {
  if (n == 1) return whole;
  if (!roles(whole.dataflow).stationary_outputs || whole.k_chunks != 1 || n < 1 || n > whole.T)
    throw std::invalid_argument("with_k_chunks: K chunks are for an OS plan not yet chunked, 1 <= n <= T");
  FoldPlan p = whole;
  p.k_chunks = n;
  p.folds.clear();
  for (const Fold& tile : whole.folds) {
    int64_t k0 = 0;
    for (int64_t i = 0; i < n; ++i) {
      Fold f = tile;
      f.index = int(p.folds.size());
      f.k0 = k0;
      f.t = even_part(whole.T, n, i);
      f.chunk = int(i);
      f.drains = i + 1 == n;
      k0 += f.t;
      p.folds.push_back(f);
    }
  }
  return p;
}

int64_t FoldPlan::zero_count(int64_t values, double density) {
  if (density >= 1) return 0;
  return std::min(values, int64_t(std::floor((long double)values * (1.0L - (long double)density))));
}

}  // namespace cstsim
