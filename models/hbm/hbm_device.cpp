#include "models/hbm/hbm_device.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace cstsim::hbm {

HbmDevice::HbmDevice(HbmSpec spec) : spec_(std::move(spec)), map_(spec_.org, spec_.address_mapping) {
  if (spec_.org.channels <= 0 || spec_.tck_ns <= 0)  // a default HbmSpec: nobody loaded the file
    throw std::invalid_argument("HbmDevice: an empty HBM spec (load it with load_hbm_spec)");
  for (int c = 0; c < spec_.org.channels; ++c) {
    channels_.push_back(std::make_unique<ChannelController>(spec_, c));
    channels_.back()->set_observer(&fanout_);
    wake_.push_back(channels_.back()->next_wake());
  }
}

void HbmDevice::start_at(Cycle s) {
  changed();
  if (requests_ > 0 || processed_ > 0) throw std::logic_error("HbmDevice::start_at after the stack ran");
  for (size_t c = 0; c < channels_.size(); ++c) {
    channels_[c]->start_at(s);
    wake_[c] = channels_[c]->next_wake();
  }
}

void HbmDevice::submit(const HbmRequest& r) {
  changed();
  if (r.bytes == 0) throw std::invalid_argument(fmt::format("HBM request {} has 0 bytes", r.id));
  if (r.cycle <= processed_)
    throw std::invalid_argument(
        fmt::format("HBM request {} at cycle {}, but the device already ran cycle {}", r.id, r.cycle, processed_));
  if (r.cycle < last_submit_)
    throw std::invalid_argument(fmt::format("HBM request {} at cycle {} is earlier than the previous request ({})",
                                            r.id, r.cycle, last_submit_));
  if (r.addr >= map_.capacity() || r.bytes > map_.capacity() - r.addr)
    throw std::out_of_range(fmt::format("HBM request {} [{:#x}, +{}) runs past the end of the stack ({:#x} bytes)",
                                        r.id, r.addr, r.bytes, map_.capacity()));
  last_submit_ = r.cycle;
  const uint64_t B = uint64_t(spec_.org.burst_bytes);
  const uint64_t first = r.addr / B, last = (r.addr + r.bytes - 1) / B;
  uint32_t slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    slot = uint32_t(transfers_.size());
    transfers_.emplace_back();
  }
  Transfer& t = transfers_[slot];
  t.c = HbmCompletion{r.id, r.addr, r.bytes, r.is_write, uint32_t(last - first + 1), r.cycle, kNever, 0};
  t.left = t.c.bursts;
  t.banks.clear();
  const uint32_t banks_per_pc = uint32_t(spec_.org.banks_per_pc());
  ++live_;
  ++requests_;
  for (uint64_t i = first; i <= last; ++i) {
    Burst b;
    b.transfer = slot;
    b.addr = map_.decode(i * B);
    b.is_write = r.is_write;
    b.arrival = r.cycle;
    b.seq = seq_++;
    const uint32_t bank = (uint32_t(b.addr.channel * spec_.org.pseudo_channels + b.addr.pc)) * banks_per_pc +
                          uint32_t(b.addr.bank_group * spec_.org.banks_per_group + b.addr.bank);
    if (t.banks.empty() || t.banks.back() != bank) t.banks.push_back(bank);
    channels_[size_t(b.addr.channel)]->enqueue(b);
    wake_[size_t(b.addr.channel)] = channels_[size_t(b.addr.channel)]->next_wake();
  }
}

// Called when the request's first RD/WR has issued (t.c.first_issue set). Channels are stepped
// in time order, so every refresh that began before first_issue anywhere in the stack is known.
Cycle HbmDevice::refresh_wait(const Transfer& t) {
  const Cycle from = t.c.arrival, to = t.c.first_issue;
  if (to <= from) return 0;
  const uint32_t banks_per_pc = uint32_t(spec_.org.banks_per_pc());
  const uint32_t pcs = uint32_t(spec_.org.pseudo_channels);
  spans_.clear();
  for (uint32_t id : t.banks) {
    const uint32_t pc = id / banks_per_pc;
    const ChannelController& ch = *channels_[pc / pcs];
    if (ch.last_refresh_end() <= from) continue;
    ch.refresh_spans(int(pc % pcs), int(id % banks_per_pc), from, to, spans_);
  }
  if (spans_.empty()) return 0;
  std::sort(spans_.begin(), spans_.end(), [](const RefreshSpan& a, const RefreshSpan& b) { return a.begin < b.begin; });
  Cycle total = 0, covered = from;  // length of the union
  for (const RefreshSpan& s : spans_) {
    const Cycle begin = std::max(s.begin, covered);
    if (s.end > begin) {
      total += s.end - begin;
      covered = s.end;
    }
  }
  return total;
}

