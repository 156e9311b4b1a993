#include "models/hbm/controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace cstsim::hbm {
namespace {

Organization one_channel(Organization org) {
  org.channels = 1;
  return org;
}

Address local(Address a) {  // the channel's engine numbers its own instances from channel 0
  a.channel = 0;
  return a;
}

void remember(Cycle* ring, int n, Cycle start) {  // oldest first
  for (int i = 1; i < n; ++i) ring[i - 1] = ring[i];
  ring[n - 1] = start;
}

void clip_into(Cycle begin, Cycle end, Cycle from, Cycle to, std::vector<RefreshSpan>& out) {
  begin = std::max(begin, from);
  end = std::min(end, to);
  if (begin < end) out.push_back({begin, end});
}

}  // namespace

ChannelStats& ChannelStats::operator+=(const ChannelStats& o) {
  activates += o.activates;
  precharges += o.precharges;
  precharge_alls += o.precharge_alls;
  reads += o.reads;
  writes += o.writes;
  refreshes += o.refreshes;
  bank_refreshes += o.bank_refreshes;
  row_hits += o.row_hits;
  row_misses += o.row_misses;
  row_conflicts += o.row_conflicts;
  data_bus_busy += o.data_bus_busy;
  refresh_busy += o.refresh_busy;
  refresh_bank_busy += o.refresh_bank_busy;
  open_rows += o.open_rows;
  open_rows_peak += o.open_rows_peak;
  queue_peak = std::max(queue_peak, o.queue_peak);
  return *this;
}

ChannelController::Pc::Pc(const HbmSpec& s)
    : banks(s.org.bank_groups, s.org.banks_per_group),
      refresh(make_refresh_policy(s.refresh)),
      hits_served(size_t(s.org.banks_per_pc()), 0),
      queued(size_t(s.org.banks_per_pc()), 0),
      last_use(size_t(s.org.banks_per_pc()), -1),
      ref_starts(size_t(kHistory), -1),
      refpb_starts(size_t(s.org.banks_per_pc() * kHistory), -1),
      hits(size_t(s.org.banks_per_pc()), 0),
      oldest(size_t(s.org.banks_per_pc()) * 3, -1),
      stale_banks(s.org.banks_per_pc()),
      queued_banks(s.org.banks_per_pc()) {
  refresh->configure(s);
  sync_refresh();
}

ChannelController::ChannelController(const HbmSpec& spec, int channel)
    : spec_(spec),
      channel_(channel),
      engine_(one_channel(spec.org), resolve_rules(spec.rules(), spec.timing)),
      scheduler_(make_scheduler(spec.scheduler)),
      tCL_(spec.t("tCL")),
      tCWL_(spec.t("tCWL")),
      tBL_(spec.t("tBL")),
      tRFC_(spec.t("tRFC")),
      tRFCpb_(spec.t("tRFCpb")),
      hit_cap_(int(spec.org.columns)) {
  for (int p = 0; p < spec.org.pseudo_channels; ++p) pcs_.emplace_back(spec);
}

void ChannelController::start_at(Cycle s) {
  for (Pc& p : pcs_) {
    p.refresh->start_at(s);
    p.sync_refresh();
  }
}

void ChannelController::enqueue(const Burst& b) {
  if (b.arrival <= last_)
    throw std::invalid_argument(
        fmt::format("HBM burst arrives at cycle {}, but channel {} already ran cycle {}", b.arrival, channel_, last_));
  if (b.addr.channel != channel_ || b.addr.pc < 0 || b.addr.pc >= int(pcs_.size()))
    throw std::invalid_argument("HBM burst for " + to_string(b.addr) + " sent to channel " + std::to_string(channel_));
  std::deque<Burst>& q = pcs_[size_t(b.addr.pc)].waiting;
  if (!q.empty() && q.back().arrival > b.arrival)
    throw std::invalid_argument("HBM bursts must be enqueued in arrival order");
  q.push_back(b);
  q.back().bank = pcs_[size_t(b.addr.pc)].banks.flat(b.addr);
}

bool ChannelController::has_work() const {
  for (const Pc& p : pcs_)
    if (!p.waiting.empty() || !p.window.empty()) return true;
  return false;
}

bool ChannelController::set_refresh_offset(Cycle offset, Cycle after) {
  if (has_work()) return false;
  for (const Pc& p : pcs_)
    if (p.refresh_owed || p.withheld >= 0) return false;
  const Cycle now = std::max(after, last_);
  for (Pc& p : pcs_) {
    p.refresh->set_offset(offset, now);
    p.sync_refresh();
    p.dirty = true;
    if (p.refresh_owed) p.wake = std::min(p.wake, now + 1);  // issued in the idle stretch
  }
  return true;
}

