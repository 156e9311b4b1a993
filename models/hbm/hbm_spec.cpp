#include "models/hbm/hbm_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

#include "models/hbm/address_map.h"
#include "models/hbm/refresh/i_refresh.h"
#include "models/hbm/scheduler/i_scheduler.h"
#include "core/clock.h"
#include "core/input_error.h"
#include "core/schema.h"
#include "core/install_paths.h"
#include "core/quantity.h"
#include "core/text.h"
#include "core/yaml_file.h"


namespace cstsim::hbm {

const schema::Table& hbm_schema() {
  using namespace schema;
  static const Table table(
      "HBM file (configs/memory/*.yaml)",
      {
          text_key("name", "file stem", "label used in reports"),
          text_key("standard", "required", "timing rules: " + standard_names()),
          text_key("source", "none", "free-text citation for the numbers"),
          path_key("preset", "none", "a shipped preset (configs/memory/<name>.yaml) read first; this file's keys override it"),
          number_key("clock.tCK", "ns | us | ps", "required", "the stack's clock period, 10 ps..1 us in whole ps"),
          // organization.*: powers of two (the address map cuts an address into bit fields).
          pow2(integer_key("organization.channels", "channels", "required", 1, 1024, "channels per stack")),
          pow2(integer_key("organization.pseudo_channels", "PCs", "required", 1, 64, "pseudo-channels per channel")),
          pow2(integer_key("organization.bank_groups", "groups", "required", 1, 64, "bank groups per PC")),
          pow2(integer_key("organization.banks_per_group", "banks", "required", 1, 64, "banks per group")),
          pow2(integer_key("organization.rows", "rows", "required", 1, int64_t(1) << 24, "rows per bank")),
          pow2(integer_key("organization.columns", "bursts", "required", 1, int64_t(1) << 16, "bursts per row")),
          pow2(integer_key("organization.burst_bytes", "bytes", "required", 1, 4096, "bytes per burst")),
          choice_key("controller.scheduler", "", "frfcfs", scheduler_names(), "which queued request goes next"),
          integer_key("controller.queue_depth", "bursts", "32", 1, 4096, "scheduler window per pseudo-channel"),
          text_key("controller.address_mapping", "required",
                   "address bits to fields, low to high (models/hbm/README.md)"),
          choice_key("controller.refresh", "", "all_bank", refresh_policy_names(), "refresh policy"),
          choice_key("controller.command_bus", "", "split", {"split", "shared"},
                     "split: a row and a column command bus per channel (HBM); shared: one command a cycle"),
          integer_key("controller.page_timeout", "ck", "0", 0, 1 << 20,
                      "close a row idle this long with nothing queued for its bank; 0: open page"),
          choice_key("controller.page_policy", "", "open", {"open", "close_exhausted"},
                     "open, or close_exhausted: precharge a row read to its last column once nothing waits for it"),
          number_key("timing.<name>", "ck | ns | us | ps", "required",
                     "each of the standard's timings (--describe with --arch lists them)"),
      });
  return table;
}

namespace {

// Keys other than timing.<name> (those depend on the standard): the schema's rows.
// Made on first use, not at start-up: the schema lists the registered schedulers.
const std::vector<std::string>& base_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> out;
    for (const schema::Key& k : hbm_schema().keys())
      if (k.name != "timing.<name>") out.push_back(k.name);
    return out;
  }();
  return keys;
}
const std::vector<std::string> kGroups = {"organization", "clock", "timing", "controller"};

struct Field {
  std::string text;
  std::string file;
  int line = 0;
  std::string key;
};

struct Fields {
  std::string file;                                             // the file named on the command line
  std::map<std::string, Field> values;                          // dotted key -> value
  std::map<std::string, std::pair<std::string, int>> group_at;  // group -> where it was written
};

bool is_group(const std::string& k) {
  for (const std::string& g : kGroups)
    if (g == k) return true;
  return false;
}

