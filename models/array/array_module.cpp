#include "models/array/array_module.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "models/array/fold_timing.h"
#include "models/array/gemm_data.h"
#include "models/array/reference_check.h"
#include "models/array/register_array.h"
#include "models/array/array_dataflow.h"
#include "models/base/stall_causes.h"
#include "models/memory/cluster_memory.h"
#include "models/memory/hierarchy_source.h"
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
    if (std::any_of(plan_.layers.begin(), plan_.layers.end(), [](const LayerPlan& l) { return bool(l.rocc); })) {
      trace_ids_.rocc_read_ifmap = sink_->declare_action("hbm.read.ifmap", "byte");
      trace_ids_.rocc_read_filter = sink_->declare_action("hbm.read.filter", "byte");
      trace_ids_.rocc_read_bias = sink_->declare_action("hbm.read.bias", "byte");
      trace_ids_.rocc_write_ofmap = sink_->declare_action("hbm.write.ofmap", "byte");
      trace_ids_.rocc_spad_write = sink_->declare_action("sram.write.dma", "byte");
      trace_ids_.rocc_spad_read = sink_->declare_action("sram.read.dma", "byte");
      // A compute of fewer rows than the mesh's is padded with zero rows the PEs multiply.
      if (!trace_ids_.padding_macs)
        trace_ids_.padding_macs = sink_->declare_action("mac." + a.array.precision.operand_name() + ".padding", "MAC");
    }
    // The memory side's modules declare their own (models/accelerator/memory_modules.h).
  }
  // SystemC time only orders the processes; cycles are counted as integers.
  period_ = sc_core::sc_time(std::round(1e12 / params_.spec.clock_hz), sc_core::SC_PS);
}

