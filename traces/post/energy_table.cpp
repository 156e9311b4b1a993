#include "traces/post/energy_table.h"

#include <cmath>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "core/input_error.h"
#include "core/yaml_file.h"

namespace cstsim::post {
namespace {

// Every figure of a table (pJ an action, W, bank bytes, kelvin) is at most 1e9: a millijoule an
// action or a gigawatt is past any chip, and products of such figures with counts stay finite
// (a row of 1.7e308 pJ made the run's energy inf).
constexpr double kMostOfAnyFigure = 1e9;

double number(const std::string& file, const YAML::Node& n, const std::string& key, bool positive_or_zero) {
  const double v = yaml_number(file, n, key);  // finite: .nan and .inf are refused
  if (positive_or_zero && v < 0) throw InputError(file, line_of(n), key, "must not be negative");
  if (std::fabs(v) > kMostOfAnyFigure)
    throw InputError(file, line_of(n), key, "must be at most 1e9 (a millijoule an action, a gigawatt), got " + n.Scalar());
  return v;
}

}  // namespace

bool EnergyTable::is_nominal(const std::string& counter) {
  for (const std::string suffix : {".nominal", ".padding", ".skipped"})
    if (counter.size() >= suffix.size() && counter.compare(counter.size() - suffix.size(), suffix.size(), suffix) == 0)
      return true;
  return false;
}

bool EnergyTable::resolved() const {
  for (const ActionEnergy& a : actions)
    if (!a.pj_by_bank_bytes.empty()) return false;
  for (const StaticPower& p : static_power)
    if (p.watts_per_byte >= 0 || p.watts_per_pe >= 0 || p.watts_per_buffer_byte >= 0) return false;
  return true;
}

namespace {

// Log-log through the two sizes around `bytes` (the end pair beyond either end).
double by_size(const std::vector<std::pair<double, double>>& pts, double bytes) {
  size_t i = 1;
  while (i + 1 < pts.size() && pts[i].first < bytes) ++i;
  const auto& [x0, y0] = pts[i - 1];
  const auto& [x1, y1] = pts[i];
  if (y0 == 0 || y1 == 0) return y0 + (y1 - y0) * (bytes - x0) / (x1 - x0);  // no log of 0: linear
  return y0 * std::pow(y1 / y0, std::log(bytes / x0) / std::log(x1 / x0));
}

}  // namespace

EnergyTable resolved(EnergyTable t, const Geometry& g) {
  for (ActionEnergy& a : t.actions) {
    if (a.pj_by_bank_bytes.empty()) continue;
    if (g.sram_bank_bytes <= 0) throw std::logic_error("energy table: " + a.action + " needs the SRAM bank size");
    a.pj = by_size(a.pj_by_bank_bytes, g.sram_bank_bytes);
    a.source += fmt::format(" [resolved: {:.4g} pJ at {:.0f} B banks]", a.pj, g.sram_bank_bytes);
    a.pj_by_bank_bytes.clear();
  }
  for (StaticPower& p : t.static_power) {
    if (p.watts_per_byte >= 0) {
      p.watts = p.watts_per_byte * g.sram_bytes;
      p.source += fmt::format(" [resolved: {:.4g} W for {:.0f} B of SRAM]", p.watts, g.sram_bytes);
    } else if (p.watts_per_pe >= 0) {
      p.watts = p.watts_per_pe * g.pes;
      p.source += fmt::format(" [resolved: {:.4g} W for {:.0f} PEs]", p.watts, g.pes);
    } else if (p.watts_per_buffer_byte >= 0) {
      p.watts = p.watts_per_buffer_byte * g.noc_buffer_bytes;
      p.source += fmt::format(" [resolved: {:.4g} W for {:.0f} B of router buffers]", p.watts, g.noc_buffer_bytes);
    }
    p.watts_per_byte = p.watts_per_pe = p.watts_per_buffer_byte = -1;
  }
  return t;
}

const ActionEnergy* EnergyTable::find(const std::string& counter) const {
  if (is_nominal(counter)) return nullptr;
  // A gated MAC lane is never priced as a MAC: only its own row prices it.
  const std::string gated = ".gated";
  if (counter.size() > gated.size() && counter.compare(counter.size() - gated.size(), gated.size(), gated) == 0) {
    for (const ActionEnergy& a : actions)
      if (a.action == counter) return &a;
    return nullptr;
  }
  const ActionEnergy* best = nullptr;
  for (const ActionEnergy& a : actions) {
    const bool match = counter == a.action ||
                       (counter.size() > a.action.size() && counter.compare(0, a.action.size(), a.action) == 0 &&
                        counter[a.action.size()] == '.');
    if (match && (!best || a.action.size() > best->action.size())) best = &a;
  }
  return best;
}

namespace {

EnergyTable load_table(const std::string& path, int depth);

template <class Row>
void put(std::vector<Row>& rows, Row row, std::string Row::*key) {
  for (Row& r : rows)
    if (r.*key == row.*key) {
      r = std::move(row);
      return;
    }
  rows.push_back(std::move(row));
}

EnergyTable load_table(const std::string& path, int depth) {
  const YAML::Node root = load_yaml_file(path);
  if (!root.IsMap()) throw InputError(path, 1, "", "expected a map");
  reject_unknown_keys(path, root, "", {"name", "base", "temperature_K", "actions", "static_power"});
  EnergyTable t;
  if (const YAML::Node b = root["base"]) {
    if (!b.IsScalar()) throw InputError(path, line_of(b), "base", "expected a table file name");
    if (depth > 8) throw InputError(path, line_of(b), "base", "bases nest more than 8 deep (a cycle?)");
    const std::filesystem::path base = std::filesystem::path(path).parent_path() / b.Scalar();
    if (!is_file(base))
      throw InputError(path, line_of(b), "base", "no such file: " + base.string());
    t = load_table(base.string(), depth + 1);
  }
  t.path = path;
  t.name = root["name"] ? yaml_text(path, root["name"], "name") : std::filesystem::path(path).stem().string();
  if (root["temperature_K"]) {
    t.temperature_k = number(path, root["temperature_K"], "temperature_K", true);
    if (t.temperature_k <= 0) throw InputError(path, line_of(root["temperature_K"]), "temperature_K", "must be positive");
  }
  const YAML::Node actions = root["actions"];
  if ((!actions && !root["base"]) || (actions && !actions.IsMap()))
    throw InputError(path, 0, "actions", "required: a map of action -> {pJ, per, source}");
  for (auto it = actions.begin(); actions && it != actions.end(); ++it) {
    const std::string key = "actions." + yaml_text(path, it->first, "actions");
    const YAML::Node row = it->second;
    if (!row.IsMap()) throw InputError(path, line_of(row), key, "expected {pJ, per, source}");
    reject_unknown_keys(path, row, key + ".", {"pJ", "W", "pJ_by_bank_bytes", "per", "source"});
    if (int(bool(row["pJ"])) + int(bool(row["W"])) + int(bool(row["pJ_by_bank_bytes"])) != 1)
      throw InputError(path, line_of(row), key,
                       "needs exactly one of pJ (per unit), W (per unit held a cycle) or pJ_by_bank_bytes");
    if (!row["source"]) throw InputError(path, line_of(row), key + ".source", "required: every row cites its source");
    ActionEnergy a{it->first.Scalar(), 0, -1, row["per"] ? yaml_text(path, row["per"], key + ".per") : "",
                   yaml_text(path, row["source"], key + ".source")};
    if (row["pJ"]) {
      a.pj = number(path, row["pJ"], key + ".pJ", true);
    } else if (row["W"]) {
      a.watts = number(path, row["W"], key + ".W", true);
    } else {
      const YAML::Node m = row["pJ_by_bank_bytes"];
      const std::string mk = key + ".pJ_by_bank_bytes";
      if (!m.IsMap() || m.size() < 2) throw InputError(path, line_of(m), mk, "expected a map of at least two bank sizes (bytes) -> pJ");
      for (auto p = m.begin(); p != m.end(); ++p) {
        const double bytes = number(path, p->first, mk, true), pj = number(path, p->second, mk, true);
        if (bytes <= 0) throw InputError(path, line_of(p->first), mk, "bank sizes must be positive");
        if (!a.pj_by_bank_bytes.empty() && bytes <= a.pj_by_bank_bytes.back().first)
          throw InputError(path, line_of(p->first), mk, "bank sizes must increase");
        a.pj_by_bank_bytes.emplace_back(bytes, pj);
      }
    }
    put(t.actions, std::move(a), &ActionEnergy::action);
  }
  if (const YAML::Node sp = root["static_power"]) {
    if (!sp.IsMap()) throw InputError(path, line_of(sp), "static_power", "expected a map of component -> {W, source}");
    for (auto it = sp.begin(); it != sp.end(); ++it) {
      const std::string key = "static_power." + yaml_text(path, it->first, "static_power");
      const YAML::Node row = it->second;
      if (!row.IsMap()) throw InputError(path, line_of(row), key, "expected {W, source} (or W_per_byte, W_per_PE, W_per_buffer_byte)");
      reject_unknown_keys(path, row, key + ".", {"W", "W_per_byte", "W_per_PE", "W_per_buffer_byte", "source"});
      if (int(bool(row["W"])) + int(bool(row["W_per_byte"])) + int(bool(row["W_per_PE"])) +
              int(bool(row["W_per_buffer_byte"])) !=
          1)
        throw InputError(path, line_of(row), key,
                         "needs exactly one of W, W_per_byte (of SRAM), W_per_PE or W_per_buffer_byte (of NoC buffers)");
      if (!row["source"]) throw InputError(path, line_of(row), key + ".source", "required");
      StaticPower p{it->first.Scalar(), 0, yaml_text(path, row["source"], key + ".source")};
      if (row["W"]) p.watts = number(path, row["W"], key + ".W", true);
      if (row["W_per_byte"]) p.watts_per_byte = number(path, row["W_per_byte"], key + ".W_per_byte", true);
      if (row["W_per_PE"]) p.watts_per_pe = number(path, row["W_per_PE"], key + ".W_per_PE", true);
      if (row["W_per_buffer_byte"])
        p.watts_per_buffer_byte = number(path, row["W_per_buffer_byte"], key + ".W_per_buffer_byte", true);
      put(t.static_power, std::move(p), &StaticPower::component);
    }
  }
  return t;
}

}  // namespace

EnergyTable load_energy_table(const std::string& path) { return load_table(path, 0); }

constexpr int kWrittenDigits = 15;  // energy.yaml's significant digits

EnergyTable as_written(EnergyTable t, const std::string& path) {
  const auto written = [](double v) { return std::stod(fmt::format("{:.{}g}", v, kWrittenDigits)); };
  t.path = path;
  t.temperature_k = written(t.temperature_k);
  for (ActionEnergy& a : t.actions) {  // one of pJ_by_bank_bytes, W, pJ is written; the rest as loading leaves it
    for (auto& [bytes, pj] : a.pj_by_bank_bytes) bytes = written(bytes), pj = written(pj);
    if (!a.pj_by_bank_bytes.empty()) a.pj = 0, a.watts = -1;
    else if (a.watts >= 0) a.pj = 0, a.watts = written(a.watts);
    else a.pj = written(a.pj);
  }
  for (StaticPower& p : t.static_power) {  // likewise one of W_per_byte, W_per_PE, W_per_buffer_byte, W
    const double per_byte = p.watts_per_byte, per_pe = p.watts_per_pe, per_buffer = p.watts_per_buffer_byte;
    p.watts_per_byte = p.watts_per_pe = p.watts_per_buffer_byte = -1;
    if (per_byte >= 0) p.watts = 0, p.watts_per_byte = written(per_byte);
    else if (per_pe >= 0) p.watts = 0, p.watts_per_pe = written(per_pe);
    else if (per_buffer >= 0) p.watts = 0, p.watts_per_buffer_byte = written(per_buffer);
    else p.watts = written(p.watts);
  }
  return t;
}

std::string to_yaml(const EnergyTable& t) {
  YAML::Emitter out;
  out.SetDoublePrecision(kWrittenDigits);
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << t.name;
  out << YAML::Key << "temperature_K" << YAML::Value << t.temperature_k;
  out << YAML::Key << "actions" << YAML::Value << YAML::BeginMap;
  for (const ActionEnergy& a : t.actions) {
    out << YAML::Key << a.action << YAML::Value << YAML::Flow << YAML::BeginMap;
    if (!a.pj_by_bank_bytes.empty()) {
      out << YAML::Key << "pJ_by_bank_bytes" << YAML::Value << YAML::BeginMap;
      for (const auto& [bytes, pj] : a.pj_by_bank_bytes) out << YAML::Key << bytes << YAML::Value << pj;
      out << YAML::EndMap;
    } else if (a.watts >= 0) {
      out << YAML::Key << "W" << YAML::Value << a.watts;
    } else {
      out << YAML::Key << "pJ" << YAML::Value << a.pj;
    }
    if (!a.per.empty()) out << YAML::Key << "per" << YAML::Value << a.per;
    out << YAML::Key << "source" << YAML::Value << a.source << YAML::EndMap;
  }
  out << YAML::EndMap;
  if (!t.static_power.empty()) {
    out << YAML::Key << "static_power" << YAML::Value << YAML::BeginMap;
    for (const StaticPower& p : t.static_power)
    {
      out << YAML::Key << p.component << YAML::Value << YAML::Flow << YAML::BeginMap;
      if (p.watts_per_byte >= 0) out << YAML::Key << "W_per_byte" << YAML::Value << p.watts_per_byte;
      else if (p.watts_per_pe >= 0) out << YAML::Key << "W_per_PE" << YAML::Value << p.watts_per_pe;
      else if (p.watts_per_buffer_byte >= 0) out << YAML::Key << "W_per_buffer_byte" << YAML::Value << p.watts_per_buffer_byte;
      else out << YAML::Key << "W" << YAML::Value << p.watts;
      out << YAML::Key << "source" << YAML::Value << p.source << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace cstsim::post