std::string keys_under(const std::string& group) {
  std::string out;
  for (const std::string& k : base_keys()) {
    if (group.empty()) {
      if (k.find('.') == std::string::npos) out += (out.empty() ? "" : ", ") + k;
    } else if (k.compare(0, group.size() + 1, group + ".") == 0) {
      out += (out.empty() ? "" : ", ") + k.substr(group.size() + 1);
    }
  }
  if (group.empty())
    for (const std::string& g : kGroups) out += ", " + g;
  return out;
}

[[noreturn]] void fail(const Field& f, const std::string& message) { throw InputError(f.file, f.line, f.key, message); }

void read_map(const YAML::Node& map, const std::string& file, const std::string& group, Fields& out, int depth);

void read_file(const std::string& path, Fields& out, int depth) {
  if (depth > 8) throw InputError(path, 0, "preset", "presets nest more than 8 deep (a cycle?)");
  YAML::Node root = load_yaml_file(path);
  if (!root.IsMap())
    throw InputError(path, line_of(root), "", fmt::format("expected a map of memory keys, got {}", yaml_kind(root)));
  // The preset is read first so this file's own keys override it, wherever `preset:` is written.
  if (YAML::Node p = root["preset"]) {
    if (!p.IsScalar()) throw InputError(path, line_of(p), "preset", "expected a preset name or a file");
    std::string name(text::trim(p.Scalar()));
    std::filesystem::path target;
    if (name.find('/') != std::string::npos || text::ends_with(name, ".yaml"))
      target = std::filesystem::path(path).parent_path() / name;
    else
      target = std::filesystem::path(preset_dir()) / (name + ".yaml");
    if (!is_file(target)) {
      std::string known;
      if (std::filesystem::is_directory(preset_dir()))
        for (const auto& e : std::filesystem::directory_iterator(preset_dir()))
          if (e.path().extension() == ".yaml") known += (known.empty() ? "" : ", ") + e.path().stem().string();
      throw InputError(path, line_of(p), "preset",
                       fmt::format("no preset {} (shipped: {})", text::quoted(name), known));
    }
    read_file(target.string(), out, depth + 1);
  }
  if (depth == 0) out.group_at[""] = {path, line_of(root)};
  read_map(root, path, "", out, depth);
}

void read_map(const YAML::Node& map, const std::string& file, const std::string& group, Fields& out, int depth) {
  std::set<std::string> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string name = it->first.Scalar();
    const std::string key = group.empty() ? name : group + "." + name;
    const int line = line_of(it->first);
    const YAML::Node value = it->second;
    if (!seen.insert(name).second) throw InputError(file, line, key, "duplicate key");
    if (key == "preset") continue;  // read_file handled it
    if (group.empty() && is_group(key)) {
      if (!value.IsMap()) throw InputError(file, line, key, fmt::format("expected a map, got {}", yaml_kind(value)));
      out.group_at[key] = {file, line};
      read_map(value, file, key, out, depth);
      continue;
    }
    const bool timing = group == "timing";
    bool known = timing;
    for (const std::string& k : base_keys()) known = known || k == key;
    if (!known || name.find('.') != std::string::npos)
      throw InputError(file, line, key, fmt::format("unknown key (expected one of: {})", keys_under(group)));
    if (value.IsNull()) throw InputError(file, line, key, "has no value");
    std::string text_value;
    if (key == "controller.address_mapping" && value.IsSequence()) {
      for (const YAML::Node& item : value) {
        if (!item.IsScalar()) throw InputError(file, line_of(item), key, "expected a list of fields like ro, co:3");
        text_value += (text_value.empty() ? "" : "-") + std::string(text::trim(item.Scalar()));
      }
    } else if (value.IsScalar()) {
      text_value = std::string(text::trim(value.Scalar()));
    } else {
      throw InputError(file, line, key, fmt::format("expected a single value, got {}", yaml_kind(value)));
    }
    out.values[key] = {text_value, file, line, key};
  }
}

int64_t positive_int(const Field& f, int64_t max = INT_MAX) {
  auto v = text::parse_int(f.text);
  if (!v || *v <= 0) fail(f, "must be a positive integer, got " + text::quoted(f.text));
  if (*v > max) fail(f, fmt::format("must be at most {}, got {}", max, f.text));
  return *v;
}