Cycle ChannelController::refresh_period() const { return pcs_.front().refresh->period(); }

Cycle ChannelController::skip_idle(Cycle to) {
  if (has_work()) return 0;
  Cycle period = 0;
  for (const Pc& p : pcs_) {
    if (p.refresh_owed || p.withheld >= 0) return 0;
    period = p.refresh->period();
  }
  if (period <= 0) return 0;
  const int64_t periods = (to - last_) / period - 1;
  if (periods <= 0) return 0;
  const Cycle dt = periods * period;
  for (Pc& p : pcs_) {
    // Each bank's refresh closed its row (PREA under all-bank, PRE per bank under per-bank).
    if (p.banks.open_count() > 0) {
      if (!p.refresh->per_bank())
        ++stats_.precharge_alls;
      else
        stats_.precharges += uint64_t(p.banks.open_count());
      Address a;
      a.channel = channel_;
      a.pc = int(&p - pcs_.data());
      p.banks.apply(Cmd::PREA, a);
      p.exhausted_open = 0;
    }
    const int64_t n = periods * p.refresh->commands_per_period();
    if (!p.refresh->per_bank()) {
      stats_.refreshes += uint64_t(n);
      stats_.refresh_busy += n * tRFC_;
      stats_.refresh_bank_busy += n * tRFC_ * p.banks.size();
    } else {
      stats_.bank_refreshes += uint64_t(n);
      stats_.refresh_bank_busy += n * tRFCpb_;
    }
    p.refresh->shift(dt);
    p.sync_refresh();
    p.dirty = p.all_stale = true;
    p.wake = kNever;
  }
  if (observer_) observer_->on_idle_skip(channel_, last_ + 1, periods);
  last_ += dt;
  stats_.open_rows = 0;
  for (const Pc& p : pcs_) stats_.open_rows += p.banks.open_count();
  return dt;
}

void ChannelController::admit(Pc& pc, Cycle now) {
  // The loop's test, first on its own: most calls admit nothing, and so the compiler takes this
  // test into the callers (half the function's cost on the decode block's profile).
  if (pc.waiting.empty() || pc.waiting.front().arrival > now || int(pc.window.size()) >= spec_.queue_depth) return;
  while (int(pc.window.size()) < spec_.queue_depth && !pc.waiting.empty() && pc.waiting.front().arrival <= now) {
    pc.window.push_back(pc.waiting.front());
    pc.waiting.pop_front();
    stats_.queue_peak = std::max(stats_.queue_peak, int(pc.window.size()));
    const Burst& b = pc.window.back();
    const int bank = b.bank;
    if (pc.queued[size_t(bank)]++ == 0) {
      pc.queued_banks.insert(bank);
      pc.closes_stale = true;  // it may have been closable
    }
    // The candidates change only if the burst is its bank's first of its kind, or its first hit
    // (the bank's PRE then closes a pending hit); a stale bank is rescanned anyway.
    if (!pc.all_stale && !pc.stale_banks.contains(bank)) {  // the youngest: oldest of its kind only if alone
      const Cmd cmd = pc.banks[bank].next_command(b.addr.row, b.is_write);
      if (is_column(cmd) && pc.hits[size_t(bank)]++ == 0) pc.dirty = true;
      int& oldest = pc.oldest[size_t(bank) * 3 + (cmd == Cmd::RD ? 0 : cmd == Cmd::WR ? 1 : 2)];
      if (oldest < 0) {
        oldest = int(pc.window.size()) - 1;
        pc.dirty = true;
      }
    } else {
      pc.dirty = true;
    }
  }
}

void ChannelController::rescan_bank(Pc& pc, int bank) {
  int* oldest = &pc.oldest[size_t(bank) * 3];
  oldest[0] = oldest[1] = oldest[2] = -1;
  int hits = 0;
  const BankState& state = pc.banks[bank];
  for (size_t i = 0; i < pc.window.size(); ++i) {
    const Burst& b = pc.window[i];  // the window is in arrival order: first seen = oldest
    if (b.bank != bank) continue;
    const Cmd cmd = state.next_command(b.addr.row, b.is_write);
    if (is_column(cmd)) ++hits;
    const size_t kind = cmd == Cmd::RD ? 0 : cmd == Cmd::WR ? 1 : 2;
    if (oldest[kind] < 0) oldest[kind] = int(i);
  }
  pc.hits[size_t(bank)] = hits;
}

