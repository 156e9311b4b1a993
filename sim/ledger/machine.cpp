#include "sim/ledger/machine.h"

#include <fmt/format.h>

#include "sim/config/arch_spec.h"

namespace cstsim::ledger {
namespace {

// TileOPs src/tileops/perf/profiles/h200.yaml: spec sheet values and the
// repository's microbenchmark calibration factors.
constexpr double kH200SpecFlops = 989.5e12;  // fp16 tensor core, dense
constexpr double kH200SpecBandwidth = 4800e9;
constexpr double kH200ComputeFactor = 0.737;    // tensor_core.fp16 calibration (burst)
constexpr double kH200BandwidthFactor = 0.938;  // hbm calibration = max(calibration_mixes)

constexpr const char* kH200Profile =
    "TileOPs src/tileops/perf/profiles/h200.yaml (NVIDIA H200 SXM datasheet, dense: 989.5 TFLOPS "
    "fp16 tensor core, 4800 GB/s HBM3e)";

std::vector<Machine> build_profiles() {
  std::vector<Machine> out;
  Machine measured;
  measured.id = "h200-measured";
  measured.description = fmt::format("H200 (TileOPs microbenchmark calibration: {:.3f}x compute / {:.3f}x bandwidth)",
                                     kH200ComputeFactor, kH200BandwidthFactor);
  measured.compute_note = "fp16 tensor core";
  measured.spec_peak_flops = kH200SpecFlops;
  measured.spec_bandwidth = kH200SpecBandwidth;
  measured.compute_factor = kH200ComputeFactor;
  measured.bandwidth_factor = kH200BandwidthFactor;
  measured.peak_flops = kH200SpecFlops * kH200ComputeFactor;
  measured.bandwidth = kH200SpecBandwidth * kH200BandwidthFactor;
  measured.source =
      "TileOPs src/tileops/perf/profiles/h200.yaml: spec 989.5 TFLOPS fp16 dense and 4800 GB/s (NVIDIA H200 SXM "
      "datasheet) x calibration 0.737 compute (gemm_throughput.py, cuBLAS peak under the 700-W cap) and 0.938 "
      "HBM (hbm_bandwidth.py: 2048 MB working set, 5 runs x 200 reps, memory clock 3201 MHz)";
  out.push_back(measured);

  Machine spec;
  spec.id = "h200-spec";
  spec.description = "H200 SXM (vendor spec sheet, dense)";
  spec.compute_note = "fp16 tensor core";
  spec.spec_peak_flops = spec.peak_flops = kH200SpecFlops;
  spec.spec_bandwidth = spec.bandwidth = kH200SpecBandwidth;
  spec.source = kH200Profile;
  out.push_back(spec);

  Machine h100;
  h100.id = "h100-spec";
  h100.description = "H100 SXM5 (vendor preliminary specs)";
  h100.compute_note = "fp16 tensor core";
  h100.spec_peak_flops = h100.peak_flops = 1000e12;
  h100.spec_bandwidth = h100.bandwidth = 3000e9;
  h100.source =
      "NVIDIA technical blog 'NVIDIA Hopper Architecture In-Depth' (H100 SXM5 preliminary specs: "
      "1000 TFLOPS fp16, over 3 TB/s; taken as exactly 3 TB/s)";
  out.push_back(h100);
  return out;
}

}  // namespace

const std::vector<Machine>& machine_profiles() {
  static const std::vector<Machine> profiles = build_profiles();
  return profiles;
}

const Machine* find_profile(const std::string& id) {
  for (const Machine& m : machine_profiles())
    if (m.id == id) return &m;
  return nullptr;
}

std::string profile_names() {
  std::string out;
  for (const Machine& m : machine_profiles()) out += (out.empty() ? "" : ", ") + m.id;
  return out;
}

Machine machine_from_arch(const ArchSpec& arch, double bandwidth_bytes_per_s) {
  std::string bandwidth_from = "--bandwidth";
  if (bandwidth_bytes_per_s <= 0) {
    if (arch.memory == MemoryMode::Channel) {
      bandwidth_bytes_per_s = arch.channel.bandwidth_bytes_per_s;
      bandwidth_from = "the arch's channel";
    } else if (has_hbm(arch.memory)) {
      bandwidth_bytes_per_s = arch.hbm_spec.peak_gbps() * 1e9 * arch.chips;
      bandwidth_from = fmt::format("the arch's HBM ({}, peak{})", arch.hbm_spec.name, arch.chips > 1 ? " x chips" : "");
    } else {
      throw std::invalid_argument("the arch's memory is ideal: give its bandwidth in GB/s with --bandwidth");
    }
  }
  Machine m;
  m.id = arch.name;
  m.from_arch = true;
  m.arch_file = arch.source;
  m.arch_rows = arch.rows;
  m.arch_cols = arch.cols;
  m.arch_clock_hz = arch.clock_hz;
  m.arch_operand_bits = arch.precision.operand_bits();
  m.peak_flops = 2.0 * arch.rows * arch.cols * arch.precision.pack * arch.clock_hz;
  m.bandwidth = bandwidth_bytes_per_s;
  m.spec_peak_flops = m.peak_flops;
  m.spec_bandwidth = m.bandwidth;
  m.description = fmt::format("{} (cstsim arch: {}x{} PEs at {:g} MHz; bandwidth from {})", arch.name, arch.rows,
                              arch.cols, arch.clock_hz / 1e6, bandwidth_from);
  m.compute_note = fmt::format("2 x {} x {} PEs x {} MACs x {:g} MHz, {} operands", arch.rows, arch.cols,
                               arch.precision.pack, arch.clock_hz / 1e6, to_string(arch.precision.operand));
  m.source = fmt::format("{} (peak = 2 x rows x cols x clock_hz); bandwidth {:g} GB/s from {}", arch.source,
                         bandwidth_bytes_per_s / 1e9, bandwidth_from);
  return m;
}

}  // namespace cstsim::ledger
