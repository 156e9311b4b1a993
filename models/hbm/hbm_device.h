#pragma once
// HbmDevice: one HBM stack without a kernel - the address map, one ChannelController per
// channel and the request/completion bookkeeping. The SystemC module, the bench and the tests
// drive it; everything is in HBM cycles (tCK).
//
//   submit({addr, bytes, is_write, id, cycle})  - the request reaches the controller at `cycle`
//   run_until(c)                                 - simulate every event at cycles <= c
//   next_event()                                 - the next cycle with something to do
//   take_completions()                           - requests whose data is done by now
//
// A request is split into burst_bytes pieces (32 B) by the address map; it completes when the
// last piece's data has moved: `done` is the cycle after its last data beat (read data is
// available at done; write data has been written at done).
// Refresh keeps running while the stack is idle, but lazily: next_event() does not wake for
// refresh alone, and run_until() catches up with exactly the REFs stepping would have issued.
#include <cstdint>
#include <memory>
#include <queue>
#include <vector>

#include "models/hbm/address_map.h"
#include "models/hbm/controller.h"
#include "models/hbm/hbm_observer.h"
#include "models/hbm/hbm_spec.h"

namespace cstsim::hbm {

struct HbmRequest {
  uint64_t addr = 0;   // byte address in the stack, addr + bytes <= capacity
  uint64_t bytes = 0;  // > 0, any alignment (covers every 32 B burst it touches)
  bool is_write = false;
  uint64_t id = 0;  // the caller's tag, returned in the completion
  Cycle cycle = 0;  // HBM cycle it reaches the controller (HbmDevice only; the module sets it)
};

struct HbmCompletion {
  uint64_t id = 0;
  uint64_t addr = 0, bytes = 0;
  bool is_write = false;
  uint32_t bursts = 0;
  Cycle arrival = 0;      // request.cycle
  Cycle first_issue = 0;  // first RD/WR command of the request
  Cycle done = 0;         // data-ready cycle (see above)
  // Stall attribution.
  // row_misses: bursts of this request that needed an ACT - row miss (bank closed) or conflict
  // (another row open), i.e. whose first command was ACT or PRE; the same classification as
  // ChannelStats::row_misses + row_conflicts. 0 when every burst hit an open row.
  uint32_t row_misses = 0;
  // refresh_wait: the number of cycles c in [arrival, first_issue) at which at least one bank
  // this request has a burst in was inside a refresh - within tRFC after an all-bank REF of its
  // pseudo-channel, or within tRFCpb after a REFpb to that bank. So 0 <= refresh_wait <=
  // first_issue - arrival; a request that arrives as a REF starts and needs that PC waits tRFC.
  // Not counted: the cycles before a REF while its PC closes rows (PREA, tRP) and a bank's PRE
  // before its REFpb. Computed once per request, when its first RD/WR issues, from the last 4
  // refreshes of each bank (exact unless the request waited over ~3 tREFI for its first RD/WR).
  Cycle refresh_wait = 0;
  Cycle latency() const { return done - arrival; }
};

class HbmDevice {
 public:
  explicit HbmDevice(HbmSpec spec);
  HbmDevice(const HbmDevice&) = delete;
  HbmDevice& operator=(const HbmDevice&) = delete;

  const HbmSpec& spec() const { return spec_; }
  const AddressMap& address_map() const { return map_; }

  // Throws std::invalid_argument (bytes 0, cycle not after processed() or before an earlier
  // request's cycle) or std::out_of_range (past the end of the stack).
  void submit(const HbmRequest& request);
  // Before the first request: the stack joins a run at cycle `s` (refresh due after s).
  void start_at(Cycle s);
  void run_until(Cycle until);
  // > processed(); kNever when nothing is outstanding. With include_idle_refresh, also the next
  // refresh step of idle channels (so it is never kNever while refresh is on).
  Cycle next_event(bool include_idle_refresh = false) const;
  Cycle processed() const { return processed_; }
  bool idle() const { return live_ == 0 && pending_.empty(); }
  size_t outstanding() const { return live_ + pending_.size(); }
  std::vector<HbmCompletion> take_completions();  // done <= processed(), in done order

  int channels() const { return int(channels_.size()); }
  const ChannelStats& channel_stats(int channel) const { return channels_[size_t(channel)]->stats(); }
  ChannelStats total_stats() const;
  uint64_t requests() const { return requests_; }

  void add_observer(HbmObserver* observer) { fanout_.observers.push_back(observer); }
  // Debug: run_until steps every cycle of every channel instead of jumping between events.
  // Results are identical (a test checks it); only slower.
  void set_cycle_stepping(bool on) { stepping_ = on; }
  // Sampled mode (HierarchySource::skip_folds): from now on, a run_until that finds the stack
  // idle skips the idle stretch in whole refresh periods (ChannelController::skip_idle) rather
  // than stepping each refresh: its rows closed, its refreshes counted, the refresh phase kept.
  // Exact runs never call it.
  void enable_idle_skip() { idle_skip_ = true; }
  // Sampled mode: a window's traffic begins at `at` with the stack idle. Its refresh phase is a
  // stratum (the run's own phase there is not known: the time before it is estimated), so the
  // refresh schedule is moved, by at most half a period from the run's own, to fall due `fraction`
  // of a period after `at` (each channel that is idle and owes none; the others keep theirs).
  void rephase_refresh(Cycle at, double fraction);

 private:
  struct Transfer {
    HbmCompletion c;
    uint32_t left = 0;
    // Banks it has bursts in, as (channel x pseudo_channels + pc) x banks_per_pc + bank; a
    // bank repeats only when its bursts are not adjacent. Capacity is reused with the slot.
    std::vector<uint32_t> banks;
  };
  struct Fanout : HbmObserver {
    std::vector<HbmObserver*> observers;
    void on_idle_skip(int channel, Cycle at, int64_t periods) override {
      for (HbmObserver* o : observers) o->on_idle_skip(channel, at, periods);
    }
    void on_command(const CommandEvent& e) override {
      for (HbmObserver* o : observers) o->on_command(e);
    }
  };
  struct Later {
    bool operator()(const HbmCompletion& a, const HbmCompletion& b) const {
      return a.done != b.done ? a.done > b.done : a.id > b.id;
    }
  };
  void drain(ChannelController& ch);
  Cycle refresh_wait(const Transfer& t);

  HbmSpec spec_;
  AddressMap map_;
  std::vector<std::unique_ptr<ChannelController>> channels_;
  std::vector<Cycle> wake_;  // channels_[i]->next_wake(), refreshed whenever channel i changes
  std::vector<Transfer> transfers_;
  std::vector<uint32_t> free_;
  size_t live_ = 0;
  std::priority_queue<HbmCompletion, std::vector<HbmCompletion>, Later> pending_;
  Fanout fanout_;
  std::vector<RefreshSpan> spans_;  // scratch for refresh_wait
  Cycle processed_ = -1;
  Cycle last_submit_ = 0;
  uint64_t seq_ = 0;
  uint64_t requests_ = 0;
  bool stepping_ = false;
  bool idle_skip_ = false;
  // next_event's answers (without and with idle refresh) since the last change of state; the
  // memory's processes ask for it after every part they step, most of which leave the stack alone.
  mutable Cycle next_cached_[2] = {0, 0};
  mutable bool next_known_[2] = {false, false};
  void changed() { next_known_[0] = next_known_[1] = false; }
};

}  // namespace cstsim::hbm
