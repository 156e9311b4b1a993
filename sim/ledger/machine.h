#pragma once
// Machine model of the ledger: a peak compute rate and a peak memory bandwidth,
// each with its source. Built-in profiles come from seed 003 (H200 / H100); any
// cstsim arch config can stand in as a machine given a bandwidth.
#include <string>
#include <vector>

namespace cstsim {
struct ArchSpec;

namespace ledger {

struct Machine {
  std::string id;            // profile name ("h200-measured") or the arch's name
  std::string description;   // one line for the "profile" row of the header
  std::string compute_note;  // what the peak counts, e.g. "fp16 tensor core"
  double peak_flops = 0;     // FLOP/s (ops/s for an arch)
  double bandwidth = 0;      // bytes/s
  std::string source;        // where both numbers come from
  // Calibrated profiles: peak = spec x factor. Factors are 1 for a plain spec sheet.
  double spec_peak_flops = 0;
  double spec_bandwidth = 0;
  double compute_factor = 1;
  double bandwidth_factor = 1;
  // Set when the machine is a cstsim arch (peak = 2 x rows x cols x clock_hz).
  bool from_arch = false;
  std::string arch_file;
  int arch_rows = 0, arch_cols = 0, arch_operand_bits = 0;
  double arch_clock_hz = 0;
  bool bandwidth_overridden = false;

  double balance() const { return peak_flops / bandwidth; }  // FLOP per byte
};

// h200-measured (the default), h200-spec, h100-spec, in that order.
const std::vector<Machine>& machine_profiles();
// nullptr when the name is unknown.
const Machine* find_profile(const std::string& id);
// "h200-measured, h200-spec, h100-spec"
std::string profile_names();

// An arch config as a machine: peak = 2 x rows x cols x clock_hz ops/s (one MAC =
// 2 ops); the arch's memory is ideal, so the bandwidth (bytes/s) must be given.
// `bandwidth_bytes_per_s` 0: the arch's own memory (a channel's bandwidth, an HBM stack's peak
// times chips); an arch with ideal memory then has none, and std::invalid_argument says so.
Machine machine_from_arch(const ArchSpec& arch, double bandwidth_bytes_per_s);

}  // namespace ledger
}  // namespace cstsim
