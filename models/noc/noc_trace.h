#pragma once
// The NoC's part of R(t): a NocObserver that reports to a TraceSink.
//   resource <owner>.links_busy  class N, unit link, capacity = router-to-router
//       links: links carrying a flit in the cycle (r_N). Its integral, in
//       link·cycles, is the NoC's V_N; per link it is NocStats::link_busy.
//   action noc.link      byte: flit_bytes per busy link-cycle (bound to the resource)
//   action noc.flit_hop  flit: one per router traversal (each traversal ends on a
//       link or in an ejection), the count E_flit-hop multiplies
// Attach with network.set_observer(&trace) before the first step. The network
// reports a cycle while simulating it, so changes are never behind the sink.
#include <cstdint>
#include <string>

#include "models/noc/network.h"
#include "traces/sink.h"

namespace cstsim::noc {

class NocTrace : public NocObserver {
 public:
  NocTrace(trace::TraceSink& sink, const Network& network, const std::string& owner);
  void links_busy(int64_t cycle, int busy) override;
  void link_flit(int64_t cycle, LinkId link) override;
  void flit_delivered(int64_t cycle, NodeId node, uint64_t packet_id, int seq, int flits) override;

 private:
  trace::TraceSink& sink_;
  trace::ResourceId links_busy_ = 0;
  trace::ActionId flit_hop_ = 0;
};

}  // namespace cstsim::noc
