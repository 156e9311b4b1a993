#include "models/memory/memory_group.h"

#include <systemc>

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "models/hbm/checker.h"
#include "models/hbm/hbm_observer.h"
#include "models/hbm/hbm_spec.h"
#include "models/noc/noc_config.h"

namespace cstsim {

// Listens to the HBM and the NoC while the layer runs, in accelerator cycles.
struct MemoryGroup::Observer : hbm::HbmObserver, noc::NocObserver {
  SharedTimeline& out;
  const DmaSystem* dma = nullptr;
  std::vector<std::vector<std::pair<int64_t, int>>> pc_edges;  // per channel: (cycle, +1/-1) per burst
  std::vector<int> pcs_busy;                                   // per channel, after the edges applied
  int64_t burst_bytes = 0;
  bool finished = false;
  Observer(SharedTimeline& t, int channels, int64_t burst)
      : out(t), pc_edges(size_t(channels)), pcs_busy(size_t(channels), 0), burst_bytes(burst) {
    out.hbm_busy_pcs.resize(size_t(channels));
    out.hbm_bytes.resize(size_t(channels));
    out.hbm_open_rows.resize(size_t(channels));
    out.hbm_refreshing.resize(size_t(channels));
  }

  int64_t acc_of_hbm(hbm::Cycle c) const { return dma->to_acc(c * dma->hbm_period()); }
  int64_t acc_of_noc(int64_t c) const { return dma->to_acc(c * dma->noc_period()); }

