#pragma once
#include <string>
// ScratchpadParams: the on-chip SRAM's geometry and its split into the three
// operand partitions, fixed at construction. Cycles are accelerator cycles.
#include <array>
#include <cstdint>

namespace cstsim::spad {

enum class Partition { Ifmap = 0, Filter = 1, Ofmap = 2 };
inline constexpr int kPartitions = 3;
inline constexpr std::array<Partition, kPartitions> kAllPartitions = {Partition::Ifmap, Partition::Filter,
                                                                      Partition::Ofmap};
const char* partition_name(Partition p);  // "ifmap", "filter", "ofmap"
Partition partition_named(const std::string& name);  // the inverse; anything else is ofmap

struct ScratchpadParams {
  int64_t total_bytes = 512 * 1024;
  int banks = 32;
  int word_bytes = 64;      // bank width: one port moves one word per cycle
  int ports_per_bank = 1;   // 1: a read and a write to one bank in one cycle conflict; 2: 1R1W-like
  int read_latency = 1;     // cycles from the last word's port slot to its data at the reader
  int write_latency = 1;    // cycles from the last word's port slot until it is readable
  int64_t ifmap_bytes = 256 * 1024;
  int64_t filter_bytes = 128 * 1024;
  int64_t ofmap_bytes = 128 * 1024;

  int64_t bytes(Partition p) const;
  int64_t bank_bytes() const { return total_bytes / banks; }
};

// Where a partition lives. Banks are contiguous: ifmap first, then filter, ofmap.
struct PartitionLayout {
  int first_bank = 0;
  int banks = 0;
  int ports = 0;           // word slots per cycle: banks × ports_per_bank
  int64_t bytes = 0;       // both halves
  int64_t half_bytes = 0;  // half 0 is [0, half_bytes), half 1 is [half_bytes, bytes)
};

// Checks the params and divides the banks (rule in README.md): each partition gets
// floor(banks × bytes / sum of partition bytes) banks, the banks left over go one
// each to the largest remainders (ties: ifmap, filter, ofmap). Throws
// std::invalid_argument naming the field or partition and the numbers.
std::array<PartitionLayout, kPartitions> plan_partitions(const ScratchpadParams& params);

}  // namespace cstsim::spad
