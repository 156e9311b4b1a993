#pragma once
// DmaSystem: the cluster's DMA engine and everything between it and the HBM
// stack - the mesh NoC, the HBM channel controllers at the mesh edge, the bank-
// level HBM, and the scratchpad ports at the near end. Plain C++ with computed
// wake-ups: run_until_done() jumps from event to event across three clocks.
//
// The DMA has two in-order queues (read: HBM -> scratchpad, write: scratchpad ->
// HBM), like an AXI master's two channels. Each issues at most requests_per_cycle requests per
// accelerator cycle and keeps at most dma.max_outstanding in flight; a request is at most
// hbm.request_bytes and goes out as one piece per HBM channel it covers. A transfer starts
// issuing when the one before it in its queue has issued its last request and its own
// `earliest` cycle (its scratchpad slot is free) has come.
//   read:  request packet (1 flit, vnet 0) cluster -> controller; HBM read;
//          data packet (vnet 1) controller -> cluster, into the DMA's landing buffer
//          (spad_port_queue.h), which writes it into the scratchpad through the ports the
//          array leaves free, a cycle at a time; the request's slot frees when its last
//          word is in.
//   write: data read out of the scratchpad the same way (the egress queue); data packet
//          (vnet 0) -> controller; HBM write; ack (1 flit, vnet 1) -> cluster, which frees
//          the slot.
// Clock crossings: an arrival is seen on the receiver's first edge at or after it
// (HBM: the first strictly after, as models/hbm/README.md defines).
#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <vector>

#include "models/dma/clock_base.h"
#include "models/dma/spad_port_queue.h"
#include "models/hbm/hbm_device.h"
#include "models/noc/network.h"
#include "models/scratchpad/scratchpad.h"
#include "plan/dma_program.h"

