#include "models/vector/vector_result.h"

namespace cstsim {

VectorKernelResult merge_vector_parts(const std::vector<const VectorKernelResult*>& parts) {
  // Side by side: the span is the slowest unit's, and so are its compute and its waits.
  const VectorKernelResult* slowest = parts.front();
  for (const VectorKernelResult* p : parts)
    if (!p->idle && (slowest->idle || p->end_cycle > slowest->end_cycle)) slowest = p;
  VectorKernelResult m = *slowest;
  m.tiles = m.lane_cycles = m.spad_bytes_read = m.spad_bytes_written = 0;
  m.ops = {};
  for (const VectorKernelResult* p : parts) {
    if (p->idle) continue;
    m.tiles += p->tiles;
    m.lane_cycles += p->lane_cycles;
    m.spad_bytes_read += p->spad_bytes_read;
    m.spad_bytes_written += p->spad_bytes_written;
    for (size_t c = 0; c < m.ops.size(); ++c) m.ops[c] += p->ops[c];
  }
  return m;
}

}  // namespace cstsim
