#include "sim/onnx/onnx_fold.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <stdexcept>

#include <fmt/format.h>

namespace cstsim::onnx_fold {

using onnx::TensorProto;

int64_t Value::elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

bool is_float(int32_t t) {
  return t == TensorProto::FLOAT || t == TensorProto::DOUBLE || t == TensorProto::FLOAT16 || t == TensorProto::BFLOAT16;
}
bool is_integer(int32_t t) {
  switch (t) {
    case TensorProto::BOOL:
    case TensorProto::INT8:
    case TensorProto::UINT8:
    case TensorProto::INT16:
    case TensorProto::UINT16:
    case TensorProto::INT32:
    case TensorProto::UINT32:
    case TensorProto::INT64:
    case TensorProto::UINT64: return true;
    default: return false;
  }
}

namespace {

[[noreturn]] void bad(const onnx::NodeProto& n, const std::string& what) {
  throw std::invalid_argument(fmt::format("{}: {}", n.op_type(), what));
}

// A tensor's `count` values as type T from raw_data (little-endian, as ONNX stores it), else from
// its typed repeated field (ONNX keeps the narrow integer types and bool in int32_data).
template <class T, class Field>
bool values_as(const TensorProto& t, const Field& field, int64_t count, std::vector<double>& out) {
  if (t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    if (int64_t(raw.size()) != count * int64_t(sizeof(T))) return false;
    out.resize(size_t(count));
    for (int64_t k = 0; k < count; ++k) {
      T x;
      std::memcpy(&x, raw.data() + k * int64_t(sizeof(T)), sizeof(T));
      out[size_t(k)] = double(x);
    }
    return true;
  }
  if (field.size() != count) return false;
  out.assign(field.begin(), field.end());
  return true;
}

// Values of a tensor of a type folding computes with.
bool values_of(const TensorProto& t, int64_t count, std::vector<double>& out) {
  switch (t.data_type()) {
    case TensorProto::FLOAT: return values_as<float>(t, t.float_data(), count, out);
    case TensorProto::DOUBLE: return values_as<double>(t, t.double_data(), count, out);
    case TensorProto::INT64: return values_as<int64_t>(t, t.int64_data(), count, out);
    case TensorProto::UINT64: return values_as<uint64_t>(t, t.uint64_data(), count, out);
    case TensorProto::INT32: return values_as<int32_t>(t, t.int32_data(), count, out);
    case TensorProto::INT16: return values_as<int16_t>(t, t.int32_data(), count, out);
    case TensorProto::UINT16: return values_as<uint16_t>(t, t.int32_data(), count, out);
    case TensorProto::INT8: return values_as<int8_t>(t, t.int32_data(), count, out);
    case TensorProto::UINT8:
    case TensorProto::BOOL: return values_as<uint8_t>(t, t.int32_data(), count, out);
    default: return false;
  }
}

std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t k = s.size(); k-- > 1;) st[k - 1] = st[k] * s[k];
  return st;
}

int64_t product(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) {
    if (d < 0) return -1;
    if (d != 0 && n > kMaxFoldElements * 64 / d) return kMaxFoldElements + 1;
    n *= d;
  }
  return n;
}

// numpy broadcasting of any number of shapes; nullopt when they do not broadcast.
std::optional<Shape> broadcast(const std::vector<const Shape*>& shapes) {
  size_t rank = 0;
  for (const Shape* s : shapes) rank = std::max(rank, s->size());
  Shape out(rank, 1);
  for (const Shape* s : shapes)
    for (size_t k = 0; k < s->size(); ++k) {
      int64_t& o = out[rank - s->size() + k];
      const int64_t d = (*s)[k];
      if (d == o || d == 1) continue;
      if (o != 1) return std::nullopt;
      o = d;
    }
  return out;
}

