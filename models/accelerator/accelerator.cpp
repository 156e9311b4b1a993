#include "models/accelerator/accelerator.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace cstsim {

ClusterModule::ClusterModule(sc_core::sc_module_name name, int index, const AcceleratorSpec& spec, const Plan& plan,
                             const AcceleratorOptions& options, ClusterSet* cluster_set, MemoryClock* memory,
                             MemorySystemModule* memory_system, NocModule* noc, HbmStackModule* hbm,
                             trace::TraceSink* sink)
    : sc_module(name), index_(index), sink_(sink), noc_(noc), hbm_(hbm) {
  const bool hierarchy = spec.memory == MemoryMode::Hierarchy;
  if (hierarchy) scratchpad_ = std::make_unique<ScratchpadModule>("scratchpad", spec.scratchpad, *memory_system, index);
  // Row stationary's channel feeds its global buffer and is its own (models/array/rs_memory.h).
  const bool fifo_path = (spec.memory == MemoryMode::Channel || spec.memory == MemoryMode::Hbm) &&
                         spec.array.dataflow != Dataflow::RS;
  if (fifo_path) {
    // The FIFO holds whole tiles: R x C (WS, IS), or K x C blocks of B (OS), the deepest layer's.
    int64_t depth = spec.array.rows;
    if (roles(spec.array.dataflow).stationary_outputs)
      for (const LayerPlan& l : plan.layers) depth = std::max(depth, l.dims.K);
    const int slots = spec.memory == MemoryMode::Hbm ? spec.hbm_dma.fifo_tiles : spec.channel.fifo_tiles;
    const int64_t words = depth * spec.array.cols;  // 2:4 tiles add 2 bits of index per kept value
    const int64_t index_bytes = spec.array.skips_2_4 ? FoldPlan::index_bytes_2_4(words, spec.array.precision.pack) : 0;
    const Precision& precision = spec.array.precision;
    const bool weights = roles(spec.array.dataflow).tile_is_filter;
    int bits = precision.word_bits(weights);  // the widest layer's tiles (graph layers keep their dtypes)
    for (const LayerPlan& l : plan.layers)
      for (const ClusterLayerPlan& c : l.clusters)
        for (const PassPlan& pass : c.passes) bits = std::max(bits, weights ? pass.b_word_bits : pass.a_word_bits);
    const int64_t tile = (words * bits + 7) / 8;
    fifo_ = std::make_unique<TileFifoModule>("fifo", slots, tile + index_bytes, spec.array.dataflow, precision);
  }
  if (hierarchy || spec.memory == MemoryMode::Hbm)
    dma_ = std::make_unique<DmaModule>("dma", spec.hbm_dma, spec.array.dataflow, memory_system, index);
  ArrayParams p;
  p.spec = spec;
  p.mode = options.mode;
  p.seed = options.seed;
  p.fault = options.fault;
  if (index == 0) p.position = options.position;
  p.cluster = index;
  p.chip = options.chip;
  p.sampled = options.sampled;
  p.sample_min_folds = options.sample_min_folds;
  // Trace names as they have always been: "array", or "cluster<k>" with several clusters.
  p.trace_name = spec.clusters > 1 ? fmt::format("cluster{}", index) : "array";
  if (spec.vector.lanes > 0) vector_ = std::make_unique<VectorUnitModule>("vector", spec.vector, spec.clock_hz);
  if (vector_ && options.sampled) vector_->sample_kernels(options.sample_min_folds);
  array_ = std::make_unique<ArrayModule>("array", p, plan, index == 0 ? options.listener : nullptr, sink);
  memory_ = std::make_unique<ClusterMemory>(spec, index, cluster_set, memory, sink != nullptr,
                                            options.mode == ArrayMode::Reference,
                                            spec.memory == MemoryMode::Ideal ? nullptr : this);
  SequencerParams q;
  q.cluster = index;
  q.clusters = spec.clusters;
  q.period = array_->period();
  q.cluster_set = cluster_set;
  q.chips = options.chips;
  q.chip = options.chip;
  q.sink = sink;
  q.position = p.position;
  sequencer_ = std::make_unique<Sequencer>(plan, q, *memory_);
  sequencer_->provide(array_.get());
  sequencer_->provide(memory_.get());
  if (vector_) sequencer_->provide(vector_.get());
  if (options.chips) sequencer_->provide(options.chips);
  SC_THREAD(sequence);
  if (sink && fifo_path) fifo_->declare(*sink);  // after the array's, as traces always had them
  if (sink && hierarchy) {
    // Declared in this order so traces stay byte-identical with earlier runs: the
    // shared HBM and NoC with cluster 0, then this cluster's scratchpad and DMA.
    if (index == 0) {
      hbm_->declare(*sink);
      noc_->declare_links(*sink);
    }
    // Row stationary books its own DRAM actions and has no DMA program of folds (rs_trace.h).
    const bool rs = spec.array.dataflow == Dataflow::RS;
    if (!rs) scratchpad_->declare(*sink, spec.clusters > 1 ? p.trace_name + "." : "");
    if (!rs) dma_->declare_hbm_actions(*sink);
    noc_->declare_hops(*sink);
    if (!rs) dma_->declare_spad_actions(*sink);
  }
  // Its resources only when it has work: traces of runs without vector kernels stay as they were.
  if (sink && vector_ && (!plan.program.all<VectorKernelStep>().empty() || !plan.program.all<FlashKernelStep>().empty()))
    vector_->declare(*sink, spec.clusters > 1 ? p.trace_name + "." : "", hierarchy);
}

