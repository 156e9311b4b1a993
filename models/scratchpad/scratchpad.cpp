#include "models/scratchpad/scratchpad.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace cstsim::spad {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

}  // namespace

Scratchpad::Scratchpad(const ScratchpadParams& params) : params_(params) {
  const auto layouts = plan_partitions(params_);
  for (int i = 0; i < kPartitions; ++i) {
    parts_[i].layout = layouts[i];
  }
}

int Scratchpad::bank_of(Partition p, int64_t offset) const {
  const PartitionLayout& l = layout(p);
  if (offset < 0 || offset >= l.bytes)
    throw std::out_of_range(std::string("scratchpad: offset ") + str(offset) + " is outside partition " +
                            partition_name(p) + " (" + str(l.bytes) + " bytes)");
  return l.first_bank + int((offset / params_.word_bytes) % l.banks);
}

void Scratchpad::check_cycle(const char* what, Partition p, int64_t cycle) const {
  if (cycle < 0)
    throw std::invalid_argument(std::string("scratchpad: ") + what + " on " + partition_name(p) + " at cycle " +
                                str(cycle) + ": cycles start at 0");
  if (cycle < horizon_)
    throw std::logic_error(std::string("scratchpad: ") + what + " on " + partition_name(p) + " at cycle " +
                           str(cycle) + " reaches before cycle " + str(horizon_) + ", which was forgotten");
}

void Scratchpad::array_access(Partition p, int64_t begin, int64_t end, int words_per_cycle) {
  if (end < begin || words_per_cycle < 0)
    throw std::invalid_argument(std::string("scratchpad: array access on ") + partition_name(p) + " needs begin <= end" +
                                " and words_per_cycle >= 0, got [" + str(begin) + ", " + str(end) + ") at " +
                                str(words_per_cycle));
  if (begin == end || words_per_cycle == 0) return;
  check_cycle("array access", p, begin);
  PartitionState& s = part(p);
  const int64_t ports = s.layout.ports;
  // Check everything before changing anything, so a throw leaves the record intact.
  s.array.walk(begin, [&](int64_t b, int64_t e, int64_t value) {
    if (value + words_per_cycle > ports)
      throw std::invalid_argument(std::string("scratchpad: array demand on ") + partition_name(p) + " at cycle " +
                                  str(b) + " is " + str(value + words_per_cycle) + " words per cycle, more than its " +
                                  str(ports) + " ports (" + str(s.layout.banks) + " banks x " +
                                  str(params_.ports_per_bank) + ")");
    return e < end;
  });
  s.used.walk(begin, [&](int64_t b, int64_t e, int64_t value) {
    if (value + words_per_cycle > ports)
      throw std::logic_error(std::string("scratchpad: array access on ") + partition_name(p) + " at cycle " + str(b) +
                             " needs " + str(words_per_cycle) + " of " + str(ports) + " ports but DMA transfers " +
                             "already hold " + str(s.dma.at(b)) + " and the array " + str(s.array.at(b)) +
                             "; declare array accesses before the DMA transfers that overlap them");
    return e < end;
  });
  s.array.add(begin, end, words_per_cycle);
  s.used.add(begin, end, words_per_cycle);
  s.stats.array_word_accesses += int64_t(words_per_cycle) * (end - begin);
}

int64_t Scratchpad::fill(const StepFunction& taken, int64_t ports, int64_t from, int64_t words,
                         std::vector<Piece>* out) {
  int64_t remaining = words, last = -1;
  taken.walk(from, [&](int64_t b, int64_t e, int64_t value) {
    const int64_t free = ports - value;
    if (free <= 0) return true;
    const int64_t cycles = (remaining + free - 1) / free;  // at `free` words per cycle
    if (e == kForever || cycles <= e - b) {
      last = b + cycles - 1;
      if (out) {
        if (cycles > 1) out->push_back({b, last, free});
        out->push_back({last, last + 1, remaining - (cycles - 1) * free});
      }
      return false;
    }
    if (out) out->push_back({b, e, free});
    remaining -= free * (e - b);
    return true;
  });
  if (last < 0) throw std::logic_error("scratchpad: internal error: slot record full forever");
  return last;
}

int64_t Scratchpad::transfer(Partition p, int64_t arrival, int64_t bytes, bool write) {
  const char* what = write ? "DMA write" : "DMA read";
  if (bytes <= 0)
    throw std::invalid_argument(std::string("scratchpad: ") + what + " on " + partition_name(p) + " at cycle " +
                                str(arrival) + " has " + str(bytes) + " bytes; it needs at least 1");
  check_cycle(what, p, arrival);
  PartitionState& s = part(p);
  const int64_t ports = s.layout.ports;
  const int64_t words = (bytes + params_.word_bytes - 1) / params_.word_bytes;

  pieces_.clear();
  const int64_t last = fill(s.used, ports, arrival, words, &pieces_);
  // Same earlier DMA reservations, no array: every slot not held by DMA is free.
  const int64_t last_without_array = fill(s.dma, ports, arrival, words, nullptr);
  for (const Piece& piece : pieces_) {
    s.used.add(piece.begin, piece.end, piece.slots);
    s.dma.add(piece.begin, piece.end, piece.slots);
  }

  last_.words = words;
  last_.first_cycle = pieces_.front().begin;
  last_.last_cycle = last;
  last_.done = last + 1 + (write ? params_.write_latency : params_.read_latency);
  last_.conflict_cycles = last - last_without_array;
  (write ? s.stats.dma_bytes_written : s.stats.dma_bytes_read) += bytes;
  s.stats.dma_transfers += 1;
  s.stats.conflict_cycles += last_.conflict_cycles;
  return last_.done;
}

