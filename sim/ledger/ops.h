#pragma once
// Operator accounting of the ledger: FLOPs and minimum bytes per kernel, per row.
// Suite "003" is seed 003's operator table (one row per operator, priced against a
// machine); suite "002" is seed 002's fused-vs-unfused ledger (pairs of rows).
// The formulas, and why each one, are in sim/ledger/README.md.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cstsim::ledger {

// An element type as the user spelled it ("fp8", "fp16"): a NumType (core/num_type.h), whose width
// prices the bytes (int4 half a byte, tf32 stored in 4).
struct DType {
  explicit DType(const std::string& name);  // a name num_type_named knows (a logic_error otherwise)
  std::string name;
  double bytes = 0;
};
// Every NumType by name (all_num_type_names(), and fp8); nullopt otherwise.
std::optional<DType> parse_dtype(const std::string& name);
std::string dtype_names();

// One kernel launch: FLOPs it performs and bytes it reads plus writes in memory.
struct Kernel {
  std::string name;
  double flops = 0;
  double bytes = 0;
};

enum class Traffic { Memory, Link };  // which bandwidth prices the bytes

struct Row {
  std::string suite;              // "003" or "002"
  std::string id;                 // unique within the suite, e.g. "prefill-flash"
  std::vector<std::string> tags;  // names `--op` matches (the id is always one)
  std::string label;              // the printed name
  std::vector<Kernel> kernels;
  Traffic traffic = Traffic::Memory;

  double flops() const;
  double bytes() const;
  double intensity() const { return flops() / bytes(); }  // FLOP per byte
  bool matches(const std::string& name) const;
};

// Seed 003 defaults.
struct Shapes003 {
  int64_t elements = int64_t{1} << 24;  // elementwise rows
  DType dtype{"fp16"};                  // activations: elementwise, LayerNorm, GEMM, attention
  int64_t ln_rows = 8192, ln_cols = 4096;
  int64_t gemm_m = 4096, gemm_n = 4096, gemm_k = 4096;
  int64_t batch = 1, seq_len = 4096, heads = 32, head_dim = 128, kv_len = 32768;
  int64_t params = 7'000'000'000;
  DType state_dtype{"fp32"};  // AdamW master weights, m, v
  DType grad_dtype{"bf16"};   // AdamW gradient and the all-reduce payload
  int64_t world = 8;
};

// Seed 002 defaults.
struct Shapes002 {
  int64_t ew_elements = int64_t{1} << 20;
  DType ew_dtype{"fp32"};
  int64_t norm_rows = 4096, norm_cols = 4096;
  DType norm_dtype{"fp16"};
  int64_t rope_tokens = 4096, rope_heads = 32, rope_dim = 128;
  DType rope_dtype{"fp16"};
  int64_t fused_rows = 4096, fused_cols = 4096, fused_rope_dim = 128;
  DType fused_dtype{"bf16"};
};

struct Pair {
  std::string id;
  std::vector<std::string> tags;
  Row unfused, fused;
  double bytes_ratio() const { return unfused.bytes() / fused.bytes(); }
  bool matches(const std::string& name) const;
};

// Seed 003's eleven rows, in the seed's order.
std::vector<Row> suite003(const Shapes003& s);
// Seed 002's five pairs, in the seed's order.
std::vector<Pair> suite002(const Shapes002& s);

// Every --op name of each suite (ids and group tags), for help and errors.
std::vector<std::string> op_names003();
std::vector<std::string> op_names002();

// Roofline of one row on one machine: time bound = max(bytes / bandwidth, flops / peak).
struct Bound {
  double memory_s = 0;
  double compute_s = 0;
  double time_s() const { return memory_s > compute_s ? memory_s : compute_s; }
  bool compute_bound() const { return compute_s > memory_s; }  // a tie is memory-bound
};
Bound roofline(const Row& row, double peak_flops, double bandwidth, double link_bandwidth);

}  // namespace cstsim::ledger
