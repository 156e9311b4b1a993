#include "sim/run/chips.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "models/interconnect/algorithms/i_collective_algorithm.h"
#include "models/interconnect/topologies.h"

namespace cstsim {

namespace {

// The vector unit's part of the chip set's parameters: how each chip adds what it receives.
void set_reduction(const ArchSpec& a, ic::ChipSetParams& p) {
  p.adds_per_cycle = double(a.vector.lanes) * a.vector.add_per_lane;
  p.port_bytes = double(a.vector.port_bytes);
  p.value_bits = a.precision.value_bits();
  p.clock_hz = a.clock_hz;
}

}  // namespace

double reduce_ps_per_byte(const ArchSpec& a) {
  ic::ChipSetParams p;
  set_reduction(a, p);
  return p.reduce_ps_per_byte(a.precision.value_bits());
}

ic::Topology chip_topology(const ArchSpec& a) {
  return ic::make_topology(a.interconnect.topology, a.chips, a.interconnect.torus_x);
}

ic::ChipSetParams chip_set_params(const ArchSpec& a) {
  ic::ChipSetParams p;
  p.chips = a.chips;
  p.topology = chip_topology(a);
  p.link = a.link_spec;
  p.slice_bytes = a.interconnect.slice_bytes;
  set_reduction(a, p);
  return p;
}

std::vector<CollectiveKernelPlan> run_collectives(const std::vector<Workload>& shares) {
  if (shares.front().pipeline_parallel == 1)  // the plan's part of each (their places stay with the workload)
    return {shares.front().collectives.begin(), shares.front().collectives.end()};
  std::vector<CollectiveKernelPlan> all;
  for (const Workload& w : shares)
    for (const CollectiveKernelPlan& c : w.collectives) {
      if (size_t(c.id) >= all.size()) all.resize(size_t(c.id) + 1);
      all[size_t(c.id)] = c;  // both ends list it alike
    }
  return all;
}

int64_t whole_work_cycles(const Workload& share, const Plan& plan, const std::vector<ArrayLayerResult>& layers,
                          const std::vector<VectorKernelResult>& vector, const std::vector<FlashKernelResult>& flash,
                          int64_t end_cycle) {
  const std::set<std::string>& whole = share.whole_on_every_chip;
  int64_t cycles = 0;
  for (size_t i = 0; i < layers.size() && i < plan.layers.size(); ++i)
    if (whole.count(plan.layers[i].name)) cycles += layers[i].end_cycle - layers[i].start_cycle + 1;
  const std::vector<const VectorKernelStep*> vector_steps = plan.program.all<VectorKernelStep>();
  const std::vector<const FlashKernelStep*> flash_steps = plan.program.all<FlashKernelStep>();
  for (size_t k = 0; k < vector.size() && k < vector_steps.size(); ++k) {
    const std::vector<std::string>& ops = vector_steps[k]->kernel.ops;
    if (!ops.empty() && std::all_of(ops.begin(), ops.end(), [&](const std::string& op) { return whole.count(op) > 0; }))
      cycles += vector[k].end_cycle - vector[k].start_cycle + 1;
  }
  for (size_t k = 0; k < flash.size() && k < flash_steps.size(); ++k)
    if (whole.count(flash_steps[k]->kernel.name)) cycles += flash[k].end_cycle - flash[k].start_cycle + 1;
  return std::min(cycles, end_cycle);  // spans that overlap (on-chip pipelining) count once at most
}

nlohmann::ordered_json chips_json(const ArchSpec& a, const std::vector<Workload>& shares, const ic::ChipSet& chips,
                                  const std::vector<int64_t>& end_cycle, const std::vector<int64_t>& macs,
                                  const std::vector<int64_t>& whole_cycles) {
  const Workload& share = shares.front();
  using nlohmann::ordered_json;
  const ic::Fabric& f = chips.fabric();
  const double ns_per_cycle = 1e9 / a.clock_hz;
  ordered_json j;
  j["count"] = a.chips;
  j["split"] = {{"tensor_parallel", share.tensor_parallel}, {"data_parallel", share.data_parallel},
                {"pipeline_stages", share.pipeline_parallel}, {"micro_batches", share.micro_batches}};
  j["split"]["rule"] = share.pipeline_parallel > 1
                           ? "pipeline: each chip a contiguous run of layers (MACs balanced), micro-batches sent "
                             "stage to stage, GPipe's forward schedule (sim/workload/pipeline_parallel.h)"
                       : share.data_parallel > 1
                           ? "data parallel: every chip 1/data of the samples, weights whole; a training step "
                             "all-reduces each weight's gradient before its optimizer step (sim/workload/data_parallel.h)"
                           : "Megatron-LM: weight GEMMs by columns then rows, attention by heads, an all-reduce after "
                             "each row split (sim/workload/tensor_parallel.h)";
  ordered_json layers = ordered_json::array();
  for (size_t i = 0; i < share.layers.size(); ++i)
    layers.push_back({{"name", share.layers[i].name}, {"split", share.layer_splits[i]}});
  j["split"]["layers"] = std::move(layers);
  j["split"]["whole_on_every_chip"] = share.whole_on_every_chip;
  j["interconnect"] = {{"topology", a.interconnect.topology},
                       {"link", a.interconnect.link_name},
                       {"link_file", a.interconnect.link},
                       {"bandwidth_gbps_per_direction", a.link_spec.bytes_per_ns},
                       {"latency_ns", double(a.link_spec.latency_ps) / 1e3},
                       {"max_payload_bytes", a.link_spec.max_payload},
                       {"header_bytes", a.link_spec.header},
                       {"pj_per_bit", a.link_spec.pj_per_bit},
                       {"slice_bytes", a.interconnect.slice_bytes},
                       {"reduce_ps_per_byte", reduce_ps_per_byte(a)}};
  const int64_t wall = *std::max_element(end_cycle.begin(), end_cycle.end());  // end_cycle: the first after
  int64_t all_macs = 0;
  ordered_json per_chip = ordered_json::array();
  for (int c = 0; c < a.chips; ++c) {
    // In a collective a chip first waits for the others to arrive (sync; a send's receiver, for the
    // sender), then for its own part of the messages (comm).
    int64_t waiting = 0, sync = 0;
    for (const ic::CollectiveRun& r : chips.runs()) {
      if (!r.member[size_t(c)]) continue;
      const int64_t mine = r.ready_cycle[size_t(c)];
      int64_t all_ready = r.op == "send" ? r.ready_cycle[size_t(r.from)] : mine;
      for (int o = 0; o < a.chips && r.op != "send"; ++o)
        if (r.member[size_t(o)]) all_ready = std::max(all_ready, r.ready_cycle[size_t(o)]);
      waiting += r.end_cycle[size_t(c)] - mine + 1;
      sync += std::clamp(all_ready - mine, int64_t(0), r.end_cycle[size_t(c)] - mine + 1);
    }
    const int64_t serial = whole_cycles[size_t(c)];
    per_chip.push_back({{"chip", c},
                        {"end_cycle", end_cycle[size_t(c)]},
                        {"macs", macs[size_t(c)]},
                        {"collective_cycles", waiting},
                        {"T_serial_cycles", serial},
                        {"T_parallel_cycles", end_cycle[size_t(c)] - serial - waiting},
                        {"T_comm_cycles", waiting - sync},
                        {"T_sync_cycles", sync},
                        {"done_before_wall_cycles", *std::max_element(end_cycle.begin(), end_cycle.end()) -
                                                        end_cycle[size_t(c)]}});
    all_macs += macs[size_t(c)];
  }
  j["wall_cycles"] = wall;
  j["wall_s"] = double(wall) / a.clock_hz;
  j["macs"] = all_macs;
  j["per_chip"] = std::move(per_chip);
  j["T_n_definition"] =
      "per chip, its time T_n = T_serial + T_parallel(n) + T_comm(n) + T_sync(n), each counted: T_serial the spans of "
      "the layers and ops every chip runs whole (split.whole_on_every_chip: no number of chips shortens them), T_comm "
      "its part of the collectives' messages, T_sync its wait in them for the other chips to arrive, T_parallel the "
      "rest (its share of the split work, stalls included)";
  ordered_json collectives = ordered_json::array();
  for (const ic::CollectiveRun& r : chips.runs()) {
    int64_t start = 0, end = 0;  // over the chips taking part: the last ready, the last done
    for (int c = 0; c < a.chips; ++c)
      if (r.member[size_t(c)]) start = std::max(start, r.ready_cycle[size_t(c)]), end = std::max(end, r.end_cycle[size_t(c)]);
    if (r.op == "send") start = r.ready_cycle[size_t(r.from)];  // the receiver may come later and find it there
    int64_t sent = 0;
    for (int64_t b : r.sent_bytes) sent += b;
    // nccl-tests' bus bandwidth: the algorithm's bytes per chip over the time, comparable to a link's.
    const double seconds = double(end - start + 1) / a.clock_hz;
    const double factor = ic::bus_factor(*ic::collective_op(r.op), a.chips);
    collectives.push_back({{"name", r.name},
                           {"op", r.op},
                           {"algorithm", r.algorithm},
                           {"bytes", r.bytes},
                           {"element_bits", r.element_bits},
                           {"sent_bytes_per_chip", r.sent_bytes},
                           {"sent_bytes", sent},
                           {"messages", r.messages},
                           {"all_ready_cycle", start},
                           {"end_cycle", end},
                           {"cycles", end - start + 1},
                           {"ready_cycle_per_chip", r.ready_cycle},
                           {"end_cycle_per_chip", r.end_cycle},
                           {"algbw_gbps", double(r.bytes) / seconds / 1e9},
                           {"busbw_gbps", double(r.bytes) * factor / seconds / 1e9}});
  }
  j["collectives"] = std::move(collectives);
  ordered_json links = ordered_json::array(), edges = ordered_json::array();
  int64_t b_n = 0;
  double energy_pj = 0;
  for (size_t l = 0; l < f.links().size(); ++l) {
    const ic::LinkStats& s = f.links()[l];
    const ic::DirectedLink& d = f.topology().links()[l];
    const double busy_s = double(s.busy_ps) * 1e-12;
    links.push_back({{"src", chips.node_name(d.from)},
                     {"dst", chips.node_name(d.to)},
                     {"payload_bytes", s.payload_bytes},
                     {"wire_bytes", s.wire_bytes},
                     {"messages", s.messages},
                     {"busy_s", busy_s},
                     {"busy_fraction", busy_s / (double(wall) * ns_per_cycle * 1e-9)},
                     {"energy_J", s.energy_pj * 1e-12}});
    edges.push_back({{"src", chips.node_name(d.from)}, {"dst", chips.node_name(d.to)}, {"bytes", s.wire_bytes},
                     {"busy_s", busy_s}});
    b_n += s.wire_bytes;
    energy_pj += s.energy_pj;
  }
  j["links"] = std::move(links);
  j["Gamma_comm"] = {{"edges", std::move(edges)},
                     {"B_N_bytes", b_n},
                     {"B_N_definition", "bytes on the wire (payload and packet headers) over every chip-to-chip link"},
                     {"synchronizations", chips.runs().size()},
                     {"synchronization_definition", "collectives (every chip waits for them) and sends (the "
                                                    "receiver waits for them)"}};
  j["interconnect_energy_J"] = energy_pj * 1e-12;
  if (share.pipeline_parallel > 1) {
    const int P = share.pipeline_parallel, m = share.micro_batches;
    ordered_json stages = ordered_json::array();
    for (int c = 0; c < a.chips; ++c) {
      const Workload& w = shares[size_t(c)];
      const int64_t waiting = j["per_chip"][size_t(c)]["collective_cycles"].get<int64_t>();
      const int64_t idle = waiting + (wall - end_cycle[size_t(c)]);  // waiting or sending, then done early
      ordered_json names = ordered_json::array();
      for (size_t i = 0; i < w.layers.size() / size_t(m); ++i) {
        std::string name = w.layers[i].name;
        if (m > 1) name.erase(name.rfind(".mb"));
        names.push_back(name);
      }
      stages.push_back({{"chip", c}, {"layers", std::move(names)}, {"macs", macs[size_t(c)]},
                        {"idle_cycles", idle}, {"idle_fraction", double(idle) / double(wall)}});
    }
    j["pipeline"] = {{"stages", std::move(stages)},
                     {"micro_batches", m},
                     {"idle_definition", "a stage's cycles waiting for a micro-batch's activations or sending its "
                                         "own, and after its last micro-batch until the wall"},
                     {"gpipe_bubble", double(P - 1) / double(m + P - 1)},
                     {"gpipe_bubble_definition", "(P-1)/(m+P-1): the idle share of P stages of equal time with no "
                                                 "link time (Huang et al., GPipe, 2019)"}};
  }
  return j;
}

std::string chips_line(const nlohmann::ordered_json& c) {
  int64_t collective_cycles = c["per_chip"][0]["collective_cycles"].get<int64_t>(), bytes = 0;
  for (const auto& k : c["collectives"]) bytes += k["bytes"].get<int64_t>();
  const bool stages = c["split"]["pipeline_stages"].get<int>() > 1;
  return fmt::format("chips: {} ({}; the table is chip 0's {})  wall {} cycles  collectives {} ({} B) "
                     "{} cycles on chip 0  interconnect {} B on the wire, {:.4g} J\n",
                     c["count"].get<int>(), stages ? "pipeline stages"
                     : c["split"]["data_parallel"].get<int>() > 1 ? "data parallel"
                                                                  : "tensor parallel",
                     stages ? "stage" : "share",
                     c["wall_cycles"].get<int64_t>(), c["collectives"].size(), bytes,
                     collective_cycles, c["Gamma_comm"]["B_N_bytes"].get<int64_t>(), c["interconnect_energy_J"].get<double>());
}

}  // namespace cstsim
