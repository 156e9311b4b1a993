// A step kind is a registration: this file adds one ("toy_wait": the cluster waits a given number
// of cycles and reports what it saw) with its engine and nothing else, puts a step of it between
// two GEMM layers and runs the accelerator. The sequencer runs it in order, places the barrier
// after it and hands back its result; the layers around it move by exactly its cycles.
// One sc_start per process: ctest runs each TEST in its own process.
#include <gtest/gtest.h>

#include <algorithm>
#include <any>
#include <stdexcept>

#include <systemc>

#include "core/registry.h"
#include "models/accelerator/accelerator.h"
#include "models/array/fold_timing.h"
#include "models/base/process_guard.h"
#include "sim/config/accelerator_spec.h"
#include "sim/mapper/mapper.h"
#include "tests/hierarchy_spec.h"

namespace cstsim {

// The toy kind's payload and result.
struct ToyWait {
  int64_t cycles = 0;
};
struct ToyWaitResult {
  int64_t start = 0, end = 0;
  int cluster = -1, memory_step = -1;
};

class ToyWaitEngine : public IStepEngine {
 public:
  StepOutcome run(const Step& step, int64_t start, StepContext& context) override {
    const ToyWait& w = std::any_cast<const ToyWait&>(step.as<ExtensionStep>()->payload);
    const int64_t end = start + w.cycles - 1;
    context.wait_until(end);
    return {end, ToyWaitResult{start, end, context.cluster(), context.memory_step()}};
  }
};
CSTSIM_REGISTER(IStepEngine, ToyWaitEngine, "toy_wait")

}  // namespace cstsim

using namespace cstsim;

namespace {

ArchSpec toy_arch(int clusters) {
  ArchSpec a = testing_util::code_arch(8, 8);  // ws, 1 GHz, overlapped folds
  a.clusters = clusters;
  return a;
}

// Two GEMM layers with a step of `kind` between them.
Plan toy_plan(const ArchSpec& a, const std::string& kind, int64_t cycles) {
  Workload w;
  w.layers.push_back(Layer::gemm("first", 40, 24, 16));
  w.layers.push_back(Layer::gemm("second", 16, 8, 32));
  Plan plan = make_plan(a, w);
  Step toy;
  toy.name = "wait";
  toy.what = ExtensionStep{kind, ToyWait{cycles}};
  plan.program.steps.insert(plan.program.steps.begin() + 1, toy);
  for (size_t i = 0; i < plan.program.steps.size(); ++i) plan.program.steps[i].id = int(i);
  return plan;
}

int64_t closed_form_end(const ArchSpec& a, int64_t M, int64_t N, int64_t K, int64_t start) {
  return compute_layer_timing(make_fold_plan(a.dataflow, a.rows, a.cols, M, N, K), a.fold_pipeline, start).end;
}

TEST(StepKinds, AKindRegisteredInOneFileRunsBetweenLayers) {
  const ArchSpec a = toy_arch(2);
  const Plan plan = toy_plan(a, "toy_wait", 1000);
  ASSERT_EQ(plan.program.steps[1].kind(), "toy_wait");
  Accelerator acc("accelerator", accelerator_spec(a), plan, {});
  sc_core::sc_start();
  ProcessErrors::rethrow_if_any();
  ASSERT_TRUE(acc.finished());
  // Each cluster ran the toy step after the first layer's barrier, as memory step 1.
  const int64_t first_end = acc.layer_results()[0].end_cycle;
  for (int c = 0; c < 2; ++c) {
    const auto* r = std::any_cast<ToyWaitResult>(&acc.outcomes(c)[1].result);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->cluster, c);
    EXPECT_EQ(r->memory_step, 1);
    EXPECT_EQ(r->start, first_end + 1);
    EXPECT_EQ(r->end, first_end + 1000);
  }
  // The second layer starts after it, and takes what the closed form says for its slowest share.
  const ArrayLayerResult& second = acc.layer_results()[1];
  EXPECT_EQ(second.start_cycle, first_end + 1001);
  int64_t end = 0;
  for (const ClusterLayerPlan& c : plan.layers[1].clusters)
    if (c.share.M > 0 && c.share.N > 0 && c.share.K > 0)
      end = std::max(end, closed_form_end(a, c.share.M, c.share.N, c.share.K, first_end + 1001));
  EXPECT_EQ(second.end_cycle, end);
  EXPECT_EQ(acc.end_cycle(), second.end_cycle + 1);
}

TEST(StepKinds, AKindWithoutAnEngineIsAnInternalError) {
  const ArchSpec a = toy_arch(1);
  const Plan plan = toy_plan(a, "no_such_kind", 10);
  Accelerator acc("accelerator", accelerator_spec(a), plan, {});
  sc_core::sc_start();
  try {
    ProcessErrors::rethrow_if_any();
    FAIL() << "a step nothing runs went through";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown step kind 'no_such_kind'"), std::string::npos) << e.what();
  }
}

}  // namespace