void ChannelController::rebuild(Pc& pc) {
  // Per bank, the oldest burst for each distinct next command: RD hit, WR hit, or the ACT/PRE
  // every other burst of that bank needs. Younger bursts with the same (bank, command) have the
  // same readiness and would only lose on age, so the scheduler sees these representatives.
  if (pc.all_stale)
    for (int bank = 0; bank < pc.banks.size(); ++bank) rescan_bank(pc, bank);
  else
    pc.stale_banks.for_each([&](int bank) { rescan_bank(pc, bank); });
  pc.stale_banks.clear();
  pc.all_stale = false;
  const int refreshing = pc.withheld;  // a bank being refreshed: not the scheduler's
  pc.cands.clear();
  pc.local_ready.clear();
  pc.queued_banks.for_each([&](int bank) {
    if (bank == refreshing) return;
    const BankState& state = pc.banks[bank];
    for (size_t kind = 0; kind < 3; ++kind) {
      const int i = pc.oldest[size_t(bank) * 3 + kind];
      if (i < 0) continue;
      const Burst& b = pc.window[size_t(i)];
      Candidate c;
      c.request = i;
      c.cmd = kind == 0 ? Cmd::RD : kind == 1 ? Cmd::WR : state.is_open() ? Cmd::PRE : Cmd::ACT;
      c.seq = b.seq;
      c.row_hit = kind < 2;
      // Open-page guard, capped so a stream of hits cannot starve a conflicting request forever.
      c.closes_pending_hits = c.cmd == Cmd::PRE && pc.hits[size_t(bank)] > 0 && pc.hits_served[size_t(bank)] < hit_cap_;
      // Below the channel level readiness depends only on the bank and the command.
      const Address a = local(b.addr);
      pc.local_ready.push_back(engine_.earliest_in_pc(c.cmd, a));
      pc.cands.push_back(c);
    }
  });
  pc.dirty = false;
}

ChannelController::Choice ChannelController::choose(int p, Cycle now) {
  Pc& pc = pcs_[size_t(p)];
  Choice none;
  Cycle refresh_wake = kNever;
  const std::optional<RefreshStep> step = pc.refresh_owed ? pc.refresh->next_step(view(pc)) : std::nullopt;
  if (step) {
    if (pc.refresh->withheld_bank() != pc.withheld) {  // the scheduler loses that bank
      pc.sync_refresh();
      pc.dirty = true;
    }
    Address a;
    a.channel = channel_;
    a.pc = p;
    if (step->bank >= 0) {
      a.bank_group = step->bank / spec_.org.banks_per_group;
      a.bank = step->bank % spec_.org.banks_per_group;
      if (step->cmd == Cmd::PRE) a.row = pc.banks[step->bank].open_row();
    }
    const Cycle ready = engine_.earliest(step->cmd, local(a));
    if (ready <= now) {
      pc.wake = kNever;
      return Choice{p, -1, step->cmd, a, 0};
    }
    if (pc.refresh->holds_pc()) {
      pc.wake = ready;
      return none;
    }
    refresh_wake = ready;  // meanwhile the other banks keep working
  }
  if (pc.dirty) rebuild(pc);
  // The channel level (the shared command buses) depends only on the command.
  const Cycle* bus = engine_.next_at(Scope::Channel, Address{});
  for (size_t i = 0; i < pc.cands.size(); ++i)
    pc.cands[i].ready = std::max(pc.local_ready[i], bus[index(pc.cands[i].cmd)]);
  const Decision d = scheduler_->decide(pc.cands, now);
  pc.wake = std::min(d.wake, refresh_wake);
  if (d.pick < 0) return spec_.page_timeout > 0 || spec_.close_exhausted ? close_idle(p, now, pc.wake) : none;
  const Candidate& c = pc.cands[size_t(d.pick)];
  if (c.ready > now)
    throw std::logic_error(fmt::format("HBM scheduler {} picked a command that is not ready", scheduler_->name()));
  const Burst& b = pc.window[size_t(c.request)];
  return Choice{p, c.request, c.cmd, b.addr, b.seq};
}

