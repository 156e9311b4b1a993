#pragma once
// AcceleratorSpec: everything the models of one run are built from, each model's
// params held by value and fully resolved (sub-files read, defaults applied,
// routers placed). The front makes it from the arch file (sim/config); the models
// take their part of it and never open a file.
#include <string>
#include <utility>
#include <vector>

#include "models/array/array_trace.h"
#include "models/hbm/hbm_spec.h"
#include "models/memory/memory_params.h"
#include "models/noc/noc_config.h"
#include "models/scratchpad/scratchpad_params.h"
#include "models/vector/vector_params.h"
#include "plan/dataflow.h"

namespace cstsim {

struct AcceleratorSpec {
  std::string name;  // the arch's name, for messages
  int clusters = 1;  // identical arrays, each with its scratchpad and DMA
  ArrayGeometry array;
  FoldPipeline fold_pipeline = FoldPipeline::Overlapped;
  double clock_hz = 1e9;  // the array's (and DMA's) clock
  MemoryMode memory = MemoryMode::Ideal;
  ChannelParams channel;          // memory: channel
  HbmDmaParams hbm_dma;           // memory: hbm | hierarchy
  hbm::HbmSpec hbm;               // memory: hbm | hierarchy: the stack
  noc::NocConfig noc;             // memory: hierarchy: the mesh
  std::vector<std::pair<int, int>> cluster_routers;  // memory: hierarchy: cluster k's router (x, y)
  spad::ScratchpadParams scratchpad;                 // memory: hierarchy: per cluster
  VectorParams vector;                               // the vector unit beside each array (lanes 0: none)
  struct RsSpads {                                   // dataflow: rs: each PE's scratchpads, words
    int64_t filter_spad = 224, ifmap_spad = 12, psum_spad = 24;
  } rs;
  // memory: hierarchy: an independent protocol checker (models/hbm/checker.h) hears every
  // HBM command of the run; a violation stops it. `run --no-hbm-check` turns it off for speed.
  bool check_hbm_protocol = true;

  int64_t accumulator_bytes() const { return array.precision.accumulator_bytes(); }
};

}  // namespace cstsim
