#include "models/dma/explain_wait.h"

#include <algorithm>

#include <fmt/format.h>

namespace cstsim {

void explain_wait(const DmaSystem& dma, int cluster, const RequestPath& p, int64_t last, int64_t from, int64_t to,
                  std::map<std::string, int64_t>& causes) {
  using Bound = RequestPath::IssueBound;
  auto acc = [&](int64_t ticks) { return dma.to_acc(ticks); };
  int64_t at = from;
  auto charge = [&](const char* cause, int64_t until) {
    const int64_t end = std::min(until, to);
    if (end > at) {
      causes[cause] += end - at;
      at = end;
    }
  };
  // A request the DMA has forgotten freed its slot before the mark, which no interval still
  // explained reaches back to (checked: a stall split may not depend on what was dropped).
  auto kept = [&](int id) {
    const RequestPath* r = dma.kept_request(id);
    if (!r && at < dma.forgotten_before(cluster))
      throw std::logic_error(fmt::format("stall accounting: request {} was forgotten before cycle {}, explained from {}",
                                         id, dma.forgotten_before(cluster), at));
    return r;
  };
  // A run of requests each issued the cycle after the one before is the issue rate's; it
  // began with the first of them, whose own bound explains the time before the run.
  const RequestPath* head = &p;
  for (const RequestPath* before; head->issue_bound == Bound::Rate && (before = kept(head->waited_on)) &&
                                  acc(before->issued) > at;)
    head = before;
  if (head->issue_bound == Bound::Slot) {
    const RequestPath* freer = kept(head->waited_on);
    const int64_t freed = freer ? std::min(acc(freer->freed), to) : at;
    if (freed > at) {
      explain_wait(dma, cluster, *freer, freed, at, freed, causes);
      at = freed;
    }
  } else if (head->issue_bound == Bound::Earliest) {
    charge("dependency", acc(head->issued));  // its buffer slot or its data was not there yet
  }
  charge("dma_issue", acc(p.issued));
  // Each NoC trip: contention first (waiting at the source and in routers), then the
  // zero-load latency that even an empty mesh takes.
  const int64_t to_memory_contention = std::max<int64_t>(p.at_memory - p.injected - p.to_memory_zero_load, 0);
  const int64_t to_cluster_contention = std::max<int64_t>(p.returned - p.memory_done - p.to_cluster_zero_load, 0);
  charge("spad_ports", acc(p.injected));  // writes: read out of the scratchpad ports
  charge("noc_bandwidth", acc(p.injected + to_memory_contention));
  charge("noc_latency", acc(p.at_memory));
  charge("hbm_refresh", acc(p.at_memory + p.refresh_ticks));
  charge("hbm_row_miss", acc(p.at_memory + p.refresh_ticks + p.row_miss_ticks));
  charge("hbm_bandwidth", acc(p.memory_done - p.cas_ticks));  // the controller's queue and the data bus
  charge("hbm_latency", acc(p.memory_done));                  // column access: tCL / tCWL
  charge("noc_bandwidth", acc(p.memory_done + to_cluster_contention));
  charge("noc_latency", acc(p.returned));
  charge("spad_ports", last);  // reads: in the landing buffer, into the ports the array leaves
  if (at < to) causes["dependency"] += to - at;
}

void explain_transfers(const DmaSystem& dma, int cluster, const std::vector<int>& ids, int64_t from, int64_t to,
                       std::map<std::string, int64_t>& causes) {
  int latest = ids.front();
  for (int id : ids)
    if (dma.transfer(id).done > dma.transfer(latest).done) latest = id;
  const TransferState& t = dma.transfer(latest);
  explain_wait(dma, cluster, t.critical, t.done, from, to, causes);
}

}  // namespace cstsim