  // Refresh the HBM catches up on before the layer's first request leaves every row
  // closed: a step series records no change, so nothing lands before the layer starts.
  void on_command(const hbm::CommandEvent& e) override {
    const size_t ch = size_t(e.addr.channel);
    out.hbm_open_rows[ch].step(acc_of_hbm(e.cycle), e.channel_open_rows);
    auto& commands = out.hbm_commands[size_t(hbm::index(e.cmd))];
    const int64_t at = acc_of_hbm(e.cycle);
    if (e.cmd == hbm::Cmd::REF) {
      const hbm::HbmSpec& s = dma->hbm().spec();
      out.hbm_refreshing[ch].emplace_back(at, acc_of_hbm(e.cycle + s.t("tRFC") - s.t("tRP")));
    }
    if (!commands.empty() && commands.back().first == at)
      ++commands.back().second;
    else
      commands.emplace_back(at, 1);
    if (e.data_end > e.data_begin) {
      auto& bytes = out.hbm_bytes[ch];
      const int64_t from = acc_of_hbm(e.data_begin);
      if (!bytes.empty() && bytes.back().first == from)
        bytes.back().second += burst_bytes;
      else
        bytes.emplace_back(from, burst_bytes);
      pc_edges[ch].emplace_back(acc_of_hbm(e.data_begin), 1);
      pc_edges[ch].emplace_back(acc_of_hbm(e.data_end), -1);
    }
  }
  // Sampled: a channel skipped idle refresh periods; its refreshes closed every row.
  void on_idle_skip(int channel, hbm::Cycle at, int64_t) override {
    out.hbm_open_rows[size_t(channel)].step(acc_of_hbm(at), 0);
  }
  void links_busy(int64_t cycle, int busy) override { out.noc_busy_links.step(acc_of_noc(cycle), busy); }
  void link_flit(int64_t cycle, noc::LinkId) override {
    const int64_t at = acc_of_noc(cycle);
    if (!out.noc_flit_hops.empty() && out.noc_flit_hops.back().first == at)
      ++out.noc_flit_hops.back().second;
    else
      out.noc_flit_hops.emplace_back(at, 1);
  }
  // Busy pseudo-channels from the bursts' data intervals (a PC moves one burst at a time), for
  // the edges before `before`: a burst not yet issued starts at or after the memory's clock.
  void apply_edges(int64_t before) {
    for (size_t ch = 0; ch < pc_edges.size(); ++ch) {
      auto& edges = pc_edges[ch];
      std::sort(edges.begin(), edges.end());
      size_t k = 0;
      for (; k < edges.size() && edges[k].first < before; ++k) {
        pcs_busy[ch] += edges[k].second;
        out.hbm_busy_pcs[ch].step(edges[k].first, pcs_busy[ch]);
      }
      edges.erase(edges.begin(), edges.begin() + std::ptrdiff_t(k));
    }
  }
  // The stack's record ends with its last event, or the run's end (`run_end`, from a run's
  // memory system), and its open rows with it: they count as open, in R(t) and as active
  // standby, until then.
  void finish(int64_t run_end) {
    if (finished) return;
    finished = true;
    const int64_t end = std::max(dma->to_acc(dma->now()), run_end);
    for (auto& rows : out.hbm_open_rows) rows.step(std::max(end, rows.steps.empty() ? end : rows.steps.back().first), 0);
    apply_edges(MemoryGroup::kTimelineEnd);
  }
};

MemoryGroup::MemoryGroup(const AcceleratorSpec& a, int clusters, bool record_timeline, int64_t start,
                         MemoryClock* clock, bool whole_run)
    : clock_(clock), whole_run_(whole_run), waiting_(size_t(clusters)), woken_(size_t(clusters), false), done_(size_t(clusters), false) {
  std::vector<spad::Scratchpad*> raw;
  for (int k = 0; k < clusters; ++k) {
    spads_.push_back(std::make_unique<spad::Scratchpad>(a.scratchpad));
    raw.push_back(spads_.back().get());
    wake_.push_back(std::make_unique<sc_core::sc_event>());
  }
  const std::vector<std::pair<int, int>> routers(a.cluster_routers.begin(), a.cluster_routers.begin() + clusters);
  DmaParams dp{a.hbm_dma.max_outstanding, a.hbm_dma.request_bytes, a.clock_hz, a.hbm_dma.requests_per_cycle,
               a.hbm_dma.controller_queue_flits, start};
  dp.record_actions = record_timeline;
  dma_ = std::make_unique<DmaSystem>(dp, a.hbm, a.noc, std::move(raw), routers);
  if (a.check_hbm_protocol) {
    checker_ = std::make_unique<hbm::ProtocolWatch>(a.hbm, dma_->hbm_start());
    dma_->hbm().add_observer(checker_.get());
  }
  if (record_timeline) {
    observer_ = std::make_unique<Observer>(timeline_, dma_->hbm().spec().org.channels,
                                           dma_->hbm().spec().org.burst_bytes);
    observer_->dma = dma_.get();
    dma_->hbm().add_observer(observer_.get());
    dma_->noc().set_observer(observer_.get());
  }
  if (clock_) clock_->attach(*this);
}

MemoryGroup::~MemoryGroup() {
  if (clock_) clock_->detach(*this);
}

void MemoryGroup::wait_for(int cluster, const std::function<bool()>& satisfied) {
  const size_t k = size_t(cluster);
  if (!clock_) {  // the waiting threads step it: the last to wait, once every cluster waits
    while (!satisfied()) {
      waiting_[k] = satisfied;
      woken_[k] = false;
      if (nobody_runs()) {
        drive(cluster, cluster);
        if (woken_[k]) continue;  // it may go on itself
      }
      sc_core::wait(*wake_[k]);
    }
    waiting_[k] = nullptr;
    woken_[k] = false;
    return;
  }
  if (satisfied()) return;
  waiting_[k] = satisfied;
  woken_[k] = false;
  if (everyone_waits()) {
    first_waiter_ = cluster;
    if (dma_->next_event_time() == INT64_MAX) throw std::logic_error("memory: every cluster waits and nothing is in flight");
  }
  schedule();  // what it enqueued before waiting
  do {
    woken_[k] = false;
    sc_core::wait(*wake_[k]);
  } while (!satisfied());
  waiting_[k] = nullptr;
  woken_[k] = false;
}

bool MemoryGroup::everyone_waits() const {
  for (size_t k = 0; k < done_.size(); ++k)
    if (!done_[k] && !waiting_[k]) return false;
  return true;
}

bool MemoryGroup::nobody_runs() const {
  for (size_t k = 0; k < done_.size(); ++k)
    if (!done_[k] && (!waiting_[k] || woken_[k])) return false;
  return true;
}

bool MemoryGroup::others_wait(int cluster) const {
  for (size_t k = 0; k < done_.size(); ++k)
    if (int(k) != cluster && !done_[k] && (!waiting_[k] || woken_[k])) return false;
  return true;
}

bool MemoryGroup::wake_satisfied(int self) {
  bool any = false;
  auto wake = [&](size_t k) {
    if (waiting_[k] && !woken_[k] && waiting_[k]()) {
      woken_[k] = true;
      // Immediate: it runs in this evaluation phase, after the stepping process (`self`, the
      // cluster stepping from its own thread, just goes on).
      if (int(k) != self) wake_[k]->notify();
      any = true;
    }
  };
  if (first_waiter_ >= 0) wake(size_t(first_waiter_));
  for (size_t k = 0; k < waiting_.size(); ++k)
    if (int(k) != first_waiter_) wake(k);
  return any;
}

void MemoryGroup::drive(int first, int self) {
  first_waiter_ = first;
  while (!wake_satisfied(self))
    if (!dma_->step()) throw std::logic_error("memory: every cluster waits and nothing is in flight");
}

bool MemoryGroup::run_part(MemoryPart part, int cluster, int64_t tick, int64_t& events) {
  // The mesh and the stack have one event per tick (a cycle of theirs); a DMA engine or a
  // scratchpad's ports several.
  const bool once = !per_cluster(part);
  while (dma_->step(part, tick, cluster)) {
    ++events;
    if (wake_satisfied()) return true;
    if (once) break;
  }
  return false;
}

void MemoryGroup::finish_checks() {
  if (checker_) checker_->finish();
}

void MemoryGroup::done(int cluster) {
  done_[size_t(cluster)] = true;
  waiting_[size_t(cluster)] = nullptr;
  if (!whole_run_ && std::all_of(done_.begin(), done_.end(), [](bool d) { return d; })) finish_checks();
  const bool some_wait = std::any_of(waiting_.begin(), waiting_.end(), [](const auto& w) { return bool(w); });
  if (some_wait && (clock_ ? everyone_waits() : nobody_runs())) {
    if (!clock_) {  // the others may all be waiting on the traffic this cluster no longer holds up
      int last = -1;
      for (int c = 0; c < clusters(); ++c)
        if (waiting_[size_t(c)]) last = c;
      drive(last, -1);
    } else if (dma_->next_event_time() == INT64_MAX) {
      throw std::logic_error("memory: every cluster waits and nothing is in flight");
    }
  }
  schedule();  // what it enqueued last
}

void MemoryGroup::forget_history(int cluster, int64_t mark) {
  dma_->forget_history(cluster, mark);
  const int64_t memory_now = dma_->now() / dma_->acc_period();
  spad(cluster).forget_before(std::min({mark, memory_now, dma_->ports_look_back_to(cluster)}));
}

int64_t MemoryGroup::settle(int64_t cycle) {
  if (!std::all_of(done_.begin(), done_.end(), [](bool d) { return d; }))
    throw std::logic_error("memory: settled while a cluster may still add traffic");
  // What is left in flight (a precharge, a refresh under way) is stepped first.
  while (dma_->next_event_time() <= cycle * dma_->acc_period()) dma_->step();
  dma_->catch_up(cycle);
  schedule();
  return std::min(cycle + 1, dma_->hbm_observed_before());
}

void MemoryGroup::begin_step() {
  if (!whole_run_) throw std::logic_error("memory: a pass's own memory system has one step");
  std::fill(done_.begin(), done_.end(), false);
  std::fill(woken_.begin(), woken_.end(), false);
  step_base_ = stats_so_far();
  dma_->forget_transfers(++step_);
  first_waiter_ = -1;
}

void MemoryGroup::finish(int64_t end) {
  std::fill(done_.begin(), done_.end(), true);
  settle(end);
  run_end_ = end;
  finish_checks();
}

void MemoryGroup::advance_to(int64_t cycle) {
  dma_->advance_to(cycle);
  schedule();
}

SharedStats MemoryGroup::stats() const { return stats_so_far() - step_base_; }

SharedStats MemoryGroup::stats_so_far() const {
  SharedStats s;
  const hbm::ChannelStats hs = dma_->hbm().total_stats();
  const int64_t burst = dma_->hbm().spec().org.burst_bytes;
  s.hbm_bytes_read = int64_t(hs.reads) * burst;
  s.hbm_bytes_written = int64_t(hs.writes) * burst;
  s.hbm_activates = int64_t(hs.activates);
  s.hbm_refreshes = int64_t(hs.refreshes + hs.bank_refreshes);
  s.hbm_bank_refreshes = int64_t(hs.bank_refreshes);
  s.hbm_bursts = int64_t(hs.bursts());
  s.hbm_row_hits = int64_t(hs.row_hits);
  s.noc_flit_hops = int64_t(dma_->noc().stats().flit_hops);
  s.noc_packets = int64_t(dma_->noc().stats().packets_delivered);
  return s;
}

SharedStats& SharedStats::operator+=(const SharedStats& o) {
  hbm_bytes_read += o.hbm_bytes_read;
  hbm_bytes_written += o.hbm_bytes_written;
  hbm_activates += o.hbm_activates;
  hbm_refreshes += o.hbm_refreshes;
  hbm_bank_refreshes += o.hbm_bank_refreshes;
  hbm_bursts += o.hbm_bursts;
  hbm_row_hits += o.hbm_row_hits;
  noc_flit_hops += o.noc_flit_hops;
  noc_packets += o.noc_packets;
  return *this;
}

SharedStats SharedStats::operator-(const SharedStats& o) const {
  SharedStats d = *this;
  d.hbm_bytes_read -= o.hbm_bytes_read;
  d.hbm_bytes_written -= o.hbm_bytes_written;
  d.hbm_activates -= o.hbm_activates;
  d.hbm_refreshes -= o.hbm_refreshes;
  d.hbm_bank_refreshes -= o.hbm_bank_refreshes;
  d.hbm_bursts -= o.hbm_bursts;
  d.hbm_row_hits -= o.hbm_row_hits;
  d.noc_flit_hops -= o.noc_flit_hops;
  d.noc_packets -= o.noc_packets;
  return d;
}

void SharedTimeline::take_before(int64_t before, SharedTimeline& out) {
  auto each = [before](auto& from, auto& to) {
    to.resize(from.size());
    for (size_t i = 0; i < from.size(); ++i) cstsim::take_before(from[i], before, to[i]);
  };
  auto steps = [before](auto& from, auto& to) {
    to.resize(from.size());
    for (size_t i = 0; i < from.size(); ++i) cstsim::take_before(from[i].steps, before, to[i].steps);
  };
  steps(hbm_busy_pcs, out.hbm_busy_pcs);
  steps(hbm_open_rows, out.hbm_open_rows);
  each(hbm_refreshing, out.hbm_refreshing);
  cstsim::take_before(noc_busy_links.steps, before, out.noc_busy_links.steps);
  cstsim::take_before(noc_flit_hops, before, out.noc_flit_hops);
  each(hbm_bytes, out.hbm_bytes);
  for (size_t k = 0; k < hbm_commands.size(); ++k) cstsim::take_before(hbm_commands[k], before, out.hbm_commands[k]);
}

SharedTimeline MemoryGroup::take_timeline(int64_t before) {
  SharedTimeline out;
  if (!observer_) return out;
  if (before == kTimelineEnd)
    observer_->finish(run_end_);
  else
    observer_->apply_edges(before);
  timeline_.take_before(before, out);
  return out;
}

}  // namespace cstsim