// The element of x that broadcasts to position `idx` of a tensor of shape `out`.
double at_broadcast(const Value& x, const Shape& out, const std::vector<int64_t>& idx) {
  const size_t off = out.size() - x.dims.size();
  int64_t flat = 0;
  for (size_t k = 0; k < x.dims.size(); ++k) flat = flat * x.dims[k] + (x.dims[k] == 1 ? 0 : idx[off + k]);
  return x.v[size_t(flat)];
}

// Calls f(flat, multi-index) over every element of `shape` in row-major order.
void for_each_index(const Shape& shape, const std::function<void(int64_t, const std::vector<int64_t>&)>& f) {
  const int64_t n = product(shape);
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    f(flat, idx);
    for (size_t k = shape.size(); k-- > 0;) {
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
  }
}

// The integer an ONNX integer type holds after a computation (truncation, bool as 0 or 1).
double as_type(double x, int32_t type) {
  if (type == TensorProto::BOOL) return x != 0 ? 1 : 0;
  if (is_integer(type)) return std::isfinite(x) ? std::trunc(x) : x;
  if (type == TensorProto::FLOAT) return double(float(x));
  return x;
}

const onnx::AttributeProto* attr(const onnx::NodeProto& n, const char* name) {
  for (const onnx::AttributeProto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}
int64_t int_attr(const onnx::NodeProto& n, const char* name, int64_t fallback) {
  const onnx::AttributeProto* a = attr(n, name);
  return a ? a->i() : fallback;
}
std::optional<Shape> ints_attr(const onnx::NodeProto& n, const char* name) {
  const onnx::AttributeProto* a = attr(n, name);
  if (!a) return std::nullopt;
  return Shape(a->ints().begin(), a->ints().end());
}

Shape ints_of(const Value& v) {
  Shape s;
  for (double x : v.v) s.push_back(x >= 9.2e18 ? INT64_MAX : x <= -9.2e18 ? INT64_MIN : int64_t(x));
  return s;
}

int64_t norm_axis(const onnx::NodeProto& n, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) bad(n, fmt::format("axis {} of a {}-D tensor", axis, rank));
  return axis < 0 ? axis + rank : axis;
}

Value make(int32_t type, Shape dims) {
  Value r;
  r.type = type;
  r.dims = std::move(dims);
  r.known = true;
  return r;
}

// Every input but the optional ones left out must be constant with values.
bool held(const std::vector<const Value*>& in, size_t required) {
  if (in.size() < required) return false;
  for (size_t k = 0; k < in.size(); ++k)
    if (k < required && (!in[k] || !in[k]->known)) return false;
  for (const Value* v : in)
    if (v && !v->known) return false;
  return true;
}

std::optional<Value> binary(const onnx::NodeProto& n, const Value& a, const Value& b) {
  const std::string& op = n.op_type();
  const auto out = broadcast({&a.dims, &b.dims});
  if (!out) bad(n, "its inputs do not broadcast");
  if (product(*out) > kMaxFoldElements) return std::nullopt;
  const bool compare = op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" ||
                       op == "GreaterOrEqual" || op == "And" || op == "Or" || op == "Xor";
  Value r = make(compare ? int32_t(TensorProto::BOOL) : a.type, *out);
  r.v.resize(size_t(product(*out)));
  const bool integer = is_integer(a.type);
  std::function<double(double, double)> f;
  if (op == "Add") f = [](double x, double y) { return x + y; };
  else if (op == "Sub") f = [](double x, double y) { return x - y; };
  else if (op == "Mul") f = [](double x, double y) { return x * y; };
  else if (op == "Div") f = [integer](double x, double y) { return integer ? (y == 0 ? 0 : std::trunc(x / y)) : x / y; };
  else if (op == "Pow") f = [](double x, double y) { return std::pow(x, y); };
  else if (op == "Max") f = [](double x, double y) { return std::max(x, y); };
  else if (op == "Min") f = [](double x, double y) { return std::min(x, y); };
  else if (op == "Mod") f = [](double x, double y) { return y == 0 ? 0 : x - y * std::floor(x / y); };
  else if (op == "Equal") f = [](double x, double y) { return double(x == y); };
  else if (op == "Less") f = [](double x, double y) { return double(x < y); };
  else if (op == "Greater") f = [](double x, double y) { return double(x > y); };
  else if (op == "LessOrEqual") f = [](double x, double y) { return double(x <= y); };
  else if (op == "GreaterOrEqual") f = [](double x, double y) { return double(x >= y); };
  else if (op == "And") f = [](double x, double y) { return double(x != 0 && y != 0); };
  else if (op == "Or") f = [](double x, double y) { return double(x != 0 || y != 0); };
  else if (op == "Xor") f = [](double x, double y) { return double((x != 0) != (y != 0)); };
  else return std::nullopt;
  for_each_index(*out, [&](int64_t flat, const std::vector<int64_t>& idx) {
    r.v[size_t(flat)] = as_type(f(at_broadcast(a, *out, idx), at_broadcast(b, *out, idx)), r.type);
  });
  return r;
}

