#include "sim/config/link_file.h"

#include <cmath>

#include <fmt/format.h>

#include "core/text.h"
#include "core/yaml_file.h"

namespace cstsim {

LinkFile load_link_file(const std::string& path) {
  const YAML::Node root = load_yaml_file(path);
  if (!root.IsMap()) throw InputError(path, line_of(root), "", std::string("expected a map of keys, got ") + yaml_kind(root));
  reject_unknown_keys(path, root, "",
                      {"name", "source", "bandwidth_gbps", "latency_ns", "max_payload_bytes", "header_bytes", "pj_per_bit"});
  for (auto it = root.begin(); it != root.end(); ++it) {  // duplicate keys: load_yaml_file
    const std::string key = it->first.as<std::string>();
    if (!it->second.IsScalar())
      throw InputError(path, line_of(it->second), key, std::string("expected a single value, got ") + yaml_kind(it->second));
  }
  auto number = [&](const char* key, bool required, double floor, bool strict) -> std::optional<double> {
    const YAML::Node n = root[key];
    if (!n) {
      if (required) throw InputError(path, 0, key, "required key is missing");
      return std::nullopt;
    }
    const auto v = text::parse_double(n.Scalar());
    if (!v || !std::isfinite(*v))
      throw InputError(path, line_of(n), key, "expected a finite number, got " + text::quoted(n.Scalar()));
    if (strict ? !(*v > floor) : !(*v >= floor))
      throw InputError(path, line_of(n), key, fmt::format("must be {} {}", strict ? "above" : "at least", floor));
    return v;
  };
  auto whole = [&](const char* key) -> int64_t {
    const YAML::Node n = root[key];
    if (!n) return 0;
    const auto v = text::parse_int(n.Scalar());
    if (!v || *v < 0 || *v > (int64_t(1) << 40))
      throw InputError(path, line_of(n), key, "expected a whole number of bytes in 0..2^40, got " + text::quoted(n.Scalar()));
    return *v;
  };
  LinkFile f;
  f.name = root["name"] ? root["name"].Scalar() : text::stem(path);
  if (root["source"]) f.source = root["source"].Scalar();
  // 1 MB/s to 10 PB/s: far outside every chip-to-chip link there is, and at 1e-3 GB/s a 4 TB
  // message still takes less than the 2^62 ps the models count (1e-300 would wrap their time).
  f.spec.bytes_per_ns = *number("bandwidth_gbps", true, 0, true);
  if (f.spec.bytes_per_ns < 1e-3 || f.spec.bytes_per_ns > 1e7)
    throw InputError(path, line_of(root["bandwidth_gbps"]), "bandwidth_gbps",
                     fmt::format("must be from 1e-3 to 1e7 GB/s (1 MB/s to 10 PB/s), got {}", root["bandwidth_gbps"].Scalar()));
  const double latency_ns = *number("latency_ns", true, 0, false);
  const double ps = latency_ns * 1000;
  if (ps > 1e15 || std::fabs(ps - std::round(ps)) > 1e-6)
    throw InputError(path, line_of(root["latency_ns"]), "latency_ns", "must be a whole number of ps, at most 1e12 ns");
  f.spec.latency_ps = int64_t(std::llround(ps));
  f.spec.max_payload = whole("max_payload_bytes");
  f.spec.header = whole("header_bytes");
  f.spec.pj_per_bit = number("pj_per_bit", false, 0, false).value_or(0);
  return f;
}

}  // namespace cstsim
