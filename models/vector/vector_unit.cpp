#include "models/vector/vector_unit.h"

#include <algorithm>
#include <cmath>

#include <numeric>

#include "core/interval.h"
#include "models/base/stall_causes.h"
#include "models/dma/explain_wait.h"

namespace cstsim {

struct VectorUnitModule::Job {
  const VectorKernelPlan* kernel = nullptr;
  int64_t start = 0;
  MemoryGroup* group = nullptr;
  MemoryGroup* mirror = nullptr;
  int cluster = 0, clusters = 1;
  KernelTrace* trace = nullptr;
};

DmaTransfer kernel_transfer(uint64_t from, int64_t bytes, bool write) {
  DmaTransfer t;  // whole bursts: the aligned run that covers the bytes
  t.operand = write ? Operand::Output : Operand::Stream;
  t.write = write;
  t.hbm_addr = from / kBlockAlign * kBlockAlign;
  t.bytes = int64_t((from + uint64_t(bytes) + kBlockAlign - 1) / kBlockAlign * kBlockAlign - t.hbm_addr);
  return t;
}

VectorUnitModule::VectorUnitModule(sc_core::sc_module_name name, VectorParams params, double clock_hz)
    : sc_module(name), params_(params) {
  period_ = sc_core::sc_time(std::round(1e12 / clock_hz), sc_core::SC_PS);
  SC_THREAD(guarded_run);
}

void VectorUnitModule::declare(trace::TraceSink& sink, const std::string& prefix, bool hierarchy) {
  sink_ = &sink;
  lanes_busy_ = sink.declare({0, prefix + "vector.lanes_busy", trace::ResourceClass::Compute, "lane", params_.lanes,
                              "vector", "", "", ""});
  for (int c = 0; c < kVectorClasses; ++c)
    op_actions_[size_t(c)] = sink.declare_action(std::string("vector.") + to_string(VectorClass(c)), "op");
  spad_read_ = sink.declare_action("sram.read.vector", "byte");
  spad_write_ = sink.declare_action("sram.write.vector", "byte");
  if (!hierarchy) return;
  hbm_read_ = sink.declare_action("hbm.read.kernel", "byte");  // the kernels' traffic (vector, flash attention)
  hbm_write_ = sink.declare_action("hbm.write.kernel", "byte");
  dma_spad_write_ = sink.declare_action("sram.write.dma", "byte");
  dma_spad_read_ = sink.declare_action("sram.read.dma", "byte");
}

int64_t VectorUnitModule::tile_cycles(const std::array<int64_t, 3>& ops, int64_t bytes) const {
  int64_t compute = 0;
  for (int c = 0; c < kVectorClasses; ++c) {
    const double per_cycle = double(params_.lanes) * params_.per_lane[size_t(c)];
    compute += int64_t(std::ceil(double(ops[size_t(c)]) / per_cycle));
  }
  const int64_t ports = (bytes + params_.port_bytes - 1) / params_.port_bytes;
  return std::max<int64_t>({compute, ports, 1});
}

int64_t VectorUnitModule::book_tile(const std::array<int64_t, 3>& ops, int64_t in_bytes, int64_t out_bytes,
                                    int64_t begin, bool record, VectorKernelResult& r) const {
  const int64_t cycles = tile_cycles(ops, in_bytes + out_bytes);
  trace::TraceSink* sink = record ? sink_ : nullptr;
  r.compute_cycles += cycles;
  double lane_cycles = 0;
  for (int c = 0; c < kVectorClasses; ++c) {
    r.ops[size_t(c)] += ops[size_t(c)];
    lane_cycles += double(ops[size_t(c)]) / params_.per_lane[size_t(c)];
    if (sink && ops[size_t(c)] > 0) sink->count(begin, op_actions_[size_t(c)], ops[size_t(c)]);
  }
  r.lane_cycles += int64_t(std::ceil(lane_cycles));
  r.spad_bytes_read += in_bytes;
  r.spad_bytes_written += out_bytes;
  if (sink) {
    // The lanes the tile keeps busy on average over its cycles (its lane-cycles spread evenly).
    const int64_t busy = std::min<int64_t>(params_.lanes, int64_t(std::ceil(lane_cycles / double(cycles))));
    sink->set(begin, lanes_busy_, busy);
    sink->set(begin + cycles, lanes_busy_, 0);
    if (in_bytes > 0) sink->count(begin, spad_read_, in_bytes);
    if (out_bytes > 0) sink->count(begin + cycles - 1, spad_write_, out_bytes);
  }
  return cycles;
}

void VectorUnitModule::retire(DmaSystem& dma, std::vector<int>& ids, bool record) const {
  for (int id : ids) {
    const TransferState& s = dma.transfer(id);
    if (record && sink_) {
      for (const auto& [cycle, bytes] : s.at_hbm) sink_->count(cycle, s.what.write ? hbm_write_ : hbm_read_, bytes);
      for (const auto& [cycle, bytes] : s.at_spad) sink_->count(cycle, s.what.write ? dma_spad_read_ : dma_spad_write_, bytes);
    }
    dma.forget_transfer(id);
  }
  ids.clear();
}

VectorKernelResult VectorUnitModule::execute(const VectorKernelPlan& k, int64_t start, MemoryGroup* group,
                                             MemoryGroup* mirror, int cluster, int clusters, KernelTrace* trace) {
  const Job job{&k, start, group, mirror, cluster, clusters, trace};
  job_ = &job;
  start_.notify(sc_core::SC_ZERO_TIME);
  wait(done_);
  job_ = nullptr;
  return result_;
}

void VectorUnitModule::run() {
  for (;;) {
    wait(start_);
    const Job& job = *job_;
    // The register grids' memory system sees the same traffic (nothing of it traced).
    if (job.mirror) simulate(job, job.mirror, false);
    result_ = simulate(job, job.group, sink_ != nullptr);
    const sc_core::sc_time end = period_ * double(result_.end_cycle + 1);
    if (end > sc_core::sc_time_stamp()) wait(end - sc_core::sc_time_stamp());
    done_.notify(sc_core::SC_ZERO_TIME);
  }
}

VectorKernelResult VectorUnitModule::simulate(const Job& job, MemoryGroup* group, bool record) {
  KernelTrace* trace = record ? job.trace : nullptr;
  const VectorKernelPlan& k = *job.kernel;
  const int64_t first = k.tiles() * job.cluster / job.clusters, last = k.tiles() * (job.cluster + 1) / job.clusters;
  VectorKernelResult r;
  r.name = k.name;
  r.start_cycle = job.start;
  r.end_cycle = job.start - 1;
  r.tiles = last - first;
  r.has_hierarchy = group != nullptr;
  if (first == last) {
    r.idle = true;
    if (group) group->done(job.cluster);
    return r;
  }
  DmaSystem* dma = group ? &group->dma() : nullptr;
  const int n = int(last - first);
  // fidelity: sampled: which tiles are simulated (Detail), measured, or skipped.
  enum class Role : uint8_t { Detail, Measured, Skipped };
  std::vector<Role> role(size_t(n), Role::Detail);
  std::vector<int> window_of(size_t(n), -1), warmup_of(size_t(n), -1), cooldown_of(size_t(n), -1);
  // After its unit a window simulates the tile whose reads the double buffer fetches during the
  // unit's last (kCool), unmeasured: without it that tile would have the memory to itself, as no
  // stream's does (SampledSource's cool-down).
  constexpr int kHead = 4, kTail = 4, kWarm = 4, kUnit = 8, kCool = 1, kLen = kWarm + kUnit + kCool;
  if (dma && !record && job.clusters == 1 && sample_min_tiles_ > 0 && n >= sample_min_tiles_) {
    const int body = n - kHead - kTail - kWarm;
    const std::vector<int64_t> starts = window_starts(kHead, body, kLen, 0.08, 6, 24, 0x9E3779B97F4A7C15ull + uint64_t(n));
    const int windows = int(starts.size());
    if (windows >= 4) {
      std::fill(role.begin() + kHead, role.begin() + kHead + body, Role::Skipped);
      for (int i = 0; i < windows; ++i) {
        const int at = int(starts[size_t(i)]);
        for (int t = at; t < at + kLen; ++t) {
          const bool measured = t >= at + kWarm && t < at + kWarm + kUnit;
          role[size_t(t)] = measured ? Role::Measured : Role::Detail;
          (measured ? window_of : t < at + kWarm ? warmup_of : cooldown_of)[size_t(t)] = i;
        }
      }
      r.sampling = VectorKernelResult::Sampling{};
      r.sampling->tiles = n;
      r.sampling->windows = windows;
    }
  }
  auto skipped = [&](int t) { return t < n && role[size_t(t)] == Role::Skipped; };
  std::vector<double> window_sum(r.sampling ? size_t(r.sampling->windows) : 0, 0.0);
  std::vector<int> window_n(window_sum.size(), 0);
  // A window's warm-up begins with the memory at rest and waits less than a steady stream: what it
  // took less than its window's mean is owed by the skipped tiles after it, and as much again as the
  // windows' mean by the last span, for the tail's warm-up to come.
  std::vector<double> warm_sum(window_sum.size(), 0.0), deficits;
  std::vector<int> warm_n(window_sum.size(), 0);
  std::vector<double> cool_sum(window_sum.size(), 0.0);  // the cool-downs, owed as the warm-ups are
  std::vector<int> cool_n(window_sum.size(), 0);
  double settle = 0;  // extra cycles each tile of the current skipped span owes
  StallCauses measured_causes;  // of the measured tiles' waits: how a skipped tile's is split
  int64_t max_wait = 0;
  double carry = 0;
  auto mean_wait = [&] {
    double sum = 0;
    int k = 0;
    for (size_t i = 0; i < window_sum.size(); ++i)
      if (window_n[i] > 0) sum += window_sum[i] / window_n[i], ++k;
    if (k == 0) throw std::logic_error("vector unit: a tile skipped before any window was measured");
    return sum / k;
  };
  // Per local tile: its reads and its write-backs (DMA ids); the once-read operands.
  std::vector<std::vector<int>> reads(static_cast<size_t>(n)), writes(static_cast<size_t>(n));
  std::vector<int> once;
  auto transfer_of = [&](const VectorOperandPlan& o, int64_t tile, bool write) {  // tile < 0: the once-read part
    const bool whole = tile < 0;
    const uint64_t from = o.addr + (whole ? 0 : uint64_t((first + tile) * k.tile_rows * o.row_bytes));
    const int64_t bytes = whole ? o.once_bytes : k.rows_of(first + tile) * o.row_bytes;
    return kernel_transfer(from, bytes, write);
  };
  auto transfer = [&](const VectorOperandPlan& o, int64_t tile, bool write, int64_t earliest) {
    const bool whole = tile < 0;
    const DmaTransfer t = transfer_of(o, tile, write);
    const spad::Partition p = write ? spad::Partition::Ofmap : whole ? spad::Partition::Filter : spad::Partition::Ifmap;
    return dma->enqueue(job.cluster, t, p, std::max(earliest, dma->to_acc(dma->now())), group->step());
  };
  auto enqueue_reads = [&](int64_t tile, int64_t earliest) {
    for (const VectorOperandPlan& o : k.reads)
      if (o.row_bytes > 0) reads[size_t(tile)].push_back(transfer(o, tile, false, earliest));
  };
  auto done_at = [&](const std::vector<int>& ids) {
    int64_t at = 0;
    for (int id : ids) {
      if (!dma->done(id)) return int64_t(-1);
      at = std::max(at, dma->transfer(id).done);
    }
    return at;
  };
  auto retire = [&](std::vector<int>& ids) { this->retire(*dma, ids, record); };

  std::vector<char> enqueued(size_t(n), 0);  // tile t's reads are in
  auto enqueue_reads_of = [&](int tile, int64_t earliest) {
    if (tile >= n || enqueued[size_t(tile)] || skipped(tile)) return;
    enqueued[size_t(tile)] = 1;
    enqueue_reads(tile, earliest);
  };
  if (dma) {
    for (const VectorOperandPlan& o : k.reads)
      if (o.once_bytes > 0) once.push_back(transfer(o, -1, false, job.start));
    enqueue_reads_of(0, job.start);
    enqueue_reads_of(1, job.start);
  }
  int64_t cursor = job.start;  // the lanes are free from here
  for (int t = 0; t < n; ++t) {
    const int64_t rows = k.rows_of(first + t);
    int64_t begin = cursor;
    if (skipped(t)) {
      if (!skipped(t - 1)) {  // a window ends: its write-backs drain, the memory comes to rest
        int span = 0;
        while (skipped(t + span)) ++span;
        double owed = 0;
        // A window ends with its cool-down tile (the head with none).
        if (const int w = cooldown_of[size_t(t - 1)]; w >= 0 && window_n[size_t(w)] > 0) {
          const double mean = window_sum[size_t(w)] / window_n[size_t(w)];
          deficits.push_back(mean * warm_n[size_t(w)] - warm_sum[size_t(w)]);
          owed = deficits.back() + mean * cool_n[size_t(w)] - cool_sum[size_t(w)];
        }
        const bool last_span = std::find(role.begin() + t + span, role.end(), Role::Measured) == role.end();
        if (last_span && !deficits.empty())
          owed += std::accumulate(deficits.begin(), deficits.end(), 0.0) / double(deficits.size());
        settle = owed / span;
        std::vector<int> open;
        for (int u = std::max(0, t - 2); u < t; ++u) open.insert(open.end(), writes[size_t(u)].begin(), writes[size_t(u)].end());
        group->wait_for(job.cluster, [&] { return done_at(open) >= 0; });
        for (int u = std::max(0, t - 2); u < t; ++u) retire(writes[size_t(u)]);
      }
      // The windows' mean wait for its operands; its transfers' bytes, exactly.
      const double w = carry + mean_wait() + settle;
      const int64_t wait = int64_t(std::floor(w));
      carry = w - double(wait);
      begin = cursor + wait;
      add(r.stalls, split_like(measured_causes, wait, "hbm_bandwidth"));
      for (const VectorOperandPlan& o : k.reads)
        if (o.row_bytes > 0) r.sampling->skipped_read_bytes += transfer_of(o, t, false).bytes;
      for (const VectorOperandPlan& o : k.writes)
        if (o.row_bytes > 0) r.sampling->skipped_written_bytes += transfer_of(o, t, true).bytes;
    } else if (dma) {
      enqueue_reads_of(t, cursor);  // after a skipped span: the window's first reads
      enqueue_reads_of(t + 1, cursor);
      std::vector<int> need = reads[size_t(t)];
      if (t == 0) need.insert(need.end(), once.begin(), once.end());
      if (t >= 2) need.insert(need.end(), writes[size_t(t - 2)].begin(), writes[size_t(t - 2)].end());
      group->wait_for(job.cluster, [&] { return done_at(need) >= 0; });
      begin = std::max(begin, done_at(need));
      if (begin > cursor) {
        StallCauses causes;
        explain_transfers(*dma, job.cluster, need, cursor, begin, causes);
        add(r.stalls, causes);
        if (role[size_t(t)] == Role::Measured) add(measured_causes, causes);
      }
      if (const int w = window_of[size_t(t)]; w >= 0) {
        window_sum[size_t(w)] += double(begin - cursor);
        ++window_n[size_t(w)];
        max_wait = std::max(max_wait, begin - cursor);
      } else if (const int e = warmup_of[size_t(t)]; e >= 0) {
        warm_sum[size_t(e)] += double(begin - cursor);
        ++warm_n[size_t(e)];
      } else if (const int c = cooldown_of[size_t(t)]; c >= 0) {
        cool_sum[size_t(c)] += double(begin - cursor);
        ++cool_n[size_t(c)];
      }
      retire(reads[size_t(t)]);
      if (t >= 2) retire(writes[size_t(t - 2)]);
      if (t == 0) retire(once);
      if (trace) {  // what this kernel may still book before `begin`: its transfers not yet retired
        int64_t before = begin;
        for (int u = t + 1; u < std::min(n, t + 3); ++u)
          for (int id : reads[size_t(u)]) before = std::min(before, dma->transfer(id).earliest);
        for (int u = std::max(0, t - 2); u <= t; ++u)
          for (int id : writes[size_t(u)]) before = std::min(before, dma->transfer(id).earliest);
        trace->announced_before(before);
      }
    }
    r.waiting_cycles += begin - cursor;
    std::array<int64_t, 3> ops{};
    for (int c = 0; c < kVectorClasses; ++c) ops[size_t(c)] = rows * k.ops_per_row[size_t(c)];
    const int64_t cycles = book_tile(ops, rows * k.row_read_bytes(), rows * k.row_written_bytes(), begin, record, r);
    cursor = begin + cycles;
    if (dma && !skipped(t)) {
      for (const VectorOperandPlan& o : k.writes)
        if (o.row_bytes > 0) writes[size_t(t)].push_back(transfer(o, t, true, cursor));
      enqueue_reads_of(t + 2, cursor);  // tile t's slots are free
      group->forget_history(job.cluster, begin);  // nothing asks how earlier requests went
    }
  }
  if (r.sampling) {  // the interval: the window means', and the tail's warm-up settled in advance
    VectorKernelResult::Sampling& s = *r.sampling;
    std::vector<double> means;
    for (size_t i = 0; i < window_sum.size(); ++i)
      if (window_n[i] > 0) means.push_back(window_sum[i] / window_n[i]);
    for (Role x : role) {
      s.detailed_tiles += x != Role::Skipped;
      s.measured_tiles += x == Role::Measured;
    }
    s.mean_wait = mean_variance(means).first;
    s.ci95_cycles = std::hypot(window_ci95(means, double(s.tiles - s.detailed_tiles), s.measured_tiles, double(max_wait),
                                           &s.degenerate),
                               shortfall_ci95(deficits));
  }
  r.compute_cycles += params_.latency;
  r.end_cycle = cursor + params_.latency - 1;  // its last results are out
  if (dma) {
    std::vector<int> left;
    for (int t = std::max(0, n - 2); t < n; ++t) left.insert(left.end(), writes[size_t(t)].begin(), writes[size_t(t)].end());
    group->wait_for(job.cluster, [&] { return done_at(left) >= 0; });
    if (done_at(left) > r.end_cycle) {  // the last write-backs outlast the results
      explain_transfers(*dma, job.cluster, left, r.end_cycle + 1, done_at(left) + 1, r.stalls);
      r.end_cycle = done_at(left);
    }
    for (int t = std::max(0, n - 2); t < n; ++t) retire(writes[size_t(t)]);
    group->done(job.cluster);
  }
  return r;
}

}  // namespace cstsim
