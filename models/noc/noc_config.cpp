#include "models/noc/noc_config.h"

#include <algorithm>

#include <map>
#include <set>

#include <fmt/format.h>

#include "models/noc/routing.h"
#include "models/noc/topology.h"
#include "core/clock.h"
#include "core/input_error.h"
#include "core/schema.h"
#include "core/text.h"
#include "core/yaml_file.h"

namespace cstsim::noc {

const schema::Table& noc_schema() {
  using namespace schema;
  static const Table table(
      "NoC file (configs/noc/*.yaml)",
      {
          text_key("name", "file stem", "label used in reports"),
          choice_key("topology", "", "mesh", topology_names(), "the router graph (models/noc/topology.h)"),
          choice_key("routing", "", "xy", routing_names(), "routing function (dimension order; deadlock-free on a mesh)"),
          with_rule(number_key("clock_hz", "Hz", "1.0e9", "NoC clock, whole Hz in 1e6..1e11"), clock_hz_problem),
          text_key("source", "none", "free-text citation for the numbers"),
          integer_key("mesh.cols", "routers", "4", 1, 64, "routers along x (west to east)"),
          integer_key("mesh.rows", "routers", "4", 1, 64, "routers along y (south to north)"),
          integer_key("flit_bytes", "bytes", "16", 1, 4096, "flit width (Garnet ni_flit_size 128 bit)"),
          integer_key("router_latency", "cycles", "1", 1, 64, "from buffer write to switch traversal"),
          integer_key("link_latency", "cycles", "1", 1, 64, "on a wire, injection channel included"),
          integer_key("credit_latency", "cycles", "1", 1, 64, "for a credit to reach the upstream router"),
          integer_key("buffer_depth", "flits", "4", 1, 1024, "flits per input VC"),
          integer_key("vnets", "virtual networks", "2", 1, 8, "0 request, 1 response: protocol-deadlock freedom"),
          integer_key("vcs_per_vnet", "VCs", "2", 1, 8, "virtual channels per vnet; 1 is enough for correctness"),
          choice_key("vc_reuse", "", "after_tail", vc_reuse_names(),
                     "when an output VC takes its next packet: after_tail (once the tail left) or atomic (once the tail's credit is back)"),
          choice_key("arbitration", "", "round_robin", arbitration_names(),
                     "who wins an output: round_robin per output, or age (the oldest packet first)"),
          text_key("edge_nodes", "none", "list of {side, index}: extra endpoints on free edge ports (memory controllers)"),
          text_key("sources", "none", "map key: citation, the provenance of each value"),
      });
  return table;
}

const char* vc_reuse_name(VcReuse r) { return r == VcReuse::Atomic ? "atomic" : "after_tail"; }

const char* arbitration_name(Arbitration a) { return a == Arbitration::Age ? "age" : "round_robin"; }

const std::vector<std::string>& arbitration_names() {
  static const std::vector<std::string> names{"round_robin", "age"};
  return names;
}

const std::vector<std::string>& vc_reuse_names() {
  static const std::vector<std::string> names{"after_tail", "atomic"};
  return names;
}

int NocConfig::flits_for(int64_t bytes) const {
  if (bytes <= 0) return 1;
  return int((bytes + flit_bytes - 1) / flit_bytes);
}

namespace {

// The integer keys and the fields they set; nested keys are dotted here and nested in YAML.
struct IntKey {
  const char* key;
  int NocConfig::*field;
};
constexpr IntKey kIntKeys[] = {
    {"mesh.cols", &NocConfig::cols},
    {"mesh.rows", &NocConfig::rows},
    {"flit_bytes", &NocConfig::flit_bytes},
    {"router_latency", &NocConfig::router_latency},
    {"link_latency", &NocConfig::link_latency},
    {"credit_latency", &NocConfig::credit_latency},
    {"buffer_depth", &NocConfig::buffer_depth},
    {"vnets", &NocConfig::vnets},
    {"vcs_per_vnet", &NocConfig::vcs_per_vnet},
};

// Every single-value key, one spelling each: the schema's rows but the lists.
const std::vector<std::string>& scalar_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> out;
    for (const schema::Key& k : noc_schema().keys())
      if (k.name != "edge_nodes" && k.name != "sources") out.push_back(k.name);
    return out;
  }();
  return keys;
}

std::string known_top_keys() {
  return "name, topology, mesh, routing, flit_bytes, router_latency, link_latency, credit_latency, buffer_depth, vnets, "
         "vcs_per_vnet, vc_reuse, arbitration, clock_hz, edge_nodes, sources, source";
}

using Lines = std::map<std::string, int>;

