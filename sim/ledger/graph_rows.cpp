#include "sim/ledger/graph_rows.h"

#include <stdexcept>

#include <fmt/format.h>

#include "sim/config/arch_spec.h"
#include "sim/mapper/program_order.h"
#include "sim/mapper/vector_plan.h"

namespace cstsim::ledger {
namespace {

Row layer_row(const Layer& l) {
  const double elem = l.dtype_bits > 0 ? double((l.dtype_bits + 7) / 8) : 1.0;
  // Each distinct piece of A and B once (repeats that share one read it once), every output once.
  const double a = double(l.pieces[0].count(l.repeats)) * double(l.M) * double(l.K);
  const double b = double(l.pieces[1].count(l.repeats)) * double(l.K) * double(l.N);
  const double c = double(l.repeats) * double(l.M) * double(l.N);
  Row r;
  r.suite = "graph";
  r.id = l.name;
  r.tags = {"layer"};
  r.label = l.repeats > 1 ? fmt::format("{} ({} x {}x{}x{})", l.name, l.repeats, l.M, l.N, l.K)
                          : fmt::format("{} ({}x{}x{})", l.name, l.M, l.N, l.K);
  r.kernels = {{l.name, 2.0 * double(l.macs()), (a + b + c) * elem}};
  return r;
}

Row kernel_row(const VectorKernelPlan& k) {
  double bytes = 0, ops = 0;
  for (const auto* list : {&k.reads, &k.writes})
    for (const VectorOperandPlan& o : *list) bytes += double(k.rows) * double(o.row_bytes) + double(o.once_bytes);
  for (int64_t n : k.ops_per_row) ops += double(n) * double(k.rows);
  Row r;
  r.suite = "graph";
  r.id = k.name;
  r.tags = {"vector"};
  r.tags.insert(r.tags.end(), k.ops.begin(), k.ops.end());
  r.label = fmt::format("{} ({} step{}, {}x{})", k.name, k.what.size(), k.what.size() == 1 ? "" : "s", k.rows, k.cols);
  r.kernels = {{fmt::format("{}", fmt::join(k.what, "; ")), ops, bytes}};
  return r;
}

// Flash attention as seed 003's prefill-flash row: Q and O once, K and V once per KV head; the two
// products and 5 operations per score (scale, max, subtract, exp, sum).
Row flash_row(const FlashAttention& f) {
  const double e = double((f.dtype_bits + 7) / 8), scores = double(f.batch * f.heads) * double(f.Sq) * double(f.Skv);
  const double q = double(f.batch * f.heads * f.Sq * f.d), kv = double(f.batch * f.kv_heads * f.Skv * f.d);
  Row r;
  r.suite = "graph";
  r.id = f.name;
  r.tags = {"flash", "attention"};
  r.label = fmt::format("{} (flash, {} x {}x{}, d {})", f.name, f.batch * f.heads, f.Sq, f.Skv, f.d);
  r.kernels = {{"O = flash(Q, K, V)", 4.0 * scores * double(f.d) + 5.0 * scores, (2 * q + 2 * kv) * e}};
  return r;
}

}  // namespace

std::vector<Row> graph_rows(const Workload& w, const std::string& fusion) {
  ArchSpec a;  // the mapper's fusion alone: no partition bounds the tiles, nothing is placed
  a.vector.lanes = 1;
  a.vector.fusion = fusion;
  uint64_t next = 0;
  std::vector<Placed<FlashKernelPlan>> flash;
  for (const FlashAttention& f : w.flash) {  // placed in graph order as the mapper places them
    FlashKernelPlan k;
    k.name = f.name;
    k.line = f.line;
    flash.push_back({k, f.before_layer, f.order});
  }
  std::vector<Step> layers;
  for (size_t i = 0; i < w.layers.size(); ++i) {
    Step s;
    s.layer = int(i);
    s.what = GemmLayerStep{};
    layers.push_back(std::move(s));
  }
  const Program program = order_program(w, std::move(layers), plan_vector_kernels(a, w, {}, next), std::move(flash), {});
  std::vector<bool> taken(w.flash.size(), false);
  auto flash_op = [&](int line) {  // a kernel's op: the first not yet taken on its line
    for (size_t i = 0; i < w.flash.size(); ++i)
      if (!taken[i] && w.flash[i].line == line) return (taken[i] = true), i;
    throw std::logic_error("graph_rows: a flash kernel without its op");
  };
  std::vector<Row> rows;
  for (const Step& s : program.steps) {
    if (s.layer >= 0)
      rows.push_back(layer_row(w.layers[size_t(s.layer)]));
    else if (const FlashKernelStep* f = s.as<FlashKernelStep>())
      rows.push_back(flash_row(w.flash[flash_op(f->kernel.line)]));
    else if (const VectorKernelStep* v = s.as<VectorKernelStep>())
      rows.push_back(kernel_row(v->kernel));
  }
  return rows;
}

}  // namespace cstsim::ledger
