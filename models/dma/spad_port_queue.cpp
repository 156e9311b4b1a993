#include "models/dma/spad_port_queue.h"

#include <algorithm>

namespace cstsim {

void SpadPortQueue::add(int request, spad::Partition p, int64_t bytes, int64_t cycle) {
  PartitionQueue& q = queues_[size_t(p)];
  const int64_t words = (bytes + spad_->params().word_bytes - 1) / spad_->params().word_bytes;
  q.entries.push_back({request, bytes, words});
  if (q.entries.size() == 1) {  // was empty: it waits from its arrival
    q.waiting_from = cycle;
    q.next = spad_->next_free_cycle(p, cycle);
    next_ = std::min(next_, q.next);
  }
}

void SpadPortQueue::update_next() {
  next_ = kNever;
  for (const PartitionQueue& q : queues_) next_ = std::min(next_, q.next);
}

int64_t SpadPortQueue::oldest_wait() const {
  int64_t at = kNever;
  for (const PartitionQueue& q : queues_)
    if (!q.entries.empty()) at = std::min(at, q.waiting_from);
  return at;
}

spad::Partition SpadPortQueue::next_partition() const {
  size_t best = 0;
  for (size_t p = 1; p < queues_.size(); ++p)
    if (queues_[p].next < queues_[best].next) best = p;
  return spad::Partition(best);
}

void SpadPortQueue::move(spad::Partition p, int64_t cycle, std::vector<Moved>& done) {
  PartitionQueue& q = queues_[size_t(p)];
  const bool write = direction_ == Direction::Write;
  // Cycles skipped since the data began to wait were full: those the array held count.
  int64_t conflicts = spad_->array_busy_cycles(p, q.waiting_from, cycle);
  while (!q.entries.empty()) {
    Entry& e = q.entries.front();
    e.words_left -= spad_->take_in_cycle(p, cycle, e.words_left);
    if (e.words_left > 0) break;  // no slot left in this cycle
    spad_->count_dma(p, write, e.bytes, 0);
    done.push_back({e.request, cycle});
    q.entries.pop_front();
  }
  if (q.entries.empty()) {
    q.next = kNever;
  } else {
    if (spad_->array_slots(p, cycle) > 0) ++conflicts;
    q.waiting_from = cycle + 1;
    q.next = spad_->next_free_cycle(p, cycle + 1);
  }
  spad_->count_dma(p, write, 0, conflicts);
  update_next();
}

}  // namespace cstsim