namespace cstsim {

// One request's way through the hierarchy, in ticks of the exact common time base (clock_base.h).
struct RequestPath {
  int64_t issued = 0;       // the DMA issued it
  int64_t injected = 0;     // its request/data packet entered the NoC
  int64_t at_memory = 0;    // reached its HBM controller
  int64_t memory_done = 0;  // HBM data done (read data out / write data in)
  int64_t returned = 0;     // data/ack tail back at the cluster
  int64_t freed = 0;        // its outstanding slot freed: reads, last word into the scratchpad; writes, = returned
  int64_t done = 0;         // reads: the data usable in the scratchpad (+ write latency); writes: = returned
  // Parts of [at_memory, memory_done): waiting for a refresh of its bank, opening its row
  // (tRP + tRCD when a burst missed the open row), its column access latency; the rest is the
  // controller queue and the data bus.
  int64_t refresh_ticks = 0;
  int64_t row_miss_ticks = 0;
  int64_t cas_ticks = 0;  // the column access latency (tCL reads, tCWL writes) even an idle bank takes
  // Zero-load NoC latency of its request/data packet and of its response, H (t_r + t_l) + F - 1
  // NoC cycles: what the trips would take on an empty mesh; the rest of each trip is contention.
  int64_t to_memory_zero_load = 0;
  int64_t to_cluster_zero_load = 0;
  // Which term of the issue rule max(previous issue + 1, transfer's earliest, a free
  // outstanding slot) set its issue cycle: Slot: the queue was full until request `waited_on`
  // came back; Rate: `waited_on` (the queue's previous request) went out the cycle before;
  // Earliest: its transfer was not allowed to start before (its scratchpad slot or data).
  enum class IssueBound : uint8_t { Earliest, Rate, Slot };
  IssueBound issue_bound = IssueBound::Earliest;
  int waited_on = -1;
  int transfer = -1;  // DmaSystem transfer id it belongs to
};

struct TransferState {
  DmaTransfer what;
  int cluster = 0;
  int step = 0;  // the run's step (MemoryGroup::step) whose pass uses it
  spad::Partition partition = spad::Partition::Ifmap;
  // overlap: pipeline: a write whose data stays on chip (the next layer's input): read out of
  // `partition` through the egress queue, then written into this partition through the landing
  // buffer of its own cluster (no NoC) or, to_all_clusters, of every cluster (the others' over
  // the mesh, cluster to cluster); never HBM. -1: an ordinary transfer.
  int on_chip_to = -1;
  bool to_all_clusters = false;
  int64_t earliest = 0;     // accelerator cycle its slot is free
  int64_t first_issue = -1; // accelerator cycle of its first request
  int64_t done = -1;        // accelerator cycle it is complete (reads: usable in the scratchpad; -1: not yet)
  int64_t requests_left = 0;
  int64_t bytes_left = 0;   // not yet issued
  RequestPath critical;     // the request that completed last
  // (accelerator cycle the scratchpad moved it, bytes) per request: reads, the cycle of the last
  // word written; writes, the cycle of the last word read out.
  std::vector<std::pair<int64_t, int64_t>> at_spad;
  std::vector<std::pair<int64_t, int64_t>> at_hbm;  // (accelerator cycle the HBM moved it, bytes) per request
  // On-chip writes: (accelerator cycle of the last word written into `on_chip_to`, bytes) per request.
  std::vector<std::pair<int64_t, int64_t>> at_spad_in;
};

// The parts of the system that step on their own when each runs as its own process, in the order
// their events of one tick go (DmaSystem::next's tie order): the DMA engines' issues and
// injections, the mesh, the stack, the DMA engines again for what arrived in the tick (issues a
// returned write freed a slot for), then the scratchpads' port moves (landing buffer and egress
// queue). The DMA parts and the ports are per cluster; a cluster's events of one tick touch no
// other cluster's queues, so the clusters' processes may take the tick in any order.
enum class MemoryPart : uint8_t { DmaEarly, Noc, Hbm, DmaLate, Ports };
inline bool per_cluster(MemoryPart part) { return part != MemoryPart::Noc && part != MemoryPart::Hbm; }

struct DmaStats {
  int64_t bytes_delivered = 0;  // HBM -> scratchpad, payload
  int64_t bytes_sent = 0;       // scratchpad -> HBM, payload
  int64_t requests = 0;         // DMA requests issued (at most one per queue and cycle)
  int64_t pieces = 0;           // their per-channel pieces, each a packet to one controller
  int64_t bytes_on_chip = 0;       // written into this cluster's scratchpad by on-chip writes (overlap: pipeline)
  int64_t bytes_on_chip_read = 0;  // read out of it for on-chip writes (once, however many clusters take them)
};

// The DMA engine's own parameters (hbm.max_outstanding, hbm.request_bytes) and the
// clock it issues on (the array's).
struct DmaParams {
  int max_outstanding = 64;
  int64_t request_bytes = 64;
  double clock_hz = 1e9;
  int requests_per_cycle = 1;  // per queue (hbm.requests_per_cycle)
  // Flits of requests and write data an HBM controller's port buffers until the HBM is done
  // with them (hbm.controller_queue_flits); beyond it the mesh holds them: back-pressure. 0: unbounded.
  int64_t controller_queue_flits = 0;
  int64_t start_cycle = 0;  // accelerator cycle the pass starts: the stack's refresh phase
  bool record_actions = true;  // TransferState::at_hbm / at_spad, for the trace's actions
};

class DmaSystem {
 public:
  // One DMA per cluster, at the mesh router `cluster_nodes[k]`, sharing the mesh and the stack.
  DmaSystem(const DmaParams& params, hbm::HbmSpec hbm_spec, noc::NocConfig noc_config,
            std::vector<spad::Scratchpad*> spads, std::vector<std::pair<int, int>> cluster_xy);
  ~DmaSystem();
  DmaSystem(const DmaSystem&) = delete;
  DmaSystem& operator=(const DmaSystem&) = delete;

