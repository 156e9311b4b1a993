#pragma once
// The DMA's landing buffer at one cluster: read data back from the NoC waits here until
// the scratchpad ports the array leaves free take it, one cycle at a time, oldest first
// per partition. A cycle is written only once the array's use of it is declared (the
// memory system is stepped conservatively, models/memory/memory_group.h), so the array
// keeps its priority exactly and nothing is decided for a cycle before its time.
//
// Every entry was reserved when its request was issued (the request's slot of
// hbm.max_outstanding), so a response can always leave the NoC: a full buffer never
// blocks the mesh, the rule that keeps responses from deadlocking behind requests.
// The slot frees when the entry's last word is in the scratchpad, so slow scratchpad
// ports hold slots and throttle the DMA's issue, and with it the NoC and the HBM.
#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "models/scratchpad/scratchpad.h"

namespace cstsim {

class LandingBuffer {
 public:
  static constexpr int64_t kNever = spad::kForever;
  struct Written {
    int request;
    int64_t last_cycle;  // the cycle its last word went into the scratchpad
  };

  explicit LandingBuffer(spad::Scratchpad& spad) : spad_(&spad) {}

  // Request `request`'s `bytes` arrived in accelerator cycle `cycle`, for partition p.
  void land(int request, spad::Partition p, int64_t bytes, int64_t cycle);
  // The earliest cycle some partition has data and a free slot (kNever when empty), and which.
  int64_t next_cycle() const;
  spad::Partition next_partition() const;
  // Writes p's waiting data in `cycle` (next_cycle()'s, or a cycle it can no longer be
  // earlier than); appends the entries that are now all in.
  void write(spad::Partition p, int64_t cycle, std::vector<Written>& done);
  int64_t bytes_held() const { return bytes_held_; }
  // The first cycle a partition with data waiting still looks back to (kNever when empty).
  int64_t oldest_wait() const;

 private:
  struct Entry {
    int request;
    int64_t bytes, words_left;
  };
  struct PartitionQueue {
    std::deque<Entry> entries;
    int64_t next = kNever;  // the next cycle to try
    int64_t waiting_from = 0;  // first cycle not yet written or skipped with data waiting
  };
  spad::Scratchpad* spad_;
  std::array<PartitionQueue, spad::kPartitions> queues_;
  int64_t bytes_held_ = 0;
};

}  // namespace cstsim
