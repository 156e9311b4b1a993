#include "sim/mapper/tiling_plan.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "core/arith.h"
#include "core/input_error.h"

namespace cstsim {
namespace {

// Block sizes worth trying along one dimension: 1, 2, 4, ... array widths, and all of it.
std::vector<int64_t> block_candidates(int64_t size, int width) {
  std::vector<int64_t> out;
  const int64_t folds = ceil_div(size, width);
  for (int64_t f = 1; f < folds; f *= 2) out.push_back(std::min(size, f * width));
  out.push_back(size);
  return out;
}

struct Sram {
  int64_t stream, stationary, out;  // bytes available to each role
};

}  // namespace

TilingPlan make_tiling_plan(const ArchSpec& a, const Layer& l, const std::string& workload_file) {
  TilingPlan best;
  best.layer = l.name;
  best.dataflow = a.dataflow;
  best.R = a.rows;
  best.C = a.cols;
  best.M = l.M;
  best.N = l.N;
  best.K = l.K;
  best.ifmap_sram = a.ifmap_sram_kib * 1024;
  best.filter_sram = a.filter_sram_kib * 1024;
  best.ofmap_sram = a.ofmap_sram_kib * 1024;
  if (best.ifmap_sram <= 0 || best.filter_sram <= 0 || best.ofmap_sram <= 0)
    throw InputError(a.source, 0, "sram", "the arch declares no scratchpad (sram.ifmap_kib, filter_kib, ofmap_kib)");
  const int64_t ab = a.precision.accumulator_bytes();
  // Bytes of n words of A (false) or B (true) at their stored widths.
  auto ob = [&](bool weights, int64_t n) { return a.precision.bytes_of_words(weights, n); };
  const DataflowRoles& roles_of = roles(a.dataflow);
  const bool os = roles_of.stationary_outputs;
  // K in PE words (core/precision.h): ob gives their bytes.
  const int64_t K = a.precision.words(l.K);
  const GemmDims dims{l.M, l.N, K};
  best.Sr = dims[roles_of.Sr];
  best.Sc = dims[roles_of.Sc];
  best.T = dims[roles_of.T];
  // Which partition holds which role: the streamed and stationary operands of WS
  // live in the ifmap and filter SRAMs; IS swaps them; OS streams A and B.
  const bool is = !roles_of.tile_is_filter;
  const Sram sram = is ? Sram{best.filter_sram, best.ifmap_sram, best.ofmap_sram}
                       : Sram{best.ifmap_sram, best.filter_sram, best.ofmap_sram};
  const int64_t Sr = best.Sr, Sc = best.Sc, T = best.T;

  // Smallest tile: one fold's block and one stream row, double-buffered.
  const int64_t r0 = std::min<int64_t>(a.rows, Sr), c0 = std::min<int64_t>(a.cols, Sc);
  auto need = [&](int64_t sr, int64_t sc, int64_t t, int64_t& stream, int64_t& stat, int64_t& out) {
    if (os) {  // A chunk sr x t, B chunk t x sc, finished outputs sr x sc
      stream = 2 * ob(false, sr * t);
      stat = 2 * ob(true, t * sc);
      out = 2 * sr * sc * ab;
    } else {  // stream chunk t x sr, stationary block sr x sc, output rows t x sc
      stream = 2 * ob(is, t * sr);
      stat = 2 * ob(!is, sr * sc);
      out = 2 * t * sc * ab;
    }
  };
  {
    int64_t s, st, o;
    need(r0, c0, 1, s, st, o);
    auto fail = [&](const char* part, int64_t needed, int64_t have) {
      throw InputError(workload_file, l.source_line, l.name,
                       fmt::format("smallest tile ({}x{} block, 1 stream row, double-buffered) needs {} bytes of {} "
                                   "SRAM, which has {}",
                                   r0, c0, needed, part, have));
    };
    const char* stream_part = is ? "filter" : "ifmap";
    const char* stat_part = is ? "ifmap" : "filter";
    if (s > sram.stream) fail(stream_part, s, sram.stream);
    if (st > sram.stationary) fail(stat_part, st, sram.stationary);
    if (o > sram.out) fail("ofmap", o, sram.out);
  }

  int64_t best_bytes = std::numeric_limits<int64_t>::max();
  for (int64_t sr : block_candidates(Sr, a.rows)) {
    for (int64_t sc : block_candidates(Sc, a.cols)) {
      // The longest stream chunk that fits all three partitions.
      int64_t s1, st1, o1;
      need(sr, sc, 1, s1, st1, o1);
      int64_t t = T;
      if (os) {
        if (2 * sr * sc * ab > sram.out) continue;
        t = std::min(t, sram.stream / (2 * ob(false, sr)));
        t = std::min(t, sram.stationary / (2 * ob(true, sc)));
      } else {
        if (st1 > sram.stationary) continue;
        t = std::min(t, sram.stream / (2 * ob(is, sr)));
        t = std::min(t, sram.out / (2 * sc * ab));
      }
      if (t < 1) continue;
      const int64_t n_sr = ceil_div(Sr, sr), n_sc = ceil_div(Sc, sc), n_t = ceil_div(T, t);
      struct Option {
        const char* order;
        const char* resident;
        int64_t stream, stat, out, psum, transfers;
      };
      std::vector<Option> options;
      if (os) {
        // Each output block streams all of K; A is re-read per column block unless a
        // whole row block of A (sr x K) stays resident; likewise B.
        const bool a_fits = 2 * ob(false, sr * T) <= sram.stream, b_fits = 2 * ob(true, T * sc) <= sram.stationary;
        const int64_t a_bytes = ob(false, l.M * K), b_bytes = ob(true, K * l.N), c_bytes = l.M * l.N * ab;
        options.push_back({"sr > sc > t", a_fits ? "A row block" : "output block", a_fits ? a_bytes : a_bytes * n_sc,
                           b_bytes * n_sr, c_bytes, 0, n_sr * n_sc * n_t * 2});
        options.push_back({"sc > sr > t", b_fits ? "B column block" : "output block", a_bytes * n_sc,
                           b_fits ? b_bytes : b_bytes * n_sr, c_bytes, 0, n_sr * n_sc * n_t * 2});
      } else {
        const int64_t stream_bytes = ob(is, T * Sr), stat_bytes = ob(!is, Sr * Sc), out_bytes = T * Sc * ab;
        // Stationary block resident: partial sums spill when K is split.
        options.push_back({"sc > sr > t", "stationary block", stream_bytes * n_sc, stat_bytes,
                           out_bytes * n_sr, out_bytes * (n_sr - 1), n_sc * n_sr * (1 + 2 * n_t)});
        // Output rows resident: stationary blocks reloaded per stream chunk when K is split.
        options.push_back({"sc > t > sr", "output rows", stream_bytes * n_sc, n_sr == 1 ? stat_bytes : stat_bytes * n_t,
                           out_bytes, 0, n_sc * n_t * (2 * n_sr + 1)});
      }
      for (const Option& o : options) {
        const int64_t total = o.stream + o.stat + o.out + o.psum;
        if (total > best_bytes) continue;
        if (total == best_bytes && sr * sc * t <= best.sr_block * best.sc_block * best.t_block) continue;
        best_bytes = total;
        best.sr_block = sr;
        best.sc_block = sc;
        best.t_block = t;
        best.sr_blocks = n_sr;
        best.sc_blocks = n_sc;
        best.t_blocks = n_t;
        best.loop_order = o.order;
        best.resident = o.resident;
        int64_t s, st, out;
        need(sr, sc, t, s, st, out);
        best.ifmap_need = is ? st : s;
        best.filter_need = is ? s : st;
        best.ofmap_need = out;
        best.hbm_read_ifmap = is ? o.stat : o.stream;
        best.hbm_read_filter = is ? o.stream : o.stat;
        best.hbm_write_ofmap = o.out;
        best.hbm_read_psum = o.psum;
        best.dma_transfers = o.transfers;
      }
    }
  }
  if (best_bytes == std::numeric_limits<int64_t>::max())
    throw InputError(workload_file, l.source_line, l.name, "no tiling fits the scratchpad");
  const int64_t minimum = ob(false, l.M * K) + ob(true, K * l.N) + l.M * l.N * ab;
  best.why = fmt::format("least DRAM traffic over {} block shapes x 2 loop orders: {} bytes, {:.2f}x the compulsory {}",
                         block_candidates(Sr, a.rows).size() * block_candidates(Sc, a.cols).size(), best_bytes,
                         double(best_bytes) / double(minimum), minimum);
  return best;
}

nlohmann::ordered_json to_json(const TilingPlan& p) {
  return {{"layer", p.layer},
          {"dataflow", to_string(p.dataflow)},
          {"M", p.M}, {"N", p.N}, {"K", p.K},
          {"blocks", {{"Sr", p.sr_block}, {"Sc", p.sc_block}, {"T", p.t_block}}},
          {"block_counts", {{"Sr", p.sr_blocks}, {"Sc", p.sc_blocks}, {"T", p.t_blocks}}},
          {"loop_order", p.loop_order},
          {"resident", p.resident},
          {"sram_bytes", {{"ifmap", {{"need", p.ifmap_need}, {"have", p.ifmap_sram}}},
                          {"filter", {{"need", p.filter_need}, {"have", p.filter_sram}}},
                          {"ofmap", {{"need", p.ofmap_need}, {"have", p.ofmap_sram}}}}},
          {"dram_bytes", {{"ifmap_read", p.hbm_read_ifmap}, {"filter_read", p.hbm_read_filter},
                          {"ofmap_write", p.hbm_write_ofmap}, {"psum_read", p.hbm_read_psum}, {"total", p.hbm_bytes()}}},
          {"dma_transfers", p.dma_transfers},
          {"why", p.why}};
}

std::string plan_table(const std::vector<TilingPlan>& plans) {
  size_t w = 14;  // as wide as the longest name
  for (const TilingPlan& p : plans) w = std::max(w, p.layer.size());
  std::string out = fmt::format("{:<{}} {:>3} {:>17} {:>12} {:<18} {:>12} {:>12} {:>12} {:>12}\n", "layer", w, "df",
                                "block Sr,Sc,T", "loop", "resident", "DRAM ifmap", "DRAM filter", "DRAM ofmap",
                                "DRAM psum");
  for (const TilingPlan& p : plans)
    out += fmt::format("{:<{}} {:>3} {:>17} {:>12} {:<18} {:>12} {:>12} {:>12} {:>12}\n", p.layer, w,
                       to_string(p.dataflow), fmt::format("{},{},{}", p.sr_block, p.sc_block, p.t_block), p.loop_order,
                       p.resident, p.hbm_read_ifmap, p.hbm_read_filter, p.hbm_write_ofmap, p.hbm_read_psum);
  return out;
}

}  // namespace cstsim
