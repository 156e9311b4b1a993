#include "models/scalesim/scalesim_memory.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace cstsim::scalesim {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// A value per operand address: a flat array where the address space is small, a hash beyond.
class AddressMap {
 public:
  AddressMap(int64_t space, int32_t init) : init_(init) {
    if (space <= kDenseLimit) dense_.assign(size_t(space), init);
  }
  int32_t get(int64_t a) const {
    if (!dense_.empty()) return dense_[size_t(a)];
    auto it = sparse_.find(a);
    return it == sparse_.end() ? init_ : it->second;
  }
  void set(int64_t a, int32_t v) {
    if (!dense_.empty()) dense_[size_t(a)] = v;
    else sparse_[a] = v;
  }

 private:
  static constexpr int64_t kDenseLimit = int64_t(1) << 24;
  int32_t init_;
  std::vector<int32_t> dense_;
  std::unordered_map<int64_t, int32_t> sparse_;
};

// The first and last cycle of a DRAM interface's trace rows, and the words it moved.
struct DramLog {
  Access access;
  bool any = false;
  void rows(int64_t first, int64_t last) {
    if (!any) access.start = first;
    access.stop = last;
    any = true;
  }
};

class ReadBuffer {
 public:
  virtual ~ReadBuffer() = default;
  // Serves one demand row asked for at `cycle`; returns the cycle it is served.
  virtual int64_t serve(const int64_t* addrs, int n, int64_t cycle) = 0;
  virtual void finish() {}
  DramLog log;
};

// read_buffer_estimate_bw.py (CALC): reads never stall. The operand's distinct addresses, in
// the order first missed, are cut into sets of 1 % of the SRAM; the active half holds 50 sets.
// When the demand has filled the sets after the active half, they are fetched over the window
// since the previous fetch, at whatever bandwidth that takes.
class EstimateReadBuffer : public ReadBuffer {
 public:
  EstimateReadBuffer(int64_t words, int64_t space)
      : per_set_(words / 100), latest_set_(space, -1) {}

  int64_t serve(const int64_t* addrs, int n, int64_t cycle) override {
    for (int i = 0; i < n; ++i) {
      if (addrs[i] < 0) continue;
      if (!first_seen_) first_seen_ = true, first_request_ = cycle;
      miss(cycle, addrs[i]);
    }
    return cycle + 1;
  }

  void finish() override {
    if (in_current_ > 0) set_sizes_.push_back(in_current_);
    else --current_set_;
    if (!active_fetched_) {
      bandwidth_ = kDefaultBandwidth;
      window_end_ = -2;
      active_sets_ = current_set_ + 1;
      window_start_ = window_end_ - ceil_div(active_sets_ * per_set_, bandwidth_) + 1;
      fetch();
      active_fetched_ = true;
    } else {
      prefetch_last_ = current_set_;
      const int64_t words = (current_set_ - prefetch_first_ + 1) * per_set_;
      bandwidth_ = std::max<int64_t>(0, ceil_div(words, window_end_ - window_start_ + 1));
      fetch();
    }
  }

 private:
  static constexpr int64_t kDefaultBandwidth = 10;  // single_layer_sim.py: "arbitrary"
  static constexpr int64_t kActiveSets = 50, kPrefetchSets = 50;

  void miss(int64_t cycle, int64_t addr) {
    const int64_t set = latest_set_.get(addr);
    if (set >= read_first_ && set < std::min(current_set_, read_last_ + 1)) return;  // a hit
    if (set == current_set_) return;  // already in the set being filled
    latest_set_.set(addr, int32_t(current_set_));
    if (++in_current_ != per_set_) return;
    set_sizes_.push_back(in_current_);
    in_current_ = 0;
    if (++current_set_ != read_last_ + 1) return;
    if (!active_fetched_) {  // the active half, fetched just before the first request
      bandwidth_ = kDefaultBandwidth;
      window_end_ = first_request_ - 2;  // one cycle before it, less the DRAM port's latency
      window_start_ = window_end_ - ceil_div(kPrefetchSets * per_set_, bandwidth_) + 1;
      fetch();
      prefetch_first_ = read_last_ + 1;
      prefetch_last_ = prefetch_first_ + kPrefetchSets - 1;
      active_fetched_ = true;
    } else {
      const int64_t window = window_end_ - window_start_ + 1;
      if (window <= 0)
        throw std::runtime_error("SCALE-Sim's CALC read buffer would divide by zero (two prefetches in one cycle)");
      bandwidth_ = ceil_div(kPrefetchSets * per_set_, window);
      fetch();
      prefetch_first_ += kPrefetchSets;
      prefetch_last_ += kPrefetchSets;
    }
    read_first_ += kPrefetchSets;
    read_last_ += kPrefetchSets;
    window_start_ = window_end_ + 1;
    window_end_ = cycle;
  }