// The shared HBM and NoC: a piece by whichever cluster gets there first (each takes what it
// announces), the last one at the run's end.
void ClusterModule::announce_shared(int layer, int64_t start, MemoryGroup& group, int64_t before) {
  const SharedTimeline piece = group.take_timeline(before);
  hbm_->announce(*sink_, piece, before);
  if (start >= 0) hbm_->announce_tensors(*sink_, layer, start);
  noc_->announce(*sink_, piece);
}

void ClusterModule::memory_until(int layer, int64_t start, HierarchySource& source, int64_t before) {
  if (!sink_) return;
  announce_shared(layer, start, source.group(), before);
  scratchpad_->announce(*sink_, source.take_residency(before));
  dma_->announce(*sink_, source, before);
}

void ClusterModule::pass_simulated(int layer, int64_t start, HierarchySource& source, int64_t shared_before) {
  if (!sink_) return;
  announce_shared(layer, start, source.group(), shared_before);
  scratchpad_->announce(*sink_, source.take_residency(MemoryGroup::kTimelineEnd));
  dma_->announce(*sink_, source, MemoryGroup::kTimelineEnd);
}

void ClusterModule::run_finished(MemoryGroup& group) {
  if (sink_) announce_shared(0, -1, group, MemoryGroup::kTimelineEnd);  // no layer starts: hbm.tensors stays
}

void ClusterModule::layer_simulated(int layer, int64_t start, MemoryGroup& group, int64_t shared_before) {
  if (sink_) announce_shared(layer, start, group, shared_before);
}

void ClusterModule::vector_simulated(MemoryGroup& group, int64_t shared_before) {
  if (sink_) announce_shared(0, -1, group, shared_before);
}

void ClusterModule::tiles_fetched(const FoldPlan& folds, const std::vector<TileSource::Fetch>& fetches,
                                  const LayerTiming& timing) {
  if (!sink_) return;
  if (!fifo_)  // a memory backend that fetches tiles must have the cluster build its FIFO (fifo_path)
    throw std::logic_error("tiles fetched on a cluster with no tile FIFO: the memory mode is missing from fifo_path");
  fifo_->announce(*sink_, folds, fetches, timing);
}

namespace {

// Bytes of tensors in HBM while each layer runs: every layer's weights for the whole run
// (the model is resident), plus the layer's own input and output activations (the raw ifmap
// of a convolution, else its M x K operand; its M x N results). Where the mapper placed the
// tensors (memory: hierarchy) their placed bytes, every repeat's piece at its dtype's width.
// A training step adds what it holds beside (LayerPlan::held_bytes: kept activations, gradients,
// optimizer state).
std::vector<int64_t> resident_tensors(const Plan& plan, const Precision& precision) {
  auto values = [](int64_t n, int bits) { return (n * bits + 7) / 8; };
  auto bytes = [&](const LayerPlan& l, Matrix x, int64_t fallback) {
    const int64_t placed = l.tensors[size_t(x)].bytes;
    return placed > 0 ? placed : fallback;
  };
  // Weights once each: a B another layer wrote (attention's K and V) or read first is not one.
  int64_t weights = 0;
  for (const LayerPlan& l : plan.layers)
    if (l.weight_from < 0 && l.same_as[1].first < 0) weights += bytes(l, Matrix::B, values(l.dims.K * l.dims.N, precision.weight_bits()));
  std::vector<int64_t> out;
  for (const LayerPlan& l : plan.layers) {
    const int64_t input = l.raw_ifmap_bytes > 0 ? l.raw_ifmap_bytes : bytes(l, Matrix::A, values(l.dims.M * l.dims.K, precision.value_bits()));
    out.push_back(weights + input + bytes(l, Matrix::C, values(l.dims.M * l.dims.N, precision.value_bits())) + l.held_bytes);
  }
  return out;
}

}  // namespace

