#pragma once
// Why a wait for the DMA lasted: the cycles [from, to) that something waited for request p (whose
// data was usable at `last`) split along its way by root cause, as models/dma/README.md ("Stalls
// by root cause") defines them: dependency (its slot or data not there), dma_issue, spad_ports,
// noc_bandwidth, noc_latency, hbm_refresh, hbm_row_miss, hbm_bandwidth, hbm_latency. A request
// that waited for a free outstanding slot hands the cycles before it to the request that freed it.
// The array's stall ledger (HierarchySource) and the kernels between layers (models/vector) use it.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/dma/dma_system.h"

namespace cstsim {

void explain_wait(const DmaSystem& dma, int cluster, const RequestPath& p, int64_t last, int64_t from, int64_t to,
                  std::map<std::string, int64_t>& causes);
// A wait for several transfers (all done): along the way of the request that completed the one
// usable last.
void explain_transfers(const DmaSystem& dma, int cluster, const std::vector<int>& ids, int64_t from, int64_t to,
                       std::map<std::string, int64_t>& causes);

}  // namespace cstsim