  // One prefetch: the sets in question over the current window, one row a cycle, answered a
  // cycle later (read_port.py's latency).
  void fetch() {
    const int64_t first = active_fetched_ ? prefetch_first_ : 0;
    const int64_t last = active_fetched_ ? prefetch_last_ : active_sets_ - 1;
    for (int64_t s = first; s <= last; ++s) log.access.words += set_sizes_.at(size_t(s));
    const int64_t rows = window_end_ - window_start_ + 1;
    if (rows <= 0 || rows * bandwidth_ < 0)
      throw std::runtime_error("SCALE-Sim's CALC read buffer has no cycles for a prefetch");
    log.rows(window_start_ + 1, window_end_ + 1);
  }

  const int64_t per_set_;
  AddressMap latest_set_;  // the last set each address went into
  std::vector<int64_t> set_sizes_;
  int64_t current_set_ = 0, in_current_ = 0;
  int64_t read_first_ = 0, read_last_ = kActiveSets - 1;
  int64_t prefetch_first_ = -1, prefetch_last_ = -1;
  int64_t active_sets_ = kActiveSets;
  int64_t window_start_ = -2, window_end_ = -1;
  int64_t bandwidth_ = kDefaultBandwidth;
  int64_t first_request_ = 0;
  bool first_seen_ = false, active_fetched_ = false;
};

// read_buffer.py (USER): the operand's prefetch order, in lines of 1 % of the SRAM; the active
// half is a window of lines. A read whose address is in no active line slides the window by
// the prefetch half and waits for that prefetch: `bandwidth` words a cycle, whole rows.
class UserReadBuffer : public ReadBuffer {
 public:
  UserReadBuffer(const DemandStream& d, Operand o, int64_t space, int64_t words, int64_t bandwidth)
      : bandwidth_(bandwidth), active_words_(ceil_div(words, 2)), prefetch_words_(words - ceil_div(words, 2)) {
    const int64_t per_line = ceil_div(words, 100);
    // Two passes over the order: count each address's lines, then list them (ascending).
    AddressMap index(space, -1);
    std::vector<int32_t> last_line;  // by compact index: the last line it was put in
    std::vector<int64_t> count, cursor;
    int64_t elements = 0;
    auto walk = [&](bool listing) {
      int64_t line = 0, in_line = 0;
      std::fill(last_line.begin(), last_line.end(), -1);
      d.prefetch_sequence(o, [&](int64_t a) {
        if (!listing) ++elements;
        if (a < 0) return;
        int32_t k = index.get(a);
        if (k < 0) {  // first pass only
          k = int32_t(last_line.size());
          index.set(a, k);
          last_line.push_back(-1);
          count.push_back(0);
        }
        if (last_line[size_t(k)] != line) {
          last_line[size_t(k)] = int32_t(line);
          if (listing) lines_[size_t(cursor[size_t(k)]++)] = int32_t(line);
          else ++count[size_t(k)];
        }
        if (++in_line >= per_line) ++line, in_line = 0;  // elements, not distinct ones
      });
      return line + 1;
    };
    lines_total_ = walk(false);
    begin_.assign(count.size() + 1, 0);
    for (size_t k = 0; k < count.size(); ++k) begin_[k + 1] = begin_[k] + count[k];
    cursor.assign(begin_.begin(), begin_.end() - 1);
    lines_.assign(size_t(begin_.back()), 0);
    walk(true);
    index_ = std::make_unique<AddressMap>(std::move(index));
    fetch_rows_ = ceil_div(elements, bandwidth_);
    active_lines_ = std::min(ceil_div(active_words_, per_line), lines_total_);
    prefetch_lines_ = std::min(ceil_div(prefetch_words_, per_line), lines_total_ - active_lines_);
  }

