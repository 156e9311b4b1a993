// Formulas: sim/ledger/README.md explains every row and why it prints the seeds' digits.
// Notation: E elements of the main tensor, R rows, C columns, b = bytes per element.
#include "sim/ledger/ops.h"

#include <stdexcept>

#include "core/num_type.h"

#include <algorithm>

#include <fmt/format.h>

namespace cstsim::ledger {
namespace {

double d(int64_t v) { return static_cast<double>(v); }

Row make_row(const char* suite, std::string id, std::vector<std::string> tags, std::string label,
             std::vector<Kernel> kernels) {
  Row r;
  r.suite = suite;
  r.id = std::move(id);
  r.tags = std::move(tags);
  r.label = std::move(label);
  r.kernels = std::move(kernels);
  return r;
}

// ---- seed 003 ---------------------------------------------------------------------------

std::vector<Row> elementwise003(const Shapes003& s) {
  const double n = d(s.elements), b = s.dtype.bytes;
  const std::string& t = s.dtype.name;
  std::vector<Row> rows;
  // y = x + b with b a full tensor: read x, read b, write y; 1 FLOP per element.
  rows.push_back(make_row("003", "add", {"elementwise"},
                          fmt::format("elementwise add y=x+b ({:.1f}M elements, {})", n / 1e6, t),
                          {{"y = x + b", n, 3 * n * b}}));
  // Two unary 1-FLOP ops in a row, e.g. y = relu(x * s). Eager: each kernel reads and writes a tensor.
  rows.push_back(make_row("003", "chain-eager", {"chain", "elementwise"},
                          fmt::format("elementwise chain, 2 ops (eager, one kernel per op, {})", t),
                          {{"t = f(x)", n, 2 * n * b}, {"y = g(t)", n, 2 * n * b}}));
  rows.push_back(make_row("003", "chain-fused", {"chain", "elementwise"},
                          fmt::format("elementwise chain, 2 ops (fused into 1 kernel, {})", t),
                          {{"y = g(f(x))", 2 * n, 2 * n * b}}));
  return rows;
}

std::vector<Row> layernorm003(const Shapes003& s) {
  const double e = d(s.ln_rows) * d(s.ln_cols), b = s.dtype.bytes;
  const std::string shape = fmt::format("{}x{}, {}", s.ln_rows, s.ln_cols, s.dtype.name);
  // 8 FLOP per element (the seed's estimate): mean 1, variance 3, normalise 2, affine 2.
  // Bytes are x and y only; the seed leaves out gamma/beta.
  return {make_row("003", "layernorm-fused", {"layernorm"}, fmt::format("LayerNorm fused ({})", shape),
                   {{"layernorm", 8 * e, 2 * e * b}}),
          make_row("003", "layernorm-3pass", {"layernorm"}, fmt::format("LayerNorm in 3 passes ({})", shape),
                   {{"pass 1: mean (read x)", 1 * e, e * b},
                    {"pass 2: variance (read x)", 3 * e, e * b},
                    {"pass 3: normalise + affine (read x, write y)", 4 * e, 2 * e * b}})};
}

Row gemm003(const Shapes003& s) {
  const double m = d(s.gemm_m), n = d(s.gemm_n), k = d(s.gemm_k), b = s.dtype.bytes;
  return make_row("003", "gemm", {}, fmt::format("GEMM {}x{}x{} ({})", s.gemm_m, s.gemm_n, s.gemm_k, s.dtype.name),
                  {{"C = A B", 2 * m * n * k, (m * k + k * n + m * n) * b}});
}

std::vector<Row> attention003(const Shapes003& s) {
  const double bh = d(s.batch) * d(s.heads), sq = d(s.seq_len), hd = d(s.head_dim), b = s.dtype.bytes;
  const double scores = bh * sq * sq;      // S x S per (batch, head)
  const double qkvo = bh * sq * hd;        // elements of each of Q, K, V, O
  const double matmul = 2 * scores * hd;   // one of Q Kt, P V
  const std::string batch = s.batch > 1 ? fmt::format(", B={}", s.batch) : "";
  std::vector<Row> rows;
  // Eager: Q Kt writes S; the 1/sqrt(d) scale reads and writes it; softmax reads S, writes P;
  // P V reads P. Six passes over the S x S matrix. 5 FLOP per score: scale, max, subtract, exp, sum.
  rows.push_back(make_row("003", "prefill-materialized", {"prefill", "attention"},
                          fmt::format("attention prefill (materialized SxS scores, S={}{})", s.seq_len, batch),
                          {{"S = Q Kt", matmul, (2 * qkvo + scores) * b},
                           {"S = S / sqrt(d)", scores, 2 * scores * b},
                           {"P = softmax(S)", 4 * scores, 2 * scores * b},
                           {"O = P V", matmul, (scores + 2 * qkvo) * b}}));
  rows.push_back(make_row("003", "prefill-flash", {"prefill", "attention"},
                          fmt::format("attention prefill (flash-style, no SxS, S={}{})", s.seq_len, batch),
                          {{"O = flash(Q, K, V)", 2 * matmul + 5 * scores, 4 * qkvo * b}}));
  // One query token against a KV cache of kv_len tokens; bytes are the K and V caches
  // (q and o, 2 x heads x head_dim elements, are left out as in the seed).
  const double kv = d(s.batch) * d(s.kv_len) * d(s.heads) * hd;
  rows.push_back(make_row("003", "decode", {"attention"},
                          fmt::format("attention decode (KV cache length {}, {}{})", s.kv_len, s.dtype.name, batch),
                          {{"o = attend(q, K, V)", 4 * kv + 5 * d(s.batch) * d(s.heads) * d(s.kv_len),
                            2 * kv * b}}));
  return rows;
}

std::vector<Row> training003(const Shapes003& s) {
  const double p = d(s.params), st = s.state_dtype.bytes, g = s.grad_dtype.bytes;
  std::vector<Row> rows;
  // 15 FLOP per parameter; read the gradient, read and write weights, m and v.
  rows.push_back(make_row("003", "adamw", {},
                          fmt::format("AdamW step ({:.2f}B params, state {}, grad {})", p / 1e9,
                                      s.state_dtype.name, s.grad_dtype.name),
                          {{"adamw", 15 * p, p * (g + 6 * st)}}));
  // Ring all-reduce: each rank sends (and receives) 2 (n-1)/n of the gradient bytes.
  const double n = d(s.world);
  Row ar = make_row("003", "allreduce", {},
                    fmt::format("gradient all-reduce (ring, {} ranks, {})", s.world, s.grad_dtype.name),
                    {{"reduce-scatter + all-gather", 0, 2 * (n - 1) / n * p * g}});
  ar.traffic = Traffic::Link;
  rows.push_back(ar);
  return rows;
}

// ---- seed 002 ---------------------------------------------------------------------------

Pair make_pair(std::string id, std::vector<std::string> tags, Row unfused, Row fused) {
  Pair p;
  p.id = std::move(id);
  p.tags = std::move(tags);
  p.unfused = std::move(unfused);
  p.fused = std::move(fused);
  p.unfused.id = p.id + "-unfused";
  p.fused.id = p.id + "-fused";
  p.unfused.tags = p.fused.tags = p.tags;
  return p;
}

Pair scale_add002(const Shapes002& s) {
  const double n = d(s.ew_elements), b = s.ew_dtype.bytes;
  return make_pair("scale-add", {"elementwise"},
                   make_row("002", "", {}, "scale+add (2 kernels)",
                            {{"t = a * x", n, 2 * n * b}, {"y = t + b", n, 3 * n * b}}),
                   make_row("002", "", {}, "scale+add (fused, 1 kernel)", {{"y = a * x + b", 2 * n, 3 * n * b}}));
}

Pair rmsnorm002(const Shapes002& s) {
  const double r = d(s.norm_rows), c = d(s.norm_cols), e = r * c, b = s.norm_dtype.bytes;
  const double st = 4;  // row statistics are fp32 (the reduction's accumulator type)
  return make_pair(
      "rmsnorm", {"norm"},
      make_row("002", "", {}, "RMSNorm (6-step decomposition)",
               {{"sq = x^2", e, 2 * e * b},
                {"ms = mean(sq)", e, e * b + r * st},
                {"t = ms + eps", r, 2 * r * st},
                {"rstd = rsqrt(t)", r, 2 * r * st},
                {"xn = x * rstd", e, 2 * e * b + r * st},
                {"y = xn * w", e, 2 * e * b + c * b}}),
      make_row("002", "", {}, "RMSNorm (fused, 1 kernel)", {{"rmsnorm", 4 * e + 2 * r, 2 * e * b + c * b}}));
}

Pair layernorm002(const Shapes002& s) {
  const double r = d(s.norm_rows), c = d(s.norm_cols), e = r * c, b = s.norm_dtype.bytes;
  // Row statistics in the activation dtype (what x.mean(-1) returns in eager mode).
  return make_pair(
      "layernorm", {"norm"},
      make_row("002", "", {}, "LayerNorm (multi-pass decomposition)",
               {{"mu = mean(x)", e, e * b + r * b},
                {"xc = x - mu", e, 2 * e * b + r * b},
                {"sq = xc^2", e, 2 * e * b},
                {"var = mean(sq)", e, e * b + r * b},
                {"xn = xc * rsqrt(var + eps)", e + r, 2 * e * b + r * b},
                {"y = xn * gamma + beta", 2 * e, 2 * e * b + 2 * c * b}}),
      make_row("002", "", {}, "LayerNorm (fused, 1 kernel)", {{"layernorm", 6 * e + 2 * r, 2 * e * b + 2 * c * b}}));
}

Pair rope002(const Shapes002& s) {
  const double e = d(s.rope_tokens) * d(s.rope_heads) * d(s.rope_dim), b = s.rope_dtype.bytes;
  // Eager (HF style): cos/sin are broadcast to x's full shape; rotate_half is a copy.
  // Fused: cos and sin read once per rotated pair (E/2 each), x read, y written.
  return make_pair("rope", {},
                   make_row("002", "", {}, "RoPE (4-step, intermediates in HBM)",
                            {{"xr = rotate_half(x)", 0, 2 * e * b},
                             {"a = x * cos", e, 3 * e * b},
                             {"c = xr * sin", e, 3 * e * b},
                             {"y = a + c", e, 3 * e * b}}),
                   make_row("002", "", {}, "RoPE (fused, 1 kernel)", {{"rope", 3 * e, 3 * e * b}}));
}

Pair norm_rope_quant002(const Shapes002& s) {
  const double r = d(s.fused_rows), c = d(s.fused_cols), e = r * c, rd = d(s.fused_rope_dim);
  const double b = s.fused_dtype.bytes;
  const double weight = c * b;          // RMSNorm weight
  const double cos_sin = r * rd * b;    // cos and sin, rope_dim/2 each per row
  const double q8 = e * 1;              // int8 output
  const double scales = r * 4;          // one fp32 scale per row (dynamic per-token quantisation)
  const double norm_flops = 4 * e + 2 * r, rope_flops = 3 * r * rd, quant_flops = 3 * e + r;
  return make_pair(
      "rmsnorm-rope-quant", {},
      make_row("002", "", {}, "RMSNorm+RoPE+quant (3 kernels)",
               {{"h = rmsnorm(x)", norm_flops, 2 * e * b + weight},
                {"h2 = rope(h[:, :rope_dim]), rest copied", rope_flops, 2 * e * b + cos_sin},
                {"q, scale = quant_int8(h2)", quant_flops, e * b + q8 + scales}}),
      make_row("002", "", {}, "RMSNorm+RoPE+quant (fused)",
               {{"q, scale = quant_int8(rope(rmsnorm(x)))", norm_flops + rope_flops + quant_flops,
                 e * b + weight + cos_sin + q8 + scales}}));
}

bool has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

void add_unique(std::vector<std::string>& names, const std::string& name) {
  if (!has(names, name)) names.push_back(name);
}

}  // namespace

DType::DType(const std::string& name) : name(name) {
  const std::optional<NumType> t = num_type_named(name);
  if (!t) throw std::logic_error("ledger: no dtype " + name);
  bytes = bits_of(*t) / 8.0;
}

std::optional<DType> parse_dtype(const std::string& name) {
  if (!num_type_named(name)) return std::nullopt;
  return DType(name);
}

std::string dtype_names() { return fmt::format("{}, fp8", fmt::join(all_num_type_names(), ", ")); }

double Row::flops() const {
  double sum = 0;
  for (const Kernel& k : kernels) sum += k.flops;
  return sum;
}

double Row::bytes() const {
  double sum = 0;
  for (const Kernel& k : kernels) sum += k.bytes;
  return sum;
}

bool Row::matches(const std::string& name) const { return name == id || has(tags, name); }

bool Pair::matches(const std::string& name) const { return name == id || has(tags, name); }

std::vector<Row> suite003(const Shapes003& s) {
  std::vector<Row> rows = elementwise003(s);
  for (Row& r : layernorm003(s)) rows.push_back(std::move(r));
  rows.push_back(gemm003(s));
  for (Row& r : attention003(s)) rows.push_back(std::move(r));
  for (Row& r : training003(s)) rows.push_back(std::move(r));
  return rows;
}

std::vector<Pair> suite002(const Shapes002& s) {
  return {scale_add002(s), rmsnorm002(s), layernorm002(s), rope002(s), norm_rope_quant002(s)};
}

std::vector<std::string> op_names003() {
  std::vector<std::string> names;
  const std::vector<Row> rows = suite003(Shapes003{});
  for (const Row& r : rows) add_unique(names, r.id);
  for (const Row& r : rows)
    for (const std::string& t : r.tags) add_unique(names, t);
  return names;
}

std::vector<std::string> op_names002() {
  std::vector<std::string> names;
  const std::vector<Pair> pairs = suite002(Shapes002{});
  for (const Pair& p : pairs) add_unique(names, p.id);
  for (const Pair& p : pairs)
    for (const std::string& t : p.tags) add_unique(names, t);
  return names;
}

Bound roofline(const Row& row, double peak_flops, double bandwidth, double link_bandwidth) {
  Bound b;
  b.memory_s = row.bytes() / (row.traffic == Traffic::Link ? link_bandwidth : bandwidth);
  b.compute_s = row.flops() / peak_flops;
  return b;
}

}  // namespace cstsim::ledger
