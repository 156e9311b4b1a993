#include "sim/serve/serve_model.h"

#include <fmt/format.h>

#include "core/input_error.h"
#include "core/yaml_file.h"
#include "sim/workload/graph.h"

namespace cstsim::serve {

int64_t ServeModel::weight_bytes() const {
  const int64_t q = heads * head_dim, kv = kv_width();
  const int64_t block = hidden * (q + 2 * kv) + q * hidden + (ffn_kind == "swiglu" ? 3 : 2) * hidden * ffn + 2 * hidden;
  return (layers * block + 2 * vocab * hidden + hidden) * dtype_bits / 8;
}

namespace {

int64_t positive(const std::string& file, const YAML::Node& root, const char* key, bool required, int64_t fallback = 0) {
  const YAML::Node v = root[key];
  if (!v) {
    if (required) throw InputError(file, line_of(root), key, "is required");
    return fallback;
  }
  const double x = yaml_number(file, v, key);
  if (x != double(int64_t(x)) || x < 1 || x > double(int64_t(1) << 40))
    throw InputError(file, line_of(v), key, fmt::format("must be a whole number from 1 to 2^40, got {}", v.Scalar()));
  return int64_t(x);
}

std::string choice(const std::string& file, const YAML::Node& root, const char* key, const std::string& fallback,
                   std::initializer_list<const char*> allowed) {
  const YAML::Node v = root[key];
  if (!v) return fallback;
  const std::string s = yaml_text(file, v, key);
  for (const char* a : allowed)
    if (s == a) return s;
  throw InputError(file, line_of(v), key, fmt::format("must be one of {}, got '{}'", fmt::join(allowed, ", "), s));
}

std::string dtype(const std::string& file, const YAML::Node& root, const char* key, const std::string& fallback) {
  const YAML::Node v = root[key];
  if (!v) return fallback;
  const std::string s = yaml_text(file, v, key);
  if (dtype_bits(s) == 0) throw InputError(file, line_of(v), key, fmt::format("unknown dtype '{}'", s));
  return s;
}

}  // namespace

ServeModel load_serve_model(const std::string& path) {
  const YAML::Node root = load_yaml_file(path);
  if (!root.IsMap()) throw InputError(path, line_of(root), "", "a model file is a map (name, layers, hidden, heads, ...)");
  reject_unknown_keys(path, root, "",
                      {"name", "source", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "ffn_kind", "vocab",
                       "dtype", "kv_dtype", "attention"});
  ServeModel m;
  m.path = path;
  m.name = root["name"] ? yaml_text(path, root["name"], "name") : std::string();
  if (m.name.empty()) throw InputError(path, line_of(root), "name", "is required");
  m.source = root["source"] ? yaml_text(path, root["source"], "source") : std::string();
  m.layers = positive(path, root, "layers", true);
  m.hidden = positive(path, root, "hidden", true);
  m.heads = positive(path, root, "heads", true);
  m.kv_heads = positive(path, root, "kv_heads", false, m.heads);
  if (m.heads % m.kv_heads != 0)
    throw InputError(path, line_of(root["kv_heads"]), "kv_heads", fmt::format("{} does not divide heads ({})", m.kv_heads, m.heads));
  if (!root["head_dim"] && m.hidden % m.heads != 0)
    throw InputError(path, line_of(root["heads"]), "heads", fmt::format("{} does not divide hidden ({}); give head_dim", m.heads, m.hidden));
  m.head_dim = positive(path, root, "head_dim", false, m.hidden / m.heads);
  m.ffn = positive(path, root, "ffn", true);
  m.ffn_kind = choice(path, root, "ffn_kind", "swiglu", {"swiglu", "gelu"});
  m.vocab = positive(path, root, "vocab", true);
  m.dtype = dtype(path, root, "dtype", "bf16");
  m.kv_dtype = dtype(path, root, "kv_dtype", m.dtype);
  m.attention = choice(path, root, "attention", "materialized", {"materialized", "flash"});
  m.dtype_bits = dtype_bits(m.dtype);
  m.kv_bits = dtype_bits(m.kv_dtype);
  return m;
}

}  // namespace cstsim::serve
