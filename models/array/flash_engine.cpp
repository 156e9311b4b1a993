// Flash attention on the array and the vector unit (plan/flash_kernel.h): the cluster's thread runs
// the kernel's tiles in order, the array's GEMMs timed by the closed form with their operands on
// chip and the online softmax booked on the vector unit, while the DMA brings each step's Q, K
// and V blocks from HBM one step ahead and writes each query block's output back.
#include <algorithm>

#include "core/registry.h"
#include "models/array/array_module.h"
#include "models/memory/cluster_memory.h"
#include "models/array/array_stats.h"
#include "models/array/array_trace.h"
#include "models/array/fold_timing.h"
#include "models/dma/explain_wait.h"
#include "models/vector/vector_unit.h"

namespace cstsim {

int64_t ArrayModule::run_tile_gemm(int64_t M, int64_t N, int64_t K, int64_t start, FlashKernelResult& r) {
  const AcceleratorSpec& a = params_.spec;
  const FoldPlan plan = make_fold_plan(a.array.dataflow, a.array.rows, a.array.cols, M, N, K, a.array.precision.pack);
  const LayerTiming timing = compute_layer_timing(plan, a.fold_pipeline, start);
  if (sink_) {  // ahead of time, as a layer's folds are: nothing the trace has made final
    book_pass_work(*sink_, trace_ids_, start, plan);
    sink_->add(start, trace_ids_.busy, 1);
    for (size_t g = 0; g < plan.folds.size(); ++g)
      announce_fold(*sink_, trace_ids_, plan, a.fold_pipeline, plan.folds[g], timing.folds[g]);
    sink_->add(timing.end + 1, trace_ids_.busy, -1);
  }
  r.macs += compute_layer_stats(plan).macs;
  r.array_cycles += timing.end + 1 - start;
  return timing.end + 1;
}

namespace {

FlashKernelResult run_flash_kernel(ArrayModule& array, StepContext& context, const FlashKernelPlan& k, int64_t start) {
  const AcceleratorSpec& a = array.params().spec;
  VectorUnitModule* unit = context.part<VectorUnitModule>();
  if (!unit) throw std::logic_error("a flash kernel was planned for an array without a vector unit");
  const int cluster = context.cluster();
  const bool record = array.sink() != nullptr;
  FlashKernelResult r;
  r.name = r.vector.name = k.name;
  r.start_cycle = r.vector.start_cycle = start;
  r.end_cycle = start - 1;
  r.has_hierarchy = a.memory == MemoryMode::Hierarchy;
  std::shared_ptr<MemoryGroup> group = r.has_hierarchy ? context.part<ClusterMemory>()->group(false) : nullptr;
  DmaSystem* dma = group ? &group->dma() : nullptr;

  // This cluster's (batch, head) groups, and their steps in order: per query block, the key
  // blocks it sees.
  struct TileStep {
    int64_t group, q, kv;
    bool first, last;  // of its query block
    bool loads_kv;     // brings K and V: every step, or (kv_resident) the first of a KV head
  };
  std::vector<TileStep> steps;
  const int64_t g0 = k.groups() * cluster / a.clusters, g1 = k.groups() * (cluster + 1) / a.clusters;
  const int64_t share = k.heads / k.kv_heads;
  auto kv_group = [&](int64_t g) { return (g / k.heads) * k.kv_heads + (g % k.heads) / share; };
  int64_t on_chip = -1;  // the KV head whose K and V are on chip
  for (int64_t g = g0; g < g1; ++g)
    for (int64_t i = 0; i < k.q_blocks(); ++i) {
      std::vector<int64_t> seen;
      for (int64_t j = 0; j < k.kv_blocks(); ++j)
        if (k.sees(i, j)) seen.push_back(j);
      for (size_t n = 0; n < seen.size(); ++n) {
        const bool load = !k.kv_resident || kv_group(g) != on_chip;
        on_chip = kv_group(g);
        steps.push_back({g, i, seen[n], n == 0, n + 1 == seen.size(), load});
      }
    }
  r.idle = steps.empty();

  const int64_t e = k.element_bytes, d = k.d;
  std::vector<std::vector<int>> reads(steps.size());
  std::vector<int> writes;
  auto enqueue_reads = [&](size_t s, int64_t earliest) {
    const TileStep& st = steps[s];
    auto read = [&](uint64_t from, int64_t bytes, spad::Partition p) {
      reads[s].push_back(dma->enqueue(cluster, kernel_transfer(from, bytes, false), p,
                                      std::max(earliest, dma->to_acc(dma->now())), group->step()));
    };
    if (st.first)  // Q_i of its (batch, head) piece, rows laid one after another
      read(k.q_addr + uint64_t((st.group * k.Sq + st.q * k.q_block) * d * e), k.q_rows(st.q) * d * e,
           spad::Partition::Filter);
    if (st.loads_kv)
      for (uint64_t base : {k.k_addr, k.v_addr})
        read(base + uint64_t((kv_group(st.group) * k.Skv + st.kv * k.kv_block) * d * e), k.kv_rows(st.kv) * d * e,
             spad::Partition::Ifmap);
  };
  auto all_done = [&](const std::vector<int>& ids) {
    return std::all_of(ids.begin(), ids.end(), [&](int id) { return dma->done(id); });
  };

  KernelTrace trace(context, record ? group.get() : nullptr, unit->period());
  int64_t written = -1;  // the last cycle of the write-backs retired so far
  auto retire_written = [&](int64_t before) {  // write-backs finished before it go on the trace, forgotten
    auto pending = std::partition(writes.begin(), writes.end(),
                                  [&](int id) { return !dma->done(id) || dma->transfer(id).done >= before; });
    std::vector<int> finished(pending, writes.end());
    for (int id : finished) written = std::max(written, dma->transfer(id).done);
    writes.erase(pending, writes.end());
    unit->retire(*dma, finished, record);
  };
  if (dma && !steps.empty()) enqueue_reads(0, start);
  int64_t t = start;  // the array and the vector unit take turns from here
  for (size_t s = 0; s < steps.size(); ++s) {
    const TileStep& st = steps[s];
    int64_t begin = t;
    if (dma) {
      group->wait_for(cluster, [&] { return all_done(reads[s]); });
      for (int id : reads[s]) begin = std::max(begin, dma->transfer(id).done);
      if (begin > t) explain_transfers(*dma, cluster, reads[s], t, begin, r.stalls);
      unit->retire(*dma, reads[s], record);
      if (s + 1 < steps.size()) enqueue_reads(s + 1, begin);  // the next step's blocks load meanwhile
      group->forget_history(cluster, begin);
      retire_written(begin);
      int64_t before = begin;  // what this kernel may still book before it: its unretired transfers
      for (int id : writes) before = std::min(before, dma->transfer(id).earliest);
      if (s + 1 < steps.size())
        for (int id : reads[s + 1]) before = std::min(before, dma->transfer(id).earliest);
      trace.announced_before(before);
    }
    r.waiting_cycles += begin - t;
    const int64_t q = k.q_rows(st.q), c = k.kv_rows(st.kv);
    t = array.run_tile_gemm(q, c, d, begin, r);  // S = Q_i K_j^T
    // Online softmax per row: scale (c multiplies), running max, s - m and the row's sum (3c adds),
    // exp(s - m) (c), the correction exp(m_old - m) (an add and an exp) applied to the running sum (a
    // multiply and an add) and to the partial output (d multiplies).
    const std::array<int64_t, 3> softmax = {q * (3 * c + 2), q * (c + d + 1), q * (c + 1)};
    t += unit->book_tile(softmax, q * c * 4, q * c * e, t, record, r.vector);
    t = array.run_tile_gemm(q, d, c, t, r);  // O_i += P V_j
    ++r.tiles;
    if (!st.last) continue;
    t += unit->book_tile({0, q * d, q}, q * d * 4, q * d * e, t, record, r.vector);  // O_i / l
    if (dma)
      writes.push_back(dma->enqueue(cluster,
                                    kernel_transfer(k.o_addr + uint64_t((st.group * k.Sq + st.q * k.q_block) * d * e),
                                                    q * d * e, true),
                                    spad::Partition::Ofmap, std::max(t, dma->to_acc(dma->now())), group->step()));
  }
  r.end_cycle = t - 1;
  if (dma) {
    group->wait_for(cluster, [&] { return all_done(writes); });
    written = std::max(written, r.end_cycle);
    for (int id : writes) written = std::max(written, dma->transfer(id).done);
    if (written > r.end_cycle) {  // the last outputs' write-back outlasts the compute
      explain_transfers(*dma, cluster, writes, r.end_cycle + 1, written + 1, r.stalls);
      r.end_cycle = written;
    }
    unit->retire(*dma, writes, record);
    group->done(cluster);
  }
  r.vector.end_cycle = r.end_cycle;
  r.shared = end_kernel_memory(context, group.get(), !r.idle, r.end_cycle);
  return r;
}

}  // namespace

// Flash attention: its tile GEMMs on this cluster's array, its online softmax on the vector unit.
class FlashEngine : public IStepEngine {
 public:
  StepOutcome run(const Step& step, int64_t start, StepContext& context) override {
    ArrayModule* array = context.part<ArrayModule>();
    if (!array) throw std::logic_error("a flash kernel on a cluster without an array");
    FlashKernelResult r = run_flash_kernel(*array, context, step.as<FlashKernelStep>()->kernel, start);
    const int64_t end = r.end_cycle;
    return {end, std::move(r)};
  }
};
CSTSIM_REGISTER(IStepEngine, FlashEngine, "flash")

}  // namespace cstsim