  // Appends to the read or write queue (by t.write); returns the transfer id.
  // `earliest` must not lie before what has been simulated (std::logic_error). `on_chip_to`
  // (writes only): the partition the data goes to instead of HBM, in its own cluster or in every
  // cluster (TransferState::on_chip_to, to_all_clusters).
  int enqueue(int cluster, const DmaTransfer& t, spad::Partition p, int64_t earliest, int step = 0,
              std::optional<spad::Partition> on_chip_to = std::nullopt, bool to_all_clusters = false);
  // Processes the earliest pending event of the whole system; false when nothing is pending.
  bool step();
  // Time of the earliest pending event (ticks), or INT64_MAX when nothing is pending.
  int64_t next_event_time() const;
  // For a process that steps only one part: steps that part's earliest event (DmaEarly and
  // DmaLate: issues and injections; Ports: the scratchpad port moves; Noc, Hbm) of `cluster`
  // (per_cluster parts; -1: every cluster's) if it lies at or before `tick`; false otherwise.
  // Stepping every part at each tick in MemoryPart order steps the events in step()'s order.
  bool step(MemoryPart part, int64_t tick, int cluster = -1);
  // That part's earliest event (ticks; INT64_MAX: none).
  int64_t next_time(MemoryPart part, int cluster = -1) const;  // = next(kinds_of(part), cluster).at, cheaper
  void run_until_done(int id);
  const TransferState& transfer(int id) const { return *kept_transfer(id); }
  // A step of the run is over: the DMA drops the transfers of the steps before `step` (done, and
  // nobody will ask about them again), oldest first; ids go on from where they were.
  void forget_transfers(int step);
  // Transfer `id` is done and nobody will ask about it again (its pass has explained, announced
  // and released it): its record goes now, so a pass's memory follows what is in flight.
  void forget_transfer(int id);
  bool records_actions() const { return record_actions_; }
  // Its per-request action lists were announced: drop them (the trace keeps what is in flight).
  void forget_actions(int id) {
    std::vector<std::pair<int64_t, int64_t>>().swap(state(id).at_hbm);
    std::vector<std::pair<int64_t, int64_t>>().swap(state(id).at_spad);
    std::vector<std::pair<int64_t, int64_t>>().swap(state(id).at_spad_in);
  }
  // The way of request `id` (RequestPath::waited_on names one); std::logic_error once forgotten.
  const RequestPath& request_path(int id) const;
  // nullptr once forgotten (forget_history): it freed its slot before the mark.
  const RequestPath* kept_request(int id) const {
    return id >= first_kept_ && id < next_request_id() ? &requests_[size_t(id - first_kept_)].path : nullptr;
  }
  // Nobody will ask for the way of a request of `cluster` that freed its slot before
  // accelerator cycle `before` (the stall ledger has explained the folds that could): the
  // DMA drops such requests, oldest first, so its memory follows what is in flight.
  void forget_history(int cluster, int64_t before);
  size_t requests_kept() const { return requests_.size(); }
  // Cluster k's mark (accelerator cycles): the requests forgotten freed their slots before it.
  int64_t forgotten_before(int cluster) const { return history_before_[size_t(cluster)] / acc_period_; }
  // The first cycle cluster k's port queues will still ask its scratchpad about.
  int64_t ports_look_back_to(int cluster) const {
    return std::min(port_queues_[size_t(2 * cluster)].oldest_wait(), port_queues_[size_t(2 * cluster + 1)].oldest_wait());
  }
  bool done(int id) const { return transfer(id).done >= 0; }

  hbm::Cycle hbm_start() const { return hbm_start_; }  // HBM cycle the pass joined the run
  int64_t now() const { return now_; }
  // Once every event up to accelerator cycle `cycle`'s edge is simulated: lets the HBM's idle
  // channels catch up to it too (the refreshes and closing precharges they would issue on
  // their own are otherwise stepped only when later work reaches them), so every command up
  // to that edge has been observed.
  void catch_up(int64_t cycle);
  // The first accelerator cycle from which HBM commands may still be unobserved (an idle
  // channel's refreshes and precharges are stepped when later work reaches them).
  int64_t hbm_observed_before() const { return to_acc((hbm_->processed() + 1) * hbm_period_); }
  // Steps every event up to accelerator cycle `cycle`'s edge except the scratchpad writes of
  // `cycle` itself, which wait for the array's use of that cycle (lockstep grids declare a
  // fold in the cycle it starts).
  void advance_to(int64_t cycle);
  int64_t acc_period() const { return acc_period_; }
  int64_t to_acc(int64_t t) const { return (t + acc_period_ - 1) / acc_period_; }  // first edge at or after

  // The edge between the mesh and the stack. A request at its controller goes to the stack
  // through `submit`, and a done one comes back through `respond`, which ends in complete(). By
  // default both are calls; a run's modules put a TLM-2.0 socket there (memory_modules.h).
  void set_memory_submit(std::function<void(const hbm::HbmRequest&)> submit) { submit_ = std::move(submit); }
  void set_memory_respond(std::function<void(const hbm::HbmCompletion&)> respond) { respond_ = std::move(respond); }
  void complete(const hbm::HbmCompletion& c) { on_hbm_completion(c); }