std::optional<Value> unary(const onnx::NodeProto& n, const Value& x) {
  const std::string& op = n.op_type();
  std::function<double(double)> f;
  if (op == "Identity") f = [](double v) { return v; };
  else if (op == "Neg") f = [](double v) { return -v; };
  else if (op == "Abs") f = [](double v) { return std::fabs(v); };
  else if (op == "Sqrt") f = [](double v) { return std::sqrt(v); };
  else if (op == "Reciprocal") f = [](double v) { return 1 / v; };
  else if (op == "Exp") f = [](double v) { return std::exp(v); };
  else if (op == "Log") f = [](double v) { return std::log(v); };
  else if (op == "Erf") f = [](double v) { return std::erf(v); };
  else if (op == "Floor") f = [](double v) { return std::floor(v); };
  else if (op == "Ceil") f = [](double v) { return std::ceil(v); };
  else if (op == "Not") f = [](double v) { return double(v == 0); };
  else return std::nullopt;
  Value r = make(x.type, x.dims);
  r.v.reserve(x.v.size());
  for (double v : x.v) r.v.push_back(as_type(f(v), x.type));
  return r;
}

}  // namespace

Value read(const TensorProto& t, int64_t max_float) {
  Value v;
  v.type = t.data_type();
  v.dims.assign(t.dims().begin(), t.dims().end());
  const int64_t count = product(v.dims);
  if (count < 0) return v;
  const bool small = is_integer(v.type) ? count <= kMaxFoldElements : is_float(v.type) && count <= max_float;
  if (small && t.data_location() != TensorProto::EXTERNAL) v.known = values_of(t, count, v.v);
  if (!v.known) v.v.clear();
  return v;
}

std::optional<Value> constant_value(const onnx::NodeProto& n) {
  for (const onnx::AttributeProto& a : n.attribute()) {
    if (a.name() == "value" && a.has_t()) return read(a.t(), kMaxFoldElements);
    Value v;
    v.known = true;
    if (a.name() == "value_float") {
      v.type = TensorProto::FLOAT;
      v.v = {a.f()};
    } else if (a.name() == "value_int") {
      v.type = TensorProto::INT64;
      v.v = {double(a.i())};
    } else if (a.name() == "value_floats") {
      v.type = TensorProto::FLOAT;
      v.dims = {a.floats_size()};
      v.v.assign(a.floats().begin(), a.floats().end());
    } else if (a.name() == "value_ints") {
      v.type = TensorProto::INT64;
      v.dims = {a.ints_size()};
      v.v.assign(a.ints().begin(), a.ints().end());
    } else {
      continue;
    }
    return v;
  }
  return std::nullopt;
}