Accelerator::Accelerator(sc_core::sc_module_name name, AcceleratorSpec spec, const Plan& plan,
                         AcceleratorOptions options, trace::TraceSink* sink)
    : sc_module(name), spec_(std::move(spec)), plan_(plan) {
  if (spec_.memory == MemoryMode::Hierarchy) memory_ = std::make_unique<MemorySystemModule>("memory", spec_.clusters);
  // --verify with clusters: after each pass's closed form, the clusters' register grids replay it
  // from its start in lockstep on SystemC time, which the closed form's memory has moved past; so
  // there the memory runs on the clusters' own waits (MemoryGroup without a clock), not in time.
  MemoryClock* clock = options.mode == ArrayMode::Reference && spec_.clusters > 1 ? nullptr : memory_.get();
  if (spec_.clusters > 1) cluster_set_ = std::make_unique<ClusterSet>(spec_, spec_.clusters, sink != nullptr, clock);
  if (spec_.memory == MemoryMode::Hbm || spec_.memory == MemoryMode::Hierarchy)
    hbm_ = std::make_unique<HbmStackModule>("hbm", spec_.hbm, resident_tensors(plan_, spec_.array.precision), memory_.get());
  if (spec_.memory == MemoryMode::Hierarchy) {
    noc_ = std::make_unique<NocModule>("noc", spec_.noc, *memory_);
    noc_->to_hbm.bind(hbm_->from_noc);  // the mesh's controller ports to the stack
  }
  for (int k = 0; k < spec_.clusters; ++k)
    clusters_.push_back(std::make_unique<ClusterModule>(fmt::format("cluster{}", k).c_str(), k, spec_, plan_, options,
                                                        cluster_set_.get(), clock, memory_.get(), noc_.get(), hbm_.get(),
                                                        sink));
  if (spec_.memory == MemoryMode::Hierarchy) {
    for (auto& c : clusters_) {  // cluster k's DMA at the mesh's socket index k, both ways
      c->dma()->to_noc.bind(noc_->from_dma);
      noc_->to_dma.bind(c->dma()->from_noc);
    }
    memory_->on_attach([this](MemoryGroup& group) {
      noc_->connect(group);
      hbm_->connect(group);
      for (auto& c : clusters_) c->dma()->connect(group);
    });
  }
}

Accelerator::~Accelerator() = default;

bool Accelerator::finished() const {
  return std::all_of(clusters_.begin(), clusters_.end(), [](const auto& c) { return c->sequencer().finished(); });
}

int64_t Accelerator::end_cycle() const {
  int64_t end = 0;
  for (const auto& c : clusters_) end = std::max(end, c->sequencer().end_cycle());
  return end;
}

namespace {

// Cluster `c`'s results of type T, by step (nullptr: the step reported none of that type, or has
// not run yet).
template <typename T>
std::vector<const T*> results_of(const Sequencer& c, size_t steps) {
  std::vector<const T*> out(steps, nullptr);
  const std::vector<StepOutcome>& done = c.outcomes();
  for (size_t i = 0; i < done.size() && i < steps; ++i) out[i] = std::any_cast<T>(&done[i].result);
  return out;
}

// Per step reporting a T on cluster 0: the clusters' parts, merged by `merge`.
template <typename T, typename Merge>
std::vector<T> merged(const std::vector<std::unique_ptr<ClusterModule>>& clusters, size_t steps, Merge merge) {
  std::vector<std::vector<const T*>> by_cluster;
  for (const auto& c : clusters) by_cluster.push_back(results_of<T>(c->sequencer(), steps));
  std::vector<T> out;
  for (size_t i = 0; i < steps; ++i) {
    if (!by_cluster.front()[i]) continue;
    std::vector<const T*> parts;
    for (const auto& c : by_cluster) {
      if (!c[i]) throw std::logic_error("a step reported on one cluster and not another");
      parts.push_back(c[i]);
    }
    out.push_back(merge(parts, i));
  }
  return out;
}

}  // namespace

std::vector<const ArrayLayerResult*> Accelerator::cluster_layer_results(int cluster) const {
  std::vector<const ArrayLayerResult*> out;
  for (const ArrayLayerResult* r : results_of<ArrayLayerResult>(clusters_[size_t(cluster)]->sequencer(),
                                                                plan_.program.steps.size()))
    if (r) out.push_back(r);
  return out;
}

const std::vector<ArrayLayerResult>& Accelerator::layer_results() const {
  if (merged_finished_) return merged_results_;
  merged_results_ = merged<ArrayLayerResult>(clusters_, plan_.program.steps.size(), [&](const auto& parts, size_t i) {
    if (parts.size() == 1) return *parts.front();
    const LayerPlan& l = plan_.layers[size_t(plan_.program.steps[i].layer)];
    return merge_layer_parts(spec_, {l.name, l.dims.M, l.dims.N, l.dims.K}, parts, true);
  });
  merged_finished_ = finished();  // merged again while the run goes on
  return merged_results_;
}

