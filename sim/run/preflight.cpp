#include "sim/run/preflight.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "core/input_error.h"
#include "models/noc/topology.h"
#include "plan/fold_plan.h"
#include "sim/run/hierarchy_check.h"
#include "sim/run/structural_run.h"
#include "traces/post/normalization.h"
#include "traces/post/post.h"

namespace cstsim {

namespace {

// What the energy table's size-dependent rows scale with: the SRAM partitions (every
// cluster has its own) split into scratchpad.banks banks, the PEs, and the mesh's router
// input buffers (memory: hierarchy only).
post::Geometry energy_geometry(const ArchSpec& a) {
  post::Geometry g;
  const double cluster_bytes = double(a.ifmap_sram_kib + a.filter_sram_kib + a.ofmap_sram_kib) * 1024.0;
  g.sram_bytes = cluster_bytes * a.clusters;
  g.sram_bank_bytes = cluster_bytes / a.scratchpad.banks;
  g.pes = double(a.rows) * double(a.cols) * a.clusters;
  if (a.memory == MemoryMode::Hierarchy) g.noc_buffer_bytes = double(noc::input_buffer_bytes(a.noc_config));
  g.sram_bytes *= a.chips, g.pes *= a.chips, g.noc_buffer_bytes *= a.chips;  // every chip's
  return g;
}

// The register-level mode tags tokens with fold*T + t in 32 bits and holds the
// operands in memory; refuse, by name, a layer it cannot take.
void check_reference_limits(const ArchSpec& a, const Workload& w) {
  for (const Layer& l : w.layers) {
    const FoldPlan p = make_fold_plan(a.dataflow, a.rows, a.cols, l.M, l.N, l.K, a.precision.pack);
    if (double(p.fold_count()) * double(p.T) >= double(std::numeric_limits<int32_t>::max()) ||
        double(l.M) * double(l.K) + double(l.K) * double(l.N) > 2e9)  // operands held as 4-byte floats: 8 GB
      throw InputError(w.source, l.source_line, l.name, "layer too large for --verify (register-level mode)");
  }
}

}  // namespace

post::EnergyTable run_energy_table(const ArchSpec& a, const std::string& path) {
  const post::EnergyTable raw = post::load_energy_table(path);
  post::EnergyTable table = post::resolved(raw, energy_geometry(a));
  if (a.chips == 1) return table;
  for (size_t i = 0; i < table.static_power.size(); ++i)
    if (raw.static_power[i].watts_per_byte < 0 && raw.static_power[i].watts_per_pe < 0 &&
        raw.static_power[i].watts_per_buffer_byte < 0) {
      table.static_power[i].watts *= a.chips;
      table.static_power[i].source += fmt::format(" (x {} chips)", a.chips);
    }
  post::ActionEnergy link;
  link.action = "link.interconnect";
  link.pj = 8 * a.link_spec.pj_per_bit;
  link.per = "byte on a chip-to-chip link (payload and headers)";
  link.source = fmt::format("{} x 8 bits: {} ({})", a.link_spec.pj_per_bit, a.interconnect.link_name, a.interconnect.link);
  table.actions.push_back(link);
  return table;
}

void preflight_inputs(const RunOptions& o, const ArchSpec& arch, const std::vector<Workload>& shares, size_t distinct) {
  const Workload& workload = shares.front();
  if (!o.sparsity.empty() && arch.skip_2_4 && arch.memory == MemoryMode::Hierarchy && arch.hbm.layout != "tiled")
    throw InputError(o.arch_path, 0, "hbm.layout",
                     "2:4 weights under memory: hierarchy need hbm.layout: tiled (row-major blocks of kept values "
                     "and their places are not modelled)");
  if (arch.zero_gating && arch.skip_2_4)
    for (const Layer& l : workload.layers)
      if (l.input_density < 1 && l.weights_2_4)
        throw InputError(workload.source, l.source_line, l.name,
                         "zero gating of a layer whose 2:4 weights the PEs skip is not modelled (which zero activations "
                         "meet kept weights depends on the weights' places)");
  if (arch.chips > 1 && o.verify && arch.clusters > 1)
    throw InputError(o.arch_path, 0, "clusters", "--verify across chips checks one array per chip (clusters: 1)");
  if (arch.chips > 1 && o.verify)
    for (const Layer& l : workload.layers)
      if (l.input_density < 1)  // zeros are placed by each chip's own share, not cut from one whole
        throw InputError(workload.source, l.source_line, l.name,
                         "--verify across chips takes dense inputs (input_density 1): zero gating's zeros are placed "
                         "in each chip's share");
  if (arch.chips > 1 && o.fault_cycle >= 0) throw InputError("--inject-fault", 0, "", "applies to one chip (chips: 1)");
  if (o.fault_cycle >= 0 && (o.fault_row >= arch.rows || o.fault_col >= arch.cols || o.fault_row < 0 || o.fault_col < 0))
    throw InputError("--inject-fault", 0, "", "PE outside the array");
  if (o.fault_cycle >= 0 && (o.fault_cluster < 0 || o.fault_cluster >= arch.clusters))
    throw InputError("--inject-fault", 0, "", fmt::format("cluster {} outside 0..{}", o.fault_cluster, arch.clusters - 1));
  if (arch.chips > 1 && arch.vector.lanes == 0)
    for (const CollectiveKernelPlan& c : workload.collectives)
      if (c.op == "all_reduce")
        throw InputError(o.arch_path, 0, "vector.lanes",
                         fmt::format("{} chips add the partial sums of {} on their vector units: the arch has none "
                                     "(vector.lanes)", arch.chips, c.tensor));
  if (o.verify)
    for (size_t d = 0; d < distinct; ++d) check_reference_limits(arch, shares[d]);
  check_structural(arch, o);
  if ((o.verify || o.fault_cycle >= 0) && arch.rocc.on)
    throw InputError(o.arch_path, 0, "controller",
                     std::string(o.verify ? "--verify" : "--inject-fault") +
                         " runs layers on the register-level array; controller: rocc times its command stream only "
                         "(its computes are the fold pipeline's WS blocks: verify those without the controller)");
  if (o.fault_cycle >= 0 && arch.dataflow == Dataflow::RS)
    throw InputError("--inject-fault", 0, "", "the row-stationary grid takes no injected fault yet (its checker is "
                                              "tested by corrupting a weight, tests/unit/test_rs_equivalence.cpp)");
  for (size_t d = 0; d < distinct && o.verify; ++d)
    if (!shares[d].flash.empty())
      throw InputError(workload.source, shares[d].flash.front().line, shares[d].flash.front().name,
                       "--verify checks layers on the register-level array; flash attention's tiles are timed by the "
                       "closed form only (use tiling: materialized to verify)");
}

void preflight_plans(const ArchSpec& arch, const Workload& w, const std::vector<Plan>& plans) {
  if (arch.memory != MemoryMode::Hierarchy) return;
  check_scratchpad(arch);  // also when no layer's program checks it
  for (const Plan& each : plans) {
    check_hbm_capacity(arch, each);
    for (const LayerPlan& l : each.layers)
      for (const ClusterLayerPlan& c : l.clusters)
        if (!c.passes.front().idle() && !l.rs) {  // row stationary moves no DMA program of folds
          const PassPlan& first = c.passes.front();
          const LayerDmaPlan dma = dma_program(fold_plan(each, first), first);
          try {
            check_hierarchy(arch, dma);
          } catch (const InputError& e) {
            // Ports the array needs because the workload's values are wider than the arch's
            // operand: the workload's dtype is the cause, so the error names the layer.
            const int widest = std::max(dma.a_word_bits, dma.b_word_bits), own = arch.precision.operand_bits();
            if (e.key() != "scratchpad.banks" || widest <= own) throw;
            const auto layer = std::find_if(w.layers.begin(), w.layers.end(), [&](const Layer& x) { return x.name == l.name; });
            throw InputError(w.source, layer == w.layers.end() ? 0 : layer->source_line, l.name,
                             fmt::format("its {}-bit operands need more scratchpad ports than {} has for the array "
                                         "and the DMA ({}: {}); the arch computes in {} (precision.operand): write the "
                                         "workload in it (cstsim import onnx --dtype {}) or give the arch more scratchpad.banks",
                                         widest, arch.source, e.key(), e.message(), to_string(arch.precision.operand),
                                         to_string(arch.precision.operand)));
          }
        }
  }
}

void preflight_energy(const ArchSpec& arch, const Workload& w, const post::EnergyTable& table,
                      const std::string& energy_path, const std::string& normalization) {
  const std::string type = to_string(arch.precision.operand), mac_row = "mac." + type + ".executed";
  if (!table.find(mac_row))
    throw InputError(energy_path, 0, "actions",
                     fmt::format("no row prices {} MACs ({}), the array's operand type (precision.operand)", type, mac_row));
  if (arch.zero_gating)
    for (const Layer& l : w.layers)
      if (l.input_density < 1) {  // the first layer whose zero activations the PEs gate
        if (!table.find("mac." + type + ".gated"))
          throw InputError(energy_path, 0, "actions",
                           fmt::format("no row mac.{}.gated prices the {} MACs the PEs gate (sparsity.zero_gating; "
                                       "layer {} has input density {})", type, type, l.name, l.input_density));
        break;
      }
  if (!normalization.empty()) post::load_normalization(normalization);
}

void preflight_actions(const post::EnergyTable& table, const std::string& energy_path,
                       const std::vector<std::string>& actions) {
  for (const std::string& action : actions)
    if (!table.find(post::unscoped_action(action)) && !post::EnergyTable::is_nominal(post::unscoped_action(action)))
      throw InputError(energy_path, 0, "actions",
                       fmt::format("no row prices {}, an action this run counts (add a row for it)", action));
}

}  // namespace cstsim
