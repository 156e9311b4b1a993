#include "models/noc/noc_trace.h"

#include <algorithm>

namespace cstsim::noc {

NocTrace::NocTrace(trace::TraceSink& sink, const Network& network, const std::string& owner) : sink_(sink) {
  const int64_t links = std::max<int64_t>(1, int64_t(network.mesh().links().size()));
  links_busy_ = sink_.declare({0, owner + ".links_busy", trace::ResourceClass::Network, "link", links, owner, ""});
  sink_.bind(sink_.declare_action("noc.link", "byte"), links_busy_, network.config().flit_bytes);
  flit_hop_ = sink_.declare_action("noc.flit_hop", "flit");
}

void NocTrace::links_busy(int64_t cycle, int busy) { sink_.set(cycle, links_busy_, busy); }

void NocTrace::link_flit(int64_t cycle, LinkId) { sink_.count(cycle, flit_hop_, 1); }

void NocTrace::flit_delivered(int64_t cycle, NodeId, uint64_t, int, int) { sink_.count(cycle, flit_hop_, 1); }

}  // namespace cstsim::noc
