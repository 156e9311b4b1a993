#include "sim/mapper/rs_map.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/input_error.h"

namespace cstsim {

namespace {

RsShape shape_of(const Layer& l) {
  RsShape s;
  if (!l.conv) {  // a GEMM as a 1 x 1 convolution
    s.H = 1;
    s.W = l.M;
    s.C = l.K;
    s.M = l.N;
    s.groups = l.repeats;
    return s;
  }
  const ConvShape& c = *l.conv;
  s.groups = l.pieces[1].cycle > 0 ? l.pieces[1].cycle : 1;
  s.N = l.repeats / s.groups;
  s.C = c.channels;
  s.M = c.filters;
  s.R = c.filter_h;
  s.S = c.filter_w;
  s.U = c.stride;
  // SCALE-Sim's rounding may let the last window run past the ifmap: those rows and columns are
  // zeros the PEs are given (they are not in DRAM: rs_pass_traffic counts the rows a strip reads).
  s.H = std::max(c.ifmap_h, s.U * (c.out_h() - 1) + s.R);
  s.W = std::max(c.ifmap_w, s.U * (c.out_w() - 1) + s.S);
  return s;
}

}  // namespace

std::shared_ptr<const RsLayerPlan> map_rs_layer(const ArchSpec& a, const Workload& w, size_t i) {
  const Layer& l = w.layers[i];
  auto fail = [&](const std::string& why) {
    throw InputError(w.source, l.source_line, l.name, "dataflow: rs cannot map this layer: " + why);
  };
  if (l.conv && l.conv->dilation != 1) fail("row stationary slides filter rows over ifmap rows; dilation is not modelled");
  if (l.conv && l.conv->col_stride() != l.conv->stride) fail("row stationary has one stride U; the width's differs");
  if (l.weights_2_4) fail("2:4 weights need dataflow: ws");
  RsShape shape = shape_of(l);
  // A convolution whose windows do not overlap (stride = filter size, a ViT's patch embedding) is
  // the GEMM of its patches: when a filter row would not fit the ifmap scratchpad (row stationary
  // slides a window of S values through it), run it as one, a 1 x 1 convolution over the R S C
  // values of a patch. The same MACs and ifmap values, each read once either way.
  if (l.conv && shape.U == shape.R && shape.U == shape.S && shape.S > a.rs.ifmap_spad) {  // dilation 1: above
    const int64_t out_h = (shape.H - shape.R) / shape.U + 1, out_w = (shape.W - shape.S) / shape.U + 1;
    shape.C *= shape.R * shape.S;
    shape.H = out_h;
    shape.W = out_w;
    shape.R = shape.S = shape.U = 1;
  }
  const Precision& p = a.precision;
  if (p.pack != 1) fail(fmt::format("its PEs do one MAC a cycle; precision.macs_per_pe.{} is {}", p.operand_name(), p.pack));
  RsLimits limits;
  limits.rows = a.rows;
  limits.cols = a.cols;
  limits.filter_spad = a.rs.filter_spad;
  limits.ifmap_spad = a.rs.ifmap_spad;
  limits.psum_spad = a.rs.psum_spad;
  limits.glb_bits = a.rs.glb_kib * 1024 * 8;
  // The scratchpad's partitions are the global buffer under memory: hierarchy, and in any memory
  // mode where the arch sizes them and gives no rs.glb_kib: then an array x dataflow x memory
  // sweep compares row stationary at the same SRAM as the other dataflows (issue 41).
  const bool sram_sized = a.ifmap_sram_kib > 0 && a.filter_sram_kib > 0 && a.ofmap_sram_kib > 0;
  if (a.memory == MemoryMode::Hierarchy || (sram_sized && !a.rs.glb_given)) {
    limits.glb_ifmap_bits = a.ifmap_sram_kib * 1024 * 8;
    limits.glb_psum_bits = a.ofmap_sram_kib * 1024 * 8;
    limits.glb_bits = limits.glb_ifmap_bits + limits.glb_psum_bits;
    limits.glb_filter_bits = a.filter_sram_kib * 1024 * 8;  // the filter prefetch buffer
  }
  limits.weight_bits = p.weight_bits();
  limits.ifmap_bits = p.value_bits();
  limits.psum_bits = p.accumulator_bits();
  const RsPlanResult planned = plan_rs(shape, limits);
  if (!planned.why_not.empty()) fail(planned.why_not);
  auto plan = std::make_shared<RsLayerPlan>(make_rs_layer_plan(shape, planned.mapping));
  plan->act_bits = p.value_bits();
  plan->weight_bits = p.weight_bits();
  if (a.zero_gating) plan->gating_density = l.input_density;
  if (a.rs.rlc) {
    // Every feature map in DRAM is coded but the network's input, the first layer's (JSSC 2017
    // §IV-B). An ofmap is coded after its ReLU, at the density of the next layer's input (a
    // CNN's next layer reads it, through the ReLU and any pooling); the last layer's at 1.
    if (i > 0) plan->ifmap = {true, l.input_density};
    plan->ofmap = {true, i + 1 < w.layers.size() ? w.layers[i + 1].input_density : 1.0};
  }
  return plan;
}

void place_rs_tensors(const ArchSpec& a, const Workload& w, size_t i, const std::vector<LayerPlan>& earlier,
                      LayerPlan& lp, uint64_t& next, uint64_t align) {
  const RsLayerPlan& r = *lp.rs;
  const RsShape& s = r.shape;
  auto bytes = [](int64_t values, int bits) { return (values * bits + 7) / 8; };
  auto place = [&](int64_t n) {
    const TensorPlace t{next, n};
    next += (uint64_t(n) + align - 1) / align * align;
    return t;
  };
  const size_t A = size_t(Matrix::A), B = size_t(Matrix::B), C = size_t(Matrix::C);
  lp.tensors[A] = lp.input_from >= 0 ? earlier[size_t(lp.input_from)].tensors[C]
                                     : place(padded_block(bytes(s.groups * s.N * s.C * s.H * s.W, r.act_bits)));
  lp.tensors[B] = place(padded_block(bytes(s.groups * s.M * s.C * s.R * s.S, r.weight_bits)));
  lp.tensors[C] = place(padded_block(bytes(s.groups * s.N * s.M * s.E() * s.F(), r.act_bits)));
  const int64_t filter_room = a.filter_sram_kib * 1024;
  for (const RsPass& p : r.passes) {
    const RsPassTraffic t = rs_pass_traffic(r, p);
    if ((t.filter_bits + 7) / 8 > filter_room)
      throw InputError(w.source, w.layers[i].source_line, w.layers[i].name,
                       fmt::format("dataflow: rs: a pass's filters take {} bytes, more than the filter partition's {} "
                                   "(sram.filter_kib, the filter prefetch buffer)", (t.filter_bits + 7) / 8, filter_room));
    auto moved = [](int64_t bits) { return bits > 0 ? padded_block((bits + 7) / 8) : 0; };  // whole blocks
    lp.hbm_read_bytes += moved(t.filter_bits) + moved(t.ifmap_bits);
    lp.hbm_write_bytes += moved(t.ofmap_bits);
  }
}

}  // namespace cstsim