void HbmDevice::drain(ChannelController& ch) {
  for (const BurstDone& d : ch.issued()) {
    Transfer& t = transfers_[d.transfer];
    if (t.c.first_issue == kNever) {  // bursts drain in issue order: this is the first RD/WR
      t.c.first_issue = d.issue;
      t.c.refresh_wait = refresh_wait(t);
    }
    t.c.first_issue = std::min(t.c.first_issue, d.issue);
    t.c.done = std::max(t.c.done, d.done);
    t.c.row_misses += d.needed_act ? 1 : 0;
    if (--t.left == 0) {
      pending_.push(t.c);
      free_.push_back(d.transfer);
      --live_;
    }
  }
  ch.issued().clear();
}

void HbmDevice::rephase_refresh(Cycle at, double fraction) {
  if (!idle() || channels_.empty()) return;
  const Cycle T = channels_[0]->refresh_period();
  if (T <= 0) return;
  // At most half a period later than the run's own schedule, or earlier: the policies issue a
  // refresh some cycles after it falls due, and the obligation allows one period's delay.
  Cycle offset = ((at + Cycle(fraction * double(T))) % T + T) % T;
  if (2 * offset >= T) offset -= T;
  for (size_t i = 0; i < channels_.size(); ++i)
    if (channels_[i]->set_refresh_offset(offset, processed_)) wake_[i] = channels_[i]->next_wake();
}

void HbmDevice::run_until(Cycle until) {
  changed();
  if (until <= processed_) return;
  if (idle_skip_ && !stepping_ && idle())
    for (size_t i = 0; i < channels_.size(); ++i)
      if (channels_[i]->skip_idle(until) > 0) wake_[i] = channels_[i]->next_wake();
  if (stepping_) {
    for (Cycle c = processed_ + 1; c <= until; ++c)
      for (size_t i = 0; i < channels_.size(); ++i) {
        channels_[i]->step(c);
        drain(*channels_[i]);
        wake_[i] = channels_[i]->next_wake();
      }
  } else {
    // Channels are independent; stepping the earliest one first keeps the observers' view in
    // time order across the stack.
    for (;;) {
      // The first earliest channel, as std::min_element finds it but without a branch per channel
      // (which mispredicts: the wakes interleave).
      size_t next = 0;
      Cycle best = wake_[0];
      for (size_t i = 1; i < wake_.size(); ++i) {
        const bool earlier = wake_[i] < best;
        next = earlier ? i : next;
        best = earlier ? wake_[i] : best;
      }
      if (best > until) break;
      channels_[next]->step(best);
      drain(*channels_[next]);
      wake_[next] = channels_[next]->next_wake();
    }
  }
  processed_ = until;
}

Cycle HbmDevice::next_event(bool include_idle_refresh) const {
  const int k = include_idle_refresh ? 1 : 0;
  if (next_known_[k]) return next_cached_[k];
  Cycle e = pending_.empty() ? kNever : std::max(pending_.top().done, processed_ + 1);
  for (size_t i = 0; i < channels_.size(); ++i)
    if (wake_[i] < e && (include_idle_refresh || channels_[i]->has_work())) e = wake_[i];
  next_cached_[k] = e;
  next_known_[k] = true;
  return e;
}

std::vector<HbmCompletion> HbmDevice::take_completions() {
  changed();
  std::vector<HbmCompletion> out;
  while (!pending_.empty() && pending_.top().done <= processed_) {
    out.push_back(pending_.top());
    pending_.pop();
  }
  return out;
}

ChannelStats HbmDevice::total_stats() const {
  ChannelStats s;
  for (const auto& ch : channels_) s += ch->stats();
  return s;
}

}  // namespace cstsim::hbm
