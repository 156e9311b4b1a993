#pragma once
// A kernel of the vector unit as the mapper planned it (sim/mapper/vector_plan.h): one or
// several fused steps of an operator graph's vector ops (sim/workload/vector_steps.h) over
// `rows` rows, in tiles of tile_rows rows. Per tile it reads each row operand's rows from HBM
// into the scratchpad (two tiles' worth in the ifmap partition: the next tile loads while one
// computes), computes, and writes each written operand's rows back from the ofmap partition
// (two tiles' worth). Once-read operands (a norm's weight vector) load before the first tile
// and stay in the filter partition.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cstsim {

// Operation classes, each with its own rate per lane (arch vector.*_per_lane):
// add (add, subtract, max, compare: a reduction's step too), mul (multiply, fused multiply-add),
// special (exp, rsqrt, reciprocal, tanh: the transcendental unit).
enum class VectorClass : uint8_t { Add, Mul, Special };
inline constexpr int kVectorClasses = 3;
const char* to_string(VectorClass c);
// Counts by class as {"add": .., "mul": .., "special": ..}.
nlohmann::ordered_json by_class_json(const std::array<int64_t, 3>& counts);

struct VectorOperandPlan {
  std::string tensor;
  int64_t row_bytes = 0, once_bytes = 0;
  uint64_t addr = 0;  // memory: hierarchy: its first byte in HBM (row r at addr + r * row_bytes)
};

struct VectorKernelPlan {
  std::string name;               // the step, the op, or first..last op of a fused chain
  std::vector<std::string> ops;   // the graph ops it runs
  std::vector<std::string> what;  // its steps' formulas
  int64_t rows = 0, cols = 0;
  std::array<int64_t, kVectorClasses> ops_per_row{};  // by VectorClass
  std::vector<VectorOperandPlan> reads, writes;
  bool reduces = false;  // some step reduces along a row: a tile holds whole rows
  int64_t tile_rows = 1;
  int line = 0;
  int64_t tiles() const { return (rows + tile_rows - 1) / tile_rows; }
  int64_t rows_of(int64_t tile) const { return tile + 1 < tiles() ? tile_rows : rows - tile * tile_rows; }
  int64_t row_read_bytes() const {
    int64_t n = 0;
    for (const VectorOperandPlan& o : reads) n += o.row_bytes;
    return n;
  }
  int64_t row_written_bytes() const {
    int64_t n = 0;
    for (const VectorOperandPlan& o : writes) n += o.row_bytes;
    return n;
  }
  int64_t once_bytes() const {
    int64_t n = 0;
    for (const VectorOperandPlan& o : reads) n += o.once_bytes;
    return n;
  }
};

}  // namespace cstsim