int64_t Scratchpad::dma_write(Partition p, int64_t arrival, int64_t bytes) { return transfer(p, arrival, bytes, true); }
int64_t Scratchpad::dma_read(Partition p, int64_t arrival, int64_t bytes) { return transfer(p, arrival, bytes, false); }

int64_t Scratchpad::take_in_cycle(Partition p, int64_t cycle, int64_t words) {
  check_cycle("DMA access", p, cycle);
  PartitionState& s = part(p);
  const int64_t take = std::min(words, s.layout.ports - s.used.at(cycle));
  if (take <= 0) return 0;
  s.used.add(cycle, cycle + 1, take);
  s.dma.add(cycle, cycle + 1, take);
  return take;
}

int64_t Scratchpad::next_free_cycle(Partition p, int64_t from) const {
  check_cycle("query", p, from);
  const int64_t ports = part(p).layout.ports;
  int64_t found = kForever;
  part(p).used.walk(from, [&](int64_t b, int64_t, int64_t value) {
    if (value < ports) found = b;
    return found == kForever;
  });
  return found;
}

int64_t Scratchpad::array_busy_cycles(Partition p, int64_t begin, int64_t end) const {
  if (end <= begin) return 0;
  check_cycle("query", p, begin);
  int64_t busy = 0;
  part(p).array.walk(begin, [&](int64_t b, int64_t e, int64_t value) {
    if (b >= end) return false;
    if (value > 0) busy += std::min(e, end) - b;
    return e < end;
  });
  return busy;
}

void Scratchpad::count_dma(Partition p, bool write, int64_t bytes, int64_t conflict_cycles) {
  PartitionStats& st = part(p).stats;
  if (bytes > 0) {
    (write ? st.dma_bytes_written : st.dma_bytes_read) += bytes;
    st.dma_transfers += 1;
  }
  st.conflict_cycles += conflict_cycles;
}

void Scratchpad::forget_before(int64_t cycle) {
  if (cycle <= horizon_) return;
  horizon_ = cycle;
  for (PartitionState& s : parts_) {
    s.array.forget_before(cycle);
    s.dma.forget_before(cycle);
    s.used.forget_before(cycle);
  }
}

int64_t Scratchpad::used_slots(Partition p, int64_t cycle) const {
  check_cycle("query", p, cycle);
  return part(p).used.at(cycle);
}

int64_t Scratchpad::array_slots(Partition p, int64_t cycle) const {
  check_cycle("query", p, cycle);
  return part(p).array.at(cycle);
}

int64_t Scratchpad::reserved_slots(Partition p, int64_t begin, int64_t end) const {
  check_cycle("query", p, begin);
  return end <= begin ? 0 : part(p).used.integral(begin, end);
}

size_t Scratchpad::record_size() const {
  size_t n = 0;
  for (const PartitionState& s : parts_) n += s.array.breakpoints() + s.dma.breakpoints() + s.used.breakpoints();
  return n;
}

void Scratchpad::change_residency(Partition p, int64_t cycle, int64_t bytes, bool occupy) {
  PartitionState& s = part(p);
  const std::string what = std::string("scratchpad: ") + (occupy ? "occupying " : "releasing ") + str(bytes) +
                           " bytes of " + partition_name(p) + " at cycle " + str(cycle);
  if (bytes <= 0 || cycle < 0) throw std::invalid_argument(what + ": bytes must be positive and the cycle >= 0");
  if (cycle < s.last_residency_cycle)
    throw std::logic_error(what + " comes after a change at cycle " + str(s.last_residency_cycle) +
                           "; report changes in time order");
  const int64_t now = occupy ? s.resident + bytes : s.resident - bytes;
  if (now > s.layout.bytes)
    throw std::invalid_argument(what + " would make " + str(now) + " bytes resident, more than its " +
                                str(s.layout.bytes));
  if (now < 0) throw std::invalid_argument(what + " but only " + str(s.resident) + " are resident");
  s.resident = now;
  s.last_residency_cycle = cycle;
  if (now > s.peak) s.peak = now;
  for (ScratchpadObserver* o : observers_) o->on_residency(p, cycle, now);
}

void Scratchpad::occupy(Partition p, int64_t cycle, int64_t bytes) { change_residency(p, cycle, bytes, true); }
void Scratchpad::release(Partition p, int64_t cycle, int64_t bytes) { change_residency(p, cycle, bytes, false); }

}  // namespace cstsim::spad
