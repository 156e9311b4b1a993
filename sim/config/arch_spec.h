#pragma once
// ArchSpec: the immutable accelerator description a run is built from.
// Parsed once from a cstsim YAML (configs/arch/*.yaml) or a SCALE-Sim .cfg,
// then `--set key=value` overrides are applied before validation.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/precision.h"
#include "models/hbm/hbm_spec.h"
#include "models/interconnect/fabric.h"
#include "models/memory/memory_params.h"
#include "models/noc/noc_config.h"
#include "plan/dataflow.h"
#include "plan/memory_mode.h"
#include "sim/config/arch_schema.h"

namespace cstsim {

// The longest side of an array SCALE-Sim's replay (fold_pipeline: scalesim, every .cfg) runs on:
// its cost grows with the square of the sides whatever the work (configs/README.md states it).
constexpr int kMaxScaleSimSide = 16384;

// The arch schema's default of `key` (sim/config/arch_schema.cpp), parsed: every ArchSpec field
// that has a default takes it from its row, so a default is written once, where --describe reads it.
namespace arch_default {
inline int64_t integer(const char* key) { return arch_schema().default_integer(key); }
inline double number(const char* key) { return arch_schema().default_number(key); }
inline std::string choice(const char* key) { return arch_schema().default_choice(key); }
inline bool flag(const char* key) { return choice(key) == "true"; }
}  // namespace arch_default

struct ArchSpec {
  std::string name;             // preset name, or the file stem
  std::string source;           // the file it came from
  // --set memory= chose another memory system than the file's: the file's keys of the parts it no
  // longer has, left out (summary.json's arch.dropped_keys).
  std::vector<std::string> dropped_keys;
  int clusters = int(arch_default::integer("clusters"));  // identical arrays, each with its scratchpad and DMA (memory: ideal | hierarchy)
  int rows = 0;                 // array height R (PEs)
  int cols = 0;                 // array width C (PEs)
  Dataflow dataflow = Dataflow::WS;
  double clock_hz = arch_default::number("clock_hz");
  // precision.*: operand and accumulator types, and the word the array packs them in
  // (core/precision.h); pe_macs: the PE's table, every type it does and its MACs per cycle.
  Precision precision;
  std::vector<std::pair<NumType, int>> pe_macs{{NumType::Int8, 1}};
  // sparsity.skip_2_4: the PEs hold 2:4-compressed weights (models/array/README.md) and skip the
  // pruned half of a 2:4-sparse layer's MACs (WS).
  bool skip_2_4 = arch_default::flag("sparsity.skip_2_4");
  // sparsity.zero_gating: a PE gates its multiplier when the activation (A) value is zero; energy
  // only (models/array/README.md, "Zero gating").
  bool zero_gating = arch_default::flag("sparsity.zero_gating");
  FoldPipeline fold_pipeline = *fold_pipeline_named(arch_default::choice("fold_pipeline"));
  // fold_pipeline: scalesim: SCALE-Sim's DRAM interface (models/scalesim/scalesim_memory.h).
  bool scalesim_user_bandwidth = arch_default::choice("scalesim.interface_bandwidth") == "user";  // USER (false: CALC)
  int64_t scalesim_bandwidth_words = arch_default::integer("scalesim.bandwidth_words");  // USER: words a cycle per interface
  // SCALE-Sim-style per-operand SRAM sizes (KiB); informational until the memory issue. 0: not
  // given (the schema's "0" is no value a file may write).
  int64_t ifmap_sram_kib = 0;
  int64_t filter_sram_kib = 0;
  int64_t ofmap_sram_kib = 0;
  std::string energy;  // energy table (configs/energy/*.yaml) the arch names; "" = the run's default
  MemoryMode memory = *memory_mode_named(arch_default::choice("memory"));  // what feeds the array (plan/memory_mode.h)
  // channel.bandwidth_gbps (x 1e9, required), channel.latency_ns, channel.fifo_tiles
  ChannelParams channel{0, arch_default::number("channel.latency_ns") * 1e-9, int(arch_default::integer("channel.fifo_tiles"))};
  // "hbm": the stationary tiles come from one HBM stack (models/hbm) through a DMA.
  // "hierarchy": every operand moves HBM -> mesh NoC -> DMA -> banked scratchpad, and the
  // outputs back (models/memory/hierarchy_source.h); the hbm.* keys apply to it too.
  struct Hbm {
    std::string spec;                  // hbm.spec: configs/memory/*.yaml (relative to the arch file)
    int fifo_tiles = int(arch_default::integer("hbm.fifo_tiles"));
    int max_outstanding = int(arch_default::integer("hbm.max_outstanding"));  // DMA reads in flight
    int64_t request_bytes = arch_default::integer("hbm.request_bytes");  // size of one DMA read
    int requests_per_cycle = int(arch_default::integer("hbm.requests_per_cycle"));  // per DMA queue (hierarchy)
    std::string layout = arch_default::choice("hbm.layout");  // tiled | row_major (plan/dma_program.h block_bytes)
    int64_t controller_queue_flits = arch_default::integer("hbm.controller_queue_flits");  // port buffer (hierarchy)
  } hbm;
  std::string overlap = arch_default::choice("overlap");  // none | prefetch | pipeline (memory: hierarchy; sim/mapper/)
  struct Noc {
    std::string spec;                  // noc.spec: configs/noc/*.yaml (relative to the arch file)
    int cluster_x = -1, cluster_y = -1;  // noc.cluster_x/_y: the cluster's router (default: mesh centre)
  } noc;
  struct Scratchpad {                  // partitions are sram.ifmap_kib / filter_kib / ofmap_kib
    int banks = int(arch_default::integer("scratchpad.banks"));
    int word_bytes = int(arch_default::integer("scratchpad.word_bytes"));  // bank width
    int word_bytes_per_edge = 0;  // scratchpad.word_bytes_per_edge; 0: not given (word_bytes is then the width)
    int ports_per_bank = int(arch_default::integer("scratchpad.ports_per_bank"));
    int read_latency = int(arch_default::integer("scratchpad.read_latency"));    // cycles
    int write_latency = int(arch_default::integer("scratchpad.write_latency"));  // cycles
  } scratchpad;
  // controller: rocc: every layer runs as a Gemmini-style command stream (plan/rocc_plan.h,
  // models/array/rocc_controller.h) through the channel (its bandwidth the DMA bus, its latency
  // every request's).
  struct Rocc {
    bool on = arch_default::choice("controller") == "rocc";
    int64_t rob_entries = arch_default::integer("rocc.rob_entries");
    int64_t max_in_flight = arch_default::integer("rocc.max_in_flight");
    int64_t request_bytes = arch_default::integer("rocc.request_bytes");
    bool padded_compute = arch_default::choice("rocc.compute_rows") == "padded";
  } rocc;
  struct Rs {                          // rs.*: dataflow: rs (plan/rs_plan.h)
    int64_t filter_spad = arch_default::integer("rs.filter_spad");  // words per PE
    int64_t ifmap_spad = arch_default::integer("rs.ifmap_spad");
    int64_t psum_spad = arch_default::integer("rs.psum_spad");
    int64_t glb_kib = arch_default::integer("rs.glb_kib");  // the global buffer's ifmap and psum part
    bool glb_given = false;  // rs.glb_kib in the file: else sized sram partitions are the buffer (rs_map.cpp)
    bool rlc = arch_default::flag("rs.rlc");                // feature maps in DRAM run-length coded
  } rs;
  struct Vector {                      // vector.*: the vector unit (models/vector); lanes 0: none
    int lanes = int(arch_default::integer("vector.lanes"));
    double add_per_lane = arch_default::number("vector.add_per_lane");
    double mul_per_lane = arch_default::number("vector.mul_per_lane");
    double special_per_lane = arch_default::number("vector.special_per_lane");
    int64_t port_bytes = arch_default::integer("vector.port_bytes");
    int latency = int(arch_default::integer("vector.latency"));
    std::string fusion = arch_default::choice("vector.fusion");  // none | op | chain (sim/mapper/vector_plan.h)
  } vector;
  // chips: identical accelerators joined by an interconnect (models/interconnect); the workload
  // is split across them by parallel.tensor (sim/workload/tensor_parallel.h).
  int chips = int(arch_default::integer("chips"));
  struct Interconnect {
    std::string link;                  // interconnect.link: configs/interconnect/*.yaml (resolved path)
    std::string link_name;             // the preset's name
    std::string topology = arch_default::choice("interconnect.topology");  // a family of models/interconnect/topologies.h
    int torus_x = 0;                   // torus2d: chips per row
    int64_t slice_bytes = arch_default::integer("interconnect.slice_bytes");  // collectives' slices (0: one message a chunk)
  } interconnect;
  int tensor_parallel = 1;             // parallel.tensor
  int data_parallel = int(arch_default::integer("parallel.data"));  // parallel.data (sim/workload/data_parallel.h)
  int pipeline_parallel = int(arch_default::integer("parallel.pipeline"));  // parallel.pipeline (sim/workload/pipeline_parallel.h)
  int micro_batches = int(arch_default::integer("parallel.micro_batches"));  // parallel.micro_batches
  ic::LinkSpec link_spec;              // the preset, resolved (chips > 1)
  // The sub-files, read once and resolved (with their --set overrides) by load_arch:
  // the models take these, never the paths.
  hbm::HbmSpec hbm_spec;               // memory: hbm | hierarchy
  noc::NocConfig noc_config;           // memory: hierarchy
};

// key=value overrides from the command line, in order.
using Overrides = std::vector<std::pair<std::string, std::string>>;
// `--set` items "key=value", in order. Throws InputError("--set", 0, item) for one without a key.
Overrides parse_overrides(const std::vector<std::string>& items);
// An override (run --set, a sweep's grid) that sets both array.rows and array.cols: a square array.
inline constexpr const char* kArraySize = "array.size";

// Loads a cstsim arch YAML, or a SCALE-Sim .cfg when the path ends in ".cfg"
// (which implies fold_pipeline: scalesim and ideal memory unless overridden), and
// the HBM and NoC files it names. An override reaches any key of the resolved tree:
// an arch key (array.rows, hbm.max_outstanding), or a key of the HBM file as
// hbm.<key> (hbm.timing.tCL=24ck, hbm.controller.refresh=all_bank) or of the NoC
// file as noc.<key> (noc.vcs_per_vnet=4). Throws InputError naming file, line and
// key for every problem; an unknown key's error names the nearest known ones.
ArchSpec load_arch(const std::string& path, const Overrides& overrides = {});

// The canonical text of a spec (stable key order), used for config_hash.
// One "key=value" line per field, keys spelled as in the YAML; `source` (the
// path) is left out so a copied file hashes the same.
std::string canonical_text(const ArchSpec& spec);

// Reads the HBM and NoC files a spec names into hbm_spec / noc_config, without
// overrides: for specs built in code (tests, benches); load_arch does it itself.
void resolve_sub_files(ArchSpec& spec);

// Whether `--set` and sweep grids may name `key`: an arch key, or hbm.<key> / noc.<key>
// (checked against the HBM / NoC file when the arch is loaded).
bool is_config_key(const std::string& key);

// Every key an arch YAML may hold and `--set` may override, in canonical order.
const std::vector<std::string>& arch_keys();

}  // namespace cstsim
