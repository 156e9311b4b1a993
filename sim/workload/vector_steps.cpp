#include "sim/workload/vector_steps.h"

#include <stdexcept>

namespace cstsim {

int64_t VectorStep::read_bytes() const {
  int64_t n = 0;
  for (const VectorAccess& a : reads) n += rows * a.row_bytes + a.once_bytes;
  return n;
}

int64_t VectorStep::written_bytes() const {
  int64_t n = 0;
  for (const VectorAccess& a : writes) n += rows * a.row_bytes + a.once_bytes;
  return n;
}

int64_t VectorStep::ops() const {
  int64_t n = 0;
  for (int64_t k : ops_per_row) n += k * rows;
  return n;
}

namespace {

// Builds an op's steps: full-width tensors of cols elements per row, row statistics of one
// fp32 value per row.
class Steps {
 public:
  explicit Steps(const VectorOpIo& io) : io_(io) {}

  VectorAccess input(size_t k) const { return io_.in.at(k); }
  VectorAccess full(const std::string& part) const { return {io_.op + "." + part, io_.cols * io_.element_bytes, 0}; }
  VectorAccess stat(const std::string& part) const { return {io_.op + "." + part, kRowStatBytes, 0}; }
  VectorAccess out() const { return {io_.out, io_.out_row_bytes, 0}; }

  // A step named after its part (op.part), or after the op itself when it is the only one.
  void add(const std::string& part, const std::string& what, std::vector<VectorAccess> reads,
           std::vector<VectorAccess> writes, int64_t add_ops, int64_t mul_ops, int64_t special_ops) {
    VectorStep s;
    s.name = part.empty() ? io_.op : io_.op + "." + part;
    s.op = io_.op;
    s.kind = io_.kind;
    s.what = what;
    s.rows = io_.rows;
    s.cols = io_.cols;
    s.ops_per_row = {add_ops, mul_ops, special_ops};
    s.reads = std::move(reads);
    s.writes = std::move(writes);
    s.line = io_.line;
    s.reduces = io_.kind == "rmsnorm" || io_.kind == "layernorm" || io_.kind == "softmax" || io_.kind == "quantize";
    steps_.push_back(std::move(s));
  }
  std::vector<VectorStep> take() { return std::move(steps_); }

