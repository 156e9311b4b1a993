#include "sim/config/arch_schema.h"

#include <fmt/format.h>

#include <climits>

#include "core/clock.h"
#include "core/num_type.h"
#include "models/interconnect/topologies.h"
#include "plan/dataflow.h"
#include "plan/memory_mode.h"

namespace cstsim {

namespace {

// The operand types a PE may take (every type but int32, which only accumulates).
std::vector<std::string> operand_type_names() {
  std::vector<std::string> names;
  for (const std::string& n : num_type_names())
    if (n != "int32") names.push_back(n);
  return names;
}

// One row of the PE's type table: how many MACs of `type` a PE does per cycle (packed along K).
schema::Key pe_macs_key(const std::string& type) {
  return schema::integer_key("precision.macs_per_pe." + type, "MAC/cycle", "no table: precision.operand at 1 (int4: 2)", 1, 64,
                             type + " MACs a PE does per cycle, side by side along K; unlisted: the PE cannot do " + type);
}

// The channel model counts its time in cycles of int64: bounds that keep every latency and
// transfer time far inside it (1e-6 GB/s moves a 64 KiB tile in 65 s; 1e9 ns is a second), and
// that no real memory channel comes near.
std::string channel_bandwidth_problem(double gbps) {
  if (gbps < 1e-6 || gbps > 1e7) return fmt::format("{} GB/s is outside 1e-6..1e7 GB/s (1 kB/s to 10 PB/s)", gbps);
  return "";
}
std::string channel_latency_problem(double ns) {
  if (ns > 1e9) return fmt::format("{} ns is more than 1e9 ns (a second per access)", ns);
  return "";
}

}  // namespace

const schema::Table& arch_schema() {
  using namespace schema;
  constexpr int64_t kMaxKib = int64_t(1) << 40;  // 1 PiB: only guards against typos and overflow
  // The memory modes a key applies to (only_with); set under another one it is an input error.
  const std::vector<std::string> channel{to_string(MemoryMode::Channel)},
      hbm{to_string(MemoryMode::Hbm), to_string(MemoryMode::Hierarchy)}, hierarchy{to_string(MemoryMode::Hierarchy)};
  static const Table table(
      "arch file (configs/arch/*.yaml)",
      {
          text_key("name", "file stem", "label used in reports; must not be empty"),
          integer_key("clusters", "", "1", 1, 256,
                      "identical arrays, each with its scratchpad and DMA; layers split by column folds"),
          integer_key("array.rows", "PE", "required", 1, INT_MAX, "array height R"),
          integer_key("array.cols", "PE", "required", 1, INT_MAX, "array width C"),
          choice_key("dataflow", "", "required", dataflow_names(), "which operand stays in the PEs (plan/dataflow.h)"),
          with_rule(number_key("clock_hz", "Hz", "1.0e9", "array clock, whole Hz in 1e6..1e11"), clock_hz_problem),
          choice_key("precision.operand", "", "int8", operand_type_names(),
                     "what the PEs multiply (core/num_type.h); the PE must list it under precision.macs_per_pe"),
          choice_key("precision.activation", "", "precision.operand", operand_type_names(),
                     "how A and the outputs are stored and moved (HBM, scratchpad, edge links); exact in the operand type"),
          choice_key("precision.weight", "", "precision.operand", operand_type_names(),
                     "how B is stored and moved (int4 weights for int8 PEs: W4A8); exact in the operand type"),
          choice_key("precision.accumulator", "", "int32 (fp32 for a floating operand)", {"int16", "int32", "fp32"},
                     "partial sums and outputs: wrapping two's complement, or fp32 with one rounding per MAC"),
          choice_key("precision.operand_bits", "bit", "8", {"4", "8", "16"},
                     "older spelling of precision.operand for integers: 4, 8, 16 mean int4, int8, int16"),
          choice_key("precision.accumulator_bits", "bit", "32", {"16", "32"},
                     "older spelling of precision.accumulator: 16, 32 mean int16, int32"),
          pe_macs_key("int4"),
          pe_macs_key("int8"),
          pe_macs_key("int16"),
          pe_macs_key("fp8_e4m3"),
          pe_macs_key("fp8_e5m2"),
          pe_macs_key("bf16"),
          pe_macs_key("fp16"),
          pe_macs_key("fp32"),
          choice_key("sparsity.skip_2_4", "", "false", {"false", "true"},
                     "true: the PEs take 2:4-compressed weights (two values of every four along K, 2-bit indices) "
                     "and skip the zeros, WS only; false: 2:4-sparse weights run dense"),
          choice_key("sparsity.zero_gating", "", "false", {"false", "true"},
                     "true: a PE whose activation operand is zero gates its multiplier (energy only: the lane "
                     "is priced at mac.<type>.gated; the workload's input_density says how many are zero)"),
          choice_key("fold_pipeline", "", "overlapped", {"scalesim", "overlapped"},
                     "scalesim: SCALE-Sim v2's fixed fold slots; overlapped: folds overlap as the registers allow"),
          choice_key("scalesim.interface_bandwidth", "", "calc", {"calc", "user"},
                     "fold_pipeline: scalesim: SCALE-Sim's DRAM interface (its InterfaceBandwidth): calc sizes "
                     "every prefetch to arrive in time (no read stalls); user moves scalesim.bandwidth_words a "
                     "cycle and stalls the array on a miss"),
          integer_key("scalesim.bandwidth_words", "word/cycle", "10", 1, 1 << 20,
                      "with scalesim.interface_bandwidth: user, words each DRAM interface moves a cycle (its Bandwidth)"),
          integer_key("sram.ifmap_kib", "KiB", "0", 1, kMaxKib, "input partition (memory: hierarchy: of the scratchpad)"),
          integer_key("sram.filter_kib", "KiB", "0", 1, kMaxKib, "weight partition"),
          integer_key("sram.ofmap_kib", "KiB", "0", 1, kMaxKib, "output and accumulator partition"),
          path_key("energy", "configs/energy/horowitz-45nm.yaml",
                   "energy table for report.json (configs/energy/*.yaml), relative to the arch file; --energy overrides it"),
          choice_key("memory", "", "ideal", memory_mode_names(),
                     "what feeds the array: nothing to wait for, a DRAM channel, an HBM stack, or HBM > NoC > DMA > scratchpad"),
          only_with(with_rule(above(number_key("channel.bandwidth_gbps", "GB/s", "required with channel",
                                                "channel bandwidth (1e9 B/s), 1e-6..1e7"), 0),
                              channel_bandwidth_problem), channel),
          only_with(with_rule(at_least(number_key("channel.latency_ns", "ns", "0",
                                                  "access latency added to every tile's arrival, at most 1e9 (1 s)"), 0),
                              channel_latency_problem), channel),
          only_with(integer_key("channel.fifo_tiles", "tiles", "4", 1, 1024, "tiles fetched ahead (TPU v1: 4)"), channel),
          only_with(choice_key("channel.tile_layout", "", "packed", {"packed", "padded"},
                               "a stationary tile in DRAM: its own words, or a whole rows x cols block moved whole (TPU v1)"),
                    channel),
          only_with(choice_key("controller", "", "none", {"none", "rocc"},
                               "rocc: every layer a Gemmini-style command stream (mvin, preload, compute, mvout) through the "
                               "channel, its bandwidth the DMA bus and its latency every request's (models/array/rocc_controller.h)"),
                    channel),
          only_with(integer_key("rocc.rob_entries", "commands", "16", 1, 1 << 16,
                                "controller: rocc: commands issued and not complete (Gemmini: 16)"), channel),
          only_with(integer_key("rocc.max_in_flight", "requests", "16", 1, 1 << 16,
                                "controller: rocc: DMA requests outstanding each way (Gemmini: 16)"), channel),
          only_with(integer_key("rocc.request_bytes", "bytes", "64", 1, 1 << 20,
                                "controller: rocc: largest DMA request (Gemmini's dma_maxbytes: 64)"), channel),
          only_with(choice_key("rocc.compute_rows", "", "padded", {"padded", "exact"},
                               "controller: rocc: a compute takes the mesh's rows in cycles whatever its block's (padded, "
                               "Gemmini 2021), or its own rows, at least 4 (exact)"),
                    channel),
          only_with(path_key("hbm.spec", "required with hbm | hierarchy",
                   "an HBM file (configs/memory/*.yaml), relative to the arch file; its keys are hbm.<key>"), hbm),
          only_with(integer_key("hbm.fifo_tiles", "tiles", "4", 1, 1024, "stationary tiles (OS: blocks of B) fetched ahead"), hbm),
          only_with(integer_key("hbm.max_outstanding", "requests", "64", 1, int64_t(1) << 16, "DMA reads in flight"), hbm),
          only_with(integer_key("hbm.request_bytes", "bytes", "64", 1, int64_t(1) << 20, "bytes per DMA read"), hbm),
          only_with(integer_key("hbm.requests_per_cycle", "requests", "1", 1, 64,
                      "memory: hierarchy: requests each DMA queue (read, write) issues per cycle"), hierarchy),
          only_with(integer_key("hbm.controller_queue_flits", "flits", "0 (unbounded)", 0, int64_t(1) << 20,
                      "memory: hierarchy: request and write-data flits an HBM controller's mesh port holds until the "
                      "HBM is done with them; full, the mesh holds the rest (back-pressure)"), hierarchy),
          only_with(choice_key("overlap", "", "none", {"none", "prefetch", "pipeline"},
                     "memory: hierarchy: none: a layer's reads start with it; prefetch: the next pass's first "
                     "stationary tiles and stream slices load while the current one computes, where the "
                     "scratchpad has room (sim/mapper/prefetch.h); pipeline: prefetch, and a layer's outputs "
                     "stay in the scratchpad as the next layer's input where they fit (with several clusters, "
                     "each sends its share to every cluster over the mesh; sim/mapper/pipeline.h)"), hierarchy),
          only_with(choice_key("hbm.layout", "", "tiled", {"tiled", "row_major"},
                     "memory: hierarchy: tensors in HBM as contiguous DMA blocks (tiled) or row-major matrices, "
                     "rows padded to 64 B, read by strided descriptors (row_major)"), hierarchy),
          only_with(path_key("noc.spec", "required with hierarchy",
                   "a mesh NoC file (configs/noc/*.yaml) with edge_nodes; its keys are noc.<key>"), hierarchy),
          only_with(integer_key("noc.cluster_x", "router", "mesh centre", 0, 1 << 10,
                      "column of cluster 0's router; further clusters take the next routers row by row"), hierarchy),
          only_with(integer_key("noc.cluster_y", "router", "mesh centre", 0, 1 << 10, "row of cluster 0's router"), hierarchy),
          only_with(integer_key("scratchpad.banks", "banks", "32", 1, 1 << 16, "banks; the sram.*_kib partitions get whole banks"), hierarchy),
          only_with(integer_key("scratchpad.word_bytes", "bytes", "64", 1, 1 << 12, "bank width: one port moves one word per cycle"), hierarchy),
          only_with(integer_key("scratchpad.word_bytes_per_edge", "words", "none", 1, 64,
                      "bank width as a rule: the array's longer edge x a PE's operand word (precision.operand x "
                      "macs_per_pe) x this, rounded up to a power of two (instead of scratchpad.word_bytes), so "
                      "an array-size sweep keeps one word per array row or column, the same banks and the same "
                      "SRAM bytes"),
                    hierarchy),
          only_with(integer_key("scratchpad.ports_per_bank", "ports", "1", 1, 16,
                      "ports per bank; the array has priority, the DMA takes what is left"), hierarchy),
          only_with(integer_key("scratchpad.read_latency", "cycles", "1", 0, 1 << 10, "from a read's last port slot to its data"), hierarchy),
          only_with(integer_key("scratchpad.write_latency", "cycles", "1", 0, 1 << 10,
                      "from a write's last port slot until it is readable"), hierarchy),
          integer_key("rs.filter_spad", "word", "224", 1, 1 << 20,
                      "dataflow: rs: each PE's filter scratchpad (Eyeriss: 224 x 16 b)"),
          integer_key("rs.ifmap_spad", "word", "12", 1, 1 << 20,
                      "dataflow: rs: each PE's ifmap scratchpad, which holds q windows of S values (Eyeriss: 12)"),
          integer_key("rs.psum_spad", "word", "24", 1, 1 << 20, "dataflow: rs: each PE's psum scratchpad, p psums (Eyeriss: 24)"),
          integer_key("rs.glb_kib", "KiB", "100", 1, kMaxKib,
                      "dataflow: rs: the global buffer's ifmap and psum part (Eyeriss: 100 of its 108 kB; filters have "
                      "their own prefetch buffer)"),
          choice_key("rs.rlc", "", "false", {"false", "true"},
                     "dataflow: rs: feature maps in DRAM run-length coded as Eyeriss stores them (5-bit zero runs and "
                     "16-bit values, three pairs to 64 bits; the network's input stays raw)"),
          integer_key("vector.lanes", "lane", "0 (none)", 0, 1 << 20,
                      "the vector unit beside the array (models/vector): norms, softmax, activations, RoPE, residual "
                      "adds; 0: none, and an operator graph's vector ops are listed as not simulated"),
          above(number_key("vector.add_per_lane", "op/cycle", "1", "adds, subtracts, maxima, compares per lane per cycle"), 0),
          above(number_key("vector.mul_per_lane", "op/cycle", "1", "multiplies and fused multiply-adds per lane per cycle"), 0),
          above(number_key("vector.special_per_lane", "op/cycle", "0.25",
                           "transcendentals (exp, rsqrt, reciprocal, tanh) per lane per cycle"), 0),
          integer_key("vector.port_bytes", "byte/cycle", "256", 1, 1 << 20,
                      "bytes per cycle the vector unit reads and writes in the scratchpad (its own ports)"),
          integer_key("vector.latency", "cycles", "8", 0, 1 << 16, "pipeline depth: cycles from a tile's first operand to its first result"),
          choice_key("vector.fusion", "", "op", {"none", "op", "chain"},
                     "none: every step of an op is a kernel that writes its result to HBM (seed 002's decompositions); "
                     "op: each graph op is one kernel; chain: consecutive vector ops whose intermediates nothing else "
                     "reads run as one kernel"),
          integer_key("chips", "chip", "1", 1, 1024,
                      "identical accelerators, each all of the above, joined by the interconnect (models/interconnect); "
                      "the workload is split across them (parallel.*)"),
          path_key("interconnect.link", "required with chips > 1",
                   "a chip-to-chip link preset (configs/interconnect/*.yaml): bandwidth per direction, latency, packets, "
                   "energy per bit; relative to the arch file"),
          choice_key("interconnect.topology", "", "ring", ic::topology_names(),
                     "how the chips are joined (models/interconnect/topologies.cpp): a ring (one direction, or both), "
                     "an x by y torus (interconnect.torus_x), a link between every pair, or one switch port per chip"),
          integer_key("interconnect.torus_x", "chip", "required with torus2d", 1, 1024,
                      "torus2d: chips per row (chips / torus_x rows)"),
          integer_key("interconnect.slice_bytes", "byte", "0 (a chunk moves as one message)", 0, int64_t(1) << 40,
                      "collectives cut each chunk into slices of at most this many bytes, which pipeline through the "
                      "ring's steps (NCCL-style chunking)"),
          integer_key("parallel.tensor", "chip", "chips", 1, 1024,
                      "tensor-parallel degree: weight GEMMs split by columns then rows (Megatron-LM), attention by heads, "
                      "an all-reduce after every row split (sim/workload/tensor_parallel.h); chips / the other degrees"),
          integer_key("parallel.data", "chip", "1", 1, 1024,
                      "data-parallel degree: every chip runs 1/data of the samples with the weights whole, and a training "
                      "step all-reduces each weight's gradient before its optimizer step (sim/workload/data_parallel.h); "
                      "tensor x data x pipeline = chips, one of them above 1"),
          integer_key("parallel.pipeline", "chip", "1", 1, 1024,
                      "pipeline stages: each chip a contiguous run of layers (MACs balanced), micro-batches flowing "
                      "through them with the activations sent stage to stage (sim/workload/pipeline_parallel.h)"),
          integer_key("parallel.micro_batches", "micro-batch", "1", 1, 65536,
                      "pipeline stages: the samples cut into this many micro-batches (the bubble is (P-1)/(m+P-1))"),
          text_key("source", "none", "free-text citation for the numbers; ignored by the model"),
      });
  return table;
}

}  // namespace cstsim
