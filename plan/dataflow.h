#pragma once
// The dataflow vocabulary every floor above shares: which dataflow a layer runs, how
// the array pipelines its folds, and - in one table - which GEMM dimension plays which
// part in each dataflow. Names as the YAML spells them.
#include <cstdint>

namespace cstsim {

enum class Dataflow { WS, OS, IS };
enum class FoldPipeline { ScaleSim, Overlapped };

const char* to_string(Dataflow d);
const char* to_string(FoldPipeline p);

// C[M x N] = A[M x K] . B[K x N]. A dataflow holds an Sr x Sc tile stationary in the
// PEs and streams T vectors through it:
//   WS: Sr = K, Sc = N, T = M  (weights B stay; rows of A stream)
//   OS: Sr = M, Sc = N, T = K  (outputs C stay; A and B stream, K deep)
//   IS: Sr = K, Sc = M, T = N  (inputs A stay; columns of B stream)
// Clusters split the column folds (Sc): each owns its stationary tiles and its outputs.
// Stream passes (memory: hierarchy) cut T, which must then index independent outputs.
enum class Dim { M, N, K };
struct DataflowRoles {
  Dim Sr, Sc, T;
  bool passes_split_outputs;  // T indexes outputs (WS, IS), not a reduction (OS)
};
const DataflowRoles& roles(Dataflow d);

struct GemmDims {
  int64_t M = 0, N = 0, K = 0;
  int64_t& operator[](Dim d) { return d == Dim::M ? M : d == Dim::N ? N : K; }
  int64_t operator[](Dim d) const { return d == Dim::M ? M : d == Dim::N ? N : K; }
};

}  // namespace cstsim
