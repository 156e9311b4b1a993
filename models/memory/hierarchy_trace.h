#pragma once
// The memory hierarchy's part of R(t) (memory: hierarchy), declared and announced by the
// memory side that owns it, not by the array: per HBM channel its data buses and row
// buffers, the mesh's busy links and flit-hops (reported by cluster 0 for the shared
// system), each cluster's scratchpad partitions, and the DMA's byte actions.
#include <cstdint>
#include <string>
#include <vector>

#include "models/memory/hierarchy_source.h"
#include "models/memory/memory_group.h"
#include "traces/sink.h"

namespace cstsim {

class HierarchyTrace {
 public:
  // Declares the resources and actions; `prefix` names a cluster's own ("cluster1.").
  void declare(trace::TraceSink& sink, const AcceleratorSpec& spec, int cluster, const std::string& prefix);
  // The shared HBM and NoC of one step (cluster 0 only), and all of a source's traffic.
  void announce_shared(trace::TraceSink& sink, const MemoryGroup& group) const;
  void announce(trace::TraceSink& sink, const HierarchySource& source) const;

 private:
  struct Ids {
    std::vector<trace::ResourceId> channel_busy, channel_rows;  // per HBM channel
    trace::ResourceId links_busy = 0;
    trace::ResourceId spad[3] = {0, 0, 0};
    trace::ActionId hbm_read_stationary = 0, hbm_read_stream = 0, hbm_write = 0, noc_hop = 0, spad_write = 0,
                    spad_read = 0;
    int64_t row_bytes = 0, flit_bytes = 0;
  } ids_;
  bool owns_shared_ = true;  // declares and reports the HBM and NoC (cluster 0)
};

}  // namespace cstsim
