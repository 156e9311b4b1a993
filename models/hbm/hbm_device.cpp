#include "models/hbm/hbm_device.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace cstsim::hbm {

HbmDevice::HbmDevice(HbmSpec spec) : spec_(std::move(spec)), map_(spec_.org, spec_.address_mapping) {
  for (int c = 0; c < spec_.org.channels; ++c) {
    channels_.push_back(std::make_unique<ChannelController>(spec_, c));
    channels_.back()->set_observer(&fanout_);
    wake_.push_back(channels_.back()->next_wake());
  }
}

void HbmDevice::submit(const HbmRequest& r) {
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
  ++live_;
  ++requests_;
  for (uint64_t i = first; i <= last; ++i) {
    Burst b;
    b.transfer = slot;
    b.addr = map_.decode(i * B);
    b.is_write = r.is_write;
    b.arrival = r.cycle;
    b.seq = seq_++;
    channels_[size_t(b.addr.channel)]->enqueue(b);
    wake_[size_t(b.addr.channel)] = channels_[size_t(b.addr.channel)]->next_wake();
  }
}

void HbmDevice::drain(ChannelController& ch) {
  for (const BurstDone& d : ch.issued()) {
    Transfer& t = transfers_[d.transfer];
    t.c.first_issue = std::min(t.c.first_issue, d.issue);
    t.c.done = std::max(t.c.done, d.done);
    if (--t.left == 0) {
      pending_.push(t.c);
      free_.push_back(d.transfer);
      --live_;
    }
  }
  ch.issued().clear();
}

void HbmDevice::run_until(Cycle until) {
  if (until <= processed_) return;
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
      const size_t next = size_t(std::min_element(wake_.begin(), wake_.end()) - wake_.begin());
      if (wake_[next] > until) break;
      channels_[next]->step(wake_[next]);
      drain(*channels_[next]);
      wake_[next] = channels_[next]->next_wake();
    }
  }
  processed_ = until;
}

Cycle HbmDevice::next_event(bool include_idle_refresh) const {
  Cycle e = pending_.empty() ? kNever : std::max(pending_.top().done, processed_ + 1);
  for (size_t i = 0; i < channels_.size(); ++i)
    if (wake_[i] < e && (include_idle_refresh || channels_[i]->has_work())) e = wake_[i];
  return e;
}

std::vector<HbmCompletion> HbmDevice::take_completions() {
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
