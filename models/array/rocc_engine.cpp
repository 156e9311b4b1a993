// controller: rocc: a layer as a Gemmini-style command stream (models/array/rocc_controller.h).
#include <stdexcept>

#include "core/registry.h"
#include "models/array/array_module.h"
#include "models/array/layer_result.h"
#include "models/array/rocc_controller.h"
#include "models/base/step_engine.h"

namespace cstsim {
namespace {

// Books what the controllers do on the array's trace: the PEs a compute keeps busy, the
// operands read at the mesh's edges, the accumulator's writes, the PE-level moves (the same
// actions the fold pipeline counts, models/array/README.md), and the DMA's bytes.
class RoccBooking : public RoccListener {
 public:
  RoccBooking(trace::TraceSink& sink, const ArrayTraceIds& ids, int64_t origin, int64_t dim)
      : sink_(sink), ids_(ids), origin_(origin), dim_(dim),
        pes_{ids.active_pes}, rows_in_{ids.in_rows}, cols_in_{ids.in_cols}, out_{ids.out} {}
  ~RoccBooking() override = default;
  void finish() {
    for (Span* s : {&pes_, &rows_in_, &cols_in_, &out_}) flush(*s);
  }
  void compute(int64_t start, int64_t busy, int64_t rows, int64_t cols, int64_t depth) override {
    const int64_t at = origin_ + start;
    sink_.count(at, ids_.nominal_macs, rows * cols * depth);
    // The mapped PEs multiply for the whole compute, the zero rows padding a short block included.
    if (busy > rows) sink_.count(at, ids_.padding_macs, (busy - rows) * cols * depth);
    extend(pes_, at, at + busy, cols * depth);
    extend(rows_in_, at, at + rows, depth);
    extend(out_, at + dim_, at + dim_ + rows, cols);  // results leave after crossing the mesh
    const int64_t ob = ids_.operand_bytes, ab = ids_.accumulator_bytes;
    // A value hops into every mapped PE of its row but the first; a partial sum is written in
    // every row of its column down to the edge, and read from and hopped from the row above.
    if (ids_.operand_hops) sink_.count(at, ids_.operand_hops, rows * depth * (cols - 1) * ob);
    if (ids_.psum_register_writes) sink_.count(at, ids_.psum_register_writes, rows * cols * dim_ * ab);
    if (ids_.psum_register_reads) sink_.count(at, ids_.psum_register_reads, rows * cols * (dim_ - 1) * ab);
    if (ids_.psum_hops) sink_.count(at, ids_.psum_hops, rows * cols * (dim_ - 1) * ab);
  }
  void preload(int64_t start, int64_t cols, int64_t depth) override {
    const int64_t at = origin_ + start;
    extend(cols_in_, at, at + depth, cols);
    const int64_t ob = ids_.operand_bytes;  // down the shift chain, as the fold pipeline's WS loads
    if (ids_.stationary_writes) sink_.count(at, ids_.stationary_writes, depth * (depth + 1) / 2 * cols * ob);
    if (ids_.stationary_hops) sink_.count(at, ids_.stationary_hops, depth * (depth - 1) / 2 * cols * ob);
  }
  void moved(int64_t complete, Operand what, int64_t bytes) override {
    const int64_t at = origin_ + complete;
    const trace::ActionId dram = what == Operand::Input    ? ids_.rocc_read_ifmap
                                 : what == Operand::Weight ? ids_.rocc_read_filter
                                 : what == Operand::Bias   ? ids_.rocc_read_bias
                                                           : ids_.rocc_write_ofmap;
    sink_.count(at, dram, bytes);
    sink_.count(at, what == Operand::Output ? ids_.rocc_spad_read : ids_.rocc_spad_write, bytes);
  }

 private:
  // A resource held at one value over back-to-back intervals is booked once.
  struct Span {
    trace::ResourceId id;
    int64_t from = 0, to = 0, value = 0;
  };
  void extend(Span& s, int64_t from, int64_t to, int64_t value) {
    if (value == s.value && from == s.to) {
      s.to = to;
      return;
    }
    flush(s);
    s.from = from, s.to = to, s.value = value;
  }
  void flush(Span& s) {
    if (s.value && s.to > s.from) {
      sink_.add(s.from, s.id, s.value);
      sink_.add(s.to, s.id, -s.value);
    }
    s.value = 0;
  }
  trace::TraceSink& sink_;
  const ArrayTraceIds& ids_;
  const int64_t origin_, dim_;
  Span pes_, rows_in_, cols_in_, out_;
};

}  // namespace

class RoccLayerEngine : public IStepEngine {
 public:
  StepOutcome run(const Step& step, int64_t start, StepContext& context) override {
    ArrayModule* array = context.part<ArrayModule>();
    if (!array) throw std::logic_error("a rocc layer step on a cluster without an array");
    const LayerPlan& L = context.plan().layers.at(size_t(step.layer));
    if (!L.rocc) throw std::logic_error("a rocc layer step without its command-stream plan");
    trace::TraceSink* sink = array->sink();
    if (sink) sink->begin_layer(step.layer, L.name, start);
    RoccTiming t;
    if (sink) {
      RoccBooking booking(*sink, array->trace_ids(), start, L.rocc->params.dim);
      t = time_rocc_layer(*L.rocc, &booking);
      booking.finish();
    } else {
      t = time_rocc_layer(*L.rocc);
    }
    const int64_t end = start + t.cycles - 1;
    if (sink) {
      sink->add(start, array->trace_ids().busy, 1);
      sink->add(end + 1, array->trace_ids().busy, -1);
    }
    context.wait_until(end);
    if (t.macs != L.rocc->macs())
      throw std::logic_error("rocc: the computes' MACs differ from the layer's");
    ArrayLayerResult r;
    r.shape = {L.name, L.dims.M, L.dims.N, L.dims.K};
    r.start_cycle = start;
    r.end_cycle = end;
    r.cycles = t.cycles;
    r.ideal_cycles = t.mesh_cycles;  // the execute controller's own work: its preloads and computes
    r.stall_cycles = t.cycles - t.mesh_cycles;
    for (const auto& [cause, cycles] : t.idle)
      if (cycles) r.stalls[cause] = cycles;
    r.pass_stalls = {{r.cycles, r.ideal_cycles, r.stalls}};
    r.dram_bytes = t.bytes_read;
    r.stats.macs = t.macs;
    const int64_t pes = L.rocc->params.dim * L.rocc->params.dim;
    // Of the mesh's busy PE-cycles, the mapped share; of the mapped PE-cycles, the useful share
    // (a short block's zero rows are not).
    r.stats.mapping_efficiency = t.mesh_cycles > 0 ? double(t.mapped_pe_cycles) / (double(t.mesh_cycles) * double(pes)) : 0;
    r.stats.compute_utilization = t.mapped_pe_cycles > 0 ? double(t.macs) / double(t.mapped_pe_cycles) : 0;
    r.plan.dataflow = Dataflow::WS;
    r.plan.R = r.plan.C = int(L.rocc->params.dim);
    r.plan.M = L.dims.M, r.plan.N = L.dims.N, r.plan.K = r.plan.k_values = L.dims.K;
    r.plan.row_folds = t.commands.count("compute") ? t.commands.at("compute") : 0;  // a compute: a fold of dim rows
    r.plan.col_folds = 1;
    r.rocc = t;
    r.has_rocc = true;
    return {end, std::move(r)};
  }
};
CSTSIM_REGISTER(IStepEngine, RoccLayerEngine, "rocc")

}  // namespace cstsim