  // The edge between each cluster's DMA and its mesh router. A packet cluster k's DMA sends goes
  // into the mesh through its `send(packet)`, which ends in take_from_cluster(); one the mesh
  // delivers at cluster k's router comes back through `deliver(k, delivery)`, which ends in
  // deliver_to_cluster(). By default both are calls; a run's modules put TLM-2.0 sockets there.
  void set_mesh_send(int cluster, std::function<void(const noc::Packet&)> send) {
    mesh_send_[size_t(cluster)] = std::move(send);
  }
  void set_mesh_deliver(std::function<void(int, const noc::Delivery&)> deliver) { mesh_deliver_ = std::move(deliver); }
  void take_from_cluster(const noc::Packet& p) { noc_->inject(p); }
  void deliver_to_cluster(int cluster, const noc::Delivery& d);

  hbm::HbmDevice& hbm() { return *hbm_; }
  const hbm::HbmDevice& hbm() const { return *hbm_; }
  noc::Network& noc() { return *noc_; }
  const noc::Network& noc() const { return *noc_; }
  const DmaStats& stats(int cluster) const { return stats_[size_t(cluster)]; }
  int64_t in_flight_bytes() const { return int64_t(max_outstanding_) * request_bytes_; }  // per direction, at most
  int64_t hbm_period() const { return hbm_period_; }
  int64_t ticks_per_second() const { return clocks_.ticks_per_second; }
  int64_t noc_period() const { return noc_period_; }
  noc::NodeId cluster_node(int k) const { return nodes_[size_t(k)]; }
  int clusters() const { return int(nodes_.size()); }

 private:
  struct NextEvent {
    int64_t at = INT64_MAX;
    enum Who { Issue, Inject, Noc, Hbm, Ports } who = Issue;
    size_t queue = 0;   // Issue: which queue; Inject: which cluster's injections; Ports: which port queue
    int64_t cycle = 0;  // Noc / Hbm / Ports: the event's cycle in that clock
  };
  // The earliest pending event of the kinds in `kinds` (bits 1 << NextEvent::Who), of `cluster`'s
  // DMA and ports (-1: every cluster's).
  static constexpr unsigned kAllKinds = 0x1f;
  NextEvent next(unsigned kinds = kAllKinds, int cluster = -1) const;
  template <typename At>
  void each_event(unsigned kinds, int cluster, At at) const;  // next()'s sources, each with its time
  static constexpr unsigned kinds_of(MemoryPart part) {
    switch (part) {
      case MemoryPart::DmaEarly:
      case MemoryPart::DmaLate: return 1u << NextEvent::Issue | 1u << NextEvent::Inject;
      case MemoryPart::Noc: return 1u << NextEvent::Noc;
      case MemoryPart::Hbm: return 1u << NextEvent::Hbm;
      case MemoryPart::Ports: return 1u << NextEvent::Ports;
    }
    return 0;
  }
  void step(const NextEvent& e);
  struct Request {
    int id = 0;
    int transfer = 0;
    int cluster = 0;
    uint64_t addr = 0;
    int64_t bytes = 0;
    bool write = false;
    noc::NodeId controller = 0;  // -1: an on-chip write
    int landings_left = 0;       // on-chip writes: scratchpads its data has still to go into
    bool done = false;
    RequestPath path;
  };
  Request& request(int id) { return requests_[size_t(id - first_kept_)]; }
  int next_request_id() const { return first_kept_ + int(requests_.size()); }
  struct Queue {
    std::deque<int> transfers;  // not fully issued, in order
    int64_t next_cycle = 0;     // the earliest cycle the next request may go (issue rate)
    int64_t quota_cycle = -1;   // the cycle the last request went, and how many went in it
    int issued_in_cycle = 0;
    int outstanding = 0;
    int freed_by = -1;          // the request whose return last freed a slot of a full queue
    int64_t freed_at = 0;       // when (ticks)
    int64_t free_from = 0;      // the first cycle the slot freed by a landing write may be used
    int last_request = -1;      // the last request issued
  };
  struct Injection {  // a packet waiting for its NoC cycle (write data read from the scratchpad)
    int64_t at;
    noc::Packet packet;
    bool operator>(const Injection& o) const { return at != o.at ? at > o.at : packet.id > o.packet.id; }
  };