  int64_t serve(const int64_t* addrs, int n, int64_t cycle) override {
    if (!filled_) fill_active(cycle);
    int64_t offset = 1;  // the hit latency
    for (int i = 0; i < n; ++i) {
      if (addrs[i] < 0) continue;
      for (int64_t tries = 0; !hit(addrs[i]); ++tries) {
        if (tries > lines_total_ + 1)
          throw std::runtime_error("SCALE-Sim's read buffer: address " + std::to_string(addrs[i]) +
                                   " is in no line of the operand's prefetch order");
        slide();
        offset += std::max<int64_t>(0, last_arrival_ - (cycle + offset));
      }
    }
    return cycle + offset;
  }

 private:
  bool hit(int64_t addr) const {
    const int32_t k = index_->get(addr);
    if (k < 0) return false;
    const auto first = lines_.begin() + begin_[size_t(k)], last = lines_.begin() + begin_[size_t(k) + 1];
    const auto at_start = std::lower_bound(first, last, active_start_);
    if (active_start_ < active_end_) return at_start != last && *at_start < active_end_;
    return at_start != last || (first != last && *first < active_end_);  // the window wraps
  }

  // The active half, fetched so that it has all arrived the cycle before the first read.
  void fill_active(int64_t start) {
    const int64_t rows = std::min(ceil_div(active_words_, bandwidth_), fetch_rows_);
    log.access.words += rows * bandwidth_;
    log.rows(start - rows, start - 1);
    last_arrival_ = start - 1;
    active_start_ = 0;
    active_end_ = int32_t(active_lines_);
    filled_ = true;
  }

  // The next prefetch: rows issued one a cycle after the last one arrived.
  void slide() {
    active_start_ = int32_t((active_start_ + prefetch_lines_) % lines_total_);
    active_end_ = int32_t((active_start_ + active_lines_) % lines_total_);
    const int64_t rows = ceil_div(prefetch_words_, bandwidth_);
    log.access.words += rows * bandwidth_;
    log.rows(last_arrival_ + 2, last_arrival_ + rows + 1);
    last_arrival_ += rows + 1;
  }

  const int64_t bandwidth_, active_words_, prefetch_words_;
  std::unique_ptr<AddressMap> index_;  // address -> its compact index into begin_
  std::vector<int64_t> begin_;         // lines_[begin_[k], begin_[k+1]): lines holding address k
  std::vector<int32_t> lines_;
  int64_t lines_total_ = 1, fetch_rows_ = 0, active_lines_ = 0, prefetch_lines_ = 0;
  int32_t active_start_ = 0, active_end_ = 0;
  int64_t last_arrival_ = -1;
  bool filled_ = false;
};

// write_buffer.py: ofmap words collect in lines of `bandwidth`; once more than the active half
// is taken, the drain half (whole lines, the partial one closed early) is written out one line
// a cycle; a write finding the SRAM full waits for the drain under way.
class WriteBuffer {
 public:
  WriteBuffer(int64_t words, int64_t bandwidth)
      : total_(words), drain_words_(words - ceil_div(words, 2)), bandwidth_(bandwidth), free_(words) {}

  int64_t serve(const int64_t* addrs, int n, int64_t cycle) {
    int writes = 0;
    for (int i = 0; i < n; ++i) writes += addrs[i] >= 0;
    return serve(writes, cycle);
  }
  // The same for `writes` words (which ports write does not matter), in runs of words between
  // the points where a word makes the buffer stall or start a drain.
  int64_t serve(int writes, int64_t cycle) {
    int64_t now = cycle;
    const int64_t keep = total_ - drain_words_;  // a drain starts once fewer are free
    for (int64_t left = writes; left > 0;) {
      const bool draining = now < drain_end_;
      // The word after which the buffer is full (draining) or below `keep` free (not draining).
      const int64_t until = draining ? std::max<int64_t>(1, free_) : std::max<int64_t>(1, free_ - keep + 1);
      const int64_t n = std::min(left, until);
      store(n);
      left -= n;
      if (n < until) break;
      if (draining) {
        now = drain_end_;
      } else {
        close_lines();
        drain_end_ = drain(now);
      }
    }
    return now;
  }

  void finish(int64_t cycle) {
    close_lines();
    while (drain_first_ < committed_) cycle = drain(cycle) + 1;
  }

  DramLog log;

 private:
  static constexpr int64_t kCachedLines = 1024;  // lines held back before they can be drained