namespace {

constexpr int64_t kShortestRepeat = 8192;  // cycles
constexpr int64_t kCheckEvery = 8;         // a confirmed key's repeats: one in this many checked
// A sampled key whose pooled windows leave a wider interval than this share of a pass (the bar a
// run's total is held to) is sampled again instead of repeated: a repeat takes its reference's
// error as its own (the shared part), while another sample halves the pooled variance (measured
// on the random hierarchies: a repeat taken at its reference's 1.9 % interval carried the pair's
// total to 1.25 %; the decode step's keys are at 0.05-0.97 %, and stay repeated). At most
// kResampled passes of a key are pooled so (a prefill block's attention heads, at 1-3 % each,
// would all be sampled: S 2048 took 51 s instead of 26).
constexpr double kRepeatWidest = 0.01;
constexpr int kResampled = 2;

// One refresh more or less, in the array's cycles (hbm::HbmSpec::refresh_hit_ns; measured: a
// 4-fold pass after a sampled one took 1,543 or 1,788 cycles in the exact run by whether it met an
// all-bank REF; such passes moved by up to 265 cycles on 1 GHz arrays with HBM2, whose bound is
// 292 ns).
double refresh_cost(const AcceleratorSpec& a) { return a.hbm.refresh_hit_ns() * 1e-9 * a.clock_hz; }

// The 95 % half-width of a pass simulated whole from a state the exact run does not have. That
// state tells on its first `span` folds (the span a sampled window's warm-up takes to forget
// where it began), which may come out as differently as any `span` folds of the pass differ (the
// spread of its span-fold blocks' extra cycles, after the first fold); after them it is the same
// stream, but with its refreshes at another phase: one more or less (refresh_cost). In
// quadrature. Blocks' spread over the whole pass would be far too wide: a late fold's backlog
// makes the next ones early, so the pass's extra cycles do not add up like independent draws
// (measured: 7 % half-widths on 400-fold passes within 0.3 % of exact).
double start_state_ci95(const LayerTiming& t, int64_t span, double refresh) {
  const int64_t F = int64_t(t.folds.size()) - 1;
  std::vector<double> means;
  for (int64_t b = 0; b + span <= F; b += span) {
    double sum = 0;
    for (int64_t g = 1 + b; g < 1 + b + span; ++g) sum += double(t.folds[size_t(g)].stall);
    means.push_back(sum / double(span));
  }
  // Never zero (refresh: none, too few folds for two blocks): the state is still not the exact
  // run's, and a layer without an interval is reported as simulated exactly.
  return std::max(1.0, std::hypot(spread_ci95(means, span, double(span)), refresh));
}

// FNV-1a over what decides a pass's timing but when it runs and where in HBM beyond the address
// class: the same shapes in another block, or another block's head of the same slice of its
// cache, have the same key; the check catches what the rows and the refresh phase change.
uint64_t pass_key(const FoldPlan& f, const PassPlan& pass, const LayerDmaPlan& dma) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](int64_t v) {
    for (int i = 0; i < 8; ++i) h = (h ^ uint64_t((v >> (8 * i)) & 0xff)) * 1099511628211ull;
  };
  for (int64_t v : {int64_t(f.dataflow), int64_t(f.R), int64_t(f.C), f.M, f.N, f.K, int64_t(f.pack), f.k_values,
                    int64_t(f.sparse_2_4), f.T, f.row_folds, f.col_folds, f.k_chunks, int64_t(pass.a_word_bits),
                    int64_t(pass.b_word_bits), int64_t(dma.fifo_tiles), int64_t(dma.output_bits),
                    dma.stationary_slot, dma.stream_slot, dma.output_slot, int64_t(dma.row_major),
                    dma.raw_channels, int64_t(dma.raw_rows_for), int64_t(dma.tile_frees)})
    mix(v);
  mix(int64_t(std::hash<double>()(f.input_density)));
  for (const std::string& p : {dma.stationary_partition, dma.stream_partition}) mix(int64_t(std::hash<std::string>()(p)));
  // The program, its addresses from each matrix's first block (the tensors lie elsewhere).
  std::array<uint64_t, 3> base{UINT64_MAX, UINT64_MAX, UINT64_MAX};  // by Operand
  for (const auto* list : {&dma.reads, &dma.writes})
    for (const DmaTransfer& t : *list) base[size_t(t.operand)] = std::min(base[size_t(t.operand)], t.hbm_addr);
  for (const auto* list : {&dma.reads, &dma.writes})
    for (const DmaTransfer& t : *list)
      for (int64_t v : {int64_t(t.operand), int64_t(t.write), int64_t(t.hbm_addr - base[size_t(t.operand)]), t.bytes,
                        int64_t(t.fold), int64_t(t.after_fold), int64_t(t.after), int64_t(t.first_fold), t.rows,
                        t.row_bytes, t.pitch})
        mix(v);
  // The address class of the operands that carry the traffic (an eighth of the pass's bytes or
  // more: an attention head's query and scores move 0.8 % of its bytes): the interleave unit
  // (256 B) their blocks start in within the channel interleave's period (4 KiB covers HBM3's 16
  // channels of 256 B), which decides the channels a request's pieces take, and whether they
  // start on a 32 B burst (a misaligned block takes a piece more).
  std::array<int64_t, 3> bytes{0, 0, 0};
  for (const auto* list : {&dma.reads, &dma.writes})
    for (const DmaTransfer& t : *list) bytes[size_t(t.operand)] += t.bytes;
  const int64_t total = bytes[0] + bytes[1] + bytes[2];
  for (size_t k = 0; k < base.size(); ++k)
    if (base[k] != UINT64_MAX && 8 * bytes[k] >= total) mix(int64_t(base[k] % 4096 / 256 * 2 + (base[k] % 32 != 0)));
  return h == 0 ? 1 : h;
}

}  // namespace

const std::string& ArrayModule::layer_name(int index) const { return plan_.layers[size_t(index)].name; }

void ArrayModule::publish(int layer, const std::vector<ArrayEvent>& events) {
  if (!listener_) return;
  for (const ArrayEvent& e : events) listener_->on_event(layer, e);
}

