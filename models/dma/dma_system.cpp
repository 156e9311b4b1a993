#include "models/dma/dma_system.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>


namespace cstsim {

namespace {

constexpr int64_t kNone = std::numeric_limits<int64_t>::max();

hbm::Cycle timing_or(const hbm::HbmSpec& s, const char* a, const char* b) {
  if (s.timing.count(a)) return s.t(a);
  return s.timing.count(b) ? s.t(b) : 0;
}

}  // namespace

DmaSystem::DmaSystem(const DmaParams& params, hbm::HbmSpec hbm_spec, noc::NocConfig noc_config,
                     std::vector<spad::Scratchpad*> spads, std::vector<std::pair<int, int>> cluster_xy)
    : max_outstanding_(params.max_outstanding),
      request_bytes_(params.request_bytes),
      requests_per_cycle_(params.requests_per_cycle),
      clocks_(make_clock_base(params.clock_hz, noc_config.clock_hz, hbm_spec.tck_ns)),
      acc_period_(clocks_.acc),
      hbm_period_(clocks_.hbm),
      noc_period_(clocks_.noc),
      spads_(std::move(spads)),
      queues_(2 * spads_.size()),
      injections_(spads_.size()),
      stats_(spads_.size()),
      mesh_send_(spads_.size()) {
  if (noc_config.edge_nodes.empty())  // sim/run/hierarchy_check reports this to the user first
    throw std::invalid_argument("DmaSystem: the mesh has no edge node for the HBM controllers");
  for (spad::Scratchpad* sp : spads_) {  // 2k: cluster k's landing buffer, 2k + 1: its egress queue
    port_queues_.emplace_back(*sp, SpadPortQueue::Direction::Write);
    port_queues_.emplace_back(*sp, SpadPortQueue::Direction::Read);
  }
  record_actions_ = params.record_actions;
  history_before_.assign(spads_.size(), 0);
  tRP_ = timing_or(hbm_spec, "tRP", "tRPpb") * hbm_period_;
  tRCD_ = timing_or(hbm_spec, "tRCD", "tRCD_RD") * hbm_period_;
  tCL_ = timing_or(hbm_spec, "tCL", "tRL") * hbm_period_;
  tCWL_ = timing_or(hbm_spec, "tCWL", "tWL") * hbm_period_;
  hbm_ = std::make_unique<hbm::HbmDevice>(std::move(hbm_spec));
  hbm_start_ = params.start_cycle * acc_period_ / hbm_period_;
  hbm_->start_at(hbm_start_);
  if (const int bit = hbm_->address_map().lowest_bit("ch"); bit >= 0) channel_block_ = int64_t(1) << bit;
  noc_ = std::make_unique<noc::Network>(noc_config);
  for (const auto& [x, y] : cluster_xy) nodes_.push_back(noc_->mesh().node(x, y));
  for (const noc::Endpoint& e : noc_->mesh().endpoints())
    if (e.edge) edge_nodes_.push_back(e.id);
  if (params.controller_queue_flits > 0)
    for (noc::NodeId n : edge_nodes_) noc_->set_ejection_capacity(n, noc::kRequestVnet, params.controller_queue_flits);
  bounded_controllers_ = params.controller_queue_flits > 0;
  noc_->set_delivery_callback([this](const noc::Delivery& d) { on_delivery(d); });
}

DmaSystem::~DmaSystem() = default;

int DmaSystem::enqueue(int cluster, const DmaTransfer& t, spad::Partition p, int64_t earliest, int step,
                       std::optional<spad::Partition> on_chip_to, bool to_all_clusters) {
  Queue& q = queues_[size_t(2 * cluster + (t.write ? 1 : 0))];
  // Enqueued late is fine behind a transfer still issuing (it could not have gone
  // earlier); with nothing ahead of it, it would have, so that is a caller bug.
  if (earliest * acc_period_ < now_ && q.transfers.empty())
    throw std::logic_error(fmt::format("DMA: transfer enqueued for cycle {}, already simulated to tick {}", earliest,
                                       now_));
  if (t.bytes <= 0) throw std::logic_error("DMA: empty transfer");
  if (on_chip_to && !t.write) throw std::logic_error("DMA: only a write can stay on chip");
  TransferState s;
  if (on_chip_to) s.on_chip_to = int(*on_chip_to);
  s.to_all_clusters = on_chip_to && to_all_clusters;
  s.what = t;
  s.cluster = cluster;
  s.step = step;
  s.partition = p;
  s.earliest = earliest;
  s.bytes_left = t.bytes;
  transfers_.push_back(std::make_unique<TransferState>(std::move(s)));
  const int id = first_transfer_ + int(transfers_.size()) - 1;
  q.transfers.push_back(id);
  return id;
}

noc::NodeId DmaSystem::controller_of(uint64_t addr) const {
  const int channel = hbm_->address_map().decode(addr).channel;
  return edge_nodes_[size_t(channel) % edge_nodes_.size()];
}

int64_t DmaSystem::piece_bytes(uint64_t addr, int64_t left) const {
  // The channel is constant over aligned blocks of 2^(its lowest address bit) bytes, and the next
  // block's differs (stepping a block flips that bit): the piece ends at the block's end.
  if (channel_block_ == 0) return left;  // one channel
  const int64_t to_end = channel_block_ - int64_t(addr % uint64_t(channel_block_));
  return std::min(left, to_end);
}

int64_t DmaSystem::next_issue_time(const Queue& q) const {
  if (q.transfers.empty() || q.outstanding >= max_outstanding_) return kNone;
  const TransferState& t = state(q.transfers.front());
  // Never in the past: a slot freed by an ack at now_ is used from the next edge on, one
  // freed by a landing write in cycle c from c + 1.
  return std::max({q.next_cycle, t.earliest, to_acc(now_), q.free_from}) * acc_period_;
}

void DmaSystem::issue(Queue& q) {
  const int tid = q.transfers.front();
  TransferState& t = state(tid);
  const int64_t cycle = std::max({q.next_cycle, t.earliest, to_acc(now_), q.free_from});
  const int64_t at = cycle * acc_period_;
  if (t.first_issue < 0) t.first_issue = cycle;
  // Which term bound (RequestPath::issue_bound); all pieces of the request share it.
  using Bound = RequestPath::IssueBound;
  Bound bound = Bound::Earliest;
  int waited_on = -1;
  if (q.freed_by >= 0 && cycle == to_acc(q.freed_at)) {
    bound = Bound::Slot;
    waited_on = q.freed_by;
  } else if (cycle > t.earliest && cycle == q.next_cycle && q.last_request >= 0 && q.quota_cycle == cycle - 1) {
    bound = Bound::Rate;
    waited_on = q.last_request;
  }
  q.freed_by = -1;
  // One DMA request per cycle, of up to request_bytes of this transfer. It goes out as
  // one piece per HBM channel it covers (a piece never spans two channels, so it goes to
  // exactly one controller), each taking a slot of the outstanding limit; what does
  // not fit the limit waits for the next request.
  ++stats_[size_t(t.cluster)].requests;
  for (int64_t budget = request_bytes_; budget > 0 && t.bytes_left > 0 && q.outstanding < max_outstanding_;) {
    Request r;
    r.id = next_request_id();
    r.path.issue_bound = bound;
    r.path.waited_on = waited_on;
    r.path.transfer = tid;
    r.transfer = tid;
    r.cluster = t.cluster;
    const int64_t offset = t.what.bytes - t.bytes_left;  // a piece never leaves its descriptor row
    r.addr = t.what.addr_at(offset);
    const int64_t most = std::min({t.bytes_left, budget, t.what.left_in_row(offset)});
    const bool on_chip = t.on_chip_to >= 0;  // no HBM channel, no controller
    r.bytes = on_chip ? most : piece_bytes(r.addr, most);
    r.write = t.what.write;
    r.controller = on_chip ? -1 : controller_of(r.addr);
    r.path.issued = at;
    budget -= r.bytes;
    t.bytes_left -= r.bytes;
    ++t.requests_left;
    ++q.outstanding;
    ++stats_[size_t(t.cluster)].pieces;
    requests_.push_back(r);
    send(requests_.back(), t, cycle, at);
  }
  if (t.bytes_left == 0) q.transfers.pop_front();
  q.issued_in_cycle = q.quota_cycle == cycle ? q.issued_in_cycle + 1 : 1;
  q.quota_cycle = cycle;
  q.next_cycle = q.issued_in_cycle >= requests_per_cycle_ ? cycle + 1 : cycle;
  q.last_request = next_request_id() - 1;
}

void DmaSystem::send(Request& r, TransferState& t, int64_t cycle, int64_t at) {
  noc::Packet p;
  p.src = nodes_[size_t(r.cluster)];
  p.dst = r.controller;
  p.vnet = noc::kRequestVnet;
  p.id = uint64_t(r.id);
  if (r.write) {  // the data leaves the scratchpad through its ports first (egress queue)
    port_queues_[size_t(2 * r.cluster + 1)].add(r.id, t.partition, r.bytes, cycle);
  } else {
    p.bytes = 0;  // a 1-flit request
    p.cycle = noc_cycle_at(at);
    r.path.injected = p.cycle * noc_period_;
    to_mesh(r.cluster, p);
  }
}

int64_t DmaSystem::zero_load(const noc::Delivery& d) const {
  const noc::NocConfig& nc = noc_->config();
  return (int64_t(d.hops) * (nc.router_latency + nc.link_latency) + d.flits - 1) * noc_period_;
}

void DmaSystem::on_delivery(const noc::Delivery& d) {
  Request& r = request(int(d.packet.id));
  if (r.controller >= 0 && d.packet.vnet == noc::kRequestVnet) {  // at the controller
    const int64_t at = d.cycle * noc_period_;
    r.path.at_memory = at;
    r.path.to_memory_zero_load = zero_load(d);
    hbm::HbmRequest h;
    h.addr = r.addr;
    h.bytes = uint64_t(r.bytes);
    h.is_write = r.write;
    h.id = d.packet.id;
    h.cycle = at / hbm_period_ + 1;  // first HBM edge strictly after
    if (submit_)
      submit_(h);
    else
      hbm_->submit(h);
    return;
  }
  int cluster = r.cluster;  // a response; an on-chip write's data goes to another cluster
  if (r.controller < 0) {
    cluster = int(std::find(nodes_.begin(), nodes_.end(), d.packet.dst) - nodes_.begin());
    if (cluster == clusters()) throw std::logic_error("DMA: an on-chip write's data reached no cluster");
  }
  if (mesh_deliver_)
    mesh_deliver_(cluster, d);
  else
    deliver_to_cluster(cluster, d);
}

void DmaSystem::deliver_to_cluster(int cluster, const noc::Delivery& d) {
  Request& r = request(int(d.packet.id));
  const int64_t at = d.cycle * noc_period_;
  if (r.controller < 0) {  // an on-chip write's data, from another cluster
    if (at > r.path.returned) r.path.to_cluster_zero_load = zero_load(d);
    land_on_chip(r, cluster, at);
    return;
  }
  r.path.returned = at;  // back at the cluster
  r.path.to_cluster_zero_load = zero_load(d);
  if (r.write) {
    r.path.freed = at;
    free_slot(r, at);
    finish_request(int(d.packet.id), at);
    return;
  }
  stats_[size_t(r.cluster)].bytes_delivered += r.bytes;
  port_queues_[size_t(2 * r.cluster)].add(r.id, state(r.transfer).partition, r.bytes, to_acc(at));
}

void DmaSystem::free_slot(const Request& r, int64_t at) {
  Queue& q = queues_[size_t(2 * r.cluster + (r.write ? 1 : 0))];
  if (q.outstanding-- == max_outstanding_) {
    q.freed_by = r.id;
    q.freed_at = at;
    q.free_from = std::max(q.free_from, to_acc(at));
  }
}

void DmaSystem::move_through_ports(size_t index, int64_t cycle) {
  SpadPortQueue& queue = port_queues_[index];
  moved_.clear();
  queue.move(queue.next_partition(), cycle, moved_);
  const spad::ScratchpadParams& sp = spads_[index / 2]->params();
  const bool landing = index % 2 == 0;
  for (const SpadPortQueue::Moved& m : moved_) {
    Request& r = request(m.request);
    TransferState& t = state(r.transfer);
    const bool on_chip = t.on_chip_to >= 0;
    if (record_actions_) (landing && on_chip ? t.at_spad_in : t.at_spad).emplace_back(m.last_cycle, r.bytes);
    if (landing) {  // in the scratchpad: the slot frees, the data is usable after the write latency
      if (on_chip) {  // one of its scratchpads; the slot frees once its data is in all of them
        stats_[index / 2].bytes_on_chip += r.bytes;
        if (--r.landings_left > 0) continue;
      }
      r.path.freed = (m.last_cycle + 1) * acc_period_;
      free_slot(r, r.path.freed);
      finish_request(m.request, (m.last_cycle + 1 + sp.write_latency) * acc_period_);
      continue;
    }
    const int64_t out = m.last_cycle + 1 + sp.read_latency;  // the data has left the scratchpad
    if (on_chip) {
      send_on_chip(r, t, out * acc_period_);
      continue;
    }
    noc::Packet p;  // write data out of the scratchpad: its packet leaves after the read latency
    p.id = uint64_t(r.id);
    p.src = nodes_[size_t(r.cluster)];
    p.dst = r.controller;
    p.vnet = noc::kRequestVnet;
    p.bytes = r.bytes;
    injections_[size_t(r.cluster)].push({out * acc_period_, p});
  }
}

// An on-chip write's data is out of its scratchpad at tick `out`: into its own cluster's landing
// buffer when it is out (an injection with no node: no NoC) and, to every cluster, as a packet
// to each other cluster's router on the request vnet (its endpoint always takes it). No HBM.
void DmaSystem::send_on_chip(Request& r, const TransferState& t, int64_t out) {
  stats_[size_t(r.cluster)].bytes_on_chip_read += r.bytes;
  r.path.injected = r.path.at_memory = r.path.memory_done = r.path.returned = out;
  r.landings_left = t.to_all_clusters ? clusters() : 1;
  noc::Packet p;
  p.id = uint64_t(r.id);
  p.dst = -1;
  injections_[size_t(r.cluster)].push({out, p});
  if (!t.to_all_clusters) return;
  p.src = nodes_[size_t(r.cluster)];
  p.vnet = noc::kRequestVnet;
  p.bytes = r.bytes;
  for (int k = 0; k < clusters(); ++k) {
    if (k == r.cluster) continue;
    p.dst = nodes_[size_t(k)];
    injections_[size_t(r.cluster)].push({out, p});
  }
}

void DmaSystem::land_on_chip(Request& r, int cluster, int64_t at) {
  r.path.returned = std::max(r.path.returned, at);
  port_queues_[size_t(2 * cluster)].add(r.id, spad::Partition(state(r.transfer).on_chip_to), r.bytes, to_acc(at));
}

void DmaSystem::on_hbm_completion(const hbm::HbmCompletion& c) {
  Request& r = request(int(c.id));
  r.path.memory_done = c.done * hbm_period_;
  const int64_t latency = std::max<int64_t>(r.path.memory_done - r.path.at_memory, 0);
  r.path.refresh_ticks = std::min<int64_t>(int64_t(c.refresh_wait) * hbm_period_, latency);
  r.path.row_miss_ticks = std::min<int64_t>(c.row_misses ? tRP_ + tRCD_ : 0, latency - r.path.refresh_ticks);
  r.path.cas_ticks = std::min<int64_t>(r.write ? tCWL_ : tCL_, latency - r.path.refresh_ticks - r.path.row_miss_ticks);
  if (r.write) stats_[size_t(r.cluster)].bytes_sent += r.bytes;
  if (record_actions_) state(r.transfer).at_hbm.emplace_back(to_acc(r.path.memory_done), r.bytes);
  if (bounded_controllers_)  // the controller's buffer frees the request (and its write data)
    noc_->release_ejection(r.controller, noc::kRequestVnet, noc_->config().flits_for(r.write ? r.bytes : 0),
                           noc_cycle_at(r.path.memory_done));
  noc::Packet p;
  p.src = r.controller;
  p.dst = nodes_[size_t(r.cluster)];
  p.vnet = noc::kResponseVnet;
  p.bytes = r.write ? 0 : r.bytes;
  p.id = c.id;
  // The controller sends it itself, in the order its stack completes requests: no DMA engine
  // is in between, so which cluster asked does not order same-cycle responses.
  p.cycle = noc_cycle_at(r.path.memory_done);
  noc_->inject(p);
}

void DmaSystem::finish_request(int id, int64_t done_at) {
  Request& r = request(id);
  r.path.done = done_at;
  r.done = true;
  TransferState& t = state(r.transfer);
  if (t.critical.done <= done_at) t.critical = r.path;
  if (--t.requests_left == 0 && t.bytes_left == 0) t.done = to_acc(t.critical.done);
}

// Calls at(time, who, index, cycle) for each pending event of the kinds asked, in the order
// below (issues, injections, the mesh, the stack, the scratchpad port queues); `cycle` is the
// event's own clock's (0 for the DMA's, whose times are ticks).
template <typename At>
[[gnu::always_inline]] inline void DmaSystem::each_event(unsigned kinds, int cluster, At at) const {
  auto wanted = [kinds](NextEvent::Who who) { return (kinds >> unsigned(who)) & 1u; };
  const size_t first = cluster < 0 ? 0 : size_t(cluster), last = cluster < 0 ? injections_.size() : first + 1;
  if (wanted(NextEvent::Issue))
    for (size_t i = 2 * first; i < 2 * last; ++i)
      if (const int64_t t = next_issue_time(queues_[i]); t != kNone) at(t, NextEvent::Issue, i, 0);
  if (wanted(NextEvent::Inject))
    for (size_t k = first; k < last; ++k)
      if (!injections_[k].empty()) at(injections_[k].top().at, NextEvent::Inject, k, 0);
  if (wanted(NextEvent::Noc))
    if (const std::optional<int64_t> n = noc_->next_event()) at(*n * noc_period_, NextEvent::Noc, 0, *n);
  if (wanted(NextEvent::Hbm))
    if (const hbm::Cycle h = hbm_->next_event(); h < hbm::kNever) at(h * hbm_period_, NextEvent::Hbm, 0, h);
  if (wanted(NextEvent::Ports))
    for (size_t k = 2 * first; k < 2 * last; ++k)
      if (const int64_t c = port_queues_[k].next_cycle(); c != SpadPortQueue::kNever)
        at(c * acc_period_, NextEvent::Ports, k, c);
}

// The earliest pending event and who has it; on a tie the order of each_event decides, which
// results do not depend on, except that a cycle's port moves come after its arrivals (last).
DmaSystem::NextEvent DmaSystem::next(unsigned kinds, int cluster) const {
  NextEvent e;
  each_event(kinds, cluster, [&](int64_t t, NextEvent::Who who, size_t index, int64_t cycle) {
    if (t < e.at) e = {t, who, index, cycle};
  });
  return e;
}

// The time alone, for the memory processes' scheduling (several calls per activation). Each case
// passes its kinds as a constant, so each_event keeps only their sources (with the part's kinds
// known only at run time it cost twice as much).
int64_t DmaSystem::next_time(MemoryPart part, int cluster) const {
  int64_t earliest = kNone;
  auto keep = [&](int64_t t, NextEvent::Who, size_t, int64_t) { earliest = std::min(earliest, t); };
  switch (part) {
    case MemoryPart::DmaEarly:
    case MemoryPart::DmaLate: each_event(kinds_of(MemoryPart::DmaEarly), cluster, keep); break;
    case MemoryPart::Noc: each_event(kinds_of(MemoryPart::Noc), cluster, keep); break;
    case MemoryPart::Hbm: each_event(kinds_of(MemoryPart::Hbm), cluster, keep); break;
    case MemoryPart::Ports: each_event(kinds_of(MemoryPart::Ports), cluster, keep); break;
  }
  return earliest;
}

bool DmaSystem::step(MemoryPart part, int64_t tick, int cluster) {
  const NextEvent e = next(kinds_of(part), cluster);
  if (e.at > tick) return false;
  step(e);
  return true;
}

int64_t DmaSystem::next_event_time() const { return next().at; }

bool DmaSystem::step() {
  const NextEvent e = next();
  if (e.at == kNone) return false;
  step(e);
  return true;
}

void DmaSystem::step(const NextEvent& e) {
  now_ = std::max(now_, e.at);
  switch (e.who) {
    case NextEvent::Issue:
      issue(queues_[e.queue]);
      break;
    case NextEvent::Inject: {
      Injection in = injections_[e.queue].top();
      injections_[e.queue].pop();
      Request& r = request(int(in.packet.id));
      if (in.packet.dst < 0) {  // an on-chip write's data, out of the scratchpad: its own cluster's landing buffer
        land_on_chip(r, r.cluster, in.at);
        break;
      }
      in.packet.cycle = noc_cycle_at(in.at);
      if (in.packet.vnet == noc::kRequestVnet && r.controller >= 0) r.path.injected = in.packet.cycle * noc_period_;
      to_mesh(int(e.queue), in.packet);
      break;
    }
    case NextEvent::Noc:
      noc_->run_until(e.cycle + 1);
      break;
    case NextEvent::Hbm:
      hbm_->run_until(e.cycle);
      for (const hbm::HbmCompletion& c : hbm_->take_completions()) respond_ ? respond_(c) : on_hbm_completion(c);
      break;
    case NextEvent::Ports:
      move_through_ports(e.queue, e.cycle);
      break;
  }
}

const RequestPath& DmaSystem::request_path(int id) const {
  if (id < first_kept_ || id >= next_request_id())
    throw std::logic_error(fmt::format("DMA: request {} asked for, only {}..{} are kept", id, first_kept_,
                                       next_request_id() - 1));
  return requests_[size_t(id - first_kept_)].path;
}

void DmaSystem::forget_history(int cluster, int64_t before) {
  history_before_[size_t(cluster)] = std::max(history_before_[size_t(cluster)], before * acc_period_);
  // Requests leave in id order, each once it is done and freed its slot before its cluster's mark.
  while (!requests_.empty()) {
    const Request& r = requests_.front();
    if (!r.done || r.path.freed >= history_before_[size_t(r.cluster)]) break;
    requests_.pop_front();
    ++first_kept_;
  }
}

void DmaSystem::catch_up(int64_t cycle) {
  if (next_event_time() <= cycle * acc_period_)
    throw std::logic_error(fmt::format("DMA: caught up to cycle {} with events before it pending", cycle));
  hbm_->run_until(cycle * acc_period_ / hbm_period_);
  if (!hbm_->take_completions().empty()) throw std::logic_error("DMA: an idle HBM channel completed a request");
}

void DmaSystem::advance_to(int64_t cycle) {
  const int64_t until = cycle * acc_period_;
  for (NextEvent e = next(); e.at < until || (e.at == until && e.who != NextEvent::Ports); e = next()) step();
}

void DmaSystem::forget_transfers(int step) {
  while (!transfers_.empty() && (!transfers_.front() || transfers_.front()->step < step)) {
    if (transfers_.front() && transfers_.front()->done < 0)
      throw std::logic_error("DMA: forgetting a transfer not yet done");
    transfers_.pop_front();
    ++first_transfer_;
  }
}

void DmaSystem::forget_transfer(int id) {
  if (kept_transfer(id)->done < 0) throw std::logic_error(fmt::format("DMA: forgetting transfer {} not yet done", id));
  transfers_[size_t(id - first_transfer_)].reset();
  while (!transfers_.empty() && !transfers_.front()) {
    transfers_.pop_front();
    ++first_transfer_;
  }
}

void DmaSystem::forgotten(int id) {
  throw std::logic_error(fmt::format("DMA: transfer {} asked for after it was forgotten", id));
}

void DmaSystem::run_until_done(int id) {
  while (!done(id))
    if (!step()) throw std::logic_error(fmt::format("DMA: transfer {} cannot complete: nothing in flight", id));
}

}  // namespace cstsim