// A registered implementation's name (scheduler, refresh policy): one of its row's choices,
// which are the registry's names.
const std::string& registered_name(const Field& f, const char* what) {
  const schema::Key* k = hbm_schema().find(f.key);
  if (!k) throw std::logic_error("HBM schema has no key " + f.key);
  for (const std::string& c : k->choices)
    if (c == f.text) return c;
  fail(f, fmt::format("unknown {} '{}' (known: {})", what, f.text, fmt::join(k->choices, ", ")));
}

// organization.*: a power of two in the schema's range (its row says so).
int64_t power_of_two(const Field& f) {
  const schema::Key* k = hbm_schema().find(f.key);
  if (!k) throw std::logic_error("HBM schema has no key " + f.key);
  const schema::IntResult r = schema::check_integer(*k, f.text);
  if (!r.problem.empty()) fail(f, r.problem);
  return r.value;
}

// A time with its unit (core/quantity.h: ns, us, ps, ...), in ns; a bare number is refused here,
// where ns and clock cycles are both common.
double time_ns(const Field& f) {
  if (text::parse_double(f.text)) fail(f, "expected a number with a unit (ns, us, ps, or ck for clock cycles), got " + text::quoted(f.text));
  const QuantityResult q = parse_quantity(f.text, "ns");
  if (q.problem.rfind("expected a number", 0) == 0)
    fail(f, "expected a number with a unit (ns, us, ps, or ck for clock cycles), got " + text::quoted(f.text));
  if (!q.problem.empty()) fail(f, q.problem + ", got " + text::quoted(f.text));
  if (q.value < 0) fail(f, "must not be negative, got " + text::quoted(f.text));
  return q.value;
}

// A timing: clock cycles ("14ck") or a time rounded up to whole cycles ("12ns").
Cycle timing_cycles(const Field& f, double tck_ns) {
  if (!text::parse_double(f.text)) {
    const QuantityResult ck = parse_quantity(f.text, "cycles");
    if (ck.problem.empty()) {
      if (ck.value < 0 || ck.value != std::floor(ck.value) || ck.value > 1e12)
        fail(f, "a count of clock cycles must be a whole number, got " + f.text);
      return Cycle(ck.value);
    }
  }
  const double ns = time_ns(f);
  if (ns / tck_ns > 1e12) fail(f, "is too long");
  return ns_to_cycles(ns, tck_ns);
}

