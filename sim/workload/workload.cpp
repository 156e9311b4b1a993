#include "sim/workload/workload.h"

#include <fmt/format.h>

#include <climits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "core/input_error.h"
#include "core/text.h"
#include "core/yaml_file.h"
#include "sim/workload/graph.h"
#include "sim/workload/scalesim_csv.h"

namespace cstsim {
namespace {

const char* const kLayerKeys[] = {"name", "M", "N", "K"};
const char* const kOptionalLayerKeys[] = {"input", "input_density"};

int64_t positive(const std::string& path, int line, const std::string& key, const YAML::Node& v) {
  std::string text = v.IsScalar() ? v.Scalar() : "";
  auto n = text::parse_int(text);
  if (!v.IsScalar() || !n || *n <= 0)
    throw InputError(path, line, key,
                     v.IsScalar() ? "must be a positive integer, got " + text::quoted(text)
                                  : fmt::format("must be a positive integer, got {}", yaml_kind(v)));
  if (*n > INT_MAX)
    throw InputError(path, line, key, fmt::format("must be at most {}, got {}", INT_MAX, text::quoted(text)));
  return *n;
}

}  // namespace

double density_of(const std::string& path, int line, const std::string& key, const YAML::Node& v) {
  const std::optional<double> d = v.IsScalar() ? text::parse_double(v.Scalar()) : std::nullopt;
  if (!d || !(*d >= 0 && *d <= 1))
    throw InputError(path, line, key,
                     "must be a number from 0 to 1 (the fraction of the values that are nonzero), got " +
                         (v.IsScalar() ? text::quoted(v.Scalar()) : yaml_kind(v)));
  return *d;
}

namespace {

Layer read_layer(const std::string& path, const YAML::Node& node) {
  const int line = line_of(node);
  if (!node.IsMap())
    throw InputError(path, line, "layers",
                     fmt::format("each layer must be a map with name, M, N, K; got {}", yaml_kind(node)));
  std::map<std::string, YAML::Node> fields;
  std::map<std::string, int> lines;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string key = it->first.Scalar();
    const int key_line = line_of(it->first);
    bool known = false;
    for (const char* k : kLayerKeys) known = known || key == k;
    for (const char* k : kOptionalLayerKeys) known = known || key == k;
    if (!known) throw InputError(path, key_line, key, "unknown layer key (expected one of: name, M, N, K, input, input_density)");
    if (fields.count(key)) throw InputError(path, key_line, key, "duplicate key");
    fields.emplace(key, it->second);
    lines[key] = key_line;
  }
  for (const char* k : kLayerKeys)
    if (!fields.count(k)) throw InputError(path, line, k, "required layer key is missing");

