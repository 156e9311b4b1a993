#include "models/array/array_trace.h"

#include <algorithm>

#include <fmt/format.h>

#include "models/array/array_dataflow.h"

namespace cstsim {
ArrayTraceIds declare_array_trace(trace::TraceSink& sink, const ArrayGeometry& a, const std::string& owner,
                                  const std::vector<LayerWordBits>& layers) {
  using trace::ResourceClass;
  const int64_t ob = a.precision.register_word_bytes(), ab = a.precision.accumulator_bytes();
  const int64_t pes = int64_t(a.rows) * a.cols;
  const bool os = roles(a.dataflow).stationary_outputs;  // the PEs hold accumulators, not operands
  // What a row and a column link carries per busy cycle, as stored (the PE widens it to its
  // register word): rows the stream (A; B under IS), columns the stationary load or, under OS, B.
  const bool rows_are_ifmap = roles(a.dataflow).tile_is_filter;
  const int row_bits = a.precision.word_bits(!rows_are_ifmap), col_bits = a.precision.word_bits(rows_are_ifmap);
  ArrayTraceIds ids;
  ids.stationary_bytes = os ? ab : ob;
  ids.owner = owner;
  ids.busy = sink.declare({0, owner + ".busy", ResourceClass::Compute, "device", 1, owner, ""});
  ids.active_pes = sink.declare({0, owner + ".active_pes", ResourceClass::Compute, "PE", pes, owner, ""});
  // WS/IS hold two weight banks; OS one accumulator per PE.
  ids.stationary = sink.declare({0, owner + (os ? ".reg.accumulators" : ".reg.stationary"), ResourceClass::Memory,
                                 "byte", os ? pes * ab : 2 * pes * ob, owner, "reg"});
  // An edge link carries one word (rows, columns) or accumulator (out) per busy link-cycle: the
  // run's stored width, and the layers' own where they differ ("<n>;<layer>=<n>").
  auto rows_of = [&](const LayerWordBits& l) { return rows_are_ifmap ? l.a_bits : l.b_bits; };
  auto cols_of = [&](const LayerWordBits& l) { return rows_are_ifmap ? l.b_bits : l.a_bits; };
  auto carries = [](int bits) { return fmt::format("link_cycle:{:g}", bits / 8.0); };
  std::string row_rates = carries(row_bits), col_rates = carries(col_bits);
  for (const LayerWordBits& l : layers) {
    row_rates += fmt::format(";{}={:g}", l.layer, rows_of(l) / 8.0);
    col_rates += fmt::format(";{}={:g}", l.layer, cols_of(l) / 8.0);
  }
  ids.in_rows = sink.declare({0, owner + ".link.in_rows", ResourceClass::Network, "link", a.rows, owner, "",
                              "sram>" + owner, row_rates});
  ids.in_cols = sink.declare({0, owner + ".link.in_cols", ResourceClass::Network, "link", a.cols, owner, "",
                              "sram>" + owner, col_rates});
  ids.out = sink.declare({0, owner + ".link.out", ResourceClass::Network, "link", a.cols, owner, "",
                          owner + ">sram", carries(int(8 * ab))});

  const std::string prec = a.precision.operand_name();
  sink.bind(sink.declare_action("mac." + prec + ".executed", "MAC"), ids.active_pes, a.precision.pack);
  ids.nominal_macs = sink.declare_action("mac." + prec + ".nominal", "MAC");
  if (a.precision.pack > 1) ids.padding_macs = sink.declare_action("mac." + prec + ".padding", "MAC");
  if (a.skips_2_4) ids.skipped_macs = sink.declare_action("mac." + prec + ".skipped", "MAC");
  if (a.gates_zeros) ids.gated_macs = sink.declare_action("mac." + prec + ".gated", "MAC");
  ids.accumulator_bytes = ab;
  ids.operand_bytes = ob;
  // Every MAC reads its two operands from the PE's registers (WS, IS: the streamed one and the
  // held one; OS: both streamed) and latches the streamed ones it passes on (one; OS: two).
  sink.bind(sink.declare_action("reg.read.operand", "byte"), ids.active_pes, 2 * ob);
  sink.bind(sink.declare_action("reg.write.operand", "byte"), ids.active_pes, (os ? 2 : 1) * ob);
  ids.operand_hops = sink.declare_action("link.pe.operand", "byte");
  if (os) {  // the accumulator: read and written back by every MAC, in the PE
    sink.bind(sink.declare_action("reg.read.psum", "byte"), ids.active_pes, ab);
    sink.bind(sink.declare_action("reg.write.psum", "byte"), ids.active_pes, ab);
  } else {  // a partial sum moves down its column: counted where it is (array_dataflow.h)
    ids.psum_register_reads = sink.declare_action("reg.read.psum", "byte");
    ids.psum_register_writes = sink.declare_action("reg.write.psum", "byte");
    ids.psum_hops = sink.declare_action("link.pe.psum", "byte");
    ids.stationary_writes = sink.declare_action("reg.write.stationary", "byte");
    ids.stationary_hops = sink.declare_action("link.pe.stationary", "byte");
  }
  // The operands' SRAM reads and the edge links count bits: a stored word may be below a byte.
  const trace::ActionId ifmap = sink.declare_action_in_bits("sram.read.ifmap");
  const trace::ActionId filter = sink.declare_action_in_bits("sram.read.filter");
  // Rows carry the streamed operand, columns the stationary load (WS, IS) or B (OS).
  sink.bind(rows_are_ifmap ? ifmap : filter, ids.in_rows, row_bits);
  sink.bind(rows_are_ifmap ? filter : ifmap, ids.in_cols, col_bits);
  sink.bind(sink.declare_action("sram.write.ofmap", "byte"), ids.out, ab);
  ids.psum_reads = sink.declare_action("sram.read.psum", "byte");
  const trace::ActionId link = sink.declare_action_in_bits("link.array_edge");
  sink.bind(link, ids.in_rows, row_bits);
  sink.bind(link, ids.in_cols, col_bits);
  sink.bind(link, ids.out, 8 * ab);
  for (const LayerWordBits& l : layers) {  // the layers' own widths
    sink.bind_in_layer(rows_are_ifmap ? ifmap : filter, ids.in_rows, l.layer, rows_of(l));
    sink.bind_in_layer(rows_are_ifmap ? filter : ifmap, ids.in_cols, l.layer, cols_of(l));
    sink.bind_in_layer(link, ids.in_rows, l.layer, rows_of(l));
    sink.bind_in_layer(link, ids.in_cols, l.layer, cols_of(l));
  }
  return ids;
}

void book_fold_slices(trace::TraceSink& sink, const ArrayTraceIds& ids, const std::string& layer, const LayerTiming& t) {
  for (size_t g = 0; g < t.folds.size(); ++g) {
    const FoldTiming& f = t.folds[g];
    const int64_t end = g + 1 < t.folds.size() ? std::min(f.end, t.folds[g + 1].start - 1) : f.end;
    sink.slice(ids.owner + ".folds", layer + " fold " + std::to_string(g), f.start, std::max(end, f.start));
  }
}

void book_pass_work(trace::TraceSink& sink, const ArrayTraceIds& ids, int64_t start, const FoldPlan& p) {
  sink.count(start, ids.nominal_macs, p.M * p.N * p.nominal_k());
  if (p.sparse_2_4) sink.count(start, ids.skipped_macs, p.M * p.N * (p.nominal_k() - p.k_values));
  if (const int64_t padding = p.M * p.N * (p.K * p.pack - p.k_values); padding > 0) sink.count(start, ids.padding_macs, padding);
  if (const int64_t zeros = p.zero_inputs(); zeros > 0) sink.count(start, ids.gated_macs, zeros * p.N);
}

void announce_fold(trace::TraceSink& sink, const ArrayTraceIds& ids, const FoldPlan& p, FoldPipeline pipeline,
                   const Fold& f, const FoldTiming& t) {
  const int64_t r = f.rows_used, c = f.cols_used, T = f.t, S = t.first_input;
  // PE(i,j) is active at S+k+i+j for k < t: diagonal d = i+j holds n_d PEs.
  // In OS the same PEs hold a live accumulator over exactly those cycles; over K chunks, from
  // the first chunk's first MAC to the draining chunk's last (the sums wait in the PEs between).
  const bool os = roles(p.dataflow).stationary_outputs;
  for (int64_t d = 0; d <= r + c - 2; ++d) {
    const int64_t n = std::min(d, r - 1) - std::max<int64_t>(0, d - (c - 1)) + 1;
    sink.add(S + d, ids.active_pes, n);
    sink.add(S + d + T, ids.active_pes, -n);
    if (os && f.chunk == 0) sink.add(S + d, ids.stationary, n * ids.stationary_bytes);
    if (os && f.drains) sink.add(S + d + T, ids.stationary, -n * ids.stationary_bytes);
  }
  for (int64_t i = 0; i < r; ++i) {  // row i streams over [S+i, S+i+T)
    sink.add(S + i, ids.in_rows, 1);
    sink.add(S + i + T, ids.in_rows, -1);
  }
  array_dataflow(p.dataflow).announce_fold_edges(sink, ids, p, pipeline, f, t);
  array_dataflow(p.dataflow).announce_fold_pe_actions(sink, ids, p, pipeline, f, t);
  announce_psum_reads(sink, ids, p, f, t);
}

void announce_psum_reads(trace::TraceSink& sink, const ArrayTraceIds& ids, const FoldPlan& p, const Fold& f,
                         const FoldTiming& t) {
  if (roles(p.dataflow).stationary_outputs || f.row0 == 0) return;  // OS sums in the PEs; the first row fold writes
  sink.count_span(t.first_output, t.first_output + t.output_rows, ids.psum_reads, f.cols_used * ids.accumulator_bytes);
}

}  // namespace cstsim
