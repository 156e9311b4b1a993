#include "models/scratchpad/scratchpad_params.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace cstsim::spad {

const char* partition_name(Partition p) {
  switch (p) {
    case Partition::Ifmap: return "ifmap";
    case Partition::Filter: return "filter";
    case Partition::Ofmap: return "ofmap";
  }
  return "?";
}

Partition partition_named(const std::string& name) {
  if (name == "ifmap") return Partition::Ifmap;
  if (name == "filter") return Partition::Filter;
  return Partition::Ofmap;
}

int64_t ScratchpadParams::bytes(Partition p) const {
  switch (p) {
    case Partition::Ifmap: return ifmap_bytes;
    case Partition::Filter: return filter_bytes;
    case Partition::Ofmap: return ofmap_bytes;
  }
  return 0;
}

namespace {

void require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument("scratchpad: " + message);
}

}  // namespace

std::array<PartitionLayout, kPartitions> plan_partitions(const ScratchpadParams& p) {
  require(p.total_bytes > 0, "total_bytes must be positive, got " + std::to_string(p.total_bytes));
  require(p.banks > 0, "banks must be positive, got " + std::to_string(p.banks));
  require(p.word_bytes > 0, "word_bytes must be positive, got " + std::to_string(p.word_bytes));
  require(p.ports_per_bank > 0, "ports_per_bank must be positive, got " + std::to_string(p.ports_per_bank));
  require(p.read_latency >= 0 && p.write_latency >= 0,
          "latencies must not be negative, got read " + std::to_string(p.read_latency) + ", write " +
              std::to_string(p.write_latency));
  require(p.total_bytes % p.banks == 0, "total_bytes " + std::to_string(p.total_bytes) + " is not a multiple of " +
                                            std::to_string(p.banks) + " banks");
  require(p.bank_bytes() % p.word_bytes == 0, "bank of " + std::to_string(p.bank_bytes()) +
                                                  " bytes is not a whole number of " + std::to_string(p.word_bytes) +
                                                  "-byte words");
  int64_t sum = 0;
  for (Partition part : kAllPartitions) {
    require(p.bytes(part) > 0, std::string("partition ") + partition_name(part) + " must have a positive size, got " +
                                   std::to_string(p.bytes(part)) + " bytes");
    sum += p.bytes(part);
  }
  require(sum <= p.total_bytes, "partitions take " + std::to_string(sum) + " bytes (ifmap " +
                                    std::to_string(p.ifmap_bytes) + " + filter " + std::to_string(p.filter_bytes) +
                                    " + ofmap " + std::to_string(p.ofmap_bytes) + "), more than total_bytes " +
                                    std::to_string(p.total_bytes));

  // Largest remainder: whole banks in proportion to bytes, every bank handed out.
  std::array<PartitionLayout, kPartitions> out{};
  std::array<__int128, kPartitions> remainder{};
  int given = 0;
  for (int i = 0; i < kPartitions; ++i) {
    const __int128 share = __int128(p.banks) * p.bytes(Partition(i));
    out[i].banks = int(share / sum);
    remainder[i] = share % sum;
    given += out[i].banks;
  }
  std::array<int, kPartitions> order = {0, 1, 2};
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return remainder[a] > remainder[b]; });
  for (int k = 0; given < p.banks; ++k, ++given) ++out[order[k]].banks;

  int next_bank = 0;
  for (int i = 0; i < kPartitions; ++i) {
    const char* name = partition_name(Partition(i));
    PartitionLayout& l = out[i];
    l.first_bank = next_bank;
    next_bank += l.banks;
    l.ports = l.banks * p.ports_per_bank;
    l.bytes = p.bytes(Partition(i));
    l.half_bytes = l.bytes / 2;
    require(l.banks > 0, std::string("partition ") + name + " (" + std::to_string(l.bytes) + " of " +
                             std::to_string(sum) + " partition bytes) gets 0 of " + std::to_string(p.banks) +
                             " banks; enlarge it or use more, smaller banks");
    require(l.bytes <= l.banks * p.bank_bytes(),
            std::string("partition ") + name + " needs " + std::to_string(l.bytes) + " bytes but its " +
                std::to_string(l.banks) + " banks hold " + std::to_string(l.banks * p.bank_bytes()) + " (" +
                std::to_string(p.bank_bytes()) + " bytes each)");
  }
  return out;
}

}  // namespace cstsim::spad
