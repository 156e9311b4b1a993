#include "models/array/layer_result.h"

#include <algorithm>
#include <stdexcept>

#include "models/base/stall_causes.h"

namespace cstsim {

namespace {

// Passes of one cluster follow each other: their lists concatenate. Clusters run the same
// passes side by side, each pass ending for all at once: pass p spans the slowest cluster's
// cycles, and would span the slowest ideal cluster's with ideal memory, so its stall is the
// difference, with the causes of the slowest cluster (scaled down when another cluster's
// ideal schedule is longer than its).
void merge_pass_stalls(const std::vector<const ArrayLayerResult*>& parts, bool side_by_side, ArrayLayerResult& m) {
  using PassStall = ArrayLayerResult::PassStall;
  if (!side_by_side) {
    for (const ArrayLayerResult* p : parts)
      m.pass_stalls.insert(m.pass_stalls.end(), p->pass_stalls.begin(), p->pass_stalls.end());
  } else {
    for (const ArrayLayerResult* p : parts) {
      if (p->idle) continue;
      if (m.pass_stalls.empty()) m.pass_stalls.resize(p->pass_stalls.size());
      if (m.pass_stalls.size() != p->pass_stalls.size())
        throw std::logic_error("merge_layer_parts: clusters ran different numbers of passes");
      for (size_t k = 0; k < p->pass_stalls.size(); ++k) {
        const PassStall& mine = p->pass_stalls[k];
        PassStall& all = m.pass_stalls[k];
        if (mine.cycles > all.cycles) {
          all.cycles = mine.cycles;
          all.causes = mine.causes;
          all.ideal_cycles = std::max(all.ideal_cycles, mine.ideal_cycles);
        } else {
          all.ideal_cycles = std::max(all.ideal_cycles, mine.ideal_cycles);
        }
      }
    }
    for (PassStall& p : m.pass_stalls) p.causes = shrink(p.causes, p.cycles - p.ideal_cycles);
  }
  m.ideal_cycles = 0;
  m.stall_cycles = 0;
  m.stalls.clear();
  for (const PassStall& p : m.pass_stalls) {
    m.ideal_cycles += p.ideal_cycles;
    m.stall_cycles += p.cycles - p.ideal_cycles;
    add(m.stalls, p.causes);
  }
}

}  // namespace

ArrayLayerResult merge_layer_parts(const AcceleratorSpec& a, const GemmShape& layer,
                                   const std::vector<const ArrayLayerResult*>& parts, bool shared_memory) {
  ArrayLayerResult m;
  m.shape = layer;
  m.plan = make_fold_plan(a.array.dataflow, a.array.rows, a.array.cols, std::max<int64_t>(1, layer.M), std::max<int64_t>(1, layer.N),
                          std::max<int64_t>(1, layer.K));
  m.plan.folds.clear();
  m.start_cycle = parts.front()->start_cycle;
  m.end_cycle = m.start_cycle - 1;
  m.verify = parts.front()->verify;
  m.verify.chip_parts.clear();  // each part's own, appended below in pass order
  double mapped = 0, busy = 0, folds = 0;
  bool shared_taken = false;
  for (const ArrayLayerResult* p : parts) {
    m.end_cycle = std::max(m.end_cycle, p->end_cycle);
    m.passes = std::max(m.passes, p->passes);
    if (p->idle) continue;
    m.event_count += p->event_count;
    m.stats.macs += p->stats.macs;
    m.stats.sram.ifmap_reads += p->stats.sram.ifmap_reads;
    m.stats.sram.filter_reads += p->stats.sram.filter_reads;
    m.stats.sram.ofmap_writes += p->stats.sram.ofmap_writes;
    m.stats.psum_reads += p->stats.psum_reads;
    m.stats.scalesim_ofmap_writes += p->stats.scalesim_ofmap_writes;
    m.plan.k_chunks = std::max(m.plan.k_chunks, p->plan.k_chunks);  // OS K chunks of the widest part
    const double f = double(p->plan.fold_count());
    folds += f;
    mapped += p->stats.mapping_efficiency * f;
    busy += p->stats.compute_utilization * f;
    m.memory_end = std::max(m.memory_end, p->memory_end);
    if (p->verify.ran) {
      m.verify.ran = true;
      m.verify.chip_parts.insert(m.verify.chip_parts.end(), p->verify.chip_parts.begin(), p->verify.chip_parts.end());
      const double worst = std::max(m.verify.max_relative_error, p->verify.max_relative_error);
      const int64_t gated = p->verify.gated_lanes < 0 ? m.verify.gated_lanes
                                                      : std::max<int64_t>(m.verify.gated_lanes, 0) + p->verify.gated_lanes;
      if (m.verify.passed && !p->verify.passed) {
        std::vector<std::vector<double>> kept = std::move(m.verify.chip_parts);
        m.verify = p->verify;
        m.verify.chip_parts = std::move(kept);
      }
      m.verify.max_relative_error = worst;
      m.verify.gated_lanes = gated;
    }
    if (!shared_memory) m.dram_bytes += p->dram_bytes;
    if (p->sampling) {  // passes one after another: their estimates and intervals add
      if (!m.sampling) m.sampling = *p->sampling;
      else *m.sampling += *p->sampling;
    }
    if (!p->has_hierarchy) continue;
    const HierarchyLayerStats& h = p->hierarchy;
    HierarchyLayerStats& t = m.hierarchy;
    m.has_hierarchy = true;
    if (!shared_memory || !shared_taken) {  // a shared HBM and NoC count once
      t.shared += h.shared;
      if (shared_memory) m.dram_bytes = h.shared.hbm_bytes_read;
      shared_taken = true;
    }
    t.dma_bytes_delivered += h.dma_bytes_delivered;
    t.dma_bytes_sent += h.dma_bytes_sent;
    t.dma_requests += h.dma_requests;
    t.dma_pieces += h.dma_pieces;
    t.dma_bytes_on_chip += h.dma_bytes_on_chip;
    t.dma_bytes_on_chip_read += h.dma_bytes_on_chip_read;
    t.spad_bytes_written += h.spad_bytes_written;
    t.spad_bytes_read += h.spad_bytes_read;
    t.spad_conflict_cycles += h.spad_conflict_cycles;
    t.raw_ifmap_passes += h.raw_ifmap_passes;
    t.im2col_ifmap_passes += h.im2col_ifmap_passes;
    for (size_t k = 0; k < 3; ++k)
      t.spad_peak[k] = shared_memory ? t.spad_peak[k] + h.spad_peak[k] : std::max(t.spad_peak[k], h.spad_peak[k]);
  }
  m.stats.mapping_efficiency = folds > 0 ? mapped / folds : 0;
  m.stats.compute_utilization = folds > 0 ? busy / folds : 0;
  m.cycles = m.end_cycle - m.start_cycle + 1;
  merge_pass_stalls(parts, shared_memory, m);
  return m;
}

FlashKernelResult merge_flash_parts(const std::vector<const FlashKernelResult*>& parts) {
  // Side by side: the span is the slowest cluster's, and so are its array time and its waits.
  const FlashKernelResult* slowest = parts.front();
  for (const FlashKernelResult* p : parts)
    if (!p->idle && (slowest->idle || p->end_cycle > slowest->end_cycle)) slowest = p;
  FlashKernelResult m = *slowest;
  m.macs = m.tiles = 0;
  std::vector<const VectorKernelResult*> vector;
  for (const FlashKernelResult* p : parts) {
    vector.push_back(&p->vector);
    if (p->idle) continue;
    m.macs += p->macs;
    m.tiles += p->tiles;
  }
  m.vector = merge_vector_parts(vector);  // the same slowest part: each one's vector ends with it
  return m;
}

}  // namespace cstsim
