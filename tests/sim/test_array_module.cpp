// The array in its cluster: the sequencer's one clockless thread runs the layers back to back,
// the array's events reach a listener, simulated time = cycles.
// One sc_start per process: ctest runs each TEST in its own process.
#include <gtest/gtest.h>

#include <systemc>

#include "models/accelerator/accelerator.h"
#include "models/array/fold_timing.h"
#include "sim/config/accelerator_spec.h"
#include "sim/mapper/mapper.h"
#include "tests/hierarchy_spec.h"

using namespace cstsim;

namespace {

struct Recorder : ArrayListener {
  std::vector<std::pair<int, ArrayEvent>> seen;
  std::vector<sc_core::sc_time> when;
  void on_event(int layer, const ArrayEvent& e) override {
    seen.emplace_back(layer, e);
    when.push_back(sc_core::sc_time_stamp());
  }
};

ArchSpec arch() { return testing_util::code_arch(6, 5); }  // ws, 1 GHz, overlapped folds

AcceleratorOptions options(ArrayMode mode, ArrayListener* listener) {
  AcceleratorOptions o;
  o.mode = mode;
  o.listener = listener;
  return o;
}

sc_core::sc_time period() { return sc_core::sc_time(1, sc_core::SC_NS); }  // 1 GHz

const std::vector<GemmShape> kLayers{{"a", 20, 13, 17}, {"b", 3, 40, 9}};

Plan plan_of(const std::vector<GemmShape>& layers) {
  Workload w;
  for (const GemmShape& g : layers) w.layers.push_back(Layer::gemm(g.name, g.M, g.N, g.K));
  return make_plan(arch(), w);
}

void check_against_timing(const Accelerator& m, const Recorder& rec) {
  int64_t start = 0;
  std::vector<std::pair<int, ArrayEvent>> expected;
  for (size_t i = 0; i < kLayers.size(); ++i) {
    const FoldPlan p = make_fold_plan(Dataflow::WS, 6, 5, kLayers[i].M, kLayers[i].N, kLayers[i].K);
    const LayerTiming t = compute_layer_timing(p, FoldPipeline::Overlapped, start);
    std::vector<ArrayEvent> ev;
    append_events(t, ev);
    std::sort(ev.begin(), ev.end());
    for (const ArrayEvent& e : ev) expected.emplace_back(int(i), e);
    EXPECT_EQ(m.layer_results()[i].start_cycle, start);
    EXPECT_EQ(m.layer_results()[i].end_cycle, t.end);
    start = t.end + 1;
  }
  std::vector<std::pair<int, ArrayEvent>> got = rec.seen;
  std::stable_sort(got.begin(), got.end(), [](const auto& x, const auto& y) {
    return std::tie(x.first, x.second) < std::tie(y.first, y.second);
  });
  EXPECT_EQ(got, expected);
  EXPECT_EQ(sc_core::sc_time_stamp(), period() * double(start));
}

TEST(ArrayModule, TimingModeRunsLayersBackToBack) {
  Recorder rec;
  const Plan plan = plan_of(kLayers);
  Accelerator m("accelerator", accelerator_spec(arch()), plan, options(ArrayMode::Timing, &rec));
  sc_core::sc_start();
  ASSERT_TRUE(m.finished());
  check_against_timing(m, rec);
  // Events are delivered no later than they happen: a fold's events arrive when it starts.
  for (size_t i = 0; i < rec.seen.size(); ++i) {
    if (rec.seen[i].second.kind == EventKind::FoldStart) {
      EXPECT_EQ(rec.when[i], period() * double(rec.seen[i].second.cycle));
    }
  }
}

TEST(ArrayModule, ReferenceModeStepsEveryCycleAndVerifies) {
  Recorder rec;
  const Plan plan = plan_of(kLayers);
  Accelerator m("accelerator", accelerator_spec(arch()), plan, options(ArrayMode::Reference, &rec));
  sc_core::sc_start();
  ASSERT_TRUE(m.finished());
  check_against_timing(m, rec);
  for (const ArrayLayerResult& r : m.layer_results()) {
    EXPECT_TRUE(r.verify.ran);
    EXPECT_TRUE(r.verify.passed) << r.verify.detail;
  }
  // The register grid reports each event in the cycle it happens.
  for (size_t i = 0; i < rec.seen.size(); ++i) EXPECT_EQ(rec.when[i], period() * double(rec.seen[i].second.cycle));
}

}  // namespace