HbmSpec build(const Fields& fields) {
  auto find = [&](const std::string& key) -> const Field* {
    auto it = fields.values.find(key);
    return it == fields.values.end() ? nullptr : &it->second;
  };
  auto require = [&](const std::string& key) -> const Field& {
    if (const Field* f = find(key)) return *f;
    const std::string group = key.substr(0, key.find('.'));
    auto g = fields.group_at.find(group);
    if (key.find('.') != std::string::npos && g != fields.group_at.end())
      throw InputError(g->second.first, g->second.second, key, "required key is missing");
    auto root = fields.group_at.find("");
    throw InputError(fields.file, root == fields.group_at.end() ? 0 : root->second.second, key,
                     "required key is missing");
  };

  HbmSpec s;
  s.source = fields.file;
  s.name = text::stem(fields.file);
  if (const Field* f = find("name")) {
    if (f->text.empty()) fail(*f, "must not be empty");
    s.name = f->text;
  }
  const Field& std_field = require("standard");
  try {
    s.standard = find_standard(std_field.text).name;
  } catch (const std::invalid_argument& e) {
    fail(std_field, e.what());
  }
  const Standard& standard = find_standard(s.standard);

  Organization& o = s.org;
  o.channels = int(power_of_two(require("organization.channels")));
  o.pseudo_channels = int(power_of_two(require("organization.pseudo_channels")));
  o.bank_groups = int(power_of_two(require("organization.bank_groups")));
  o.banks_per_group = int(power_of_two(require("organization.banks_per_group")));
  o.rows = power_of_two(require("organization.rows"));
  o.columns = power_of_two(require("organization.columns"));
  o.burst_bytes = int(power_of_two(require("organization.burst_bytes")));

  const Field& tck = require("clock.tCK");
  s.tck_ns = time_ns(tck);
  if (const std::string why = clock_period_problem(s.tck_ns); !why.empty()) fail(tck, why);

  // Timings: exactly the standard's names.
  std::set<std::string> names(standard.timing_names.begin(), standard.timing_names.end());
  for (const auto& [key, f] : fields.values) {
    if (key.compare(0, 7, "timing.") != 0) continue;
    if (!names.count(key.substr(7)))
      fail(f, fmt::format("unknown timing for {} (known: {})", s.standard, fmt::join(standard.timing_names, ", ")));
  }
  for (const std::string& name : standard.timing_names)
    s.timing[name] = timing_cycles(require("timing." + name), s.tck_ns);
  for (const char* at_least_one : {"tBL", "tCCD_S", "tCCD_L", "tACT_BUS", "tREFI"})
    if (s.timing.at(at_least_one) < 1)
      fail(*find(std::string("timing.") + at_least_one), "must be at least 1 clock cycle");

  if (const Field* f = find("controller.scheduler")) s.scheduler = registered_name(*f, "scheduler");
  if (const Field* f = find("controller.queue_depth")) s.queue_depth = int(positive_int(*f, hbm_schema().find("controller.queue_depth")->max));
  if (const Field* f = find("controller.page_timeout")) {
    const auto v = text::parse_int(f->text);
    const int64_t max = hbm_schema().find("controller.page_timeout")->max;
    if (!v || *v < 0) fail(*f, "must be a non-negative integer (CK), got " + text::quoted(f->text));
    if (*v > max) fail(*f, fmt::format("must be at most {}, got {}", max, f->text));
    s.page_timeout = *v;
  }
  if (const Field* f = find("controller.command_bus")) {
    if (f->text != "split" && f->text != "shared") fail(*f, "must be split or shared, got " + text::quoted(f->text));
    s.shared_command_bus = f->text == "shared";
  }
  if (const Field* f = find("controller.page_policy")) {
    if (f->text != "open" && f->text != "close_exhausted")
      fail(*f, "must be open or close_exhausted, got " + text::quoted(f->text));
    s.close_exhausted = f->text == "close_exhausted";
  }
  if (const Field* f = find("controller.refresh")) s.refresh = registered_name(*f, "refresh policy");
  if (const std::string wrong = refresh_policy(s.refresh).check(s); !wrong.empty()) fail(require("timing.tREFI"), wrong);
  const Field& am = require("controller.address_mapping");
  try {
    AddressMap map(o, am.text);
  } catch (const std::invalid_argument& e) {
    fail(am, e.what());
  }
  s.address_mapping = am.text;
  if (o.capacity_bytes() > (uint64_t(1) << 50)) fail(require("organization.rows"), "stack larger than 1 PiB");
  return s;
}

}  // namespace

std::string preset_dir() { return config_dir() + "/memory"; }

Cycle ns_to_cycles(double t_ns, double tck_ns) {
  const int64_t t_ps = std::llround(t_ns * 1000.0);
  const int64_t tck_ps = std::llround(tck_ns * 1000.0);
  return (t_ps * 1000 / tck_ps + 974) / 1000;
}

HbmSpec load_hbm_spec(const std::string& path, const HbmOverrides& overrides) {
  Fields fields;
  fields.file = path;
  read_file(path, fields, 0);
  for (const auto& [key, value] : overrides) {
    bool known = key.compare(0, 7, "timing.") == 0 && key.size() > 7;
    for (const std::string& k : base_keys()) known = known || (k == key && k != "preset");
    if (!known)
      throw InputError(
          "--set", 0, key,
          fmt::format("unknown key (known: {}, timing.<name>)", fmt::join(base_keys().begin() + 1, base_keys().end(), ", ")));
    fields.values[key] = {std::string(text::trim(value)), "--set", 0, key};
  }
  return build(fields);
}

Cycle HbmSpec::t(const std::string& name) const {
  auto it = timing.find(name);
  if (it == timing.end()) throw std::out_of_range("HBM timing '" + name + "' is not defined for " + standard);
  return it->second;
}

