#pragma once
// The program a run executes: its steps in run order, each a typed kind. The mapper emits it
// (sim/mapper/program_order.h), `cstsim plan` prints it, and each cluster's sequencer
// (models/accelerator/sequencer.h) walks it, handing every step to the engine registered for its
// kind (models/base/step_engine.h). A new kind is a new alternative of Step::Kind plus an engine
// registered under its name; the compiler then lists every std::visit that must learn it.
#include <any>
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "plan/collective_kernel.h"
#include "plan/flash_kernel.h"
#include "plan/vector_kernel.h"

namespace cstsim {

// A GEMM layer on the fold pipeline (dataflows ws, os, is): Plan::layers[layer], its passes.
struct GemmLayerStep {
  static constexpr const char* kKind = "gemm";
};
// A layer of dataflow rs: Plan::layers[layer] in processing passes (its LayerPlan::rs).
struct RsLayerStep {
  static constexpr const char* kKind = "rs";
};
// A layer run as a Gemmini-style command stream (controller: rocc): Plan::layers[layer], its
// LayerPlan::rocc.
struct RoccLayerStep {
  static constexpr const char* kKind = "rocc";
};
// A kernel of fused element-wise and reducing ops on the vector unit.
struct VectorKernelStep {
  static constexpr const char* kKind = "vector";
  VectorKernelPlan kernel;
};
// Flash attention: tile GEMMs on the array, the online softmax on the vector unit.
struct FlashKernelStep {
  static constexpr const char* kKind = "flash";
  FlashKernelPlan kernel;
};
// chips > 1: every chip meets the others (or two chips exchange a pipeline stage's activations).
struct CollectiveStep {
  static constexpr const char* kKind = "collective";
  CollectiveKernelPlan collective;
};
// A kind that lives outside this list (a test's, or one being tried out): `kind` names the
// engine that runs it and `payload` is what that engine reads. Built-in kinds never use it.
struct ExtensionStep {
  std::string kind;
  std::any payload;
};

struct Step {
  using Kind = std::variant<GemmLayerStep, RsLayerStep, RoccLayerStep, VectorKernelStep, FlashKernelStep, CollectiveStep, ExtensionStep>;
  int id = 0;                // its index in the program
  std::string name;          // the layer's or the kernel's
  // The steps whose results it reads (ids, ascending, each below its own). The sequencer still runs
  // the steps in order, each after the one before has finished on every cluster.
  std::vector<int> deps;
  int layer = -1;            // the Plan::layers row it computes; -1: none (a kernel)
  Kind what;
  // The name its engine is registered under.
  std::string kind() const;
  template <typename T>
  const T* as() const {
    return std::get_if<T>(&what);
  }
};

struct Program {
  std::vector<Step> steps;
  // The steps of one kind, in run order.
  template <typename T>
  std::vector<const T*> all() const {
    std::vector<const T*> out;
    for (const Step& s : steps)
      if (const T* t = s.as<T>()) out.push_back(t);
    return out;
  }
  // Whether a step other than a layer runs right before layer `layer` (after layer `layer` - 1; then
  // nothing of the one is prefetched or kept on chip across it).
  bool kernels_between(size_t layer) const;
  // The layer each step belongs to on the trace: its own, or the next layer's (a kernel after the
  // last layer: -1).
  std::vector<int> trace_layers() const;
  // Throws std::logic_error unless the run order is a topological order of the deps: every step's
  // id is its index and every dep names an earlier step.
  void check_order() const;
};

}  // namespace cstsim
