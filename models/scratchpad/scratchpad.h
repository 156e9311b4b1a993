#pragma once
// Banked on-chip SRAM shared by the systolic array and the DMA (plain C++, no
// kernel). Timing is decided per call from a record of port slots in use over
// time, so idle stretches cost nothing. Rules and a worked example: README.md.
//
// Port model: partition p has ports(p) = banks(p) × ports_per_bank word slots per
// cycle, usable by any access of p (words interleave over p's banks; README.md
// says when that is exact). Both halves of the double buffer interleave over all
// of p's banks, so the array reading one half and the DMA filling the other
// compete for the same slots.
//
// Arbitration: the array has priority. A DMA transfer takes, from its arrival on,
// every slot left free by the array and by transfers issued before it, as early
// as possible ("transfers are served in the order the DMA issued them"; a later
// call may still fill gaps at earlier cycles than an earlier call). It sees only
// the array accesses declared before it: declare each array interval before any
// DMA transfer that could reach it (an array access that no longer fits because
// DMA already holds the slots throws std::logic_error).
#include <array>
#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/scratchpad/scratchpad_params.h"
#include "models/scratchpad/step_function.h"

namespace cstsim::spad {

struct PartitionStats {
  int64_t dma_bytes_written = 0;
  int64_t dma_bytes_read = 0;
  int64_t dma_transfers = 0;
  int64_t array_word_accesses = 0;  // word-port slots the array used (words × cycles)
  // Cycles the array cost the DMA: per dma_write/dma_read, DmaTransfer::conflict_cycles; through
  // the port queues, the cycles DMA data waited while the array held slots of the partition.
  int64_t conflict_cycles = 0;
  PartitionStats operator-(const PartitionStats& o) const {  // what happened since o
    return {dma_bytes_written - o.dma_bytes_written, dma_bytes_read - o.dma_bytes_read,
            dma_transfers - o.dma_transfers, array_word_accesses - o.array_word_accesses,
            conflict_cycles - o.conflict_cycles};
  }
};

// The last DMA transfer's schedule, accelerator cycles.
struct DmaTransfer {
  int64_t words = 0;
  int64_t first_cycle = 0;  // first cycle it holds a port slot
  int64_t last_cycle = 0;   // cycle of its last word
  int64_t done = 0;         // last_cycle + 1 + read/write latency (what dma_* returned)
  // Cycles the array cost it: last_cycle minus the last cycle it would have had if
  // no array access held any slot, with the same earlier-issued DMA reservations
  // (>= 0; latency cancels out).
  int64_t conflict_cycles = 0;
};

class ScratchpadObserver {
 public:
  virtual ~ScratchpadObserver() = default;
  // After every occupy/release; bytes_now is p's resident bytes from `cycle` on.
  virtual void on_residency(Partition p, int64_t cycle, int64_t bytes_now) = 0;
};

class Scratchpad {
 public:
  explicit Scratchpad(const ScratchpadParams& params);  // throws std::invalid_argument

  const ScratchpadParams& params() const { return params_; }
  const PartitionLayout& layout(Partition p) const { return part(p).layout; }
  // Bank holding byte `offset` of partition p: words go round-robin over its banks.
  int bank_of(Partition p, int64_t offset) const;

  // The array uses words_per_cycle of p's slots in every cycle of [begin, end).
  // Overlapping calls add up. Throws std::invalid_argument if the array's own
  // demand in some cycle exceeds ports(p), std::logic_error if DMA transfers
  // already hold the slots it needs (see the arbitration note above).
  void array_access(Partition p, int64_t begin, int64_t end, int words_per_cycle);

  // ceil(bytes / word_bytes) words through p's free slots from `arrival` on.
  // Returns the cycle after the last word plus write_latency / read_latency.
  int64_t dma_write(Partition p, int64_t arrival, int64_t bytes);
  int64_t dma_read(Partition p, int64_t arrival, int64_t bytes);
  const DmaTransfer& last_transfer() const { return last_; }

