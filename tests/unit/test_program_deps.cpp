// The program's dependencies (plan/program.h Step::deps): each step depends on the steps that
// write what it reads, by the workload's tensors, and the run order is a topological order of them.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/config/arch_spec.h"
#include "sim/mapper/mapper.h"
#include "sim/workload/workload.h"
#include "tests/hierarchy_spec.h"
#include "tests/test_util.h"
#include "tests/unit/split_test_util.h"

namespace cstsim {
namespace {

using testing_util::kModels;
using testing_util::TempDir;

// 8 x 8 with an 8-lane vector unit, on ideal memory.
ArchSpec deps_arch() {
  ArchSpec a = testing_util::code_arch(8, 8, 64);
  a.vector.lanes = 8;
  return a;
}

// Each step's deps by the names of the steps.
std::map<std::string, std::set<std::string>> dep_names(const Program& p) {
  std::map<std::string, std::set<std::string>> out;
  for (const Step& s : p.steps) {
    std::set<std::string>& d = out[s.name];
    for (int id : s.deps) d.insert(p.steps[size_t(id)].name);
  }
  return out;
}

using Names = std::set<std::string>;

// A skip connection: the add reads what `mid` wrote and, through a view, what `up` wrote before
// it: two deps, neither the step's place; `down` reads only the add.
TEST(ProgramDeps, ResidualAddDependsOnBothItsProducers) {
  TempDir dir;
  const Workload w = load_workload(dir.write("res.yaml",
                                             "tensors:\n"
                                             "  - {name: x, shape: [1, 16, 32], dtype: int8, role: activation}\n"
                                             "  - {name: w1, shape: [32, 32], dtype: int8, role: weight}\n"
                                             "  - {name: w2, shape: [32, 32], dtype: int8, role: weight}\n"
                                             "  - {name: w3, shape: [32, 32], dtype: int8, role: weight}\n"
                                             "ops:\n"
                                             "  - {name: up, op: matmul, in: [x, w1], out: a}\n"
                                             "  - {name: flat, op: reshape, in: a, out: av, shape: [16, 32]}\n"
                                             "  - {name: mid, op: matmul, in: [a, w2], out: b}\n"
                                             "  - {name: skip, op: add, in: [b, av], out: y}\n"
                                             "  - {name: down, op: matmul, in: [y, w3], out: z}\n"));
  const Plan plan = make_plan(deps_arch(), w);
  ASSERT_EQ(plan.program.steps.size(), 4u);
  EXPECT_EQ(plan.program.steps[2].name, "skip");
  auto deps = dep_names(plan.program);
  EXPECT_EQ(deps["up"], Names{});
  EXPECT_EQ(deps["mid"], Names{"up"});
  EXPECT_EQ(deps["skip"], (Names{"up", "mid"}));
  EXPECT_EQ(deps["down"], Names{"skip"});
  EXPECT_EQ(plan.program.steps[2].deps, (std::vector<int>{0, 1}));  // ids, ascending
}

// A list of layers names no tensors: a layer depends on the one whose output its shape reads
// (`input: none`: on nothing), not on the one before it.
TEST(ProgramDeps, ListLayersDependOnTheLayerTheyRead) {
  TempDir dir;
  const Workload w = load_workload(dir.write("l.yaml",
                                             "layers:\n"
                                             "  - {name: a, M: 16, N: 32, K: 8}\n"
                                             "  - {name: b, M: 16, N: 8, K: 32}\n"
                                             "  - {name: c, M: 16, N: 8, K: 32, input: none}\n"));
  auto deps = dep_names(make_plan(deps_arch(), w).program);
  EXPECT_EQ(deps["a"], Names{});
  EXPECT_EQ(deps["b"], Names{"a"});
  EXPECT_EQ(deps["c"], Names{});
}

// The shipped ResNet-50 and a BERT layer: the deps form a DAG whose order is the run's, every
// residual add waits for both its branches, and each layer for the layer or kernel that wrote its
// input (the workload's own record of it, not the mapper's).
TEST(ProgramDeps, BranchyGraphsHaveDepsConsistentWithTheRunOrder) {
  for (const char* model : {"resnet50-padded.yaml", "bert-base-layer-s512.yaml"}) {
    SCOPED_TRACE(model);
    const Workload w = load_workload(kModels + model);
    ArchSpec a = load_arch(std::string(CSTSIM_SOURCE_DIR) + "/configs/arch/npu-128.yaml");
    a.vector.lanes = 512;
    const Plan plan = make_plan(a, w);
    const Program& p = plan.program;
    EXPECT_NO_THROW(p.check_order());
    std::map<int, int> step_of_layer;
    std::map<std::string, int> writer;  // tensor -> the last step that wrote it
    int joins = 0, not_the_previous = 0;
    for (const Step& s : p.steps) {
      for (int d : s.deps) EXPECT_LT(d, s.id) << s.name;
      joins += s.deps.size() >= 2;
      not_the_previous += s.deps != std::vector<int>{s.id - 1};
      const std::set<int> deps(s.deps.begin(), s.deps.end());
      if (s.layer >= 0) {
        step_of_layer[s.layer] = s.id;
        const Layer& l = w.layers[size_t(s.layer)];
        if (l.input_layer && *l.input_layer >= 0) EXPECT_TRUE(deps.count(step_of_layer.at(*l.input_layer))) << s.name;
        else if (auto it = writer.find(l.tensors[0]); it != writer.end()) EXPECT_TRUE(deps.count(it->second)) << s.name;
        writer[l.tensors[2]] = s.id;
      } else if (const VectorKernelStep* v = s.as<VectorKernelStep>()) {
        for (const VectorOperandPlan& r : v->kernel.reads)
          if (auto it = writer.find(r.tensor); it != writer.end()) EXPECT_TRUE(deps.count(it->second)) << s.name << " " << r.tensor;
        for (const VectorOperandPlan& o : v->kernel.writes) writer[o.tensor] = s.id;
      }
    }
    EXPECT_GE(joins, 3);  // ResNet's residual adds, BERT's attention GEMMs and adds
    EXPECT_GE(not_the_previous, 3);
  }
}

// The check: a dep on a step that runs later (or on itself, or deps out of order) is a broken law.
TEST(ProgramDeps, CheckOrderRefusesADepThatDoesNotRunBefore) {
  Program p;
  p.steps.resize(3);
  for (size_t i = 0; i < 3; ++i) {
    p.steps[i].id = int(i);
    p.steps[i].name = "s" + std::to_string(i);
  }
  p.steps[2].deps = {0, 1};
  EXPECT_NO_THROW(p.check_order());
  p.steps[1].deps = {2};
  EXPECT_THROW(p.check_order(), std::logic_error);
  p.steps[1].deps = {1};
  EXPECT_THROW(p.check_order(), std::logic_error);
  p.steps[1].deps = {};
  p.steps[2].deps = {1, 0};
  EXPECT_THROW(p.check_order(), std::logic_error);
}

}  // namespace
}  // namespace cstsim