  int64_t next_issue_time(const Queue& q) const;
  void issue(Queue& q);
  void send(Request& r, TransferState& t, int64_t cycle, int64_t at);  // r's first packet into the NoC
  void to_mesh(int cluster, const noc::Packet& p) {
    const auto& send = mesh_send_[size_t(cluster)];
    send ? send(p) : noc_->inject(p);
  }
  void on_delivery(const noc::Delivery& d);  // at a controller, or on to its cluster (deliver_to_cluster)
  int64_t zero_load(const noc::Delivery& d) const;  // its trip's ticks on an empty mesh
  void on_hbm_completion(const hbm::HbmCompletion& c);
  void finish_request(int id, int64_t done_at);
  void free_slot(const Request& r, int64_t at);  // r's outstanding slot, from tick `at`
  void move_through_ports(size_t index, int64_t cycle);  // port queue `index`'s words in `cycle`
  void send_on_chip(Request& r, const TransferState& t, int64_t out);  // out of the scratchpad at tick `out`
  void land_on_chip(Request& r, int cluster, int64_t at);  // its data reached `cluster` at tick `at`
  int64_t piece_bytes(uint64_t addr, int64_t left) const;  // <= request_bytes, one channel
  noc::NodeId controller_of(uint64_t addr) const;
  int64_t noc_cycle_at(int64_t t) const { return (t + noc_period_ - 1) / noc_period_; }

  int max_outstanding_;
  int64_t request_bytes_;
  int requests_per_cycle_;
  bool bounded_controllers_ = false;
  ClockBase clocks_;
  int64_t acc_period_, hbm_period_, noc_period_;  // ticks
  std::unique_ptr<hbm::HbmDevice> hbm_;
  std::unique_ptr<noc::Network> noc_;
  std::vector<spad::Scratchpad*> spads_;
  std::vector<SpadPortQueue> port_queues_;  // 2k: cluster k's landing buffer, 2k + 1: its egress queue
  std::vector<SpadPortQueue::Moved> moved_;  // scratch for move_through_ports()
  std::vector<noc::NodeId> nodes_;
  std::vector<noc::NodeId> edge_nodes_;
  // A transfer the DMA itself is working on (queued or in flight): never forgotten, no check.
  TransferState& state(int id) { return *transfers_[size_t(id - first_transfer_)]; }
  const TransferState& state(int id) const { return *transfers_[size_t(id - first_transfer_)]; }
  TransferState* kept_transfer(int id) const {  // std::logic_error once forgotten
    const int64_t k = int64_t(id) - first_transfer_;
    if (k < 0 || k >= int64_t(transfers_.size()) || !transfers_[size_t(k)]) forgotten(id);
    return transfers_[size_t(k)].get();
  }
  [[noreturn]] static void forgotten(int id);
  // Ids first_transfer_.. (forget_transfers drops the oldest; forget_transfer leaves a hole).
  std::deque<std::unique_ptr<TransferState>> transfers_;
  int first_transfer_ = 0;
  std::deque<Request> requests_;  // ids first_kept_.. (forget_history drops the oldest)
  int first_kept_ = 0;
  bool record_actions_ = true;
  std::vector<int64_t> history_before_;  // per cluster, ticks
  std::vector<Queue> queues_;  // 2 per cluster: 2k read, 2k+1 write
  // Per cluster: the packets its DMA sends out of its scratchpad (write data, on-chip copies) at
  // their tick; the controllers send their responses themselves (on_hbm_completion).
  using Injections = std::priority_queue<Injection, std::vector<Injection>, std::greater<Injection>>;
  std::vector<Injections> injections_;
  int64_t now_ = 0;
  hbm::Cycle hbm_start_ = 0;
  int64_t tRP_ = 0, tRCD_ = 0, tCL_ = 0, tCWL_ = 0;
  int64_t channel_block_ = 0;  // bytes of one channel's aligned run of addresses (0: one channel)
  std::vector<DmaStats> stats_;  // per cluster
  std::function<void(const hbm::HbmRequest&)> submit_;      // empty: hbm_->submit
  std::function<void(const hbm::HbmCompletion&)> respond_;  // empty: complete
  std::vector<std::function<void(const noc::Packet&)>> mesh_send_;  // per cluster; empty: take_from_cluster
  std::function<void(int, const noc::Delivery&)> mesh_deliver_;  // empty: deliver_to_cluster
};

}  // namespace cstsim
