#pragma once
// A workload is an ordered list of GEMM layers. Convolutions from SCALE-Sim
// topology CSVs are lowered to GEMM through im2col exactly as SCALE-Sim does; operator graphs
// (sim/workload/graph.h) lower their matmuls, convolutions and attention to layers.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "plan/collective_kernel.h"
#include "sim/workload/vector_steps.h"

namespace YAML {
class Node;
}

namespace cstsim {

struct ConvShape {  // as written in a SCALE-Sim conv topology row
  int64_t ifmap_h, ifmap_w, filter_h, filter_w, channels, filters, stride;
  // ifmap_h and ifmap_w include the zero border (SCALE-Sim's topologies give ifmaps padded; an
  // operator graph's conv2d adds its padding to them).
  // Taps `dilation` apart: a window spans dilation * (filter - 1) + 1 input rows and columns.
  int64_t dilation = 1;
  // true: output rows and columns as SCALE-Sim counts them (topology_utils.py): ceil((in -
  // filter + stride) / stride); with a stride > 1 the last window may run past the ifmap.
  // false (operator graphs): floor((in - span) / stride) + 1, every window inside the ifmap.
  bool scalesim_rounding = true;
  int64_t span_h() const { return dilation * (filter_h - 1) + 1; }
  int64_t span_w() const { return dilation * (filter_w - 1) + 1; }
  // `stride` is along the height; SCALE-Sim's 9th topology field gives the width its own.
  int64_t stride_w = 0;  // 0: stride
  int64_t col_stride() const { return stride_w > 0 ? stride_w : stride; }
  int64_t out_h() const { return out_dim(ifmap_h, span_h(), stride); }
  int64_t out_w() const { return out_dim(ifmap_w, span_w(), col_stride()); }

