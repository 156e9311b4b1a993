#pragma once
// A workload at b times its batch, as the YAML file the sweep's `batch` axis writes and runs
// (sim/sweep/README.md, "Batch sizes"; the rule: configs/README.md, "Batch").
//   operator graph  the graph itself, every op, tensor, dtype and attribute kept, weights unchanged:
//                   the leading dimension of every activation and KV cache input (its batch) times b,
//                   and of every reshape of a tensor that carries it;
//   layer list      every layer's M times b (b inputs stacked along M), `input` and
//                   `input_density` kept.
#include <cstdint>
#include <string>

#include "sim/workload/workload.h"

namespace cstsim {

struct BatchedWorkload {
  std::string yaml;   // the file's text (cstsim YAML)
  Workload workload;  // that text as load_workload reads it
};

// `w` (as load_workload read it from w.source) at `batch` times its batch, named `name`; `path`: where
// the text will be written (names it in the result). Throws InputError (w.source, line, key, why)
// where w has no batch dimension: a graph activation or KV cache of one dimension, a graph without
// either, a graph whose ops do not take the batched shapes, or a size past 2^31 - 1.
BatchedWorkload batched_workload(const Workload& w, int64_t batch, const std::string& name, const std::string& path);

}  // namespace cstsim