ChannelController::Choice ChannelController::close_idle(int p, Cycle now, Cycle& wake) {
  Pc& pc = pcs_[size_t(p)];
  auto address = [&](int b) {
    Address a;
    a.channel = channel_;
    a.pc = p;
    a.bank_group = b / spec_.org.banks_per_group;
    a.bank = b % spec_.org.banks_per_group;
    a.row = pc.banks[b].open_row();
    return a;
  };
  // Under close_exhausted alone only an open bank read to its last column can close.
  if (spec_.page_timeout == 0 && pc.exhausted_open == 0) return Choice{};
  if (pc.closes_stale) {
    pc.closable.clear();
    pc.closable_first = kNever;
    for (int b = 0; b < pc.banks.size(); ++b) {
      if (!pc.banks[b].is_open() || pc.queued[size_t(b)] > 0 || b == pc.withheld) continue;
      const bool exhausted = spec_.close_exhausted && pc.hits_served[size_t(b)] >= hit_cap_;
      if (!exhausted && spec_.page_timeout == 0) continue;
      const Address a = local(address(b));
      const Cycle idle_until = exhausted ? pc.last_use[size_t(b)] : pc.last_use[size_t(b)] + spec_.page_timeout;
      pc.closable.push_back({b, std::max(idle_until, engine_.earliest_in_pc(Cmd::PRE, a))});
      pc.closable_first = std::min(pc.closable_first, pc.closable.back().due);
    }
    pc.closes_stale = false;
  }
  if (pc.closable.empty()) return Choice{};
  // The row command bus is the channel's: the same bound for every bank.
  const Cycle bus = engine_.earliest_at(Scope::Channel, Cmd::PRE, Address{});
  if (const Cycle first = std::max(pc.closable_first, bus); first > now) {  // none due yet
    wake = std::min(wake, first);
    return Choice{};
  }
  for (const Pc::Closable& c : pc.closable) {
    const Cycle due = std::max(c.due, bus);
    if (due <= now) return Choice{p, -1, Cmd::PRE, address(c.bank), 0, true};
    wake = std::min(wake, due);
  }
  return Choice{};
}

void ChannelController::issue(const Choice& c, Cycle now) {
  Pc& pc = pcs_[size_t(c.pc)];
  pc.dirty = pc.closes_stale = true;
  engine_.record(c.cmd, local(c.addr), now);
  if (c.cmd == Cmd::PRE && pc.banks.at(c.addr).is_open() && pc.hits_served[size_t(pc.banks.flat(c.addr))] >= hit_cap_)
    --pc.exhausted_open;
  pc.banks.apply(c.cmd, c.addr);
  if (c.cmd == Cmd::PREA || c.cmd == Cmd::REF) {  // every bank closed
    pc.all_stale = true;
    pc.exhausted_open = 0;
  } else if (!is_column(c.cmd))
    pc.stale_banks.insert(pc.banks.flat(c.addr));  // its row changed (RD / WR leave it as it was)
  CommandEvent ev;
  ev.cycle = now;
  ev.cmd = c.cmd;
  ev.addr = c.addr;
  switch (c.cmd) {
    case Cmd::ACT:
      ++stats_.activates;
      pc.hits_served[size_t(pc.banks.flat(c.addr))] = 0;
      break;
    case Cmd::PRE: ++stats_.precharges; break;
    case Cmd::PREA: ++stats_.precharge_alls; break;
    case Cmd::REF:
      ++stats_.refreshes;
      stats_.refresh_busy += tRFC_;
      stats_.refresh_bank_busy += tRFC_ * pc.banks.size();
      pc.refresh->issued(c.cmd, -1);
      pc.sync_refresh();
      remember(pc.ref_starts.data(), kHistory, now);
      last_refresh_end_ = std::max(last_refresh_end_, now + tRFC_);
      break;
    case Cmd::REFPB: {
      const int bank = pc.banks.flat(c.addr);
      ++stats_.bank_refreshes;
      stats_.refresh_bank_busy += tRFCpb_;
      pc.refresh->issued(c.cmd, bank);
      pc.sync_refresh();
      remember(pc.refpb_starts.data() + size_t(bank) * kHistory, kHistory, now);
      last_refresh_end_ = std::max(last_refresh_end_, now + tRFCpb_);
      break;
    }
    case Cmd::RD:
    case Cmd::WR: {
      const bool rd = c.cmd == Cmd::RD;
      ++(rd ? stats_.reads : stats_.writes);
      stats_.data_bus_busy += tBL_;
      ev.data_begin = now + (rd ? tCL_ : tCWL_);
      ev.data_end = ev.data_begin + tBL_;
      if (++pc.hits_served[size_t(pc.banks.flat(c.addr))] == hit_cap_) ++pc.exhausted_open;
      pc.last_use[size_t(pc.banks.flat(c.addr))] = now;
      break;
    }
  }
  if (c.request >= 0) {
    Burst& b = pc.window[size_t(c.request)];
    // A burst is classified by the first command issued for it.
    if (!b.classified) {
      b.classified = true;
      if (is_column(c.cmd))
        ++stats_.row_hits;
      else if (c.cmd == Cmd::ACT)
        ++stats_.row_misses;
      else
        ++stats_.row_conflicts;
      b.needed_act = !is_column(c.cmd);
    }
    if (is_column(c.cmd)) {
      issued_.push_back({b.transfer, now, ev.data_end, b.needed_act});
      if (--pc.queued[size_t(b.bank)] == 0) pc.queued_banks.erase(b.bank);
      pc.window.erase(pc.window.begin() + c.request);
      const int gone = c.request;
      // The bursts behind it moved up one. Only banks with queued bursts have entries to move: a
      // bank with none has -1 in all three, or is stale and rescanned before its entries are read.
      int* oldest = pc.oldest.data();
      pc.queued_banks.for_each([&](int bank) {
        for (int k = bank * 3; k < bank * 3 + 3; ++k) oldest[k] -= int(oldest[k] > gone);
      });
      // It was its bank's oldest of its kind (the scheduler sees only those): the next one of
      // that kind is behind it. Its bank's row is as it was, so no other entry moves.
      const int bank = pc.banks.flat(c.addr);
      if (!pc.all_stale && !pc.stale_banks.contains(bank)) {
        --pc.hits[size_t(bank)];
        const size_t kind = c.cmd == Cmd::RD ? 0 : 1;
        int next = -1;
        for (size_t i = size_t(gone); i < pc.window.size() && next < 0; ++i) {
          const Burst& w = pc.window[i];
          if (w.bank == bank && w.is_write == (kind == 1) && w.addr.row == pc.banks[bank].open_row())
            next = int(i);
        }
        pc.oldest[size_t(bank) * 3 + kind] = next;
      }
      admit(pc, now);
    }
  }
  stats_.open_rows = 0;
  for (const Pc& p : pcs_) stats_.open_rows += p.banks.open_count();
  stats_.open_rows_peak = std::max(stats_.open_rows_peak, stats_.open_rows);
  ev.channel_open_rows = stats_.open_rows;
  if (observer_) observer_->on_command(ev);
}