 private:
  int64_t out_dim(int64_t in, int64_t span, int64_t s) const {
    return scalesim_rounding ? (in - span + s + s - 1) / s : (in - span) / s + 1;
  }
};

// Which piece of a matrix repeat r of a layer reads or writes: (r / every) % cycle (cycle 0:
// no wrap). Heads of grouped-query attention share K and V (every = heads per KV head); images
// of a batched convolution share the filters of their group (cycle = groups).
struct RepeatPieces {
  int64_t every = 1, cycle = 0;
  int64_t of(int64_t r) const { return cycle > 0 ? (r / every) % cycle : r / every; }
  int64_t count(int64_t repeats) const { return cycle > 0 ? cycle : (repeats + every - 1) / every; }
};

// What a training step (sim/workload/training.h) added to its forward pass, for the report.
struct TrainingStep {
  std::string recompute;              // none | selective | full
  int forward_layers = 0;             // the step's first layers are the forward pass, unchanged
  int64_t forward_macs = 0, backward_macs = 0, recomputed_macs = 0;
  int64_t stored_activation_bytes = 0;  // kept from the forward pass for the backward (at most at once)
  int64_t weight_gradient_bytes = 0, optimizer_state_bytes = 0;
  int64_t parameters = 0;             // weight elements the optimizer updates
};

struct Layer {
  std::string name;
  int64_t M = 0;  // output rows (Eh*Ew for conv)
  int64_t N = 0;  // output cols (filters)
  int64_t K = 0;  // reduction (Fh*Fw*C)
  // Independent GEMMs of this shape, run one after another (an operator graph's groups of a
  // convolution, images of a batch, heads of attention); pieces[A, B, C]: which piece of each
  // matrix each one uses. MACs: repeats * M * N * K.
  int64_t repeats = 1;
  std::array<RepeatPieces, 3> pieces{};
  // Operator graphs: the samples among the repeats (attention's B of B x heads, a convolution's
  // images, a batched matmul's leading dimension), which lead in repeat order; 1: the repeats
  // are of one sample (what a data-parallel split may not cut).
  int64_t batch = 1;
  std::optional<ConvShape> conv;  // set when lowered from a convolution
  int source_line = 0;            // line in the workload file
  // YAML `input:` previous (true) | none (false): whether it reads the previous layer's output;
  // unset: by shape (reads_output_of).
  std::optional<bool> reads_previous;
  int input_line = 0;
  // Operator graphs: the earlier layer whose output this layer's A (input_layer) or B
  // (weight_layer: attention's K and V) is; -1: a tensor of its own. Set, input_layer
  // overrides reads_previous and the shape rule.
  std::optional<int> input_layer;
  int weight_layer = -1;
  // Operator graphs: A (B) is the tensor layer `layer` reads as its matrix `matrix` (0 A, 1 B):
  // a graph input or weight that several layers read lies in HBM once.
  struct SameAs {
    int layer = -1, matrix = 0;
  };
  std::array<SameAs, 2> same_as{};
  std::array<std::string, 3> tensors;  // operator graphs: the graph's names of A, B and C
  int dtype_bits = 0;                   // operator graphs: the width of A's dtype (and C's)
  int b_dtype_bits = 0;                 // operator graphs: the width of B's dtype
  std::array<std::string, 2> dtypes;    // operator graphs: A's and B's dtype names
  // Operator graphs' materialized attention: the context GEMM's A is the probabilities, which
  // the scores GEMM (this layer index) and the softmax produce; -1 elsewhere.
  int attention_scores_layer = -1;
  // Training steps (sim/workload/training.h): bytes the step holds in HBM beside this layer's own
  // operands while it runs (activations kept for the backward pass, gradients made so far,
  // optimizer state, recomputed tensors still needed); 0 outside a training step.
  int64_t held_bytes = 0;
  // Its weights B are 2:4 structured-sparse along K (--sparsity 2:4; K a multiple of 4).
  bool weights_2_4 = false;
  // The fraction of A's values that are nonzero (YAML `input_density`, a graph tensor's `density`):
  // what PEs with zero gating (arch sparsity.zero_gating) gate; energy only.
  double input_density = 1.0;
  ChipCut chip_cut;  // chips > 1: this layer is one chip's share (sim/workload/tensor_parallel.h)
  int64_t macs() const { return repeats * M * N * K; }
  static Layer gemm(std::string name, int64_t M, int64_t N, int64_t K) {
    Layer l;
    l.name = std::move(name);
    l.M = M;
    l.N = N;
    l.K = K;
    return l;
  }
};

// An operator graph's attention with tiling: flash: one kernel in which the array and the vector
// unit take turns on tiles, the scores never leaving the chip (plan/flash_kernel.h).
struct FlashAttention {
  std::string name;
  int64_t batch = 1, heads = 1, kv_heads = 1, Sq = 0, Skv = 0, d = 0;
  bool causal = false;
  int dtype_bits = 16;
  std::string q, k, v, out;  // the graph's tensors (their data)
  int line = 0;
  int before_layer = 0;  // runs after layers [0, before_layer)
  int order = 0;         // graph order among the vector steps and flash kernels (VectorStep::order)
  // Every score's two products (Q K^T and P V), causal or not: what the materialized form computes.
  int64_t dense_macs() const { return 2 * batch * heads * Sq * Skv * d; }
};

// A density: a number in [0, 1] (the fraction of a tensor's values that are nonzero). Throws
// InputError(path, line, key) otherwise.
double density_of(const std::string& path, int line, const std::string& key, const YAML::Node& v);

// A collective a multi-chip split inserts, and its place in the graph: it runs after layers
// [0, before_layer), `order` among the kernels there (ties: the collective first).
struct WorkloadCollective : CollectiveKernelPlan {
  int before_layer = 0;
  int order = 0;
};

struct Workload {
  std::string name;    // file stem
  std::string source;  // path
  std::vector<Layer> layers;
  // Operator graphs only (sim/workload/graph.h): the ops that are not GEMMs, as their unfused
  // steps in graph order, each placed between two layers (VectorStep::before_layer). The vector
  // unit runs them (arch vector.lanes > 0); without one the run lists them as not simulated.
  std::vector<VectorStep> vector_steps;
  std::vector<FlashAttention> flash;  // attention ops with tiling: flash
  // Split across chips (sim/workload/tensor_parallel.h): one chip's share of every layer and op,
  // the collectives the split needs, and per layer how it was split; tensor_parallel 1: one chip.
  int tensor_parallel = 1;
  int data_parallel = 1;  // sim/workload/data_parallel.h: this is 1/data_parallel of the samples
  // sim/workload/pipeline_parallel.h: this is stage pipeline_stage of pipeline_parallel, its layers
  // once per micro-batch.
  int pipeline_parallel = 1, pipeline_stage = 0, micro_batches = 1;
  std::vector<WorkloadCollective> collectives;
  std::vector<std::string> layer_splits;
  // The layers, graph ops and flash kernels (by name) every chip runs whole: the work more chips do
  // not shorten (a tensor split's norms and residual adds, a data split's optimizer steps).
  std::set<std::string> whole_on_every_chip;
  bool is_graph = false;
  // Operator graphs: a view of a layer's output -> the tensor it views (a layer reads it through
  // input_layer; a vector op or flash attention that reads the view reads that layer's output).
  std::map<std::string, std::string> views;
  // Set when the layers are a training step made from a forward pass (sim/workload/training.h).
  std::optional<TrainingStep> training;
};

// YAML: `layers: [{name, M, N, K}, ...]` (see configs/README.md).
// CSV: SCALE-Sim topology, conv form or GEMM form, read unchanged.
// Dispatch by extension (.yaml/.yml vs .csv). Throws InputError on bad input.
Workload load_workload(const std::string& path);
// A YAML workload held in `text`, read as if from the file `path` (what `cstsim import` checks its
// output with before writing it).
Workload read_workload_text(const std::string& path, const std::string& text);

// SCALE-Sim's im2col lowering: Eh = ceil((H - Fh + S) / S), M = Eh*Ew, N = filters, K = Fh*Fw*C.
Layer lower_conv(const std::string& name, const ConvShape& conv);

// Whether layer l's shape lets it read what `previous` wrote: a GEMM whose A has as many elements
// as the previous C; a convolution whose channels are the previous layer's outputs and whose ifmap
// is its output map with less than a filter of zero border (SCALE-Sim's topologies give ifmaps
// padded).
bool shape_reads_output_of(const Layer& l, const Layer& previous);
// Whether l reads what `previous` wrote: its `input:` when given, else by shape.
bool reads_output_of(const Layer& l, const Layer& previous);
// The layer whose output layer i's A is (-1: none): its input_layer when set, else the previous
// layer when reads_output_of says so.
int input_producer(const Workload& w, size_t i);

}  // namespace cstsim
