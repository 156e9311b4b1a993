#pragma once
// A workload is an ordered list of GEMM layers. Convolutions from SCALE-Sim
// topology CSVs are lowered to GEMM through im2col exactly as SCALE-Sim does.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cstsim {

struct ConvShape {  // as written in a SCALE-Sim conv topology row
  int64_t ifmap_h, ifmap_w, filter_h, filter_w, channels, filters, stride;
  // Output rows and columns as SCALE-Sim counts them (topology_utils.py): ceil((in - filter +
  // stride) / stride), no padding; with a stride > 1 the last window may run past the ifmap.
  int64_t out_h() const { return out_dim(ifmap_h, filter_h); }
  int64_t out_w() const { return out_dim(ifmap_w, filter_w); }

 private:
  int64_t out_dim(int64_t in, int64_t filter) const { return (in - filter + stride + stride - 1) / stride; }
};

struct Layer {
  std::string name;
  int64_t M = 0;  // output rows (Eh*Ew for conv)
  int64_t N = 0;  // output cols (filters)
  int64_t K = 0;  // reduction (Fh*Fw*C)
  std::optional<ConvShape> conv;  // set when lowered from a convolution
  int source_line = 0;            // line in the workload file
  // YAML `input:` previous (true) | none (false): whether it reads the previous layer's output;
  // unset: by shape (reads_output_of).
  std::optional<bool> reads_previous;
  int input_line = 0;
};

struct Workload {
  std::string name;    // file stem
  std::string source;  // path
  std::vector<Layer> layers;
};

// YAML: `layers: [{name, M, N, K}, ...]` (see configs/README.md).
// CSV: SCALE-Sim topology, conv form or GEMM form, read unchanged.
// Dispatch by extension (.yaml/.yml vs .csv). Throws InputError on bad input.
Workload load_workload(const std::string& path);

// SCALE-Sim's im2col lowering: Eh = ceil((H - Fh + S) / S), M = Eh*Ew, N = filters, K = Fh*Fw*C.
Layer lower_conv(const std::string& name, const ConvShape& conv);

// Whether layer l's shape lets it read what `previous` wrote: a GEMM whose A has as many elements
// as the previous C; a convolution whose channels are the previous layer's outputs and whose ifmap
// is its output map with less than a filter of zero border (SCALE-Sim's topologies give ifmaps
// padded).
bool shape_reads_output_of(const Layer& l, const Layer& previous);
// Whether l reads what `previous` wrote: its `input:` when given, else by shape.
bool reads_output_of(const Layer& l, const Layer& previous);

}  // namespace cstsim
