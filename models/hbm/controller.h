#pragma once
// ChannelController: one HBM channel (its pseudo-channels share the row and column command
// buses). Plain C++, no kernel; the SystemC module and the benches drive it.
//
// Each pseudo-channel has an arrival FIFO and a scheduler window of queue_depth bursts, its
// banks' row-buffer state, a refresh policy (refresh/i_refresh.h) and counters. step(now) runs one cycle:
//   1. admit arrived bursts into the windows,
//   2. mark due refreshes,
//   3. issue commands while any is ready: per PC the refresh command if one is ready (all-bank:
//      a pending refresh stops the PC; per-bank: only the bank being refreshed is withheld from
//      the scheduler), else the scheduler's pick among each queued burst's next command; across
//      PCs, refresh first, then the oldest burst. The channel bus rules allow one row and one
//      column command per cycle, so at most two go per cycle.
// next_wake() is the next cycle at which step() could do anything, so callers jump there:
// running only those cycles gives exactly what calling step() every cycle gives.
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "models/hbm/bank.h"
#include "models/hbm/hbm_observer.h"
#include "models/hbm/hbm_spec.h"
#include "models/hbm/refresh/i_refresh.h"
#include "models/hbm/scheduler/i_scheduler.h"
#include "models/hbm/timing_engine.h"

namespace cstsim::hbm {

struct Burst {            // one RD or WR of burst_bytes
  uint32_t transfer = 0;  // the request it belongs to (HbmDevice's table)
  int bank = 0;           // addr's bank in its pseudo-channel (PcBanks::flat), set by enqueue for the window scans
  Address addr;
  bool is_write = false;
  Cycle arrival = 0;        // cycle it reaches the controller
  uint64_t seq = 0;         // arrival order, stack-wide
  bool classified = false;  // counted as row hit / miss / conflict (at its first command)
  bool needed_act = false;  // classified as a row miss or conflict (its first command was ACT or PRE)
};

struct BurstDone {
  uint32_t transfer = 0;
  Cycle issue = 0;  // RD/WR command cycle
  Cycle done = 0;   // cycle after the last data beat (read data ready / write data written)
  bool needed_act = false;
};

// A refresh interval [begin, end) of a bank: inside tRFC of a REF of its PC or tRFCpb of a REFpb.
struct RefreshSpan {
  Cycle begin = 0, end = 0;
};

// Counters of one channel (all its pseudo-channels), next to the state they measure.
struct ChannelStats {
  uint64_t activates = 0;       // ACT commands
  uint64_t precharges = 0;      // PRE commands (single bank)
  uint64_t precharge_alls = 0;  // PREA commands (before refresh)
  uint64_t reads = 0;           // RD commands = bursts read
  uint64_t writes = 0;          // WR commands = bursts written
  uint64_t refreshes = 0;       // REF (all-bank) commands
  uint64_t bank_refreshes = 0;  // REFpb (per-bank) commands
  uint64_t row_hits = 0;        // bursts whose first command was RD/WR (row already open)
  uint64_t row_misses = 0;      // ... was ACT (bank closed)
  uint64_t row_conflicts = 0;   // ... was PRE (another row open)
  Cycle data_bus_busy = 0;      // PC-cycles of data transfer, summed over the channel's PCs
  Cycle refresh_busy = 0;       // PC-cycles inside an all-bank tRFC, summed over the channel's PCs
  // Bank-cycles inside a refresh: tRFC x banks per REF plus tRFCpb per REFpb. Divided by
  // (time x banks) it is the refresh share of both modes (all-bank: = refresh_busy / PC time).
  Cycle refresh_bank_busy = 0;
  int open_rows = 0;            // banks with an open row now
  int open_rows_peak = 0;
  int queue_peak = 0;  // largest scheduler window occupancy of one PC, bursts

  uint64_t bursts() const { return row_hits + row_misses + row_conflicts; }
  double row_hit_rate() const { return bursts() ? double(row_hits) / double(bursts()) : 0.0; }
  // Sums every counter (open_rows_peak too, so a stack total is an upper bound of its peak;
  // queue_peak takes the max).
  ChannelStats& operator+=(const ChannelStats& o);
};

// A set of a pseudo-channel's banks as bit words, walked in bank order: the scheduler's loops
// visit only the banks that have something (a profile's top cost was branching over idle banks).
class BankSet {
 public:
  explicit BankSet(int banks = 0) : words_(size_t((banks + 63) / 64), 0) {}
  void insert(int b) { words_[size_t(b >> 6)] |= uint64_t(1) << (b & 63); }
  void erase(int b) { words_[size_t(b >> 6)] &= ~(uint64_t(1) << (b & 63)); }
  bool contains(int b) const { return words_[size_t(b >> 6)] >> (b & 63) & 1; }
  void clear() { std::fill(words_.begin(), words_.end(), 0); }
  template <typename Fn>
  void for_each(Fn fn) const {
    for (size_t w = 0; w < words_.size(); ++w)
      for (uint64_t m = words_[w]; m; m &= m - 1) fn(int(w * 64) + __builtin_ctzll(m));
  }

 private:
  std::vector<uint64_t> words_;
};

class ChannelController {
 public:
  ChannelController(const HbmSpec& spec, int channel);