  Layer layer;
  const YAML::Node& name = fields["name"];
  if (!name.IsScalar() || text::trim(name.Scalar()).empty())
    throw InputError(path, lines["name"], "name", "must be a non-empty string");
  if (text::control_char(name.Scalar()))  // every table holds a name on one line
    throw InputError(path, lines["name"], "name",
                     fmt::format("{} holds a control character (a line break or tab)", text::quoted(name.Scalar())));
  layer.name = std::string(text::trim(name.Scalar()));
  layer.M = positive(path, lines["M"], "M", fields["M"]);
  layer.N = positive(path, lines["N"], "N", fields["N"]);
  layer.K = positive(path, lines["K"], "K", fields["K"]);
  layer.source_line = line;
  if (fields.count("input")) {
    const YAML::Node& v = fields["input"];
    const std::string text = v.IsScalar() ? v.Scalar() : "";
    if (text != "previous" && text != "none")
      throw InputError(path, lines["input"], "input",
                       "must be previous (the layer reads the previous layer's output) or none, got " +
                           (v.IsScalar() ? text::quoted(text) : yaml_kind(v)));
    layer.reads_previous = text == "previous";
    layer.input_line = lines["input"];
  }
  if (fields.count("input_density"))
    layer.input_density = density_of(path, lines["input_density"], "input_density", fields["input_density"]);
  return layer;
}

Workload read_workload_yaml(const std::string& path, const YAML::Node& root) {
  if (!root.IsMap())
    throw InputError(path, line_of(root), "",
                     fmt::format("expected a map with 'layers', got {}", yaml_kind(root)));
  Workload w;
  w.name = text::stem(path);
  w.source = path;
  std::optional<YAML::Node> layers;
  int layers_line = 0, graph_line = 0;
  std::set<std::string> seen;
  for (auto it = root.begin(); it != root.end(); ++it) {
    const std::string key = it->first.Scalar();
    const int line = line_of(it->first);
    if (!seen.insert(key).second) throw InputError(path, line, key, "duplicate key");
    if (key == "name") {
      if (!it->second.IsScalar() || text::trim(it->second.Scalar()).empty())
        throw InputError(path, line, key, "must be a non-empty string");
      w.name = std::string(text::trim(it->second.Scalar()));
    } else if (key == "layers") {
      layers = it->second;
      layers_line = line;
    } else if (key == "ops" || key == "tensors") {
      graph_line = graph_line ? graph_line : line;
    } else if (key != "source") {  // source: free-text citation, ignored
      throw InputError(path, line, key, "unknown key (expected one of: name, source, layers; or tensors, ops)");
    }
  }
  if (graph_line && layers)
    throw InputError(path, layers_line, "layers",
                     "a workload is a list of layers or an operator graph (tensors, ops), not both");
  if (graph_line) {
    read_graph(path, root, w);
    return w;
  }
  if (!layers) throw InputError(path, 0, "layers", "required key is missing (or tensors and ops: an operator graph)");
  if (!layers->IsSequence())
    throw InputError(path, layers_line, "layers", fmt::format("must be a list, got {}", yaml_kind(*layers)));
  if (layers->size() == 0) throw InputError(path, layers_line, "layers", "no layers");

  std::map<std::string, int> first_line;  // names key the per-layer report rows
  for (const YAML::Node& node : *layers) {
    Layer layer = read_layer(path, node);
    if (auto [it, fresh] = first_line.emplace(layer.name, layer.source_line); !fresh)
      throw InputError(path, layer.source_line, "name",
                       fmt::format("duplicate layer name {} (first at line {})",
                                   text::quoted(layer.name), it->second));
    if (layer.reads_previous.value_or(false)) {
      if (w.layers.empty()) throw InputError(path, layer.input_line, "input", "the first layer has no previous layer");
      const Layer& previous = w.layers.back();
      if (!shape_reads_output_of(layer, previous))
        throw InputError(path, layer.input_line, "input",
                         fmt::format("layer {} cannot read the output of {}: its A has {} x {} elements, that "
                                     "output {} x {}",
                                     text::quoted(layer.name), text::quoted(previous.name), layer.M, layer.K,
                                     previous.M, previous.N));
    }
    w.layers.push_back(std::move(layer));
  }
  return w;
}

// Every reader caps the sizes it reads at INT_MAX; a convolution's lowered GEMM (M = Eh*Ew,
// K = Fh*Fw*C) and a graph op's (batches joining M) are products of them: held to the same cap
// here, once for every format, before anything is sized from them.
void check_lowered_sizes(const Workload& w) {
  for (const Layer& l : w.layers)
    for (const auto& [dim, value, how] : {std::tuple{"M", l.M, l.conv ? " (output height x width)" : ""},
                                          std::tuple{"N", l.N, ""},
                                          std::tuple{"K", l.K, l.conv ? " (filter height x width x channels)" : ""}})
      if (value > INT_MAX)
        throw InputError(w.source, l.source_line, l.name,
                         fmt::format("its GEMM's {}{} is {}; at most {}", dim, how, value, INT_MAX));
}

}  // namespace

Workload load_workload(const std::string& path) {
  const std::string lower = text::lower(path);
  Workload w;
  if (text::ends_with(lower, ".csv")) w = read_scalesim_csv(path);
  else if (text::ends_with(lower, ".yaml") || text::ends_with(lower, ".yml")) w = read_workload_yaml(path, load_yaml_file(path));
  else throw InputError(path, 0, "", "unknown workload format (expected .yaml, .yml or .csv)");
  check_lowered_sizes(w);
  return w;
}

Workload load_workload_yaml_text(const std::string& path, const std::string& text) {
  Workload w = read_workload_yaml(path, load_yaml_text(path, text));
  check_lowered_sizes(w);
  return w;
}

bool shape_reads_output_of(const Layer& l, const Layer& previous) {
  if (!l.conv) return l.M * l.K == previous.M * previous.N;
  const ConvShape& c = *l.conv;
  if (c.channels != previous.N) return false;
  if (!previous.conv) return c.ifmap_h * c.ifmap_w == previous.M;
  const int64_t h = previous.conv->out_h(), w = previous.conv->out_w();
  return c.ifmap_h >= h && c.ifmap_w >= w && c.ifmap_h - h < c.filter_h && c.ifmap_w - w < c.filter_w;
}

bool reads_output_of(const Layer& l, const Layer& previous) {
  return l.reads_previous ? *l.reads_previous : shape_reads_output_of(l, previous);
}

int input_producer(const Workload& w, size_t i) {
  const Layer& l = w.layers[i];
  if (l.input_layer) return *l.input_layer;
  return i > 0 && reads_output_of(l, w.layers[i - 1]) ? int(i) - 1 : -1;
}

Layer lower_conv(const std::string& name, const ConvShape& c) {
  Layer layer;
  layer.name = name;
  layer.M = c.out_h() * c.out_w();
  layer.N = c.filters;
  layer.K = c.filter_h * c.filter_w * c.channels;
  layer.conv = c;
  return layer;
}

}  // namespace cstsim