std::unique_ptr<TileSource> ArrayModule::make_source(StepContext& context, const FoldPlan& folds, const PassPlan& pass,
                                                     int64_t start, bool record, bool reference, const PassPlan* next,
                                                     int layer) {
  const AcceleratorSpec& a = params_.spec;
  if (a.memory != MemoryMode::Hierarchy) {  // tiles at the pass's stored widths (an operator graph's dtypes)
    AcceleratorSpec s = a;
    Precision& p = s.array.precision;
    if (pass.a_word_bits != p.word_bits(false)) p.stored_a_bits = pass.a_word_bits / p.pack;
    if (pass.b_word_bits != p.word_bits(true)) p.stored_b_bits = pass.b_word_bits / p.pack;
    return make_tile_source(s, folds, start);
  }
  ClusterMemory& memory = *context.part<ClusterMemory>();
  auto source = std::make_unique<HierarchySource>(a, folds, dma_program(folds, pass), start, record,
                                                  memory.group(reference), params_.cluster, reference && memory.set());
  // Sampled: a pass of its own (nothing handed over from or to its neighbours), on one cluster,
  // long enough to sample or a repeat of one simulated before (by its key).
  source_key_ = 0;
  const int64_t F = int64_t(folds.folds.size());
  // Input stationary is not sampled yet: its passes missed by 3-7 % on 64x64 arrays (tests/sim/
  // test_sampled.cpp's random hierarchies), where WS and OS hold within 1 %.
  const bool alone = pass.prefetch.empty() && pass.on_chip_reads.empty() && pass.outputs_on_chip_to.empty() &&
                     (!next || next->prefetch.empty()) && a.clusters == 1 && folds.dataflow != Dataflow::IS;
  if (!params_.sampled || reference || !alone || F < std::max<int64_t>(params_.sample_min_folds, 2)) return source;
  source_key_ = pass_key(folds, pass, source->dma_plan());
  auto memo = memo_.find(source_key_);
  // A pass shorter than this is simulated again: its repeats move by several % with their start
  // state (measured on ResNet-50's and BERT's short layers), more than a check can tell.
  if (memo != memo_.end() && memo->second.check.cycles < kShortestRepeat) memo = memo_.end();
  if (memo != memo_.end() && memo->second.report.windows > 0) {
    const PassMemo& m = memo->second;
    const double pooled = m.report.ci95_cycles * std::sqrt(double(m.report.windows) / double(std::max<size_t>(1, m.means.size())));
    if (pooled > kRepeatWidest * double(m.check.cycles) && int(m.means.size()) < kResampled * m.report.windows)
      memo = memo_.end();
  }
  // A layer's heads: once one of its passes was taken as a repeat, the next ones check their first
  // fold. A key whose last two checks agreed is checked again on every kCheckEvery-th repeat only
  // (systematic: each check a sample of how its repeats drift); between, the pass is its first
  // occurrence's, its interval the widest a check of it gave.
  using Check = SampledSource::Check;
  Check check = Check::Full;
  if (memo != memo_.end()) {
    PassMemo& m = memo->second;
    ++m.seen;
    check = m.agreed >= 2 && m.seen % kCheckEvery != 0 ? Check::None : layer == taken_layer_ ? Check::Short : Check::Full;
  }
  return std::make_unique<SampledSource>(std::move(source), folds, start, params_.sampling,
                                         memo == memo_.end() ? nullptr : &memo->second.check, check);
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

ArrayLayerResult ArrayModule::run_pass(StepContext& context, int index, bool first_pass, const PassPlan& pass,
                                       const PassPlan* next, int64_t start) {
  const AcceleratorSpec& a = params_.spec;
  MemoryObserver* observer = context.part<ClusterMemory>() ? context.part<ClusterMemory>()->observer() : nullptr;
  FoldPlan plan = fold_plan(plan_, pass);
  if (const auto& s = plan_.layers[size_t(index)].scalesim; s && s->stall_cycles > 0) {
    if (int64_t(s->stalls_before_fold.size()) != plan.fold_count())
      throw std::logic_error("SCALE-Sim's memory replay has another number of folds than the plan");
    plan.scalesim_stalls = s->stalls_before_fold;
    plan.scalesim_stalls.push_back(s->total_cycles - (plan.fold_count() * array_dataflow(plan.dataflow).scalesim_fold_length(plan) - 1));
  }
  const GemmShape layer{layer_name(index), pass.dims.M, pass.dims.N, pass.dims.K};
  std::unique_ptr<TileSource> channel = make_source(context, plan, pass, start, sink_ != nullptr, false, next, index);
  link_passes(channel.get(), pass, next, handed_);
  if (params_.position) params_.position->folds.store(int(plan.folds.size()), std::memory_order_relaxed);
  auto* sampled = dynamic_cast<SampledSource*>(channel.get());
  auto* hierarchy = sampled ? &sampled->inner() : dynamic_cast<HierarchySource*>(channel.get());
  // With a trace the memory's part of it is announced fold by fold, as far as the memory has
  // simulated, so the trace holds what is in flight rather than the pass (each cluster its own
  // part and whichever gets there first the shared one; wait_until keeps the trace's clock).
  const bool as_it_goes = hierarchy && !sampled && sink_ && observer && params_.mode != ArrayMode::Reference;
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
      observer->memory_until(index, start, *hierarchy, final_before);
      context.wait_until(f.start, std::min(f.start, final_before - 1));
      announce_fold_as_it_starts(index, plan, g, f);
    }
    timing = timer.finish();
  } else {
    timing = compute_layer_timing(plan, a.fold_pipeline, start, channel.get(), params_.position);
  }
  const PassMemo* repeated = nullptr;
  if (sampled && memo_.count(source_key_))
    spdlog::debug("{}: a repeat of an earlier pass, {} by its check ({} cycles late)", layer.name,
                  !sampled->checked() ? "taken unchecked" : sampled->repeated() ? "taken" : "not taken",
                  sampled->check_gap());
  if (sampled && sampled->repeated()) {  // its check agreed: the pass is its first occurrence's again
    // Its folds after the check follow the first one's (SampledSource::ready); the write-back after
    // its last fold, which no skipped fold simulated, takes as long as the first one's did.
    PassMemo& memo = memo_.at(source_key_);
    repeated = &memo;
    taken_layer_ = index;
    if (sampled->checked()) {
      ++memo.agreed;
      memo.check_ci95 = std::max(memo.check_ci95, sampled->repeat_ci95());
    }
    const LayerTiming& m = repeated->timing;
    if (m.memory_end > m.end) timing.memory_end = std::max(timing.memory_end, timing.end + (m.memory_end - m.end));
    timing.reported_cycles = std::max(timing.end, timing.memory_end) - start + 1;
    timing.stall_cycles = timing.reported_cycles - timing.ideal_cycles;
    timing.stall_causes = split_like(m.stall_causes, timing.stall_cycles, channel->stall_cause());
  } else if (sampled && source_key_) {
    // A first occurrence, or a repeat whose check disagreed (simulated as any pass): the key's
    // reference from now on, the latest state of its memory; its next repeats are checked.
    std::vector<int64_t> starts;
    for (const FoldTiming& f : timing.folds) starts.push_back(f.start);
    PassMemo& m = memo_[source_key_];
    m = PassMemo{{}, {}, {}, {}, std::move(m.means), m.seen};
    m.check = sampled->as_repeat(starts);
    m.check.cycles = timing.reported_cycles;
    m.timing = timing;
    m.timing.folds.clear();
    m.timing.end -= start;
    if (m.timing.memory_end >= 0) m.timing.memory_end -= start;
    m.stats = sampled->stats();
    m.report = sampled->report();
  }
  if (const std::vector<double> means = sampled && source_key_ ? sampled->window_means() : std::vector<double>{};
      !means.empty()) {  // its windows join the key's
    PassMemo& m = memo_.at(source_key_);
    m.means.insert(m.means.end(), means.begin(), means.end());
    m.check.windows = int(m.means.size());
    m.check.mean = std::accumulate(m.means.begin(), m.means.end(), 0.0) / double(m.means.size());
  }
  context.memory_computed();  // the shared memory is final
  if (sink_) sink_->add(timing.end + 1, trace_ids_.busy, -1);
  // The step's traffic is all in and nothing goes on before this pass's end: the memory's
  // record is final up to it (the run's memory goes on into the next step).
  if (observer && hierarchy)
    observer->pass_simulated(index, start, *hierarchy, hierarchy->group().settle(std::max(timing.end, timing.memory_end)));
  else if (observer && channel)
    observer->tiles_fetched(plan, channel->fetches(), timing);
  ArrayLayerResult r;
  r.shape = layer;
  r.stall_cycles = timing.stall_cycles;
  r.stalls = timing.stall_causes;
  r.ideal_cycles = timing.ideal_cycles;
  r.pass_stalls = {{timing.reported_cycles, timing.ideal_cycles, timing.stall_causes}};
  if (hierarchy) {
    handed_ = handover_of(hierarchy);
    r.has_hierarchy = true;
    r.hierarchy = repeated ? repeated->stats : sampled ? sampled->stats() : hierarchy->stats();
    if (repeated) {  // the first occurrence's estimate, this pass's check simulated
      SampleReport s = repeated->report;
      s.detailed_folds = sampled->report().detailed_folds;
      s.measured_folds = s.windows = 0;
      s.repeats = 1;
      // Its own part: how far its check was from the reference's (an unchecked one: the widest
      // a check of the key gave). Its shared part, the same for every repeat of the key: the
      // pooled mean's interval over this pass's skipped folds; when the pooled windows cannot be
      // told apart, the reference's rule of three over as many skipped folds, with the pool's
      // measured folds (its windows' as many times over).
      s.mean_stall = repeated->check.mean;
      const double skipped = double(s.folds - s.detailed_folds);
      const SampleReport& ref = repeated->report;
      const double ref_skipped = double(std::max<int64_t>(1, ref.folds - ref.detailed_folds));
      const double pooled = SampledSource::mean_ci95(repeated->means, skipped);
      const double pool_share = std::min(1.0, double(std::max(1, ref.windows)) / double(std::max<size_t>(1, repeated->means.size())));
      double shared = pooled > 0 ? pooled : ref.ci95_cycles * skipped / ref_skipped * pool_share;
      // And how far this pass's own folds may lie from the mean it is given, from the spread the
      // reference's folds showed (its windows', or a whole pass's blocks after its check). A
      // whole reference's folds are one draw too, which every repeat of the key shares.
      const bool whole = ref.windows == 0;
      const double spread =
          whole ? spread_ci95(repeated->check.blocks, kSpreadBlock, skipped)
                : spread_ci95(repeated->means, std::max<int64_t>(1, ref.measured_folds / std::max(1, ref.windows)), skipped);
      if (whole) shared += spread;
      const double check = std::max(1.0, sampled->checked() ? sampled->repeat_ci95() : repeated->check_ci95);
      // And the state it starts from is not its reference's: one refresh more or less.
      s.set_interval(std::hypot(check, spread, refresh_cost(a)), source_key_, shared);
      r.sampling = s;
    } else if (sampled) {  // sampled, or simulated whole (then exactly: every fold detailed)
      r.sampling = sampled->report();
      if (!sampled->sampled()) r.sampling->detailed_folds = r.sampling->folds, r.sampling->set_interval(0);
      // The windows give the skipped folds the refreshes they met at their mean rate; the exact
      // run's skipped span meets a whole number of them, maybe one more or less.
      else r.sampling->add_own(refresh_cost(a));
    }
    MemoryGroup& group = hierarchy->group();
    if (params_.sampled && !repeated && (!sampled || !sampled->sampled()) && group.estimated()) {
      // Simulated whole, but from a state something estimated before it left (another clock,
      // refresh phase, rows, queues than the exact run's): its cycles are one draw of those.
      if (!r.sampling) r.sampling = SampleReport{}, r.sampling->folds = r.sampling->detailed_folds = plan.fold_count();
      const double period = double(timing.ideal_cycles) / double(std::max<int64_t>(1, plan.fold_count()));
      r.sampling->set_interval(start_state_ci95(timing, params_.sampling.warmup_for(period), refresh_cost(a)));
    }
    if (r.sampling && r.sampling->detailed_folds < r.sampling->folds) group.mark_estimated();
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
    run_reference(context, index, plan, pass, next, start, expected, r);
  } else {
    // Sleep from fold to fold: nothing observable changes between computed events.
    // A fold's events and occupancy are announced when it starts, so memory stays
    // bounded by the folds in flight, not by the run's length.
    if (!as_it_goes)
      for (size_t g = 0; g < timing.folds.size(); ++g) {
        context.wait_until(timing.folds[g].start);
        announce_fold_as_it_starts(index, plan, int(g), timing.folds[g]);
      }
    context.wait_until(timing.end);
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

void ArrayModule::run_reference(StepContext& context, int index, const FoldPlan& plan, const PassPlan& pass,
                                const PassPlan* next, int64_t start, const std::vector<ArrayEvent>& expected,
                                ArrayLayerResult& r) {
  const ChipCut& cut = plan_.layers[size_t(index)].chip_cut;
  const GemmData data = pass_operands(plan, pass, params_.spec.array.precision, params_.seed + uint64_t(index), cut,
                                      params_.chip, plan_.chips);
  auto grid = make_register_array(plan, params_.spec.fold_pipeline, start, data);
  // The grid gets its own channel: it fetches in the order it observes, and must
  // arrive at the closed form's schedule by itself. With clusters the grids share
  // a memory system of their own, stepping together (lockstep).
  std::unique_ptr<TileSource> channel = make_source(context, plan, pass, start, false, true);
  link_passes(channel.get(), pass, next, reference_handed_);
  const ClusterMemory* memory = context.part<ClusterMemory>();
  HierarchySource* lockstep = memory && memory->set() ? dynamic_cast<HierarchySource*>(channel.get()) : nullptr;
  if (channel) grid->attach_tiles(channel.get());
  size_t published = 0;
  StructuralPass structural(params_.chip, params_.cluster, *grid, data);  // --verify=structural, else inert
  while (!grid->done()) {
    context.wait_until(grid->now());
    const int64_t cycle = grid->now();
    grid->step();
    if (sink_) {
      const CycleActivity& act = grid->activity();
      sink_->set(cycle, trace_ids_.active_pes, act.active_pes);
      sink_->set(cycle, trace_ids_.in_rows, act.in_rows);
      sink_->set(cycle, trace_ids_.in_cols, act.in_cols);
      sink_->set(cycle, trace_ids_.out, act.out);
      // What the PEs did inside the array (the dataflow's counters; those it does not count are 0).
      const int64_t ob = trace_ids_.operand_bytes, ab = trace_ids_.accumulator_bytes;
      if (act.operand_hops || act.psum_writes || act.stationary_writes)
        sink_->count_spans(cycle, cycle + 1, {{trace_ids_.operand_hops, act.operand_hops * ob},
                                              {trace_ids_.psum_register_writes, act.psum_writes * ab},
                                              {trace_ids_.psum_register_reads, act.psum_moves * ab},
                                              {trace_ids_.psum_hops, act.psum_moves * ab},
                                              {trace_ids_.stationary_writes, act.stationary_writes * ob},
                                              {trace_ids_.stationary_hops, act.stationary_hops * ob}});
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
      for (int64_t c = grid->now(); !lockstep->drain_done(c);) context.wait_until(++c);
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
