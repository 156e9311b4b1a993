#pragma once
// The sections of a sweep spec, each read and checked on its own (every error names the
// spec's file, line and key): what expand() (spec.h) crosses into points.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/sweep/constraint.h"
#include "sim/sweep/spec.h"
#include "sim/workload/workload.h"

namespace cstsim::sweep {

inline constexpr int64_t kMaxPoints = 1000000;

struct Value {
  std::string text;
  int line = 0;
};

struct Axis {  // one grid key and its values
  std::string key;
  int line = 0;
  std::vector<Value> values;
};

struct ExplicitPoint {
  int line = 0;
  std::vector<std::pair<std::string, Value>> values;  // config keys, in the order written
  std::optional<Value> workload, batch;
};

struct SpecFile {
  std::map<std::string, int> key_lines;  // top-level key -> its line
  std::string name, spec_path, base;     // spec_path and base absolute
  std::vector<std::string> bases;        // base: a list of arch files (absolute), each crossed with the rest
  RunSettings run;
  std::vector<Workload> workloads;
  std::vector<Value> batches{{"1", 0}};  // as written ({"1", 0} when there is no batch:)
  std::vector<int64_t> batch_values{1};
  std::vector<Axis> axes;                              // grid:, in the order written
  std::vector<std::pair<std::string, Value>> fixed;    // set:
  std::vector<ExplicitPoint> points;                   // points:
  std::vector<std::string> param_keys;                 // config keys of grid, points, set (in that order)
  std::vector<Constraint> constraints;
  int line_of(const std::string& key) const {  // 0 when the key is absent
    const auto it = key_lines.find(key);
    return it == key_lines.end() ? 0 : it->second;
  }
};

// Reads and validates every section of a spec. Throws InputError.
SpecFile read_spec(const std::string& spec_path);

}  // namespace cstsim::sweep