void write(const Value& v, const std::string& name, int64_t max_float, TensorProto& t) {
  t.Clear();
  t.set_name(name);
  t.set_data_type(v.type);
  for (int64_t d : v.dims) t.add_dims(d);
  if (!v.known || (is_float(v.type) && int64_t(v.v.size()) > max_float)) return;
  switch (v.type) {
    case TensorProto::FLOAT:
      for (double x : v.v) t.add_float_data(float(x));
      break;
    case TensorProto::DOUBLE:
      for (double x : v.v) t.add_double_data(x);
      break;
    case TensorProto::INT64:
      for (double x : v.v) t.add_int64_data(x >= 9.2e18 ? INT64_MAX : x <= -9.2e18 ? INT64_MIN : int64_t(x));
      break;
    case TensorProto::UINT64:
      for (double x : v.v) t.add_uint64_data(uint64_t(x));
      break;
    case TensorProto::INT32:
    case TensorProto::INT16:
    case TensorProto::INT8:
    case TensorProto::UINT16:
    case TensorProto::UINT8:
    case TensorProto::BOOL:
      for (double x : v.v) t.add_int32_data(int32_t(x));
      break;
    default: break;  // fp16, bf16: dims and type only
  }
}

std::optional<std::vector<Value>> evaluate(const onnx::NodeProto& n, const std::vector<const Value*>& in,
                                           const Shape* shape0) {
  const std::string& op = n.op_type();
  auto one = [](Value v) { return std::optional<std::vector<Value>>(std::vector<Value>{std::move(v)}); };
  if (op == "Shape" || op == "Size") {
    if (!shape0) return std::nullopt;
    for (int64_t d : *shape0)
      if (d < 0) return std::nullopt;
    if (op == "Size") {
      Value r = make(TensorProto::INT64, {});
      r.v = {double(product(*shape0))};
      return one(r);
    }
    const int64_t rank = int64_t(shape0->size());
    int64_t start = int_attr(n, "start", 0), end = int_attr(n, "end", rank);
    start = std::clamp(start < 0 ? start + rank : start, int64_t(0), rank);
    end = std::clamp(end < 0 ? end + rank : end, int64_t(0), rank);
    Value r = make(TensorProto::INT64, {std::max<int64_t>(0, end - start)});
    for (int64_t k = start; k < end; ++k) r.v.push_back(double((*shape0)[size_t(k)]));
    return one(r);
  }
  if (op == "ConstantOfShape") {
    if (!held(in, 1)) return std::nullopt;
    const Shape dims = ints_of(*in[0]);
    if (product(dims) < 0 || product(dims) > kMaxFoldElements) return std::nullopt;
    Value fill = make(TensorProto::FLOAT, {});
    fill.v = {0.0};
    if (const onnx::AttributeProto* a = attr(n, "value"); a && a->has_t()) {
      fill = read(a->t(), 1);
      if (!fill.known || fill.v.size() != 1) return std::nullopt;
    }
    Value r = make(fill.type, dims);
    r.v.assign(size_t(product(dims)), fill.v[0]);
    return one(r);
  }
  if (op == "Range") {
    if (!held(in, 3)) return std::nullopt;
    if (in[0]->v.size() != 1 || in[1]->v.size() != 1 || in[2]->v.size() != 1) bad(n, "start, limit and delta are scalars");
    const double start = in[0]->v[0], limit = in[1]->v[0], delta = in[2]->v[0];
    if (delta == 0) bad(n, "a delta of 0");
    const double count = std::max(0.0, std::ceil((limit - start) / delta));
    if (count > double(kMaxFoldElements)) return std::nullopt;
    Value r = make(in[0]->type, {int64_t(count)});
    for (int64_t k = 0; k < int64_t(count); ++k) r.v.push_back(as_type(start + double(k) * delta, r.type));
    return one(r);
  }
  if (in.empty() || !in[0] || !in[0]->known) return std::nullopt;
  const Value& x = *in[0];
  const int64_t rank = int64_t(x.dims.size());
  if (op == "Cast") {
    if (!held(in, 1)) return std::nullopt;
    Value r = make(int32_t(int_attr(n, "to", x.type)), x.dims);
    for (double v : x.v) r.v.push_back(as_type(v, r.type));
    return one(r);
  }
  if (auto u = unary(n, x)) return one(*u);
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Pow" || op == "Equal" || op == "Less" ||
      op == "Greater" || op == "LessOrEqual" || op == "GreaterOrEqual" || op == "And" || op == "Or" || op == "Xor" ||
      op == "Mod" || ((op == "Max" || op == "Min") && in.size() == 2)) {
    if (!held(in, 2)) return std::nullopt;
    auto r = binary(n, x, *in[1]);
    if (!r) return std::nullopt;
    return one(*r);
  }
  if (op == "Where") {
    if (!held(in, 3)) return std::nullopt;
    const auto out = broadcast({&in[0]->dims, &in[1]->dims, &in[2]->dims});
    if (!out) bad(n, "its inputs do not broadcast");
    if (product(*out) > kMaxFoldElements) return std::nullopt;
    Value r = make(in[1]->type, *out);
    r.v.resize(size_t(product(*out)));
    for_each_index(*out, [&](int64_t flat, const std::vector<int64_t>& idx) {
      r.v[size_t(flat)] = at_broadcast(x, *out, idx) != 0 ? at_broadcast(*in[1], *out, idx) : at_broadcast(*in[2], *out, idx);
    });
    return one(r);
  }
  if (op == "Expand") {
    if (!held(in, 2)) return std::nullopt;
    const Shape target = ints_of(*in[1]);
    for (int64_t d : target)
      if (d < 0) bad(n, fmt::format("a dimension of {}", d));
    const auto out = broadcast({&x.dims, &target});
    if (!out) bad(n, "the shape does not broadcast");
    if (product(*out) > kMaxFoldElements) return std::nullopt;
    Value r = make(x.type, *out);
    r.v.resize(size_t(product(*out)));
    for_each_index(*out, [&](int64_t flat, const std::vector<int64_t>& idx) { r.v[size_t(flat)] = at_broadcast(x, *out, idx); });
    return one(r);
  }
  if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze") {
    Shape dims;
    if (op == "Reshape") {
      if (!held(in, 2)) return std::nullopt;
      const Shape want = ints_of(*in[1]);
      const bool allowzero = int_attr(n, "allowzero", 0) != 0;
      int64_t known = 1, infer = -1;
      for (size_t k = 0; k < want.size(); ++k) {
        int64_t d = want[k];
        if (d == 0 && !allowzero) {
          if (k >= x.dims.size()) bad(n, "a 0 past the input's rank");
          d = x.dims[k];
        }
        if (d == -1) {
          if (infer >= 0) bad(n, "two -1 dimensions");
          infer = int64_t(k);
        } else if (d < 0) {
          bad(n, fmt::format("a dimension of {}", d));
        } else {
          known *= d;
        }
        dims.push_back(d);
      }
      if (infer >= 0) {
        if (known == 0 || x.elements() % known != 0) bad(n, "the -1 dimension does not divide");
        dims[size_t(infer)] = x.elements() / known;
      }
    } else if (op == "Flatten") {
      const int64_t axis = int_attr(n, "axis", 1);
      const int64_t a = axis < 0 ? axis + rank : axis;
      int64_t lead = 1;
      for (int64_t k = 0; k < a && k < rank; ++k) lead *= x.dims[size_t(k)];
      dims = {lead, lead == 0 ? 0 : x.elements() / lead};
    } else {
      std::optional<Shape> axes = ints_attr(n, "axes");
      if (!axes && in.size() > 1 && in[1]) axes = ints_of(*in[1]);
      if (op == "Squeeze") {
        std::vector<bool> drop(x.dims.size(), false);
        if (axes) {
          for (int64_t a : *axes) drop[size_t(norm_axis(n, a, rank))] = true;
        } else {
          for (size_t k = 0; k < x.dims.size(); ++k) drop[k] = x.dims[k] == 1;
        }
        for (size_t k = 0; k < x.dims.size(); ++k)
          if (!drop[k]) dims.push_back(x.dims[k]);
      } else {
        if (!axes) bad(n, "no axes");
        const int64_t out_rank = rank + int64_t(axes->size());
        std::vector<bool> one_at(size_t(out_rank), false);
        for (int64_t a : *axes) one_at[size_t(norm_axis(n, a, out_rank))] = true;
        size_t from = 0;
        if (out_rank - rank != int64_t(std::count(one_at.begin(), one_at.end(), true))) bad(n, "an axis named twice");
        for (int64_t k = 0; k < out_rank; ++k) dims.push_back(one_at[size_t(k)] ? 1 : x.dims[from++]);
      }
    }
    if (product(dims) != x.elements()) bad(n, "the output's elements differ from the input's");
    Value r = make(x.type, dims);
    r.v = x.v;
    return one(r);
  }
  if (op == "Concat") {
    if (!held(in, 1)) return std::nullopt;
    const int64_t axis = norm_axis(n, int_attr(n, "axis", 0), rank);
    Shape dims = x.dims;
    dims[size_t(axis)] = 0;
    for (const Value* p : in) {
      if (!p || p->dims.size() != x.dims.size()) bad(n, "inputs of different ranks");
      for (int64_t k = 0; k < rank; ++k)
        if (k != axis && p->dims[size_t(k)] != x.dims[size_t(k)]) bad(n, "inputs that differ off the axis");
      dims[size_t(axis)] += p->dims[size_t(axis)];
    }
    if (product(dims) > kMaxFoldElements) return std::nullopt;
    Value r = make(x.type, dims);
    int64_t outer = 1;
    for (int64_t k = 0; k < axis; ++k) outer *= x.dims[size_t(k)];
    for (int64_t o = 0; o < outer; ++o)
      for (const Value* p : in) {
        const int64_t chunk = p->elements() / std::max<int64_t>(1, outer);
        r.v.insert(r.v.end(), p->v.begin() + o * chunk, p->v.begin() + (o + 1) * chunk);
      }
    return one(r);
  }
  if (op == "Gather") {
    if (!held(in, 2)) return std::nullopt;
    const int64_t axis = norm_axis(n, int_attr(n, "axis", 0), rank);
    const Value& ind = *in[1];
    Shape dims(x.dims.begin(), x.dims.begin() + axis);
    dims.insert(dims.end(), ind.dims.begin(), ind.dims.end());
    dims.insert(dims.end(), x.dims.begin() + axis + 1, x.dims.end());
    if (product(dims) > kMaxFoldElements) return std::nullopt;
    Value r = make(x.type, dims);
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < axis; ++k) outer *= x.dims[size_t(k)];
    for (int64_t k = axis + 1; k < rank; ++k) inner *= x.dims[size_t(k)];
    const int64_t size = x.dims[size_t(axis)];
    for (int64_t o = 0; o < outer; ++o)
      for (double iv : ind.v) {
        int64_t i = int64_t(iv);
        if (i < 0) i += size;
        if (i < 0 || i >= size) bad(n, fmt::format("index {} outside a dimension of {}", int64_t(iv), size));
        const int64_t base = (o * size + i) * inner;
        r.v.insert(r.v.end(), x.v.begin() + base, x.v.begin() + base + inner);
      }
    return one(r);
  }
  if (op == "Slice") {
    Shape starts, ends, axes, steps;
    if (in.size() >= 3) {
      if (!held(in, 3)) return std::nullopt;
      starts = ints_of(*in[1]);
      ends = ints_of(*in[2]);
      if (in.size() > 3 && in[3]) axes = ints_of(*in[3]);
      if (in.size() > 4 && in[4]) steps = ints_of(*in[4]);
    } else {  // opset < 10: attributes
      starts = ints_attr(n, "starts").value_or(Shape{});
      ends = ints_attr(n, "ends").value_or(Shape{});
      axes = ints_attr(n, "axes").value_or(Shape{});
    }
    if (starts.size() != ends.size()) bad(n, "starts and ends differ in length");
    if (axes.empty())
      for (size_t k = 0; k < starts.size(); ++k) axes.push_back(int64_t(k));
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (axes.size() != starts.size() || steps.size() != starts.size()) bad(n, "axes or steps differ in length from starts");
    Shape first(x.dims.size(), 0), step(x.dims.size(), 1), dims = x.dims;
    for (size_t k = 0; k < starts.size(); ++k) {
      const size_t a = size_t(norm_axis(n, axes[k], rank));
      const int64_t d = x.dims[a], s = steps[k];
      if (s == 0) bad(n, "a step of 0");
      auto clampi = [&](int64_t v, int64_t lo, int64_t hi) {
        if (v < 0) v = v <= INT64_MIN / 2 ? lo : v + d;
        return std::clamp(v, lo, hi);
      };
      const int64_t b = s > 0 ? clampi(starts[k], 0, d) : clampi(starts[k], -1, d - 1);
      const int64_t e = s > 0 ? clampi(ends[k], 0, d) : clampi(ends[k], -1, d - 1);
      first[a] = b;
      step[a] = s;
      dims[a] = s > 0 ? std::max<int64_t>(0, (e - b + s - 1) / s) : std::max<int64_t>(0, (b - e - s - 1) / -s);
    }
    Value r = make(x.type, dims);
    const std::vector<int64_t> st = strides_of(x.dims);
    r.v.resize(size_t(product(dims)));
    for_each_index(dims, [&](int64_t flat, const std::vector<int64_t>& idx) {
      int64_t src = 0;
      for (size_t k = 0; k < idx.size(); ++k) src += (first[k] + idx[k] * step[k]) * st[k];
      r.v[size_t(flat)] = x.v[size_t(src)];
    });
    return one(r);
  }
  if (op == "Transpose") {
    Shape perm = ints_attr(n, "perm").value_or(Shape{});
    if (perm.empty())
      for (int64_t k = rank; k-- > 0;) perm.push_back(k);
    if (int64_t(perm.size()) != rank) bad(n, "perm differs in length from the input's rank");
    std::vector<bool> seen(size_t(rank), false);
    Shape dims;
    for (int64_t& p : perm) {
      p = norm_axis(n, p, rank);
      if (seen[size_t(p)]) bad(n, "perm names an axis twice");
      seen[size_t(p)] = true;
      dims.push_back(x.dims[size_t(p)]);
    }
    Value r = make(x.type, dims);
    const std::vector<int64_t> st = strides_of(x.dims);
    r.v.resize(x.v.size());
    for_each_index(dims, [&](int64_t flat, const std::vector<int64_t>& idx) {
      int64_t src = 0;
      for (size_t k = 0; k < idx.size(); ++k) src += idx[k] * st[size_t(perm[k])];
      r.v[size_t(flat)] = x.v[size_t(src)];
    });
    return one(r);
  }
  if (op == "Trilu") {
    if (rank < 2) bad(n, "a tensor of fewer than 2 dimensions");
    int64_t k = 0;
    if (in.size() > 1 && in[1]) {
      if (!in[1]->known || in[1]->v.size() != 1) return std::nullopt;
      k = int64_t(in[1]->v[0]);
    }
    const bool upper = int_attr(n, "upper", 1) != 0;
    Value r = make(x.type, x.dims);
    r.v = x.v;
    const int64_t rows = x.dims[size_t(rank - 2)], cols = x.dims[size_t(rank - 1)];
    for (size_t flat = 0; flat < r.v.size(); ++flat) {
      const int64_t i = (int64_t(flat) / cols) % rows, j = int64_t(flat) % cols;
      if (upper ? j - i < k : j - i > k) r.v[flat] = 0;
    }
    return one(r);
  }
  return std::nullopt;
}

}  // namespace cstsim::onnx_fold
