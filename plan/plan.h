#pragma once
// The plan of a run, made once by the mapper (sim/mapper/mapper.h) from the spec and
// the workload: per layer, how the clusters split it and the stream passes each
// cluster makes; per pass, the GEMM it computes and (memory: hierarchy) the DMA
// buffers it runs with. The run checks it, the models execute it and `cstsim plan`
// prints it. Fold lists and transfer lists are expanded from it when a pass runs
// (make_fold_plan, lay_out_dma_program), so a plan stays small at any layer size.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/num_type.h"
#include "plan/dataflow.h"
#include "plan/dma_program.h"
#include "plan/fold_plan.h"
#include "plan/program.h"
#include "plan/rocc_plan.h"
#include "plan/rs_plan.h"

namespace cstsim {

// One cluster's run over one stream pass of a layer.
struct PassPlan {
  GemmDims dims;       // what it computes; a zero dimension: the cluster has no share
  // 2:4 weights the PEs skip through (arch sparsity.skip_2_4): dims.K counts the kept half, the
  // GEMM asks for twice it, and the stationary tiles carry 2 bits of index per kept value.
  bool sparse_2_4 = false;
  double input_density = 1.0;  // of A's values nonzero (Layer::input_density; zero gating)
  // Bits of a stored word of A and of B in this layer (core/precision.h word_bits: the run's
  // types, or an operator graph's tensor dtypes).
  int a_word_bits = 8, b_word_bits = 8;
  // Their types where an operator graph's dtype, exact in the operand, differs from the run's
  // (the register grid draws values of them under --verify); unset: the run's.
  std::optional<NumType> a_type, b_type;
  bool has_dma = false;  // memory: hierarchy
  DmaBuffers dma;
  // overlap: prefetch: reads of its DMA program (indices, ascending) that the cluster's previous
  // pass loads while it runs (sim/mapper/prefetch.h); empty: none.
  std::vector<int> prefetch;
  // overlap: pipeline (sim/mapper/pipeline.h): its outputs are the next layer's input and stay
  // in this scratchpad partition (of every cluster) instead of going to HBM (empty: to HBM),
  // where that input takes this many bytes ...
  std::string outputs_on_chip_to;
  int64_t outputs_on_chip_room = 0;
  // ... and these reads of its DMA program (of A, the previous layer's outputs) are already on chip.
  std::vector<int> on_chip_reads;
  bool idle() const { return dims.M == 0 || dims.N == 0 || dims.K == 0; }
  int64_t repeat = 0;  // which of its layer's repeats it computes (LayerPlan::repeats)
};

struct ClusterLayerPlan {
  ClusterShare share;
  std::vector<PassPlan> passes;  // every cluster makes the same number of passes
};

// A matrix of a layer as a tensor of the run in HBM (memory: hierarchy): its first byte and
// the bytes its layouts take (every pass's and cluster's blocks, tiled or row-major).
struct TensorPlace {
  uint64_t addr = 0;
  int64_t bytes = 0;
};

// fold_pipeline: scalesim: SCALE-Sim's memory system replayed over the layer
// (models/scalesim/scalesim_memory.h): what its DETAILED_ACCESS_REPORT.csv says and the stall
// cycles its DRAM bandwidth costs (InterfaceBandwidth: USER).
struct ScaleSimMemory {
  struct Access {
    int64_t start = 0, stop = 0;  // first and last cycle the interface is busy
    int64_t words = 0;            // DRAM interfaces: words moved
  };
  int64_t total_cycles = 0, stall_cycles = 0;  // SCALE-Sim's "Total Cycles" and "Stall Cycles"
  // sram and dram are known: the whole memory was replayed (InterfaceBandwidth: USER, or
  // --scalesim-reports all); CALC runs otherwise replay only the ofmap buffer, the one that can stall.
  bool accesses = false;
  std::array<Access, kMatrices> sram{}, dram{};  // ifmap (A), filter (B), ofmap (C)
  std::vector<int64_t> stalls_before_fold;       // accumulated before each fold's first cycle
};

struct LayerPlan {
  std::string name;
  GemmDims dims;
  // memory: hierarchy: where A, B and C (Matrix) lie. A layer whose input is an earlier
  // layer's output reads it where that layer wrote it: input_from names that layer (-1: none);
  // weight_from likewise for B (attention's K and V).
  std::array<TensorPlace, kMatrices> tensors{};
  int input_from = -1, weight_from = -1;
  // Operator graphs: A or B is the matrix another layer reads too (same_as: {layer, matrix},
  // {-1, 0}: none); it lies in HBM once. names: the graph's tensors.
  std::array<std::pair<int, int>, 2> same_as{{{-1, 0}, {-1, 0}}};
  std::array<std::string, kMatrices> tensor_names;
  // overlap: pipeline: why the previous layer's output does not stay on chip as this layer's
  // input (sim/mapper/pipeline.h), when it reads that output; empty: it does, or no pipeline.
  std::string input_not_on_chip;
  // Independent GEMMs of dims run one after another (Layer::repeats), each in the same passes:
  // pass_rows lists the stream vectors (T) of every pass, repeat after repeat.
  int64_t repeats = 1;
  // clusters > 1 and at least as many repeats (attention's heads, a batched matmul's batch): every
  // cluster runs whole repeats, cluster k repeat s x clusters + k in its slot s, rather than its
  // share of every repeat's column folds. Then pass_rows lists the passes of the slots.
  bool repeats_across_clusters = false;
  int64_t repeat_slots() const {
    const int64_t n = int64_t(clusters.size());
    return repeats_across_clusters ? (repeats + n - 1) / n : repeats;
  }
  std::vector<int64_t> pass_rows;
  size_t passes_per_repeat() const { return pass_rows.size() / size_t(repeat_slots()); }
  int64_t macs() const { return repeats * dims.M * dims.N * dims.K; }
  // Training steps: what the step holds in HBM beside this layer's operands (Layer::held_bytes).
  int64_t held_bytes = 0;
  bool sparse_2_4 = false;  // its passes run 2:4-compressed weights (PassPlan::sparse_2_4)
  ChipCut chip_cut;         // chips > 1: how the layer is cut across the chips (Layer::chip_cut)
  std::vector<ClusterLayerPlan> clusters;
  // dataflow: rs: the layer as a convolution (a GEMM as a 1 x 1 one) in processing passes; the
  // cluster then makes one pass plan for the whole layer, its repeats included.
  std::shared_ptr<const RsLayerPlan> rs;
  // controller: rocc: the layer as the host hands it to a Gemmini-style controller.
  std::shared_ptr<const RoccLayerPlan> rocc;
  std::optional<ScaleSimMemory> scalesim;  // fold_pipeline: scalesim
  // memory: hierarchy: the HBM bytes the layer's DMA programs move, over every
  // cluster and pass (what the run's memory.hbm_bytes_read / _written count).
  int64_t hbm_read_bytes = 0, hbm_write_bytes = 0;
  // Convolutions: the raw ifmap's bytes, and what the reads of the ifmap operand (the stream
  // under WS and OS, the stationary tiles under IS) moved from HBM over every cluster and pass;
  // their ratio is the ifmap's re-read factor (halos of folds, passes and clusters, im2col
  // expansion where the raw rows did not fit or were not fewer bytes).
  int64_t raw_ifmap_bytes = 0, ifmap_read_bytes = 0;
};

struct Plan {
  Dataflow dataflow = Dataflow::WS;
  int rows = 0, cols = 0;
  int pack = 1;  // operands per PE word (core/precision.h): pass dims count K in values, folds in words
  // The layers' table: what each GEMM-like layer computes and where its tensors lie. The steps
  // that run them, and the kernels between them, are the program's.
  std::vector<LayerPlan> layers;
  // chips > 1: every chip runs this plan (its share of the workload) and meets the others in the
  // program's collective steps.
  int chips = 1;
  Program program;
};

// The folds of a pass on the plan's array.
FoldPlan fold_plan(const Plan& plan, const PassPlan& pass);
// A pass's DMA program: its fold list laid out for its buffers (has_dma only).
LayerDmaPlan dma_program(const FoldPlan& folds, const PassPlan& pass);

}  // namespace cstsim