struct Checker {
  const std::string& file;
  const Lines& lines;
  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    auto it = lines.find(key);
    throw InputError(file, it == lines.end() ? 0 : it->second, key, message);
  }
  // The range the schema gives the key.
  void range(const std::string& key, int64_t v) const {
    const schema::Key& s = *noc_schema().find(key);
    if (v < s.min || v > s.max) fail(key, fmt::format("must be {}..{} {}, got {}", s.min, s.max, s.unit, v));
  }
};

void check(const NocConfig& c, const std::string& file, const Lines& lines) {
  const Checker k{file, lines};
  for (const IntKey& i : kIntKeys) k.range(i.key, c.*i.field);
  if (const std::string why = clock_hz_problem(c.clock_hz); !why.empty()) k.fail("clock_hz", why);
  try {
    make_topology(c.topology);
  } catch (const std::invalid_argument& e) {
    k.fail("topology", e.what());
  }
  bool known = false;
  for (const std::string& r : routing_names()) known = known || r == c.routing;
  if (!known)
    k.fail("routing",
           fmt::format("unknown routing {} (known: {})", text::quoted(c.routing), fmt::join(routing_names(), ", ")));
  std::set<std::pair<int, int>> seen;
  for (size_t i = 0; i < c.edge_nodes.size(); ++i) {
    const EdgeNodeSpec& e = c.edge_nodes[i];
    const std::string key = fmt::format("edge_nodes[{}]", i);
    const int extent = e.side == Side::North || e.side == Side::South ? c.cols : c.rows;
    if (e.index < 0 || e.index >= extent)
      throw InputError(file, e.line, key + ".index",
                       fmt::format("must be 0..{} on the {} side, got {}", extent - 1, side_name(e.side), e.index));
    if (!seen.insert({int(e.side), e.index}).second)
      throw InputError(file, e.line, key, fmt::format("a second edge node at {} {}", side_name(e.side), e.index));
  }
}

int64_t int_value(const std::string& file, const std::string& key, const YAML::Node& v) {
  auto n = text::parse_int(v.Scalar());
  if (!n) throw InputError(file, line_of(v), key, "must be an integer, got " + text::quoted(v.Scalar()));
  if (*n < INT32_MIN || *n > INT32_MAX) throw InputError(file, line_of(v), key, "is out of range");
  return *n;
}

Side side_value(const std::string& file, const std::string& key, const YAML::Node& v) {
  const std::string s = text::lower(text::trim(v.Scalar()));
  for (Side side : {Side::North, Side::East, Side::South, Side::West})
    if (s == side_name(side)) return side;
  throw InputError(file, line_of(v), key, "must be one of north, east, south, west; got " + text::quoted(v.Scalar()));
}

void read_edge_nodes(const std::string& file, const YAML::Node& list, NocConfig& c) {
  if (!list.IsSequence() && !list.IsNull())
    throw InputError(file, line_of(list), "edge_nodes", fmt::format("expected a list, got {}", yaml_kind(list)));
  for (size_t i = 0; list.IsSequence() && i < list.size(); ++i) {
    const YAML::Node item = list[i];
    const std::string key = fmt::format("edge_nodes[{}]", i);
    if (!item.IsMap())
      throw InputError(file, line_of(item), key,
                       fmt::format("expected a map {{side: west, index: 0}}, got {}", yaml_kind(item)));
    EdgeNodeSpec e;
    e.line = line_of(item);
    bool has_side = false, has_index = false;
    for (auto it = item.begin(); it != item.end(); ++it) {
      const std::string name = it->first.Scalar();
      const YAML::Node v = it->second;
      if (!v.IsScalar()) throw InputError(file, line_of(it->first), key + "." + name, "expected a single value");
      if (name == "side") {
        e.side = side_value(file, key + ".side", v);
        has_side = true;
      } else if (name == "index") {
        e.index = int(int_value(file, key + ".index", v));
        has_index = true;
      } else {
        throw InputError(file, line_of(it->first), key + "." + name, "unknown key (expected side, index)");
      }
    }
    if (!has_side || !has_index) throw InputError(file, e.line, key, "needs both side and index");
    c.edge_nodes.push_back(e);
  }
}

void set_scalar(const std::string& file, const std::string& key, const YAML::Node& v, NocConfig& c) {
  const std::string s(text::trim(v.Scalar()));
  for (const IntKey& k : kIntKeys) {
    if (key != k.key) continue;
    c.*k.field = int(int_value(file, key, v));
    return;
  }
  if (key == "name") c.name = s;
  if (key == "routing") c.routing = s;
  if (key == "topology") c.topology = s;  // checked with the rest (check)
  // A choice: its position in `names`, which lists the enum's values in order.
  auto choice = [&](const std::vector<std::string>& names) {
    const auto it = std::find(names.begin(), names.end(), s);
    if (it == names.end())
      throw InputError(file, line_of(v), key,
                       fmt::format("must be one of {}; got {}", fmt::join(names, ", "), text::quoted(s)));
    return int(it - names.begin());
  };
  if (key == "vc_reuse") c.vc_reuse = VcReuse(choice(vc_reuse_names()));
  if (key == "arbitration") c.arbitration = Arbitration(choice(arbitration_names()));
  if (key == "clock_hz") {
    const schema::NumberResult hz = schema::check_number(*noc_schema().find("clock_hz"), s);
    if (!hz.problem.empty()) throw InputError(file, line_of(v), key, hz.problem);
    c.clock_hz = hz.value;
  }
  // "source": provenance text, kept in the file only
}

