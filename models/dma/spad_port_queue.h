#pragma once
// The DMA's side of one cluster's scratchpad ports: data waits here for the slots the array
// leaves free and goes through them one cycle at a time, oldest first per partition. Two per
// cluster: the landing buffer (read data back from the NoC, written into the scratchpad) and
// the egress queue (write-back data read out of the scratchpad before its packet leaves).
// A cycle is used only once the array's use of it is declared (the memory system is stepped
// conservatively, models/memory/memory_group.h), so the array keeps its priority exactly and
// no slot is taken ahead of its time.
//
// Landing: every entry was reserved when its request was issued (the request's slot of
// hbm.max_outstanding), so a response can always leave the NoC: a full buffer never blocks
// the mesh, the rule that keeps responses from deadlocking behind requests. The slot frees
// when the entry's last word is in the scratchpad, so slow ports hold slots and throttle the
// DMA's issue, and with it the NoC and the HBM.
#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "models/scratchpad/scratchpad.h"

namespace cstsim {

class SpadPortQueue {
 public:
  static constexpr int64_t kNever = spad::kForever;
  enum class Direction { Write, Read };  // into the scratchpad (landing), out of it (egress)
  struct Moved {
    int request;
    int64_t last_cycle;  // the cycle its last word went through a port
  };

  SpadPortQueue(spad::Scratchpad& spad, Direction direction) : spad_(&spad), direction_(direction) {}

  // Request `request`'s `bytes` are ready to go through p's ports from accelerator cycle `cycle`.
  void add(int request, spad::Partition p, int64_t bytes, int64_t cycle);
  // The earliest cycle some partition has data and a free slot (kNever when empty), and which.
  // Kept up to date by add and move: the memory system asks for it at every event.
  int64_t next_cycle() const { return next_; }
  spad::Partition next_partition() const;
  // Moves p's waiting data in `cycle` (next_cycle()'s, or a cycle it can no longer be
  // earlier than); appends the entries that are now all through.
  void move(spad::Partition p, int64_t cycle, std::vector<Moved>& done);
  // The first cycle a partition with data waiting still looks back to (kNever when empty).
  int64_t oldest_wait() const;

 private:
  struct Entry {
    int request;
    int64_t bytes, words_left;
  };
  struct PartitionQueue {
    std::deque<Entry> entries;
    int64_t next = kNever;     // the next cycle to try
    int64_t waiting_from = 0;  // first cycle not yet used or skipped with data waiting
  };
  spad::Scratchpad* spad_;
  Direction direction_;
  std::array<PartitionQueue, spad::kPartitions> queues_;
  int64_t next_ = kNever;  // the smallest of the partitions' next
  void update_next();
};

}  // namespace cstsim