void ChannelController::step(Cycle now) {
  if (now <= last_) throw std::logic_error(fmt::format("HBM channel {} stepped at {} after {}", channel_, now, last_));
  last_ = now;
  for (Pc& pc : pcs_) {
    admit(pc, now);
    if (now >= pc.refresh_due) {  // tick() changes nothing before its next due cycle
      pc.refresh->tick(now);
      pc.sync_refresh();
    }
  }
  for (;;) {
    Choice best;
    for (int p = 0; p < int(pcs_.size()); ++p) {
      const Choice c = choose(p, now);
      if (c.pc < 0) continue;
      if (best.pc >= 0 && c.idle_close && !best.idle_close) continue;  // an idle close goes last
      const bool c_ref = c.request < 0, best_ref = best.request < 0;
      if (best.pc < 0 || (best.idle_close && !c.idle_close) || (c_ref && !best_ref) ||
          (c_ref == best_ref && c.seq < best.seq))
        best = c;
    }
    if (best.pc < 0) break;
    issue(best, now);
  }
}

void ChannelController::refresh_spans(int p, int bank, Cycle from, Cycle to, std::vector<RefreshSpan>& out) const {
  if (from >= to || last_refresh_end_ <= from) return;
  const Pc& pc = pcs_[size_t(p)];
  for (Cycle start : pc.ref_starts)
    if (start >= 0) clip_into(start, start + tRFC_, from, to, out);
  for (int i = 0; i < kHistory; ++i) {
    const Cycle start = pc.refpb_starts[size_t(bank) * kHistory + size_t(i)];
    if (start >= 0) clip_into(start, start + tRFCpb_, from, to, out);
  }
}

Cycle ChannelController::next_wake() const {
  Cycle w = kNever;
  for (const Pc& pc : pcs_) {
    w = std::min(w, pc.wake);
    w = std::min(w, pc.refresh_due);
    if (int(pc.window.size()) < spec_.queue_depth && !pc.waiting.empty())
      w = std::min(w, std::max(pc.waiting.front().arrival, last_ + 1));
  }
  return w;
}

}  // namespace cstsim::hbm