  void store(int64_t words) {
    free_ -= words;
    for (in_line_ += words; in_line_ >= bandwidth_; in_line_ -= bandwidth_) {
      line_words_.push_back(bandwidth_);
      if (int64_t(line_words_.size()) - committed_ >= kCachedLines) committed_ = int64_t(line_words_.size());
    }
  }
  void close_lines() {
    if (in_line_ > 0) line_words_.push_back(in_line_), in_line_ = 0;
    committed_ = int64_t(line_words_.size());
  }
  // Drains up to the drain half's lines from `start`, one a cycle; returns the last cycle.
  // SCALE-Sim counts every slot of the lines but the last line's empty ones.
  int64_t drain(int64_t start) {
    const int64_t end = std::min(drain_first_ + ceil_div(drain_words_, bandwidth_), committed_);
    const int64_t lines = end - drain_first_;
    if (lines <= 0) throw std::runtime_error("SCALE-Sim's write buffer would drain nothing (it fails here)");
    const int64_t words = lines * bandwidth_ - (bandwidth_ - line_words_[size_t(end - 1)]);
    log.access.words += words;
    log.rows(start, start + lines - 1);
    free_ += words;
    drain_first_ = end;
    return start + lines - 1;
  }

  const int64_t total_, drain_words_, bandwidth_;
  int64_t free_;
  std::vector<int64_t> line_words_;
  int64_t in_line_ = 0, committed_ = 0, drain_first_ = 0, drain_end_ = 0;
};

std::unique_ptr<ReadBuffer> read_buffer(const DemandStream& d, Operand o, int64_t space, int64_t words,
                                        const MemoryParams& p) {
  if (p.user_bandwidth) return std::make_unique<UserReadBuffer>(d, o, space, words, p.bandwidth);
  return std::make_unique<EstimateReadBuffer>(words, space);
}

}  // namespace

ScaleSimMemory replay_layer(const DemandStream& d, const MemoryParams& p) {
  auto ifmap = read_buffer(d, kIfmap, d.address_space(kIfmap), p.ifmap_words, p);
  auto filter = read_buffer(d, kFilter, d.address_space(kFilter), p.filter_words, p);
  // CALC: the ofmap drains as fast as the array writes a row (its columns a cycle).
  WriteBuffer ofmap(p.ofmap_words, p.user_bandwidth ? p.bandwidth : d.ports(kOfmap));

  ScaleSimMemory r;
  std::vector<int64_t> row[3];
  for (int o = 0; o < 3; ++o) row[o].resize(size_t(d.ports(Operand(o))));
  bool seen[3] = {false, false, false};
  int64_t served_ofmap = 0;
  for (int64_t i = 0; i < d.total_rows(); ++i) {
    if (i % d.fold_length() == 0) r.stalls_before_fold.push_back(r.stall_cycles);
    const int64_t cycle = i + r.stall_cycles;
    int64_t served[3];
    for (int o = 0; o < 3; ++o) {
      d.fill(Operand(o), i, row[o].data());
      const int n = int(row[o].size());
      served[o] = o == kOfmap ? ofmap.serve(row[o].data(), n, cycle)
                              : (o == kIfmap ? *ifmap : *filter).serve(row[o].data(), n, cycle);
      if (std::any_of(row[o].begin(), row[o].end(), [](int64_t a) { return a >= 0; })) {
        if (!seen[o]) r.sram[o].start = served[o], seen[o] = true;
        r.sram[o].stop = served[o];
      }
    }
    served_ofmap = served[kOfmap];
    r.stall_cycles += std::max({served[kIfmap] - cycle - 1, served[kFilter] - cycle - 1, served[kOfmap] - cycle});
  }
  ifmap->finish();
  filter->finish();
  ofmap.finish(served_ofmap);
  r.total_cycles = served_ofmap;
  r.dram = {ifmap->log.access, filter->log.access, ofmap.log.access};
  r.accesses = true;
  return r;
}

ScaleSimMemory calc_stalls(const DemandStream& d, const MemoryParams& p) {
  if (p.user_bandwidth) throw std::logic_error("calc_stalls under InterfaceBandwidth: USER");
  WriteBuffer ofmap(p.ofmap_words, d.ports(kOfmap));
  ScaleSimMemory r;
  int64_t served = 0;
  for (int64_t i = 0; i < d.total_rows(); ++i) {
    if (i % d.fold_length() == 0) r.stalls_before_fold.push_back(r.stall_cycles);
    const int64_t cycle = i + r.stall_cycles;
    served = ofmap.serve(d.ofmap_writes(i), cycle);
    r.stall_cycles += served - cycle;
  }
  ofmap.finish(served);
  r.total_cycles = served;
  return r;
}

}  // namespace cstsim::scalesim