  // The DMA's port queues (models/dma/spad_port_queue.h) move words a cycle at a time, once
  // the cycle's array use is declared. take_in_cycle takes up to `words` of the slots free in
  // `cycle` and returns how many it took; next_free_cycle is the first cycle at or after
  // `from` with a free slot, as declared so far; array_busy_cycles counts the cycles of
  // [begin, end) in which the array holds a slot; count_dma books a block's bytes (written or
  // read) and the cycles the array kept DMA data waiting (PartitionStats).
  int64_t take_in_cycle(Partition p, int64_t cycle, int64_t words);
  int64_t next_free_cycle(Partition p, int64_t from) const;
  int64_t array_busy_cycles(Partition p, int64_t begin, int64_t end) const;
  void count_dma(Partition p, bool write, int64_t bytes, int64_t conflict_cycles);

  // Nobody will ask about cycles before `cycle` again: drop their records.
  // Later calls that reach back before it throw std::logic_error.
  void forget_before(int64_t cycle);

  int64_t used_slots(Partition p, int64_t cycle) const;   // array + DMA in that cycle
  int64_t array_slots(Partition p, int64_t cycle) const;  // array only
  int64_t reserved_slots(Partition p, int64_t begin, int64_t end) const;  // array + DMA, summed
  size_t record_size() const;  // breakpoints held, all partitions (memory check)

  // Resident bytes (V_M at this level). Calls per partition come in non-decreasing
  // cycle order. Throws std::invalid_argument if p would hold more than its bytes
  // or less than 0, std::logic_error if the cycle goes backwards.
  void occupy(Partition p, int64_t cycle, int64_t bytes);
  void release(Partition p, int64_t cycle, int64_t bytes);
  int64_t residency(Partition p) const { return part(p).resident; }
  int64_t peak_residency(Partition p) const { return part(p).peak; }
  // The peak from now on starts at what is resident (a run's scratchpad, a pass at a time).
  void restart_peaks() {
    for (PartitionState& s : parts_) s.peak = s.resident;
  }
  void add_observer(ScratchpadObserver* observer) { observers_.push_back(observer); }
  void remove_observer(ScratchpadObserver* observer) {
    observers_.erase(std::remove(observers_.begin(), observers_.end(), observer), observers_.end());
  }

  const PartitionStats& stats(Partition p) const { return part(p).stats; }

 private:
  struct PartitionState {
    PartitionLayout layout;
    StepFunction array;  // slots the array uses
    StepFunction dma;    // slots DMA transfers hold
    StepFunction used;   // array + dma: what a new transfer fits around (full runs merge)
    int64_t resident = 0, peak = 0, last_residency_cycle = 0;
    PartitionStats stats;
  };
  struct Piece {
    int64_t begin, end, slots;  // `slots` per cycle over [begin, end)
  };

  PartitionState& part(Partition p) { return parts_[int(p)]; }
  const PartitionState& part(Partition p) const { return parts_[int(p)]; }
  int64_t transfer(Partition p, int64_t arrival, int64_t bytes, bool write);
  // Places `words` in the slots `taken` leaves free (ports - value) from `from` on,
  // earliest first; returns the cycle of the last word, appends the slots to `out`.
  static int64_t fill(const StepFunction& taken, int64_t ports, int64_t from, int64_t words,
                      std::vector<Piece>* out);
  void change_residency(Partition p, int64_t cycle, int64_t bytes, bool occupy);
  void check_cycle(const char* what, Partition p, int64_t cycle) const;

  ScratchpadParams params_;
  std::array<PartitionState, kPartitions> parts_;
  int64_t horizon_ = 0;  // records before this cycle are gone
  DmaTransfer last_;
  std::vector<Piece> pieces_;  // scratch for transfer()
  std::vector<ScratchpadObserver*> observers_;
};

}  // namespace cstsim::spad
