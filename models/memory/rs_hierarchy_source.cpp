#include "models/memory/rs_hierarchy_source.h"

#include <algorithm>

#include "models/dma/explain_wait.h"

namespace cstsim {

RsHierarchySource::RsHierarchySource(const AcceleratorSpec&, const RsLayerPlan& plan, RsTensors tensors,
                                     int64_t layer_start, std::shared_ptr<MemoryGroup> group, int cluster)
    : plan_(plan), tensors_(tensors), layer_start_(layer_start), group_(std::move(group)), cluster_(cluster) {
  dma_base_ = group_->dma().stats(cluster_);
  for (spad::Partition p : spad::kAllPartitions) spad_base_[size_t(p)] = group_->spad(cluster_).stats(p);
}

int RsHierarchySource::move(RsTransfer::Kind kind, size_t pass, int64_t bits, int64_t earliest) {
  if (bits == 0) return -1;
  const RsPass& p = plan_.passes[pass];
  const RsShape& s = plan_.shape;
  // The block's first value in the tensor's [group][image][channel][row][column] layout
  // ([group][filter][channel][row][column] for filters), read or written as one contiguous run.
  const int64_t act = plan_.act_bits, wt = plan_.weight_bits;
  uint64_t addr = 0;
  DmaTransfer t;
  t.bytes = (bits + 7) / 8;
  t.fold = int(pass);
  t.first_fold = int(pass);
  spad::Partition part = spad::Partition::Ifmap;
  switch (kind) {
    case RsTransfer::Filters:
      addr = tensors_.filters + uint64_t((((p.group * s.M + p.filter0) * s.C + p.channel0) * s.R + p.filter_row0) * s.S * wt / 8);
      t.operand = Operand::Stationary;
      part = spad::Partition::Filter;
      break;
    case RsTransfer::Ifmap:
      addr = tensors_.ifmap +
             uint64_t((((p.group * s.N + p.image0) * s.C + p.channel0) * s.H + s.U * p.row0 + p.filter_row0) * s.W * act / 8);
      t.operand = Operand::Stream;
      break;
    case RsTransfer::Ofmap:
      addr = tensors_.ofmap + uint64_t((((p.group * s.N + p.image0) * s.M + p.filter0) * s.E() + p.row0) * s.F() * act / 8);
      t.operand = Operand::Output;
      t.write = true;
      part = spad::Partition::Ofmap;
      break;
  }
  // A block that is not contiguous in the tensor is read as one run from its first value, kept
  // inside the tensor (the HBM model needs its addresses, not its values).
  const int64_t tensor_bits = kind == RsTransfer::Filters ? s.groups * s.M * s.C * s.R * s.S * wt
                              : kind == RsTransfer::Ifmap ? s.groups * s.N * s.C * s.H * s.W * act
                                                          : s.groups * s.N * s.M * s.E() * s.F() * act;
  const uint64_t base = kind == RsTransfer::Filters ? tensors_.filters : kind == RsTransfer::Ifmap ? tensors_.ifmap : tensors_.ofmap;
  // Blocks lie on kBlockAlign boundaries and move whole ones, as the tiled layout's do, so every
  // DMA request covers whole HBM bursts (the bytes counted at every level are the same).
  t.bytes = padded_block(t.bytes);
  const int64_t room = std::max<int64_t>(0, padded_block((tensor_bits + 7) / 8) - t.bytes);
  t.hbm_addr = std::min(addr, base + uint64_t(room)) / kBlockAlign * kBlockAlign;
  RsTransfer r;
  r.kind = kind;
  r.pass = int64_t(pass);
  r.bytes = t.bytes;
  r.issue = std::max(earliest, layer_start_);
  transfers_.push_back(r);
  ids_.push_back(group_->dma().enqueue(cluster_, t, part, r.issue, group_->step()));
  return ids_.back();
}

int64_t RsHierarchySource::wait(int id) {
  if (id < 0) return -1;
  const DmaSystem& d = group_->dma();
  group_->wait_for(cluster_, [&d, id] { return d.done(id); });
  return d.transfer(id).done;
}

int64_t RsHierarchySource::ready(size_t pass, const RsPassTiming* previous) {
  const RsPassTraffic traffic = rs_pass_traffic(plan_, plan_.passes[pass]);
  // As RsChannel: the filters from the previous pass's start (prefetch buffer), the previous
  // pass's ofmaps and this pass's ifmap block from the previous pass's last MAC.
  const int filters = move(RsTransfer::Filters, pass, traffic.filter_bits, previous ? previous->start : layer_start_);
  const int64_t after = previous ? previous->compute_end + 1 : layer_start_;
  if (previous) move(RsTransfer::Ofmap, pass - 1, rs_pass_traffic(plan_, plan_.passes[pass - 1]).ofmap_bits, after);
  const int ifmap = move(RsTransfer::Ifmap, pass, traffic.ifmap_bits, after);
  Asked asked{after, {}};
  for (int id : {filters, ifmap})
    if (id >= 0) asked.reads.push_back(id);
  asked_.push_back(asked);
  return std::max({layer_start_, wait(filters), wait(ifmap)});
}

int64_t RsHierarchySource::drain(const RsPassTiming& last) {
  const size_t pass = plan_.passes.size() - 1;
  drain_write_ = move(RsTransfer::Ofmap, pass, rs_pass_traffic(plan_, plan_.passes[pass]).ofmap_bits,
                      last.compute_end + 1);
  int64_t end = -1;
  for (size_t k = 0; k < ids_.size(); ++k) {  // every write back, and the transfers' cycles for the report
    end = std::max(end, wait(ids_[k]));
    const TransferState& s = group_->dma().transfer(ids_[k]);
    transfers_[k].start = s.first_issue;
    transfers_[k].end = s.done;
  }
  return end;
}

std::map<std::string, int64_t> RsHierarchySource::explain(const RsLayerTiming& t) const {
  std::map<std::string, int64_t> causes;
  const DmaSystem& d = group_->dma();
  for (size_t p = 0; p < asked_.size() && p < t.passes.size(); ++p)
    if (t.passes[p].start > asked_[p].free_from && !asked_[p].reads.empty())
      explain_transfers(d, cluster_, asked_[p].reads, asked_[p].free_from, t.passes[p].start, causes);
  if (t.memory_end > t.array_end && drain_write_ >= 0)
    explain_transfers(d, cluster_, {drain_write_}, t.array_end + 1, t.memory_end + 1, causes);
  return causes;
}

HierarchyLayerStats RsHierarchySource::stats() const {
  HierarchyLayerStats s;
  s.shared = group_->stats();
  const DmaStats& d = group_->dma().stats(cluster_);
  s.dma_bytes_delivered = d.bytes_delivered - dma_base_.bytes_delivered;
  s.dma_bytes_sent = d.bytes_sent - dma_base_.bytes_sent;
  s.dma_requests = d.requests - dma_base_.requests;
  s.dma_pieces = d.pieces - dma_base_.pieces;
  for (spad::Partition p : spad::kAllPartitions) {
    const spad::PartitionStats ps = group_->spad(cluster_).stats(p) - spad_base_[size_t(p)];
    s.spad_bytes_written += ps.dma_bytes_written;
    s.spad_bytes_read += ps.dma_bytes_read;
    s.spad_conflict_cycles += ps.conflict_cycles;
  }
  return s;
}

}  // namespace cstsim
