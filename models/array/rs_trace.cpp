#include "models/array/rs_trace.h"

#include <algorithm>

#include <fmt/format.h>

namespace cstsim {

namespace {

// `words` over a `lanes`-wide network from `start`: full cycles, then the rest.
void announce_words(trace::TraceSink& sink, trace::ResourceId id, int64_t start, int64_t words, int64_t lanes) {
  if (words <= 0) return;
  const int64_t full = words / lanes, rest = words % lanes;
  sink.add(start, id, lanes);
  sink.add(start + full, id, -lanes);
  if (rest) {
    sink.add(start + full, id, rest);
    sink.add(start + full + 1, id, -rest);
  }
}
}  // namespace

RsTraceIds declare_rs_trace(trace::TraceSink& sink, const RsTraceShape& a, const std::string& owner) {
  using trace::ResourceClass;
  RsTraceIds ids;
  const Precision& p = a.precision;
  ids.act_bytes = (p.value_bits() + 7) / 8;
  ids.weight_bytes = (p.weight_bits() + 7) / 8;
  ids.acc_bytes = p.accumulator_bytes();
  const int64_t pes = int64_t(a.rows) * a.cols, ob = p.register_word_bytes();
  ids.register_bytes = ob;
  ids.busy = sink.declare({0, owner + ".busy", ResourceClass::Compute, "device", 1, owner, ""});
  ids.active_pes = sink.declare({0, owner + ".active_pes", ResourceClass::Compute, "PE", pes, owner, ""});
  ids.spad_filter = sink.declare({0, owner + ".spad.filter", ResourceClass::Memory, "byte", pes * a.filter_spad * ob, owner, "reg"});
  ids.spad_ifmap = sink.declare({0, owner + ".spad.ifmap", ResourceClass::Memory, "byte", pes * a.ifmap_spad * ob, owner, "reg"});
  ids.spad_psum = sink.declare({0, owner + ".spad.psum", ResourceClass::Memory, "byte", pes * a.psum_spad * ids.acc_bytes,
                                owner, "reg"});
  auto carries = [](int64_t bytes) { return fmt::format("link_cycle:{}", bytes); };
  ids.gin_filter = sink.declare({0, owner + ".gin.filter", ResourceClass::Network, "word", kRsWideNetworkWords, owner, "",
                                 "sram>" + owner, carries(ids.weight_bytes)});
  ids.gin_ifmap = sink.declare({0, owner + ".gin.ifmap", ResourceClass::Network, "word", 1, owner, "", "sram>" + owner,
                                carries(ids.act_bytes)});
  ids.gin_psum = sink.declare({0, owner + ".gin.psum", ResourceClass::Network, "word", kRsWideNetworkWords, owner, "", "sram>" + owner,
                               carries(ids.acc_bytes)});
  ids.gon = sink.declare({0, owner + ".gon", ResourceClass::Network, "word", kRsWideNetworkWords, owner, "", owner + ">sram",
                          carries(ids.acc_bytes)});
  ids.local = sink.declare({0, owner + ".link.local", ResourceClass::Network, "word", pes * a.psum_spad, owner, "",
                            owner + ">" + owner, carries(ids.acc_bytes)});
  const std::string prec = p.operand_name();
  sink.bind(sink.declare_action("mac." + prec + ".executed", "MAC"), ids.active_pes, 1);
  ids.nominal_macs = sink.declare_action("mac." + prec + ".nominal", "MAC");
  ids.gates_zeros = a.gates_zeros;
  if (a.gates_zeros) ids.gated_macs = sink.declare_action("mac." + prec + ".gated", "MAC");
  // Per MAC: an ifmap scratchpad read; unless the MAC is gated (a zero ifmap value skips the
  // filter read and the MAC, and leaves the psum as it was: JSSC 2017 §V-C), a filter read and
  // a psum read and write, booked per pass when it starts.
  sink.bind(sink.declare_action("reg.read.ifmap", "byte"), ids.active_pes, ob);
  ids.spad_read_filter = sink.declare_action("reg.read.filter", "byte");
  ids.spad_read_psum = sink.declare_action("reg.read.psum", "byte");
  ids.spad_write_psum = sink.declare_action("reg.write.psum", "byte");
  ids.spad_write_filter = sink.declare_action("reg.write.filter", "byte");
  ids.spad_write_ifmap = sink.declare_action("reg.write.ifmap", "byte");
  sink.bind(sink.declare_action("sram.read.ifmap", "byte"), ids.gin_ifmap, ids.act_bytes);
  sink.bind(sink.declare_action("sram.read.filter", "byte"), ids.gin_filter, ids.weight_bytes);
  sink.bind(sink.declare_action("sram.read.psum", "byte"), ids.gin_psum, ids.acc_bytes);
  sink.bind(sink.declare_action("sram.write.psum", "byte"), ids.gon, ids.acc_bytes);
  sink.bind(sink.declare_action("link.local", "byte"), ids.local, ids.acc_bytes);
  ids.has_channel = a.channel;
  if (a.channel)
    ids.dram = sink.declare({0, "dram.channel.busy", ResourceClass::Network, "link", 1, "dram", "", "dram>sram",
                             "actions:hbm.read+hbm.write"});
  if (a.dram_actions) {
    ids.dram_read_filter = sink.declare_action("hbm.read.filter", "byte");
    ids.dram_read_ifmap = sink.declare_action("hbm.read.ifmap", "byte");
    ids.dram_write_ofmap = sink.declare_action("hbm.write.ofmap", "byte");
  }
  return ids;
}

void announce_rs_pass(trace::TraceSink& sink, const RsTraceIds& ids, const RsLayerPlan& plan, size_t pi,
                      const RsPassTiming& t, const RsStepTiming* steps, size_t count) {
  const RsPass& pass = plan.passes[pi];
  const RsPassShape sh = rs_pass_shape(plan, pass);
  const RsShape& s = plan.shape;
  const RsMapping& m = plan.mapping;
  const int64_t r_sets = (pass.channels + m.q - 1) / m.q, t_sets = (pass.filters + m.p - 1) / m.p;
  const int64_t pe_per_set = pass.filter_rows * pass.rows;
  sink.count(t.start, ids.nominal_macs, sh.macs);
  if (ids.gates_zeros && t.gated > 0) sink.count(t.start, ids.gated_macs, t.gated);
  const int64_t ungated = sh.macs - (ids.gates_zeros ? t.gated : 0);
  sink.count(t.start, ids.spad_read_filter, ungated * ids.register_bytes);
  sink.count(t.start, ids.spad_read_psum, ungated * ids.acc_bytes);
  sink.count(t.start, ids.spad_write_psum, ungated * ids.acc_bytes);
  // The filter scratchpads fill from the pass's start (each word multicast to its PE row) and
  // hold until its last MAC.
  const int64_t filter_bytes = sh.filter_words * pass.rows * ids.weight_bytes;
  sink.add(t.start, ids.spad_filter, filter_bytes);
  sink.add(t.compute_end + 1, ids.spad_filter, -filter_bytes);
  announce_words(sink, ids.gin_filter, t.start, sh.filter_words, kRsWideNetworkWords);
  sink.count(t.start + (sh.filter_words + kRsWideNetworkWords - 1) / kRsWideNetworkWords - 1, ids.spad_write_filter, filter_bytes);
  // Per step: the windows and psums held, the MACs, the networks' words.
  std::vector<int64_t> q_of(static_cast<size_t>(r_sets)), p_of(static_cast<size_t>(t_sets));
  for (int64_t i = 0; i < r_sets; ++i) q_of[size_t(i)] = rs_share(pass.channels, m.q, i);
  for (int64_t i = 0; i < t_sets; ++i) p_of[size_t(i)] = rs_share(pass.filters, m.p, i);
  const bool ragged = q_of.back() != sh.q_max || p_of.back() != sh.p_max;
  int64_t window_values = 0;  // ifmap values the PEs' windows hold
  for (int64_t q : q_of) window_values += q * s.S * t_sets * pe_per_set;
  const int64_t psum_values = sh.psum_words * r_sets * pass.filter_rows;  // every PE's p psums
  for (size_t k = 0; k < count; ++k) {
    const RsStepTiming& st = steps[k];
    announce_words(sink, ids.gin_ifmap, st.send_start, st.send_end - st.send_start + 1, 1);
    if (st.psum_in_start >= 0) announce_words(sink, ids.gin_psum, st.psum_in_start, sh.psum_words, kRsWideNetworkWords);
    announce_words(sink, ids.gon, st.out_start, sh.psum_words, kRsWideNetworkWords);
    if (sh.chain > 1) {  // hops up the columns: one a cycle after the step's last MAC
      sink.add(st.compute_end + 2, ids.local, sh.psum_words);
      sink.add(st.compute_end + 1 + sh.chain, ids.local, -sh.psum_words);
    }
    sink.add(st.compute_start, ids.spad_ifmap, window_values * ids.act_bytes);
    sink.add(st.compute_end + 1, ids.spad_ifmap, -window_values * ids.act_bytes);
    sink.add(st.compute_start, ids.spad_psum, psum_values * ids.acc_bytes);
    sink.add(st.compute_end + 1, ids.spad_psum, -psum_values * ids.acc_bytes);
    // The window's new values are written into the PEs' ifmap scratchpads as the step starts.
    const int64_t fresh = st.step % s.F() == 0 ? s.S : std::min(s.U, s.S);
    sink.count(st.compute_start, ids.spad_write_ifmap, window_values / s.S * fresh * ids.act_bytes);
    if (!ragged) {
      sink.add(st.compute_start, ids.active_pes, sh.active_pes);
      sink.add(st.compute_end + 1, ids.active_pes, -sh.active_pes);
      continue;
    }
    // Sets with fewer channels or filters than the fullest idle where their share ends: MAC i
    // of the step is (channel i / (S p), tap, filter i % p).
    int64_t previous = 0;
    for (int64_t i = 0; i < sh.step_cycles; ++i) {
      const int64_t ch = i / (s.S * sh.p_max), f = i % sh.p_max;
      int64_t active = 0;
      for (int64_t q : q_of)
        for (int64_t p : p_of) active += (ch < q && f < p) ? pe_per_set : 0;
      if (active != previous) sink.add(st.compute_start + i, ids.active_pes, active - previous);
      previous = active;
    }
    if (previous) sink.add(st.compute_end + 1, ids.active_pes, -previous);
  }
}

void announce_rs_transfers(trace::TraceSink& sink, const RsTraceIds& ids, const RsTransfer* transfers, size_t count) {
  for (size_t k = 0; k < count; ++k) {
    const RsTransfer& t = transfers[k];
    if (ids.has_channel) {
      sink.add(t.start, ids.dram, 1);
      sink.add(t.end + 1, ids.dram, -1);
    }
    const trace::ActionId action = t.kind == RsTransfer::Filters ? ids.dram_read_filter
                                   : t.kind == RsTransfer::Ifmap ? ids.dram_read_ifmap
                                                                 : ids.dram_write_ofmap;
    sink.count(t.end, action, t.bytes);
  }
}

}  // namespace cstsim