  // A burst for this channel; b.arrival must be later than the last cycle stepped.
  void enqueue(const Burst& b);
  void start_at(Cycle s);  // before any burst: the refresh schedule's phase (IRefreshPolicy::start_at)
  void step(Cycle now);     // now > the last cycle stepped
  Cycle next_wake() const;  // > last cycle stepped; kNever when nothing will ever happen
  bool has_work() const;    // bursts waiting or queued
  // Sampled mode, between simulated windows: nothing queued and no refresh owed, the channel
  // runs on towards `to` in whole refresh periods at once, as it would idle: each bank's row
  // closed, each refresh counted as it fell due (IRefreshPolicy::shift); the last period before
  // `to` is left to be stepped as usual. Returns the cycles skipped (0: not idle, or too close).
  Cycle skip_idle(Cycle to);
  // Sampled mode, between windows: nothing queued and no refresh owed, the refresh schedule's due
  // times from the next one on `offset` (less than half a period either way) later than the
  // run's own (IRefreshPolicy::set_offset).
  // Returns false (and changes nothing) when the channel is not idle.
  // The next due time comes after `after` too (the stack's processed time, which an idle channel's
  // last step may lag).
  bool set_refresh_offset(Cycle offset, Cycle after);
  Cycle refresh_period() const;
  Cycle last_step() const { return last_; }

  // Bursts whose RD/WR was issued since the last call.
  std::vector<BurstDone>& issued() { return issued_; }
  // Appends the refresh intervals of bank `bank` (bank_group x banks_per_group + bank) of
  // pseudo-channel `pc` that overlap [from, to), clipped to it. It keeps the last kHistory REFs
  // of each PC and REFpbs of each bank, so intervals older than that are missing (a request
  // would have to wait several tREFI for it to matter).
  void refresh_spans(int pc, int bank, Cycle from, Cycle to, std::vector<RefreshSpan>& out) const;
  Cycle last_refresh_end() const { return last_refresh_end_; }  // of any refresh of the channel so far
  const ChannelStats& stats() const { return stats_; }
  void set_observer(HbmObserver* observer) { observer_ = observer; }

 private:
  struct Pc {
    std::deque<Burst> waiting;  // arrived or future, in arrival order
    std::vector<Burst> window;  // the scheduler's view, oldest first
    PcBanks banks;
    std::unique_ptr<IRefreshPolicy> refresh;
    // What the hot paths read of the policy, taken after each call that can change it.
    Cycle refresh_due = kNever;
    bool refresh_owed = false;
    int withheld = -1;  // the bank being refreshed, kept from the scheduler
    void sync_refresh() {
      refresh_due = refresh->next_due();
      refresh_owed = refresh->owes();
      withheld = refresh->withheld_bank();
      closes_stale = true;
    }
    std::vector<int> hits_served;  // per bank: row hits since its ACT
    int exhausted_open = 0;        // open banks with hits_served at the row's column count
    std::vector<int> queued;       // per bank: bursts in the window
    std::vector<Cycle> last_use;   // per bank: cycle of its last RD/WR, -1 never
    std::vector<Cycle> ref_starts;    // last kHistory REF cycles (ring), -1 none
    std::vector<Cycle> refpb_starts;  // per bank x kHistory: last REFpb cycles (ring), -1 none
    Cycle wake = kNever;           // from the last decision
    // Candidates with their readiness below the channel level, rebuilt only when something in
    // this PC changed (a command in the other PC moves only the channel's bus limits).
    bool dirty = true;
    std::vector<Candidate> cands;
    std::vector<Cycle> local_ready;
    // What rebuild() reads of the window, kept between rebuilds and redone only for the banks
    // whose row state or bursts changed (all of them after PREA / REF): per bank, its bursts
    // that hit the open row, and per bank x {RD hit, WR hit, other} its oldest burst's window
    // index (-1 none).
    std::vector<int> hits;
    std::vector<int> oldest;
    BankSet stale_banks;   // banks whose entries must be rescanned
    BankSet queued_banks;  // banks with bursts in the window (queued > 0)
    bool all_stale = true;
    // close_idle's banks (open, nothing queued, not being refreshed, closable), in bank order,
    // with the cycle each may close by its own timing below the channel level; rebuilt after
    // anything in this PC changed, as the candidates are.
    struct Closable {
      int bank;
      Cycle due;
    };
    bool closes_stale = true;
    std::vector<Closable> closable;
    Cycle closable_first = kNever;  // the earliest of their dues
    Pc(const HbmSpec& s);
  };
  struct Choice {
    int pc = -1;
    int request = -1;  // -1 for a refresh command
    Cmd cmd = Cmd::ACT;
    Address addr;
    uint64_t seq = 0;
    bool idle_close = false;  // page timeout: a PRE of an idle bank, after every other command
  };

  static constexpr int kHistory = 4;
  void admit(Pc& pc, Cycle now);
  void rebuild(Pc& pc);
  void rescan_bank(Pc& pc, int bank);  // its entries of Pc::hits and Pc::oldest, from the window
  PcView view(const Pc& pc) const { return {pc.banks, pc.queued, pc.last_use, pc.hits_served, hit_cap_}; }
  Choice choose(int pc_index, Cycle now);
  // Page timeout: a PRE for a bank of `p` idle that long, or none; `wake` gets the next expiry.
  Choice close_idle(int p, Cycle now, Cycle& wake);
  void issue(const Choice& c, Cycle now);

  const HbmSpec& spec_;
  int channel_;
  TimingEngine engine_;
  std::unique_ptr<IScheduler> scheduler_;
  std::vector<Pc> pcs_;
  Cycle tCL_, tCWL_, tBL_, tRFC_, tRFCpb_;
  int hit_cap_;
  Cycle last_ = -1;
  Cycle last_refresh_end_ = -1;
  std::vector<BurstDone> issued_;
  ChannelStats stats_;
  HbmObserver* observer_ = nullptr;
};

}  // namespace cstsim::hbm
