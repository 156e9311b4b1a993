#include "sim/run/report.h"

#include "core/csv.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "models/hbm/hbm_spec.h"
#include "sim/mapper/rocc_map.h"
#include "commit.h"
#include "version.h"

namespace cstsim {

double utilization(const ArchSpec& a, int64_t macs, int64_t cycles) {
  return cycles > 0 ? double(macs) / (double(a.rows) * a.cols * a.precision.pack * a.clusters * double(cycles)) : 0.0;
}

namespace {

// dataflow: rs: the mapping (JSSC 2017 Table II's parameters), the words over the array's
// networks (the global buffer's reads and writes) and the DRAM channel's bytes.
nlohmann::ordered_json rs_json(const RsLayerReport& r, double clock_hz) {
  nlohmann::ordered_json j;
  j["passes"] = r.passes;
  j["mapping"] = rs_mapping_json(r.mapping);
  j["glb_words"] = {{"ifmap_reads", r.glb.ifmap_words}, {"filter_reads", r.glb.filter_words},
                    {"psum_reads", r.glb.psum_in_words}, {"psum_writes", r.glb.psum_out_words}};
  j["dram_bytes"] = {{"filter_reads", r.dram_filter_bytes}, {"ifmap_reads", r.dram_ifmap_bytes},
                     {"ofmap_writes", r.dram_ofmap_bytes},
                     {"total", r.dram_filter_bytes + r.dram_ifmap_bytes + r.dram_ofmap_bytes}};
  j["processing_cycles"] = r.processing_cycles;
  j["processing_time_s"] = double(r.processing_cycles) / clock_hz;
  return j;
}

nlohmann::ordered_json sram_json(const ArrayLayerStats& s, FoldPipeline pipeline) {
  nlohmann::ordered_json j;
  j["ifmap_reads"] = s.sram.ifmap_reads;
  j["filter_reads"] = s.sram.filter_reads;
  j["ofmap_writes"] = s.sram.ofmap_writes;
  j["psum_reads"] = s.psum_reads;
  if (pipeline == FoldPipeline::ScaleSim) j["ofmap_writes_scalesim"] = s.scalesim_ofmap_writes;
  j["unit"] = "words";
  return j;
}

// Stall cycles (cycles - ideal-memory cycles) by root cause, every cause always present (0
// when it never held the array up). memory_bandwidth: memory: channel; hbm: memory: hbm (one
// bucket); the rest: memory: hierarchy (models/dma/README.md, "Stalls by root cause").
nlohmann::ordered_json stalls_json(const std::map<std::string, int64_t>& causes) {
  nlohmann::ordered_json j = {{"memory_bandwidth", 0}, {"hbm", 0},          {"hbm_bandwidth", 0},
                              {"hbm_latency", 0},      {"hbm_row_miss", 0}, {"hbm_refresh", 0},
                              {"noc_bandwidth", 0},    {"noc_latency", 0},  {"dma_issue", 0},
                              {"spad_ports", 0},       {"dependency", 0}};
  for (const auto& [cause, cycles] : causes) j[cause] = j.value(cause, int64_t(0)) + cycles;
  return j;
}

// A sum that stays unknown once one of its terms is.
void add_known(std::optional<int64_t>& total, const std::optional<int64_t>& v) {
  total = total && v ? std::optional<int64_t>(total.value() + v.value()) : std::nullopt;
}

nlohmann::ordered_json json_or_null(const std::optional<int64_t>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
}

// DRAM bytes a layer read and wrote, where the run's memory counts them; nullopt: not modelled
// (memory: channel carries only the stationary operand's reads; SCALE-Sim's memory replayed for
// its stalls alone, without --scalesim-reports all).
std::pair<std::optional<int64_t>, std::optional<int64_t>> dram_bytes(const RunReport& r, size_t i,
                                                                     const ArrayLayerResult& L) {
  const auto& replay = r.plan && i < r.plan->layers.size() ? r.plan->layers[i].scalesim : std::nullopt;
  if (replay && replay->accesses) return {replay->dram[0].words + replay->dram[1].words, replay->dram[2].words};  // 1-byte words
  if (replay) return {std::nullopt, std::nullopt};
  if (L.has_hierarchy) return {L.hierarchy.shared.hbm_bytes_read, L.hierarchy.shared.hbm_bytes_written};
  if (r.arch->memory == MemoryMode::Ideal) return {0, 0};
  return {L.dram_bytes, std::nullopt};
}

nlohmann::ordered_json hierarchy_json(const HierarchyLayerStats& h, int64_t memory_end) {
  return {{"hbm_bytes_read", h.shared.hbm_bytes_read},
          {"hbm_bytes_written", h.shared.hbm_bytes_written},
          {"dma_bytes_delivered", h.dma_bytes_delivered},
          {"dma_bytes_sent", h.dma_bytes_sent},
          {"dma_requests", h.dma_requests},  // at most one per queue and cycle, up to hbm.request_bytes
          {"dma_pieces", h.dma_pieces},      // their per-channel pieces (one NoC packet each)
          {"dma_bytes_on_chip", h.dma_bytes_on_chip},  // outputs kept for the next layer (overlap: pipeline)
          {"spad_bytes_written", h.spad_bytes_written},
          {"spad_bytes_read", h.spad_bytes_read},
          {"spad_conflict_cycles", h.spad_conflict_cycles},
          {"spad_peak_bytes", {{"ifmap", h.spad_peak[0]}, {"filter", h.spad_peak[1]}, {"ofmap", h.spad_peak[2]}}},
          {"noc_flit_hops", h.shared.noc_flit_hops},
          {"noc_packets", h.shared.noc_packets},
          {"hbm_activates", h.shared.hbm_activates},
          {"hbm_refreshes", h.shared.hbm_refreshes},  // every refresh command, all-bank or per-bank
          {"hbm_bank_refreshes", h.shared.hbm_bank_refreshes},
          {"hbm_row_hit_rate", h.shared.hbm_row_hit_rate()},
          {"writeback_end_cycle", memory_end}};
}

// A kernel's step of the run's memory: its HBM bytes, row hits and flit-hops.
nlohmann::ordered_json kernel_memory_json(const SharedStats& m) {
  return {{"hbm_bytes_read", m.hbm_bytes_read}, {"hbm_bytes_written", m.hbm_bytes_written},
          {"hbm_row_hit_rate", m.hbm_row_hit_rate()}, {"noc_flit_hops", m.noc_flit_hops}};
}

// The vector unit's kernels: what each ran, when, and what it moved. bytes: what its tiles read
// into and wrote out of the scratchpad through its ports (the plan's operands, counted as the tiles
// ran); under memory: hierarchy, memory: the HBM and NoC figures of its step, measured.
nlohmann::ordered_json vector_json(const ArchSpec& a, const std::vector<const VectorKernelStep*>& plan,
                                   const std::vector<VectorKernelResult>& results) {
  nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
  int64_t compute = 0, waiting = 0, hbm_read = 0, hbm_written = 0, read = 0, written = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    const VectorKernelPlan& p = plan.at(i)->kernel;
    const VectorKernelResult& k = results[i];
    nlohmann::ordered_json j;
    j["name"] = p.name;
    j["ops"] = p.ops;
    j["steps"] = p.what;
    j["rows"] = p.rows;
    j["cols"] = p.cols;
    j["tile_rows"] = p.tile_rows;
    j["tiles"] = k.tiles;
    j["start_cycle"] = k.start_cycle;
    j["end_cycle"] = k.end_cycle;
    j["cycles"] = k.cycles();
    j["compute_cycles"] = k.compute_cycles;
    j["waiting_cycles"] = k.waiting_cycles;
    j["stalls"] = stalls_json(k.stalls);  // cycles - compute_cycles by root cause
    j["operations"] = by_class_json(k.ops);
    j["lane_utilization"] =
        k.cycles() > 0 ? double(k.lane_cycles) / (double(a.vector.lanes) * a.clusters * double(k.cycles())) : 0.0;
    j["bytes_read"] = k.spad_bytes_read;
    j["bytes_written"] = k.spad_bytes_written;
    if (k.has_hierarchy) j["memory"] = kernel_memory_json(k.shared);
    if (k.sampling) {  // fidelity: sampled (models/vector/vector_unit.h)
      const VectorKernelResult::Sampling& s = *k.sampling;
      j["sampling"] = {{"tiles", s.tiles},
                       {"detailed_tiles", s.detailed_tiles},
                       {"measured_tiles", s.measured_tiles},
                       {"windows", s.windows},
                       {"mean_wait_cycles", s.mean_wait},
                       {"ci95_cycles", s.ci95_cycles},
                       {"degenerate", s.degenerate}};
    }
    kernels.push_back(std::move(j));
    compute += k.compute_cycles;
    waiting += k.cycles() - k.compute_cycles;
    hbm_read += k.shared.hbm_bytes_read;
    hbm_written += k.shared.hbm_bytes_written;
    read += k.spad_bytes_read;
    written += k.spad_bytes_written;
  }
  nlohmann::ordered_json v;
  v["lanes"] = a.vector.lanes;
  v["fusion"] = a.vector.fusion;
  v["port_bytes"] = a.vector.port_bytes;  // per cycle, reads and writes: the roofline's SRAM level counts it
  v["kernels"] = std::move(kernels);
  v["total"] = {{"kernels", results.size()}, {"compute_cycles", compute}, {"memory_cycles", waiting},
                {"bytes_read", read}, {"bytes_written", written}};
  if (a.memory == MemoryMode::Hierarchy) {
    v["total"]["hbm_bytes_read"] = hbm_read;
    v["total"]["hbm_bytes_written"] = hbm_written;
  }
  return v;
}

// Flash attention: its blocks, what the array and the vector unit did, and what it moved.
nlohmann::ordered_json flash_json(const ArchSpec& a, const std::vector<const FlashKernelStep*>& plan,
                                  const std::vector<FlashKernelResult>& results) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (size_t i = 0; i < results.size(); ++i) {
    const FlashKernelPlan& p = plan.at(i)->kernel;
    const FlashKernelResult& k = results[i];
    nlohmann::ordered_json j;
    j["name"] = p.name;
    j["batch"] = p.batch;
    j["heads"] = p.heads;
    j["kv_heads"] = p.kv_heads;
    j["Sq"] = p.Sq;
    j["Skv"] = p.Skv;
    j["head_dim"] = p.d;
    j["causal"] = p.causal;
    j["q_block"] = p.q_block;
    j["kv_block"] = p.kv_block;
    j["kv_resident"] = p.kv_resident;
    j["tiles"] = k.tiles;
    j["macs"] = k.macs;
    j["start_cycle"] = k.start_cycle;
    j["end_cycle"] = k.end_cycle;
    j["cycles"] = k.cycles();
    j["utilization"] = utilization(a, k.macs, k.cycles());
    j["array_cycles"] = k.array_cycles;
    j["vector_cycles"] = k.vector.compute_cycles;
    j["waiting_cycles"] = k.waiting_cycles;
    j["stalls"] = stalls_json(k.stalls);  // cycles - array_cycles - vector_cycles by root cause
    j["vector_operations"] = by_class_json(k.vector.ops);
    if (k.has_hierarchy) j["memory"] = kernel_memory_json(k.shared);
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace

nlohmann::ordered_json rs_mapping_json(const RsMapping& m) {
  const RsPlacement& p = m.place;
  return {{"n", m.n}, {"p", m.p}, {"q", m.q}, {"r", m.r}, {"t", m.t}, {"m", m.m}, {"e", p.width},
          {"strips", p.strips}, {"segments", p.segments}, {"filter_row_folds", p.row_folds},
          {"active_pes", p.active_pes()},
          {"glb_ifmap_values", m.glb_ifmap_values}, {"glb_psum_values", m.glb_psum_values}};
}

nlohmann::ordered_json summary_json(const RunReport& r, io::JsonArraySpool* layer_spool) {
  const ArchSpec& a = *r.arch;
  const bool scalesim = a.fold_pipeline == FoldPipeline::ScaleSim;
  nlohmann::ordered_json j;
  j["version"] = CSTSIM_VERSION;
  j["commit"] = CSTSIM_COMMIT;  // the git commit of the build, or "unknown"
  j["config_hash"] = r.config_hash;
  j["mode"] = r.mode;
  j["cycles_convention"] = scalesim ? "scalesim_last_index" : "count";
  j["arch"] = {{"name", a.name},
               {"source", a.source},
               {"rows", a.rows},
               {"cols", a.cols},
               {"dataflow", to_string(a.dataflow)},
               {"clock_hz", a.clock_hz},
               {"operand_bits", a.precision.operand_bits()},
               {"accumulator_bits", a.precision.accumulator_bits()},
               {"operand", to_string(a.precision.operand)},
               {"accumulator", to_string(a.precision.accumulator)},
               {"macs_per_pe_cycle", a.precision.pack},
               {"fold_pipeline", to_string(a.fold_pipeline)},
               {"clusters", a.clusters},
               {"memory", to_string(a.memory)}};
  for (const auto& [type, macs] : a.pe_macs) j["arch"]["pe_types"][to_string(type)] = macs;
  if (a.zero_gating) j["arch"]["zero_gating"] = true;
  if (!a.dropped_keys.empty()) j["arch"]["dropped_keys"] = a.dropped_keys;  // --set memory= left them out
  // Stored types of A and B where they are not the operand's (precision.activation / .weight).
  if (a.precision.activation) j["arch"]["activation"] = to_string(*a.precision.activation);
  if (a.precision.weight) j["arch"]["weight"] = to_string(*a.precision.weight);
  if (r.modules) {
    j["modules"] = nlohmann::ordered_json::array();
    for (const ModuleInfo& m : *r.modules) {
      nlohmann::ordered_json e = {{"name", m.name}, {"kind", m.kind}};
      if (!m.process.empty())
        e["process"] = m.process;
      else
        e["no_process_because"] = m.no_process_because;
      if (m.activations >= 0) {
        e["activations"] = m.activations;
        e["events"] = m.events;
      }
      j["modules"].push_back(std::move(e));
    }
  }
  if (has_hbm(a.memory)) {
    const hbm::HbmSpec& spec = a.hbm_spec;
    j["arch"]["hbm"] = {{"spec", a.hbm.spec},
                        {"peak_bytes_per_s", spec.peak_gbps() * 1e9},
                        {"fifo_tiles", a.hbm.fifo_tiles},
                        {"max_outstanding", a.hbm.max_outstanding},
                        {"request_bytes", a.hbm.request_bytes}};
  }
  if (a.memory == MemoryMode::Hierarchy) {
    j["arch"]["hbm"]["layout"] = a.hbm.layout;
    j["arch"]["overlap"] = a.overlap;
    // The cluster's router as resolved (unset: the mesh's centre), never the unset marker.
    const int x = a.noc.cluster_x < 0 ? a.noc_config.cols / 2 : a.noc.cluster_x;
    const int y = a.noc.cluster_y < 0 ? a.noc_config.rows / 2 : a.noc.cluster_y;
    // flit_bytes and clock_hz: a cluster's mesh port moves one flit a NoC cycle each way (report.json's
    // roofline takes that ceiling).
    j["arch"]["noc"] = {{"spec", a.noc.spec}, {"cluster_x", x}, {"cluster_y", y},
                        {"flit_bytes", a.noc_config.flit_bytes}, {"clock_hz", a.noc_config.clock_hz}};
    j["arch"]["scratchpad"] = {{"banks", a.scratchpad.banks},
                               {"word_bytes", a.scratchpad.word_bytes},
                               {"ports_per_bank", a.scratchpad.ports_per_bank},
                               {"read_latency", a.scratchpad.read_latency},
                               {"write_latency", a.scratchpad.write_latency},
                               {"word_bytes_per_edge", a.scratchpad.word_bytes_per_edge
                                                          ? nlohmann::ordered_json(a.scratchpad.word_bytes_per_edge)
                                                          : nlohmann::ordered_json()},
                               {"ifmap_bytes", a.ifmap_sram_kib * 1024},
                               {"filter_bytes", a.filter_sram_kib * 1024},
                               {"ofmap_bytes", a.ofmap_sram_kib * 1024}};
  }
  if (a.memory == MemoryMode::Channel)
    j["arch"]["channel"] = {{"bandwidth_bytes_per_s", a.channel.bandwidth_bytes_per_s},
                            {"latency_s", a.channel.latency_s},
                            {"fifo_tiles", a.channel.fifo_tiles},
                            {"tile_layout", a.channel.padded_tiles ? "padded" : "packed"}};
  j["workload"] = {{"name", r.workload->name}, {"source", r.workload->source},
                   {"layers", r.workload->layers.size()}};
  if (const auto& t = r.workload->training) {
    std::set<std::string> forward_ops;  // vector ops of the forward pass: their backward is not modelled
    for (const VectorStep& v : r.workload->vector_steps)
      if (v.kind != "adamw") forward_ops.insert(v.op);
    j["training"] = {{"recompute", t->recompute},
                     {"forward_layers", t->forward_layers},
                     {"macs", {{"forward", t->forward_macs}, {"backward", t->backward_macs},
                               {"recomputed", t->recomputed_macs}}},
                     {"stored_activation_bytes", t->stored_activation_bytes},
                     {"weight_gradient_bytes", t->weight_gradient_bytes},
                     {"optimizer", "adamw on the vector unit, fp32 master weights, m and v"},
                     {"optimizer_state_bytes", t->optimizer_state_bytes},
                     {"parameters", t->parameters},
                     {"not_modelled", {{"vector_op_backward", forward_ops},
                                       {"note", "the backward passes of the vector ops (norms, softmax, activations, "
                                                "residual adds) and gradient sums of tensors read twice"}}}};
  }
  if ((r.workload->is_graph || r.workload->training) && a.vector.lanes == 0) {  // no vector unit: its ops did not run
    nlohmann::ordered_json skipped = nlohmann::ordered_json::array();
    for (const VectorStep& v : r.workload->vector_steps) {
      if (skipped.empty() || skipped.back()["name"] != v.op)
        skipped.push_back({{"name", v.op}, {"op", v.kind}, {"steps", 0}, {"read_bytes", 0}, {"written_bytes", 0}});
      nlohmann::ordered_json& op = skipped.back();
      op["steps"] = op["steps"].get<int64_t>() + 1;
      op["read_bytes"] = op["read_bytes"].get<int64_t>() + v.read_bytes();
      op["written_bytes"] = op["written_bytes"].get<int64_t>() + v.written_bytes();
    }
    j["workload"]["not_simulated"] = skipped;
  }

  nlohmann::ordered_json layers = nlohmann::ordered_json::array();
  int64_t cycles = 0, ideal_cycles = 0, macs = 0, first = 0, last = -1, stalls = 0, psum_reads = 0;
  SampleReport sampled;  // over the sampled layers
  bool any_sampled = false;
  int64_t folds_all = 0;
  std::optional<int64_t> dram = 0, dram_written_total = 0;  // none once a layer's memory does not model writes
  std::map<std::string, int64_t> stall_causes;
  EdgeCounts sram;
  bool verified = true, verify_ran = false;
  double worst_error = 0;  // floats: the largest error against fp64 over the layers
  for (size_t i = 0; i < r.layers->size(); ++i) {
    const ArrayLayerResult& L = (*r.layers)[i];
    const Layer& src = r.workload->layers[i];
    nlohmann::ordered_json l;
    l["name"] = L.shape.name;
    l["M"] = L.shape.M;
    l["N"] = L.shape.N;
    l["K"] = src.K;
    if (src.weights_2_4)  // the PEs hold the kept half and skip the rest, or run it dense
      l["sparsity"] = {{"weights", "2:4"}, {"skipped_in_pes", a.skip_2_4},
                       {"macs_nominal", src.macs()}, {"macs_executed", L.stats.macs}};
    if (src.input_density < 1) l["input_density"] = src.input_density;  // gated lanes: report.json C_P.O
    if (src.repeats > 1) l["repeats"] = src.repeats;  // GEMMs of this shape, one after another
    l["dataflow"] = to_string(a.dataflow);
    l["cycles"] = L.cycles;
    l["macs"] = L.stats.macs;
    l["utilization"] = utilization(a, L.stats.macs, L.cycles);
    l["mapping_efficiency"] = L.stats.mapping_efficiency;
    l["compute_utilization"] = L.stats.compute_utilization;
    l["ideal_cycles"] = L.ideal_cycles;
    l["stall_cycles"] = L.stall_cycles;
    l["stalls"] = stalls_json(L.stalls);
    const auto [dram_read, dram_written] = dram_bytes(r, i, L);
    l["dram_bytes"] = json_or_null(dram_read);  // read; written beside it (null: the memory does not model them)
    l["dram_bytes_written"] = json_or_null(dram_written);
    // Estimated folds, or every fold simulated from a state an earlier estimate left (its interval
    // is that state's; models/array/array_module.cpp start_state_ci95); else simulated exactly.
    if (L.sampling && (L.sampling->detailed_folds < L.sampling->folds || L.sampling->ci95_cycles > 0)) {
      const SampleReport& s = *L.sampling;
      l["sampling"] = {{"folds", s.folds},
                       {"detailed_folds", s.detailed_folds},
                       {"measured_folds", s.measured_folds},
                       {"windows", s.windows},
                       {"mean_stall_cycles", s.mean_stall},
                       {"ci95_cycles", s.ci95_cycles},
                       {"degenerate", s.degenerate},
                       {"repeats", s.repeats}};
      sampled += s;
      any_sampled = true;
    }
    folds_all += L.sampling ? L.sampling->folds : L.plan.fold_count() * std::max(1, L.passes);
    if (L.has_hierarchy) {
      l["memory"] = hierarchy_json(L.hierarchy, L.memory_end);
      l["memory"]["stream_passes"] = L.passes;
      // The tile FIFO's depth the layer ran with: hbm.fifo_tiles, or fewer where the partition
      // holds fewer (sim/mapper/dma_plan.h).
      int depth = 0;
      if (r.plan && i < r.plan->layers.size())
        for (const ClusterLayerPlan& c : r.plan->layers[i].clusters)
          for (const PassPlan& p : c.passes)
            if (p.has_dma) depth = depth ? std::min(depth, p.dma.fifo_tiles) : p.dma.fifo_tiles;
      if (depth) l["memory"]["fifo_tiles"] = depth;
    }
    l["start_cycle"] = L.start_cycle;
    l["end_cycle"] = L.end_cycle;
    l["time_s"] = double(L.end_cycle - L.start_cycle + 1) / a.clock_hz;
    l["folds"] = {{"count", L.plan.fold_count()}, {"row_folds", L.plan.row_folds},
                  {"col_folds", L.plan.col_folds}, {"Sr", L.plan.Sr}, {"Sc", L.plan.Sc}, {"T", L.plan.T}};
    if (L.plan.k_chunks > 1) l["folds"]["k_chunks"] = L.plan.k_chunks;  // OS: a tile's K cut into chunks
    l["sram"] = sram_json(L.stats, a.fold_pipeline);
    if (L.has_rs) l["rs"] = rs_json(L.rs, a.clock_hz);
    if (L.has_rocc) {  // controller: rocc: the command stream (models/array/rocc_controller.h)
      const RoccTiming& t = L.rocc;
      l["rocc"] = {{"loops", t.loops},
                   {"commands", t.commands},
                   {"rows_streamed", t.rows_streamed},
                   {"dma_bytes_read", t.bytes_read},
                   {"dma_bytes_written", t.bytes_written},
                   {"dma_read_requests", t.read_requests},
                   {"dma_write_requests", t.write_requests},
                   {"rob_full_cycles", t.rob_full_cycles}};
      if (r.plan && i < r.plan->layers.size() && r.plan->layers[i].rocc)
        l["rocc"]["tile"] = rocc_tile_json(*r.plan->layers[i].rocc);
    }
    if (src.conv) {
      const ConvShape& c = *src.conv;
      l["conv"] = {{"ifmap_h", c.ifmap_h}, {"ifmap_w", c.ifmap_w}, {"filter_h", c.filter_h},
                   {"filter_w", c.filter_w}, {"channels", c.channels}, {"filters", c.filters},
                   {"stride", c.stride},
                   {"lowering", !L.has_hierarchy ? "im2col"
                                : L.hierarchy.im2col_ifmap_passes == 0 ? "im2col on chip from the raw ifmap"
                                : L.hierarchy.raw_ifmap_passes == 0   ? "im2col rows from HBM"
                                                                       : "mixed: raw ifmap where it fits, else im2col rows"}};
      if (c.col_stride() != c.stride) l["conv"]["stride_w"] = c.col_stride();  // SCALE-Sim's 9th field
    }
    if (src.conv && src.conv->dilation > 1) l["conv"]["dilation"] = src.conv->dilation;
    if (L.verify.ran) {
      l["verify"] = {{"passed", L.verify.passed}, {"detail", L.verify.detail}};
      if (is_float(a.precision.operand)) {
        l["verify"]["max_relative_error_vs_fp64"] = L.verify.max_relative_error;
        worst_error = std::max(worst_error, L.verify.max_relative_error);
      }
      if (L.verify.gated_lanes >= 0) l["verify"]["gated_lanes_counted"] = L.verify.gated_lanes;
      verify_ran = true;
      verified = verified && L.verify.passed;
    }
    if (layer_spool) layer_spool->push(l);
    else layers.push_back(std::move(l));
    cycles += L.cycles;
    ideal_cycles += L.ideal_cycles;
    macs += L.stats.macs;
    stalls += L.stall_cycles;
    for (const auto& [cause, n] : L.stalls) stall_causes[cause] += n;
    add_known(dram, dram_read);
    add_known(dram_written_total, dram_written);
    sram.ifmap_reads += L.stats.sram.ifmap_reads;
    sram.filter_reads += L.stats.sram.filter_reads;
    sram.ofmap_writes += L.stats.sram.ofmap_writes;
    psum_reads += L.stats.psum_reads;
    if (i == 0) first = L.start_cycle;
    last = L.end_cycle;
  }
  j["layers"] = layer_spool ? io::JsonArraySpool::placeholder() : std::move(layers);
  int64_t vector_cycles = 0, kernel_tiles = 0, estimated_tiles = 0;  // of the sampled kernels
  if (r.vector && !r.vector->empty()) {
    j["vector"] = vector_json(a, r.plan->program.all<VectorKernelStep>(), *r.vector);
    for (const VectorKernelResult& k : *r.vector) {
      vector_cycles += k.cycles();
      ideal_cycles += k.compute_cycles;  // the kernel with its operands always there
      stalls += k.cycles() - k.compute_cycles;
      for (const auto& [cause, n] : k.stalls) stall_causes[cause] += n;
      first = std::min(first, k.start_cycle);
      last = std::max(last, k.end_cycle);
      if (k.sampling) {  // a stratum of its own: its interval joins the layers' in quadrature
        SampleReport own;
        own.set_interval(k.sampling->ci95_cycles);
        sampled += own;
        any_sampled = true;
        kernel_tiles += k.sampling->tiles;
        estimated_tiles += k.sampling->tiles - k.sampling->detailed_tiles;
      }
    }
  }
  cycles += vector_cycles;
  int64_t flash_cycles = 0;
  if (r.flash && !r.flash->empty()) {
    j["flash_attention"] = flash_json(a, r.plan->program.all<FlashKernelStep>(), *r.flash);
    for (const FlashKernelResult& k : *r.flash) {
      flash_cycles += k.cycles();
      macs += k.macs;
      ideal_cycles += k.array_cycles + k.vector.compute_cycles;
      stalls += k.cycles() - k.array_cycles - k.vector.compute_cycles;
      for (const auto& [cause, n] : k.stalls) stall_causes[cause] += n;
      first = std::min(first, k.start_cycle);
      last = std::max(last, k.end_cycle);
    }
  }
  cycles += flash_cycles;
  j["total"] = {{"cycles", cycles},
                {"macs", macs},
                {"utilization", utilization(a, macs, cycles)},
                {"ideal_cycles", ideal_cycles},
                {"stall_cycles", stalls},
                {"stalls", stalls_json(stall_causes)},
                {"dram_bytes", json_or_null(dram)},
                {"dram_bytes_written", json_or_null(dram_written_total)},
                {"time_s", double(last - first + 1) / a.clock_hz},
                {"sram", {{"ifmap_reads", sram.ifmap_reads}, {"filter_reads", sram.filter_reads},
                          {"ofmap_writes", sram.ofmap_writes}, {"psum_reads", psum_reads}, {"unit", "words"}}}};
  if (vector_cycles > 0) j["total"]["vector_cycles"] = vector_cycles;  // of cycles
  j["total"]["cycles_ci95"] = any_sampled ? sampled.ci95_cycles : 0.0;  // half-width; 0: simulated exactly
  // What was simulated: --fidelity as asked, and whether any pass was sampled; the folds of
  // the sampled passes simulated and estimated (every other fold was simulated).
  j["fidelity"] = {{"requested", r.fidelity},
                   {"result", any_sampled ? "sampled" : "exact"},
                   {"folds", folds_all},
                   {"estimated_folds", sampled.folds - sampled.detailed_folds},
                   {"estimated_share", folds_all > 0 ? double(sampled.folds - sampled.detailed_folds) / double(folds_all) : 0.0},
                   {"ci95_cycles", any_sampled ? sampled.ci95_cycles : 0.0}};
  if (kernel_tiles > 0) {  // the vector unit's sampled kernels
    j["fidelity"]["kernel_tiles"] = kernel_tiles;
    j["fidelity"]["estimated_tiles"] = estimated_tiles;
  }
  if (flash_cycles > 0) j["total"]["flash_attention_cycles"] = flash_cycles;  // of cycles
  if (verify_ran) {
    j["verify"] = {{"ran", true}, {"passed", verified}, {"operand", to_string(a.precision.operand)}};
    if (is_float(a.precision.operand)) {
      j["verify"]["reference"] = "bit-exact in the grid's accumulation order (models/array/gemm_data.h)";
      j["verify"]["max_relative_error_vs_fp64"] = worst_error;
    }
  }
  return j;
}

namespace {

// The stall causes, in stalls_json's order (the one vocabulary of every memory mode).
std::vector<std::string> stall_causes() {
  std::vector<std::string> out;
  const nlohmann::ordered_json none = stalls_json({});
  for (const auto& [cause, cycles] : none.items()) out.push_back(cause);
  return out;
}

}  // namespace

std::string layers_csv(const RunReport& r, const std::vector<double>* layer_energy) {
  const ArchSpec& a = *r.arch;
  const std::vector<std::string> causes = stall_causes();
  std::string out =
      "layer,name,M,N,K,dataflow,folds,start_cycle,end_cycle,cycles,time_s,macs,utilization,"
      "mapping_efficiency,compute_utilization,ideal_cycles,stall_cycles";
  for (const std::string& c : causes) out += ",stall_" + c;
  out += ",sram_ifmap_reads,sram_filter_reads,sram_ofmap_writes,sram_ofmap_writes_scalesim,"
         "dram_bytes_read,dram_bytes_written,energy_J\n";
  for (size_t i = 0; i < r.layers->size(); ++i) {
    const ArrayLayerResult& L = (*r.layers)[i];
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{:.9g},{},{:.9g},{:.9g},{:.9g},{},{}", i, csv::field(L.shape.name),
                       L.shape.M, L.shape.N, L.shape.K, to_string(a.dataflow), L.plan.fold_count(), L.start_cycle,
                       L.end_cycle, L.cycles, double(L.cycles) / a.clock_hz, L.stats.macs,
                       utilization(a, L.stats.macs, L.cycles), L.stats.mapping_efficiency, L.stats.compute_utilization,
                       L.ideal_cycles, L.stall_cycles);
    const nlohmann::ordered_json stalls = stalls_json(L.stalls);
    for (const std::string& c : causes) out += fmt::format(",{}", stalls[c].get<int64_t>());
    const auto [read, written] = dram_bytes(r, i, L);
    out += fmt::format(",{},{},{},{},{},{},", L.stats.sram.ifmap_reads, L.stats.sram.filter_reads,
                       L.stats.sram.ofmap_writes, L.stats.scalesim_ofmap_writes,
                       read ? std::to_string(*read) : std::string(), written ? std::to_string(*written) : std::string());
    // The layer's attributed energy, from the trace's post-processing (none with --no-trace).
    if (layer_energy && i < layer_energy->size()) out += fmt::format("{:.9g}", (*layer_energy)[i]);
    out += "\n";
  }
  return out;
}

std::string human_table(const RunReport& r) {
  const ArchSpec& a = *r.arch;
  const std::string typed = a.precision.label();
  std::string out = fmt::format("cstsim {} | {} {}x{} {} {} | {} | {} mode | {}\n", CSTSIM_VERSION, a.name, a.rows,
                                a.cols, to_string(a.dataflow), typed,
                                a.rocc.on ? std::string("rocc command stream (folds: computes)")
                                          : std::string(to_string(a.fold_pipeline)) + " pipeline",
                                r.mode, r.workload->name);
  // The name column is as wide as the longest name: names are often alike until their end.
  size_t w = 16;
  for (const ArrayLayerResult& L : *r.layers) w = std::max(w, L.shape.name.size());
  if (r.flash)
    for (const FlashKernelResult& k : *r.flash) w = std::max(w, k.name.size());
  out += fmt::format("{:<{}} {:>8} {:>8} {:>8} {:>6} {:>12} {:>10} {:>7} {:>7}  {}\n", "layer", w, "M", "N", "K",
                     "folds", "cycles", "stalls", "util%", "map%", r.mode == "reference" ? "verify" : "");
  int64_t cycles = 0, macs = 0;
  size_t index = 0;
  for (const ArrayLayerResult& L : *r.layers) {
    const Layer& src = r.workload->layers[index++];
    std::string v;
    if (src.weights_2_4) v = a.skip_2_4 ? "2:4, skipped " : "2:4, dense ";
    if (L.verify.ran) v += L.verify.passed ? "ok" : "FAILED: " + L.verify.detail;
    if (L.verify.ran && L.verify.passed && is_float(a.precision.operand))
      v += fmt::format(" (bit-exact; {:.1e} vs fp64)", L.verify.max_relative_error);
    out += fmt::format("{:<{}} {:>8} {:>8} {:>8} {:>6} {:>12} {:>10} {:>7.2f} {:>7.2f}  {}\n",
                       L.shape.name, w, L.shape.M, L.shape.N, src.K, L.plan.fold_count(), L.cycles,
                       L.stall_cycles, 100 * utilization(a, L.stats.macs, L.cycles),
                       100 * L.stats.mapping_efficiency, v);
    cycles += L.cycles;
    macs += L.stats.macs;
  }
  int64_t stalls = 0;
  std::map<std::string, int64_t> causes;
  for (const ArrayLayerResult& L : *r.layers) {
    stalls += L.stall_cycles;
    for (const auto& [cause, n] : L.stalls) causes[cause] += n;
  }
  if (r.vector && !r.vector->empty()) {  // one line for the vector unit's kernels
    int64_t vcycles = 0, waiting = 0, hbm = 0;
    for (const VectorKernelResult& k : *r.vector) {
      vcycles += k.cycles();
      waiting += k.cycles() - k.compute_cycles;
      hbm += k.shared.hbm_bytes_read + k.shared.hbm_bytes_written;
    }
    out += fmt::format("{:<{}} {:>8} {:>8} {:>8} {:>6} {:>12} {:>10}  {} kernels ({} fusion){}\n", "vector unit", w, "", "", "",
                       "", vcycles, waiting, r.vector->size(), a.vector.fusion,
                       a.memory == MemoryMode::Hierarchy ? fmt::format(", {} HBM bytes", hbm) : std::string());
    cycles += vcycles;
  }
  if (r.flash)
    for (const FlashKernelResult& k : *r.flash) {  // a line per flash-attention kernel
      out += fmt::format("{:<{}} {:>8} {:>8} {:>8} {:>6} {:>12} {:>10} {:>7.2f}  flash attention, {} tiles\n",
                         k.name, w, "", "", "", "", k.cycles(), k.waiting_cycles,
                         100 * utilization(a, k.macs, k.cycles()), k.tiles);
      cycles += k.cycles();
      macs += k.macs;
    }
  out += fmt::format("{:<{}} {:>8} {:>8} {:>8} {:>6} {:>12} {:>10} {:>7.2f}\n", "total", w, "", "", "", "", cycles, stalls,
                     100 * utilization(a, macs, cycles));
  if (stalls > 0) {  // largest cause first
    std::vector<std::pair<int64_t, std::string>> by_size;
    for (const auto& [cause, n] : causes)
      if (n > 0) by_size.emplace_back(-n, cause);
    std::sort(by_size.begin(), by_size.end());
    out += a.clusters > 1 ? "stall cluster-cycles by cause:" : "stall cycles by cause:";
    for (const auto& [n, cause] : by_size) out += fmt::format(" {} {} ({:.1f}%)", cause, -n, 100.0 * double(-n) / double(stalls));
    out += "\n";
  }
  return out;
}

}  // namespace cstsim