std::vector<FlashKernelResult> Accelerator::flash_results() const {
  return merged<FlashKernelResult>(clusters_, plan_.program.steps.size(),
                                   [](const auto& parts, size_t) { return merge_flash_parts(parts); });
}

std::vector<VectorKernelResult> Accelerator::vector_results() const {
  return merged<VectorKernelResult>(clusters_, plan_.program.steps.size(),
                                    [](const auto& parts, size_t) { return merge_vector_parts(parts); });
}

namespace {

const char* kind_of(const sc_core::sc_object* o) {
  if (dynamic_cast<const Accelerator*>(o)) return "accelerator";
  if (dynamic_cast<const ClusterModule*>(o)) return "cluster";
  if (dynamic_cast<const ArrayModule*>(o)) return "array";
  if (dynamic_cast<const VectorUnitModule*>(o)) return "vector";
  if (dynamic_cast<const ScratchpadModule*>(o)) return "scratchpad";
  if (dynamic_cast<const DmaModule*>(o)) return "dma";
  if (dynamic_cast<const TileFifoModule*>(o)) return "tile_fifo";
  if (dynamic_cast<const MemorySystemModule*>(o)) return "memory_system";
  if (dynamic_cast<const NocModule*>(o)) return "noc";
  if (dynamic_cast<const HbmStackModule*>(o)) return "hbm";
  if (dynamic_cast<const HbmControllerModule*>(o)) return "hbm_controller";
  return nullptr;  // processes and other kernel objects
}

// The memory side's process statistics (memory: hierarchy), for the modules that step a part.
const MemorySystemModule::Stats* process_stats(const sc_core::sc_object* o) {
  if (const auto* m = dynamic_cast<const DmaModule*>(o)) return &m->process_stats();
  if (const auto* m = dynamic_cast<const ScratchpadModule*>(o)) return &m->process_stats();
  if (const auto* m = dynamic_cast<const NocModule*>(o)) return &m->process_stats();
  if (const auto* m = dynamic_cast<const HbmStackModule*>(o)) return &m->process_stats();
  return nullptr;
}

// Why a module of this kind runs no process of its own.
const char* no_process_because(const std::string& kind) {
  if (kind == "accelerator") return "the top: it builds the clusters and the shared memory, and runs nothing itself";
  if (kind == "array") return "a step engine's part: it runs in its cluster's sequencer thread";
  if (kind == "memory_system")
    return "the clock: it keeps a tick's slots and wakes each part's process at its next event (memory_system.h)";
  if (kind == "dma") return "memory: hbm: its cluster's sequencer thread runs it (memory: hierarchy: its own process)";
  if (kind == "hbm") return "memory: hbm: the tile source runs the stack in its cluster's sequencer thread";
  if (kind == "hbm_controller") return "names its channel's trace resources; the stack's process steps every channel";
  if (kind == "tile_fifo") return "names its trace resources; the tiles it holds are timed in the sequencer thread";
  return "";
}

void collect(const sc_core::sc_object* o, std::vector<ModuleInfo>& out) {
  const char* kind = kind_of(o);
  if (!kind) return;
  ModuleInfo info{o->name(), kind, "", ""};
  for (const sc_core::sc_object* child : o->get_child_objects()) {
    const std::string k = child->kind();
    // A tlm_utils target socket spawns, at the start of simulation, a thread that turns blocking
    // calls into its non-blocking ones; none are made here, so it is the socket's, not the model's.
    if (std::string(child->basename()).rfind("b2nb_thread", 0) == 0) continue;
    const char* process = k == "sc_thread_process" ? "thread" : k == "sc_method_process" ? "method" : nullptr;
    if (process) info.process += (info.process.empty() ? "" : ", ") + std::string(process);
  }
  if (info.process.empty()) info.no_process_because = no_process_because(info.kind);
  if (const MemorySystemModule::Stats* stats = process_stats(o); stats && !info.process.empty()) {
    info.activations = stats->activations;
    info.events = stats->events;
  }
  out.push_back(info);
  for (const sc_core::sc_object* child : o->get_child_objects()) collect(child, out);
}

}  // namespace

std::vector<ModuleInfo> Accelerator::modules() const {
  std::vector<ModuleInfo> out;
  collect(this, out);
  return out;
}

std::string module_tree(const std::vector<ModuleInfo>& modules) {
  std::string out;
  for (const ModuleInfo& m : modules) {
    const auto depth = std::count(m.name.begin(), m.name.end(), '.');
    const std::string leaf = m.name.substr(m.name.rfind('.') + 1);
    out += fmt::format("{:{}}{} ({})\n", "", 2 * depth, leaf, m.kind);
  }
  return out;
}

}  // namespace cstsim