 private:
  const VectorOpIo& io_;
  std::vector<VectorStep> steps_;
};

}  // namespace

std::vector<VectorStep> vector_steps(const VectorOpIo& io) {
  Steps s(io);
  const int64_t c = io.cols;
  const std::string& k = io.kind;
  const size_t inputs = io.in.size();
  if (k == "add" || k == "mul") {
    s.add("", k == "add" ? "y = x + b" : "y = x * b", {s.input(0), s.input(1)}, {s.out()}, k == "add" ? c : 0,
          k == "mul" ? c : 0, 0);
  } else if (k == "scale") {  // by a constant (attention's 1/sqrt(d))
    s.add("", "y = x * c", {s.input(0)}, {s.out()}, 0, c, 0);
  } else if (k == "relu") {
    s.add("", "y = max(x, 0)", {s.input(0)}, {s.out()}, c, 0, 0);
  } else if (k == "clip") {  // ReLU6 and its kin
    s.add("", "y = min(max(x, lo), hi)", {s.input(0)}, {s.out()}, 2 * c, 0, 0);
  } else if (k == "gelu") {  // tanh form: 0.5 x (1 + tanh(0.79788 (x + 0.044715 x^3)))
    s.add("", "y = gelu(x)", {s.input(0)}, {s.out()}, 2 * c, 5 * c, c);
  } else if (k == "sigmoid") {  // 1 / (1 + exp(-x))
    s.add("", "y = sigmoid(x)", {s.input(0)}, {s.out()}, c, 0, 2 * c);
  } else if (k == "silu") {  // x * sigmoid(x): exp, add, reciprocal, multiply
    s.add("", "y = x * sigmoid(x)", {s.input(0)}, {s.out()}, c, c, 2 * c);
  } else if (k == "rmsnorm") {  // seed 002's 6 steps; without a weight the 6th is not there
    const bool weighted = inputs > 1;
    s.add("sq", "sq = x^2", {s.input(0)}, {s.full("sq")}, 0, c, 0);
    s.add("ms", "ms = mean(sq)", {s.full("sq")}, {s.stat("ms")}, c, 0, 0);
    s.add("t", "t = ms + eps", {s.stat("ms")}, {s.stat("t")}, 1, 0, 0);
    s.add("rstd", "rstd = rsqrt(t)", {s.stat("t")}, {s.stat("rstd")}, 0, 0, 1);
    s.add("xn", "xn = x * rstd", {s.input(0), s.stat("rstd")}, {weighted ? s.full("xn") : s.out()}, 0, c, 0);
    if (weighted) s.add("y", "y = xn * w", {s.full("xn"), s.input(1)}, {s.out()}, 0, c, 0);
  } else if (k == "layernorm") {  // seed 002's multi-pass form
    std::vector<VectorAccess> affine{s.full("xn")};
    for (size_t i = 1; i < inputs; ++i) affine.push_back(s.input(i));
    s.add("mu", "mu = mean(x)", {s.input(0)}, {s.stat("mu")}, c, 0, 0);
    s.add("xc", "xc = x - mu", {s.input(0), s.stat("mu")}, {s.full("xc")}, c, 0, 0);
    s.add("sq", "sq = xc^2", {s.full("xc")}, {s.full("sq")}, 0, c, 0);
    s.add("var", "var = mean(sq)", {s.full("sq")}, {s.stat("var")}, c, 0, 0);
    s.add("xn", "xn = xc * rsqrt(var + eps)", {s.full("xc"), s.stat("var")}, {inputs > 1 ? s.full("xn") : s.out()}, 1,
          c, 1);
    if (inputs > 1)
      s.add("y", inputs > 2 ? "y = xn * gamma + beta" : "y = xn * gamma", affine, {s.out()}, inputs > 2 ? c : 0, c, 0);
  } else if (k == "softmax") {  // safe softmax over a row
    s.add("max", "m = max(x)", {s.input(0)}, {s.stat("max")}, c, 0, 0);
    s.add("exp", "e = exp(x - m)", {s.input(0), s.stat("max")}, {s.full("exp")}, c, 0, c);
    s.add("sum", "z = sum(e)", {s.full("exp")}, {s.stat("sum")}, c, 0, 0);
    s.add("y", "y = e / z", {s.full("exp"), s.stat("sum")}, {s.out()}, 0, c, 1);
  } else if (k == "rope") {  // seed 002's 4 steps (cos and sin from a table when given, else computed)
    std::vector<VectorAccess> cos{s.input(0)}, sin{s.full("xr")};
    if (inputs > 1) cos.push_back(s.input(1)), sin.push_back(s.input(1));
    const int64_t trig = inputs > 1 ? 0 : c;  // no table: cos and sin of every angle on the special unit
    s.add("xr", "xr = rotate_half(x)", {s.input(0)}, {s.full("xr")}, 0, 0, 0);
    s.add("a", "a = x * cos", cos, {s.full("a")}, 0, c, trig);
    s.add("c", "c = xr * sin", sin, {s.full("c")}, 0, c, trig);
    s.add("y", "y = a + c", {s.full("a"), s.full("c")}, {s.out()}, c, 0, 0);
  } else if (k == "quantize") {  // dynamic per-row int scale: absmax, scale, round
    std::vector<VectorAccess> writes{s.out()};
    if (inputs == 1) writes.push_back({io.out + ".scale", kRowStatBytes, 0});
    s.add("", "q, s = quantize(x)", {s.input(0)}, writes, 2 * c, c, 1);
  } else if (k == "dequantize") {
    std::vector<VectorAccess> reads{s.input(0)};
    if (inputs > 1) reads.push_back(s.input(1));
    s.add("", "y = q * s", reads, {s.out()}, 0, c, 0);
  } else if (k == "embedding") {  // rows gathered from the table by id
    s.add("", "y = table[ids]", {s.input(0), s.input(1)}, {s.out()}, 0, 0, 0);
  } else if (k == "kv_append") {  // the new rows copied into the cache
    s.add("", "cache[L:L+S] = new", {s.input(1)}, {s.out()}, 0, 0, 0);
  } else if (k == "concat") {
    s.add("", "y = concat(x...)", io.in, {s.out()}, 0, 0, 0);
  } else if (k == "maxpool" || k == "avgpool") {
    s.add("", k == "maxpool" ? "y = max(window)" : "y = mean(window)", {s.input(0)}, {s.out()}, io.window * c,
          k == "avgpool" ? c : 0, 0);
  } else {
    throw std::logic_error("vector_steps: unknown kind " + k);
  }
  return s.take();
}

}  // namespace cstsim