bool is_scalar_key(const std::string& key) {
  for (const std::string& k : scalar_keys())
    if (k == key) return true;
  return false;
}

void read_map(const std::string& file, const YAML::Node& map, const std::string& prefix, NocConfig& c, Lines& lines) {
  std::set<std::string> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string name = it->first.Scalar();
    const std::string key = prefix.empty() ? name : prefix + "." + name;
    const int line = line_of(it->first);
    const YAML::Node value = it->second;
    if (!seen.insert(name).second) throw InputError(file, line, key, "duplicate key");
    lines[key] = line;
    if (key == "mesh") {
      if (!value.IsMap())
        throw InputError(file, line, key, fmt::format("expected a map with keys cols, rows, got {}", yaml_kind(value)));
      read_map(file, value, key, c, lines);
      continue;
    }
    if (key == "edge_nodes") {
      read_edge_nodes(file, value, c);
      continue;
    }
    if (key == "sources") {  // provenance of the values: key -> citation
      if (!value.IsMap())
        throw InputError(file, line, key, fmt::format("expected a map key: citation, got {}", yaml_kind(value)));
      for (auto s = value.begin(); s != value.end(); ++s) {
        const std::string cited = s->first.Scalar();
        if (!is_scalar_key(cited) && cited != "mesh" && cited != "edge_nodes")
          throw InputError(file, line_of(s->first), "sources." + cited, "names no config key");
      }
      continue;
    }
    if (!is_scalar_key(key) || name.find('.') != std::string::npos)
      throw InputError(file, line, key,
                       prefix.empty() ? "unknown key (expected one of: " + known_top_keys() + ")"
                                      : "unknown key (expected one of: cols, rows)");
    if (value.IsNull()) throw InputError(file, line, key, "has no value");
    if (!value.IsScalar())
      throw InputError(file, line, key, fmt::format("expected a single value, got {}", yaml_kind(value)));
    set_scalar(file, key, value, c);
  }
}

}  // namespace

void validate(const NocConfig& config) { check(config, config.source.empty() ? "<noc config>" : config.source, {}); }

void apply_overrides(NocConfig& config, const std::vector<std::pair<std::string, std::string>>& overrides) {
  Lines lines;
  for (const auto& [key, value] : overrides) {
    if (!is_scalar_key(key) || key == "source")
      throw InputError("--set", 0, key,
                       "unknown key (known: " + fmt::format("{}", fmt::join(scalar_keys(), ", ")) + ")");
    set_scalar("--set", key, YAML::Node(std::string(text::trim(value))), config);
    lines[key] = 0;
  }
  check(config, "--set", lines);
}

std::vector<std::string> override_keys() {
  std::vector<std::string> out;
  for (const std::string& k : scalar_keys())
    if (k != "source") out.push_back(k);
  return out;
}

NocConfig load_noc_config(const std::string& path) {
  const YAML::Node root = load_yaml_file(path);
  if (!root.IsMap())
    throw InputError(path, line_of(root), "", fmt::format("expected a map of NoC keys, got {}", yaml_kind(root)));
  NocConfig c;
  c.name = text::stem(path);
  c.source = path;
  Lines lines;
  read_map(path, root, "", c, lines);
  check(c, path, lines);
  return c;
}

std::string canonical_text(const NocConfig& c) {
  std::string edges;
  for (const EdgeNodeSpec& e : c.edge_nodes) edges += fmt::format("{}:{};", side_name(e.side), e.index);
  // The default topology is left out, so files written before the key hash as they did.
  return (c.topology == "mesh" ? std::string() : "topology=" + c.topology + "\n") + fmt::format(
      "mesh.cols={}\nmesh.rows={}\nedge_nodes={}\nrouting={}\nflit_bytes={}\nrouter_latency={}\nlink_latency={}\n"
      "credit_latency={}\nbuffer_depth={}\nvnets={}\nvcs_per_vnet={}\nvc_reuse={}\narbitration={}\nclock_hz={}\n",
      c.cols, c.rows, edges, c.routing, c.flit_bytes, c.router_latency, c.link_latency, c.credit_latency,
      c.buffer_depth, c.vnets, c.vcs_per_vnet, vc_reuse_name(c.vc_reuse), arbitration_name(c.arbitration),
      c.clock_hz);
}

}  // namespace cstsim::noc