double HbmSpec::refresh_hit_ns() const {
  if (refresh == "none") return 0;
  return double(t(refresh == "per_bank" ? "tRFCpb" : "tRFC") + t("tRC") + t("tRCD_RD") + t("tCL")) * tck_ns;
}

// A stream of reads (or of writes) over every bank: per pseudo-channel one burst per the largest
// gap the plain rules put between two of them there (tBL, tCCD_S), per channel at most one burst
// per the largest gap on its shared column bus; the better of the two streams.
double HbmSpec::peak_bytes_per_cycle() const {
  Cycle pc_gap[2] = {}, bus_gap[2] = {};  // RD, WR
  for (const ResolvedRule& r : resolve_rules(rules(), timing))
    for (int k = 0; k < 2; ++k) {
      const uint32_t cmd = bit(k == 0 ? Cmd::RD : Cmd::WR);
      if (r.window > 0 || !(r.after & cmd) || !(r.before & cmd)) continue;
      if (r.scope == Scope::PseudoChannel) pc_gap[k] = std::max(pc_gap[k], r.gap);
      if (r.scope == Scope::Channel) bus_gap[k] = std::max(bus_gap[k], r.gap);
    }
  double best = 0;
  for (int k = 0; k < 2; ++k) {
    if (pc_gap[k] <= 0) continue;
    double per_channel = double(org.burst_bytes) / double(pc_gap[k]) * org.pseudo_channels;
    if (bus_gap[k] > 0) per_channel = std::min(per_channel, double(org.burst_bytes) / double(bus_gap[k]));
    best = std::max(best, per_channel * org.channels);
  }
  // Every shipped standard has its data bus rule (tBL); one without is not a stack we can price.
  if (best <= 0) throw std::logic_error("HBM standard " + standard + " has no pseudo-channel column-to-column rule");
  return best;
}

std::vector<std::string> override_keys(const HbmSpec& s) {
  std::vector<std::string> out;
  for (const std::string& k : base_keys())
    if (k != "name" && k != "source" && k != "preset" && k != "standard") out.push_back(k);
  for (const auto& [name, cycles] : s.timing) out.push_back("timing." + name);
  return out;
}

Standard HbmSpec::rules() const {
  Standard s = find_standard(standard);
  if (shared_command_bus)  // one command a cycle per channel, whichever bus it would take
    s.rules.push_back({Scope::Channel,
                       {Cmd::ACT, Cmd::PRE, Cmd::PREA, Cmd::RD, Cmd::WR, Cmd::REF, Cmd::REFPB},
                       {Cmd::ACT, Cmd::PRE, Cmd::PREA, Cmd::RD, Cmd::WR, Cmd::REF, Cmd::REFPB},
                       "1", 0, "controller.command_bus: shared (a DDR-style bus; Ramulator 2's controller issues one command a tick)"});
  return s;
}

std::string canonical_text(const HbmSpec& s) {
  std::string out = fmt::format(
      "standard={}\norganization.channels={}\norganization.pseudo_channels={}\norganization.bank_groups={}\n"
      "organization.banks_per_group={}\norganization.rows={}\norganization.columns={}\norganization.burst_bytes={}\n"
      "clock.tCK={}ns\n",
      s.standard, s.org.channels, s.org.pseudo_channels, s.org.bank_groups, s.org.banks_per_group, s.org.rows,
      s.org.columns, s.org.burst_bytes, s.tck_ns);
  for (const auto& [name, cycles] : s.timing) out += fmt::format("timing.{}={}ck\n", name, cycles);
  out += fmt::format(
      "controller.scheduler={}\ncontroller.queue_depth={}\ncontroller.address_mapping={}\n"
      "controller.refresh={}\n{}",
      s.scheduler, s.queue_depth, s.address_mapping, s.refresh,
      s.page_timeout > 0 ? fmt::format("controller.page_timeout={}\n", s.page_timeout) : std::string());
  if (s.close_exhausted) out += "controller.page_policy=close_exhausted\n";
  if (s.shared_command_bus) out += "controller.command_bus=shared\n";
  return out;
}

}  // namespace cstsim::hbm
