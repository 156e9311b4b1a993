#pragma once
// The dataflow vocabulary every floor above shares: which dataflow a layer runs, how
// the array pipelines its folds, and - in one table - which GEMM dimension plays which
// part in each dataflow. Names as the YAML spells them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cstsim {

// RS (row stationary, Eyeriss) runs convolutions in processing passes (plan/rs_plan.h), not folds:
// its roles row below is the GEMM reading the fold-based models would take, which never run it.
enum class Dataflow { WS, OS, IS, RS };
enum class FoldPipeline { ScaleSim, Overlapped };

const char* to_string(Dataflow d);
// Every dataflow, by the name the YAML uses, and the inverse of to_string.
const std::vector<std::string>& dataflow_names();
std::optional<Dataflow> dataflow_named(const std::string& name);
const char* to_string(FoldPipeline p);
std::optional<FoldPipeline> fold_pipeline_named(const std::string& name);

// C[M x N] = A[M x K] . B[K x N]. A dataflow holds an Sr x Sc tile stationary in the
// PEs and streams T vectors through it:
//   WS: Sr = K, Sc = N, T = M  (weights B stay; rows of A stream)
//   OS: Sr = M, Sc = N, T = K  (outputs C stay; A and B stream, K deep)
//   IS: Sr = K, Sc = M, T = N  (inputs A stay; columns of B stream)
// Clusters split the column folds (Sc): each owns its stationary tiles and its outputs.
// Stream passes (memory: hierarchy) cut T, which must then index independent outputs.
//
// What memory moves per fold follows from the same row:
//   WS, IS: the fold's r x c stationary tile, loaded into the weight banks before it
//           streams; its T x r stream slice; T x c accumulators per column fold,
//           which later row folds add to and which go back once the column fold ends.
//   OS:     no load phase: the fold streams a T x r block of A (the "stream slice")
//           and a T x c block of B (the "tile", one per column fold, streamed too);
//           its r x c results are final when they leave and go back on their own.
// The tile operand is B ("filter") unless B is the streamed one (IS).
enum class Dim { M, N, K };
struct DataflowRoles {
  Dim Sr, Sc, T;
  bool passes_split_outputs;  // T indexes outputs (WS, IS), not a reduction (OS)
  bool stationary_outputs;    // the PEs hold the outputs (OS): the layout above
  bool tile_is_filter;        // the tile operand is B (WS, OS) or A (IS)
};
const DataflowRoles& roles(Dataflow d);

struct GemmDims {
  int64_t M = 0, N = 0, K = 0;
  int64_t& operator[](Dim d) { return d == Dim::M ? M : d == Dim::N ? N : K; }
  int64_t operator[](Dim d) const { return d == Dim::M ? M : d == Dim::N ? N : K; }
};

}  // namespace cstsim
