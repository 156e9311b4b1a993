#pragma once
// HbmSpec: everything the HBM model needs, resolved once from a memory YAML
// (configs/memory/*.yaml; schema in models/hbm/README.md). Timings are held in cycles.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/schema.h"
#include "models/hbm/hbm_types.h"
#include "models/hbm/timing_table.h"

namespace cstsim::hbm {

struct Organization {
  int channels = 1;         // per stack
  int pseudo_channels = 2;  // per channel
  int bank_groups = 4;      // per pseudo-channel
  int banks_per_group = 4;
  int64_t rows = 16384;  // per bank
  int64_t columns = 32;  // bursts per row: row size = columns x burst_bytes
  int burst_bytes = 32;  // bytes moved by one RD/WR (PC width x burst length)

  int pcs() const { return channels * pseudo_channels; }
  int banks_per_pc() const { return bank_groups * banks_per_group; }
  int64_t row_bytes() const { return columns * burst_bytes; }
  uint64_t capacity_bytes() const {
    return uint64_t(pcs()) * uint64_t(banks_per_pc()) * uint64_t(rows) * uint64_t(row_bytes());
  }
};

// Every key of an HBM file: type, unit, default or required, range, doc. HbmSpec takes the
// controller's defaults from its rows (each written once).
const schema::Table& hbm_schema();

struct HbmSpec {
  std::string name;      // "hbm2-2000"
  std::string standard;  // "HBM2" | "HBM3": picks the rule table
  std::string source;    // the file it was read from
  Organization org;
  double tck_ns = 1.0;  // command clock period
  TimingValues timing;  // every timing name of the standard, in cycles
  // Controller (all optional in the YAML, with the schema's defaults).
  std::string scheduler = hbm_schema().default_choice("controller.scheduler");
  int queue_depth = int(hbm_schema().default_integer("controller.queue_depth"));  // per pseudo-channel, bursts
  // Page policy: 0 keeps a row open until another row of its bank is needed (open page); n > 0
  // precharges a bank whose row has had no access for n CK and no burst waits for it.
  int64_t page_timeout = hbm_schema().default_integer("controller.page_timeout");
  // close_exhausted: also precharge, as soon as nothing waits for its bank, a row every column
  // of which has been read or written since it opened (a stream has finished it; its next visit
  // to the bank is another row, whose ACT then need not wait for tRP).
  bool close_exhausted = hbm_schema().default_choice("controller.page_policy") == "close_exhausted";
  std::string address_mapping = "ro-ba-co-bg-ch-pc";
  // A registered refresh policy (refresh/i_refresh.h): all_bank (one REF per pseudo-channel
  // every tREFI blocks the PC for tRFC), per_bank (one REFpb every tREFI / banks, each bank
  // once per tREFI, blocking only its bank for tRFCpb) or none.
  std::string refresh = hbm_schema().default_choice("controller.refresh");

  // A timing in cycles; throws std::out_of_range for a name the standard does not have (a bug).
  Cycle t(const std::string& name) const;
  // command_bus: shared - the channel's commands take turns on one bus, one a cycle, instead of
  // HBM's separate row and column buses (the default, split): a DDR-style controller, and the
  // way Ramulator 2's controller issues (validation/hbm-ramulator2).
  bool shared_command_bus = false;
  // The standard's rule table, with the shared bus's row when it is shared.
  Standard rules() const;
  double clock_hz() const { return 1e9 / tck_ns; }
  // The most one refresh can add to or take from a stretch of traffic, in ns: the REF waits for a
  // row just opened to close (tRC), blocks its bank or pseudo-channel for tRFC (tRFCpb), and the
  // row is opened again and read (tRCD, tCL). Whether one lands in a short pass or kernel is the
  // phase it starts at (fidelity: sampled, docs/sampling.md); 0 without refresh.
  double refresh_hit_ns() const;
  // Peak of the whole stack, what a stream of reads (or writes) spread over every bank can move:
  // per channel its pseudo-channels' peaks, but at most one burst per the gap its shared column
  // command bus puts between two column commands; times the channels. With more pseudo-channels
  // than the bus serves (e.g. 4 on a bus of one RD per CK at tBL 2) the bus binds.
  double peak_bytes_per_cycle() const;
  double peak_gbps() const { return peak_bytes_per_cycle() / tck_ns; }  // GB/s = bytes/ns
};

using HbmOverrides = std::vector<std::pair<std::string, std::string>>;  // dotted key -> value text

// Reads a memory YAML (following `preset:` to a shipped or relative file first), applies the
// overrides ("timing.tRFC" -> "350ns"), validates everything once. Bad input throws
// cstsim::InputError "file:line: key: message"; a missing required key names the map it
// belongs in and the key (e.g. "hbm2.yaml:14: timing.tWTR_L: required key is missing").
HbmSpec load_hbm_spec(const std::string& path, const HbmOverrides& overrides = {});

// The one rounding rule for times given in ns/us/ps: the JEDEC rounding algorithm (correction
// factor 0.974, as in Ramulator2 src/base/utils.cpp JEDEC_rounding):
//   nCK = floor((t_ps * 1000 / tCK_ps + 974) / 1000), i.e. ceil(t / tCK - 0.026), integer ps.
Cycle ns_to_cycles(double t_ns, double tck_ns);

// One key=value line per field, sorted; equal specs give equal text (for the config hash).
std::string canonical_text(const HbmSpec& spec);

// The keys load_hbm_spec's overrides may name for this spec: clock, organization and
// controller keys, and timing.<name> for every timing of its standard.
std::vector<std::string> override_keys(const HbmSpec& spec);

// Directory of the shipped presets (configs/memory).
std::string preset_dir();

}  // namespace cstsim::hbm
