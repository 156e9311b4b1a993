#include "models/array/array_module.h"
#include "models/interconnect/chip_set.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "models/array/fold_timing.h"
#include "models/array/gemm_data.h"
#include "models/array/reference_check.h"
#include "models/array/register_array.h"
#include "models/array/array_dataflow.h"
#include "models/array/stall_causes.h"
#include "models/array/structural/structural_pass.h"

namespace cstsim {

ArrayModule::ArrayModule(sc_core::sc_module_name name, ArrayParams params, const Plan& plan,
                         ArrayListener* listener, trace::TraceSink* sink)
    : sc_module(name), params_(std::move(params)), plan_(plan), listener_(listener), sink_(sink) {
  if (sink_ && params_.spec.array.dataflow == Dataflow::RS) {
    const AcceleratorSpec& a = params_.spec;
    const RsTraceShape shape{a.array.rows, a.array.cols, a.array.precision, a.rs.filter_spad, a.rs.ifmap_spad,
                             a.rs.psum_spad, a.memory == MemoryMode::Channel, a.memory != MemoryMode::Ideal,
                             a.array.gates_zeros};
    rs_trace_ids_ = declare_rs_trace(*sink_, shape, params_.trace_name);
  } else if (sink_) {
    const AcceleratorSpec& a = params_.spec;
    // Layers whose stored words differ from the run's (an operator graph's dtypes).
    std::vector<LayerWordBits> widths;
    const Precision& p = a.array.precision;
    for (size_t i = 0; i < plan_.layers.size(); ++i) {
      const PassPlan& first = plan_.layers[i].clusters.front().passes.front();
      if (first.a_word_bits != p.word_bits(false) || first.b_word_bits != p.word_bits(true))
        widths.push_back({int(i), first.a_word_bits, first.b_word_bits});
    }
    trace_ids_ = declare_array_trace(*sink_, a.array, params_.trace_name, widths);
    // The memory side's modules declare their own (models/accelerator/memory_modules.h).
  }
  // SystemC time only orders the processes; cycles are counted as integers.
  period_ = sc_core::sc_time(std::round(1e12 / params_.spec.clock_hz), sc_core::SC_PS);
  SC_THREAD(guarded_run);
}

void ArrayModule::wait_until(int64_t cycle) { wait_until(cycle, cycle); }

void ArrayModule::wait_until(int64_t cycle, int64_t mark) {
  ClusterSet* set = params_.cluster_set;
  if (set) set->trace_mark(params_.cluster, mark);  // it has announced what lies before it
  const sc_core::sc_time target = period_ * double(cycle);
  if (target > sc_core::sc_time_stamp()) wait(target - sc_core::sc_time_stamp());
  // With clusters the trace is final only up to the slowest one's mark: one still waiting for
  // its data has not yet announced what its own memory did meanwhile. With chips, likewise the
  // slowest chip's.
  int64_t final_before = set ? set->trace_time() : cycle;
  if (params_.chips) {  // what this chip has announced, as its clusters would mark it
    params_.chips->trace_mark(params_.chip, set ? final_before : mark);
    final_before = params_.chips->trace_time();
  }
  if (sink_) sink_->advance(final_before);
  if (params_.position) params_.position->advance(cycle);
}

void ArrayModule::run() {
  int64_t start = 0;
  results_.reserve(plan_.layers.size());
  ClusterSet* set = params_.cluster_set;
  const AcceleratorSpec& a = params_.spec;
  int step = 0;  // (layer, pass) in order: the clusters' shared memory and barriers are per step
  std::vector<const PassPlan*> order;  // this cluster's passes in run order
  for (const LayerPlan& L : plan_.layers)
    for (const PassPlan& p : L.clusters[size_t(params_.cluster)].passes) order.push_back(&p);
  size_t pass_index = 0;  // into order
  // The kernels that run before layer `layer` (after the last one: layers.size()), each a step.
  auto run_kernels = [&](size_t layer) {
    for (const KernelRef& kernel : kernels_before(plan_, layer)) {
      // On the trace the kernels before a layer belong to it (after the last one, to the last one).
      if (sink_ && layer < plan_.layers.size()) sink_->begin_layer(int(layer), plan_.layers[layer].name, start);
      int64_t end = 0;
      if (kernel.collective) {  // every chip meets the others; its other clusters wait at the barrier below
        if (!params_.chips) throw std::logic_error("a collective in a plan run on one chip");
        // (No wait_until here: the chip's mark stays what its memory has announced, which the next
        // step's first wait moves on.)
        const int id = plan_.collectives[kernel.index].id;
        end = params_.cluster == 0 ? params_.chips->collective(params_.chip, id >= 0 ? size_t(id) : kernel.index, start)
                                   : start - 1;
      } else if (kernel.flash) {
        flash_results_.push_back(run_flash_kernel(plan_.flash_kernels[kernel.index], step, start));
        end = flash_results_.back().end_cycle;
      } else {
        vector_results_.push_back(run_vector_kernel(plan_.vector_kernels[kernel.index], step, start));
        end = vector_results_.back().end_cycle;
      }
      if (set) end = set->all_finished(step, end);
      if (!set && own_group_) own_group_->begin_step();
      if (!set && own_reference_group_) own_reference_group_->begin_step();
      start = end + 1;
      ++step;
    }
  };
  for (size_t i = 0; i < plan_.layers.size(); ++i) {
    run_kernels(i);
    const LayerPlan& L = plan_.layers[i];
    const ClusterLayerPlan& mine = L.clusters[size_t(params_.cluster)];
    if (params_.position) params_.position->at(int(i), start);
    std::vector<ArrayLayerResult> parts;
    for (size_t p = 0; p < mine.passes.size(); ++p, ++step, ++pass_index) {
      const PassPlan& pass = mine.passes[p];
      if (pass.idle()) {  // nothing for this cluster: it waits for the others
        ArrayLayerResult idle;
        idle.shape = {L.name, pass.dims.M, pass.dims.N, pass.dims.K};
        idle.idle = true;
        idle.pass_stalls = {{}};
        idle.start_cycle = start;
        idle.end_cycle = start - 1;
        if (sink_ && p == 0) sink_->begin_layer(int(i), L.name, start);
        if (set && a.memory == MemoryMode::Hierarchy) {
          memory_group(false)->done(params_.cluster);
          if (params_.mode == ArrayMode::Reference) memory_group(true)->done(params_.cluster);
        }
        if (set) set->all_computed(step);
        parts.push_back(idle);
      } else {
        if (params_.position) params_.position->in_pass(int(p), int(mine.passes.size()), 0);
        const PassPlan* next = pass_index + 1 < order.size() ? order[pass_index + 1] : nullptr;
        parts.push_back(run_pass(int(i), step, p == 0, pass, next, start));
      }
      int64_t end = parts.back().end_cycle;
      if (set) end = set->all_finished(step, end);
      if (!set && own_group_) own_group_->begin_step();
      if (!set && own_reference_group_) own_reference_group_->begin_step();
      start = end + 1;  // passes and layers run back to back, in order
    }
    if (parts.size() == 1) {
      results_.push_back(std::move(parts.front()));
    } else {
      std::vector<const ArrayLayerResult*> ptrs;
      for (const ArrayLayerResult& r : parts) ptrs.push_back(&r);
      const ClusterShare& share = mine.share;
      results_.push_back(merge_layer_parts(a, {L.name, share.M, share.N, share.K}, ptrs, false));
      results_.back().passes = int(mine.passes.size());
      results_.back().idle = parts.front().idle;
    }
  }
  run_kernels(plan_.layers.size());
  // The run's memory ends with its last cycle: its last word on the trace, by cluster 0 (every
  // cluster has passed the last barrier, so every step's traffic is in).
  if (a.memory == MemoryMode::Hierarchy && params_.cluster == 0) {
    std::shared_ptr<MemoryGroup> group = memory_group(false);
    group->finish(start - 1);
    if (params_.memory_observer) params_.memory_observer->run_finished(*group);
    if (params_.mode == ArrayMode::Reference) memory_group(true)->finish(start - 1);
  }
  wait_until(start);
  end_cycle_ = start;
  finished_ = true;
}

VectorKernelResult ArrayModule::run_vector_kernel(const VectorKernelPlan& k, int step, int64_t start) {
  const AcceleratorSpec& a = params_.spec;
  const bool hierarchy = a.memory == MemoryMode::Hierarchy;
  std::shared_ptr<MemoryGroup> group = hierarchy ? memory_group(false) : nullptr;
  std::shared_ptr<MemoryGroup> mirror = hierarchy && params_.mode == ArrayMode::Reference ? memory_group(true) : nullptr;
  if (!params_.vector_unit) throw std::logic_error("a vector kernel was planned for an array without a vector unit");
  VectorKernelResult r = params_.vector_unit->execute(k, start, group.get(), mirror.get(), params_.cluster, a.clusters);
  r.shared = end_kernel_step(step, group.get(), !r.idle, r.end_cycle);
  return r;
}

SharedStats ArrayModule::end_kernel_step(int step, MemoryGroup* group, bool active, int64_t end) {
  if (params_.cluster_set) params_.cluster_set->all_computed(step);  // the step's memory is final
  SharedStats stats;
  if (group) {
    stats = group->stats();
    if (active && params_.memory_observer) params_.memory_observer->vector_simulated(*group, group->settle(end));
  }
  wait_until(end);
  return stats;
}

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

const std::string& ArrayModule::layer_name(int index) const { return plan_.layers[size_t(index)].name; }

void ArrayModule::publish(int layer, const std::vector<ArrayEvent>& events) {
  if (!listener_) return;
  for (const ArrayEvent& e : events) listener_->on_event(layer, e);
}

std::shared_ptr<MemoryGroup> ArrayModule::memory_group(bool reference) {
  if (params_.cluster_set) return params_.cluster_set->group(reference);
  std::shared_ptr<MemoryGroup>& g = reference ? own_reference_group_ : own_group_;
  if (!g) g = std::make_shared<MemoryGroup>(params_.spec, 1, sink_ != nullptr && !reference, 0, params_.memory_driver, true);
  return g;
}

std::unique_ptr<TileSource> ArrayModule::make_source(const FoldPlan& folds, const PassPlan& pass, int64_t start,
                                                     bool record, bool reference) {
  const AcceleratorSpec& a = params_.spec;
  if (a.memory != MemoryMode::Hierarchy) {  // tiles at the pass's stored widths (an operator graph's dtypes)
    AcceleratorSpec s = a;
    Precision& p = s.array.precision;
    if (pass.a_word_bits != p.word_bits(false)) p.stored_a_bits = pass.a_word_bits / p.pack;
    if (pass.b_word_bits != p.word_bits(true)) p.stored_b_bits = pass.b_word_bits / p.pack;
    return make_tile_source(s, folds, start);
  }
  return std::make_unique<HierarchySource>(a, folds, dma_program(folds, pass), start, record, memory_group(reference),
                                           params_.cluster, reference && params_.cluster_set);
}

void ArrayModule::link_passes(TileSource* source, const PassPlan& pass, const PassPlan* next, Handover& handed) {
  auto* hierarchy = dynamic_cast<HierarchySource*>(source);
  if (!hierarchy) return;
  if (next && !next->prefetch.empty()) {
    const LayerDmaPlan program = dma_program(fold_plan(plan_, *next), *next);
    std::vector<DmaTransfer> reads;
    for (int k : next->prefetch) reads.push_back(program.reads[size_t(k)]);
    hierarchy->add_prefetch(reads);
  }
  if (!pass.prefetch.empty()) hierarchy->adopt_prefetched(pass.prefetch, handed.prefetched);
  hierarchy->adopt_on_chip(pass.on_chip_reads, handed.outputs);
  if (!pass.outputs_on_chip_to.empty())
    hierarchy->keep_outputs_on_chip(spad::partition_named(pass.outputs_on_chip_to), pass.outputs_on_chip_room);
  handed = {};
}

ArrayModule::Handover ArrayModule::handover_of(const TileSource* source) {
  const auto* h = dynamic_cast<const HierarchySource*>(source);
  return h ? Handover{h->prefetched(), h->on_chip_outputs()} : Handover{};
}

ArrayLayerResult ArrayModule::run_pass(int index, int step, bool first_pass, const PassPlan& pass, const PassPlan* next,
                                       int64_t start) {
  if (plan_.layers[size_t(index)].rs) return run_rs_layer(index, start);
  const AcceleratorSpec& a = params_.spec;
  FoldPlan plan = fold_plan(plan_, pass);
  if (const auto& s = plan_.layers[size_t(index)].scalesim; s && s->stall_cycles > 0) {
    if (int64_t(s->stalls_before_fold.size()) != plan.fold_count())
      throw std::logic_error("SCALE-Sim's memory replay has another number of folds than the plan");
    plan.scalesim_stalls = s->stalls_before_fold;
    plan.scalesim_stalls.push_back(s->total_cycles - (plan.fold_count() * array_dataflow(plan.dataflow).scalesim_fold_length(plan) - 1));
  }
  const GemmShape layer{layer_name(index), pass.dims.M, pass.dims.N, pass.dims.K};
  std::unique_ptr<TileSource> channel = make_source(plan, pass, start, sink_ != nullptr, false);
  link_passes(channel.get(), pass, next, handed_);
  if (params_.position) params_.position->folds.store(int(plan.folds.size()), std::memory_order_relaxed);
  auto* hierarchy = dynamic_cast<HierarchySource*>(channel.get());
  // With a trace the memory's part of it is announced fold by fold, as far as the memory has
  // simulated, so the trace holds what is in flight rather than the pass (each cluster its own
  // part and whichever gets there first the shared one; wait_until keeps the trace's clock).
  const bool as_it_goes = hierarchy && sink_ && params_.memory_observer && params_.mode != ArrayMode::Reference;
  if (sink_) {
    if (first_pass) sink_->begin_layer(index, layer.name, start);
    book_pass_work(*sink_, trace_ids_, start, plan);
    sink_->add(start, trace_ids_.busy, 1);
  }
  LayerTiming timing;
  if (as_it_goes) {
    LayerTimer timer(plan, start, channel.get(), params_.position);
    for (int g = 0; !timer.done(); ++g) {
      const FoldTiming& f = timer.next();
      const int64_t final_before = hierarchy->simulate_through(g, timer.load_starts(), f.start);
      params_.memory_observer->memory_until(index, start, *hierarchy, final_before);
      wait_until(f.start, std::min(f.start, final_before - 1));
      announce_fold_as_it_starts(index, plan, g, f);
    }
    timing = timer.finish();
    if (params_.cluster_set) params_.cluster_set->all_computed(step);  // the shared memory is final
  } else {
    timing = compute_layer_timing(plan, a.fold_pipeline, start, channel.get(), params_.position);
    if (params_.cluster_set) params_.cluster_set->all_computed(step);  // the shared memory is final
  }
  if (sink_) sink_->add(timing.end + 1, trace_ids_.busy, -1);
  // The step's traffic is all in and nothing goes on before this pass's end: the memory's
  // record is final up to it (the run's memory goes on into the next step).
  if (params_.memory_observer && hierarchy)
    params_.memory_observer->pass_simulated(index, start, *hierarchy,
                                            hierarchy->group().settle(std::max(timing.end, timing.memory_end)));
  else if (params_.memory_observer && channel)
    params_.memory_observer->tiles_fetched(plan, channel->fetches(), timing);
  ArrayLayerResult r;
  r.shape = layer;
  r.stall_cycles = timing.stall_cycles;
  r.stalls = timing.stall_causes;
  r.ideal_cycles = timing.ideal_cycles;
  r.pass_stalls = {{timing.reported_cycles, timing.ideal_cycles, timing.stall_causes}};
  if (hierarchy) {
    handed_ = handover_of(hierarchy);
    r.has_hierarchy = true;
    r.hierarchy = hierarchy->stats();
    r.dram_bytes = r.hierarchy.shared.hbm_bytes_read;
    r.memory_end = timing.memory_end;
  } else if (channel) {
    for (const auto& f : channel->fetches()) r.dram_bytes += f.bytes;
  }
  r.start_cycle = start;
  r.end_cycle = std::max(timing.end, timing.memory_end);
  r.cycles = timing.reported_cycles;
  for (const FoldTiming& f : timing.folds) r.event_count += 4 + f.output_rows;
  r.stats = compute_layer_stats(plan);

  if (params_.mode == ArrayMode::Reference) {
    std::vector<ArrayEvent> expected;
    append_events(timing, expected);
    if (sink_)
      for (size_t g = 0; g < timing.folds.size(); ++g)
        announce_psum_reads(*sink_, trace_ids_, plan, plan.folds[g], timing.folds[g]);
    run_reference(index, plan, pass, next, start, expected, r);
  } else {
    // Sleep from fold to fold: nothing observable changes between computed events.
    // A fold's events and occupancy are announced when it starts, so memory stays
    // bounded by the folds in flight, not by the run's length.
    if (!as_it_goes)
      for (size_t g = 0; g < timing.folds.size(); ++g) {
        wait_until(timing.folds[g].start);
        announce_fold_as_it_starts(index, plan, int(g), timing.folds[g]);
      }
    wait_until(timing.end);
  }
  if (sink_) book_fold_slices(*sink_, trace_ids_, layer.name, timing);
  plan.folds.clear();
  plan.folds.shrink_to_fit();
  r.plan = std::move(plan);
  return r;
}

void ArrayModule::announce_fold_as_it_starts(int index, const FoldPlan& plan, int g, const FoldTiming& f) {
  if (sink_) announce_fold(*sink_, trace_ids_, plan, params_.spec.fold_pipeline, plan.folds[size_t(g)], f);
  if (!listener_) return;
  fold_events_.clear();
  append_fold_events(f, g, fold_events_);
  std::sort(fold_events_.begin(), fold_events_.end());
  publish(index, fold_events_);
}

void ArrayModule::run_reference(int index, const FoldPlan& plan, const PassPlan& pass, const PassPlan* next, int64_t start,
                                const std::vector<ArrayEvent>& expected, ArrayLayerResult& r) {
  const ChipCut& cut = plan_.layers[size_t(index)].chip_cut;
  const GemmData data = pass_operands(plan, pass, params_.spec.array.precision, params_.seed + uint64_t(index), cut,
                                      params_.chip, plan_.chips);
  auto grid = make_register_array(plan, params_.spec.fold_pipeline, start, data);
  // The grid gets its own channel: it fetches in the order it observes, and must
  // arrive at the closed form's schedule by itself. With clusters the grids share
  // a memory system of their own, stepping together (lockstep).
  std::unique_ptr<TileSource> channel = make_source(plan, pass, start, false, true);
  link_passes(channel.get(), pass, next, reference_handed_);
  HierarchySource* lockstep = params_.cluster_set ? dynamic_cast<HierarchySource*>(channel.get()) : nullptr;
  if (channel) grid->attach_tiles(channel.get());
  size_t published = 0;
  StructuralPass structural(params_.chip, params_.cluster, *grid, data);  // --verify=structural, else inert
  while (!grid->done()) {
    wait_until(grid->now());
    const int64_t cycle = grid->now();
    grid->step();
    if (sink_) {
      const CycleActivity& act = grid->activity();
      sink_->set(cycle, trace_ids_.active_pes, act.active_pes);
      sink_->set(cycle, trace_ids_.in_rows, act.in_rows);
      sink_->set(cycle, trace_ids_.in_cols, act.in_cols);
      sink_->set(cycle, trace_ids_.out, act.out);
      // An OS accumulator holds a live sum exactly while its PE is active.
      if (roles(params_.spec.array.dataflow).stationary_outputs)
        sink_->set(cycle, trace_ids_.stationary, act.active_pes * trace_ids_.stationary_bytes);
      for (const auto& [at, elems] : grid->take_residency_changes())
        sink_->add(at, trace_ids_.stationary, elems * trace_ids_.stationary_bytes);
    }
    if (grid->now() - 1 == params_.fault.cycle && params_.cluster == params_.fault.cluster)
      grid->corrupt(params_.fault.row, params_.fault.col);
    const auto& ev = grid->events();
    publish(index, std::vector<ArrayEvent>(ev.begin() + published, ev.end()));
    published = ev.size();
    structural.cycle();
  }
  if (sink_) {  // the array is idle after its last cycle
    for (trace::ResourceId id : {trace_ids_.active_pes, trace_ids_.in_rows, trace_ids_.in_cols, trace_ids_.out})
      sink_->set(grid->now(), id, 0);
    if (roles(params_.spec.array.dataflow).stationary_outputs) sink_->set(grid->now(), trace_ids_.stationary, 0);
  }
  r.verify.ran = true;
  int64_t grid_end = grid->end_cycle();
  if (channel) {  // the grid's own memory traffic finishes from the load starts it observed
    std::vector<int64_t> load_starts;
    for (const ArrayEvent& e : grid->events())
      if (e.kind == EventKind::FoldStart) load_starts.push_back(e.cycle);
    if (lockstep) {
      lockstep->start_drain(load_starts);
      for (int64_t c = grid->now(); !lockstep->drain_done(c);) wait_until(++c);
      grid_end = std::max(grid_end, lockstep->memory_end());
    } else {
      grid_end = std::max(grid_end, channel->drain(load_starts));
    }
  }
  if (channel) reference_handed_ = handover_of(channel.get());
  const std::vector<std::string> problems = reference_problems(*grid, expected, grid_end, r.end_cycle, r.stats, data);
  r.verify.passed = problems.empty();
  r.verify.max_relative_error = max_relative_error(grid->result(), data);
  if (plan.input_density < 1) r.verify.gated_lanes = grid->gated_count();
  if (!problems.empty()) r.verify.detail = problems.front();
  if (cut_for_check(cut, plan_.chips)) r.verify.chip_parts.push_back(grid->result());  // the run combines the chips'
  spdlog::info("verify: layer {}/{} {} {} ({} cycles, {} PE-updates)", index + 1, plan_.layers.size(), layer_name(index),
               r.verify.passed ? "ok" : "FAILED", r.cycles, grid->pe_updates());
}

}  // namespace cstsim
