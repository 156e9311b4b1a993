#include "sim/sweep/collect.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "core/input_error.h"
#include "core/csv.h"
#include "core/text.h"
#include "sim/sweep/result_columns.h"
#include "sim/sweep/sweep_dir.h"

namespace cstsim::sweep {
namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Leaves that are explanations, paths or units, not figures.
bool skipped_key(const std::string& k) {
  return ends_with(k, "_definition") || ends_with(k, "_note") || k == "attribution_rule" || k == "unit" ||
         k == "source" || k == "lowering";
}

std::string number_text(const ordered_json& v) {
  if (v.is_number_integer()) return v.dump();
  if (v.is_number_float()) return fmt::format("{}", v.get<double>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_string()) return v.get<std::string>();
  return "";
}

struct Cell {
  std::string column, text, unit;
};

void flatten(const ordered_json& node, const std::string& prefix, std::vector<Cell>& out) {
  if (!node.is_object()) return;
  for (const auto& [k, v] : node.items()) {
    if (skipped_key(k)) continue;
    const std::string col = prefix + k;
    if (v.is_object() && v.contains("value") && v.contains("unit")) {
      out.push_back({col, number_text(v["value"]), v["unit"].is_string() ? v["unit"].get<std::string>() : ""});
    } else if (v.is_object()) {
      flatten(v, col + ".", out);
    } else if (v.is_primitive() && !v.is_null()) {
      out.push_back({col, number_text(v), ""});
    }
  }
}

// Columns of one section, in first-seen order over the tasks.
struct Section {
  std::vector<std::string> columns;
  std::set<std::string> seen;
  std::map<std::string, std::string> units;
  void add(const std::vector<Cell>& cells) {
    for (const Cell& c : cells) {
      if (seen.insert(c.column).second) columns.push_back(c.column);
      if (!c.unit.empty()) units[c.column] = c.unit;
    }
  }
};

ordered_json read_json(const fs::path& p) { return ordered_json::parse(io::read_file(p)); }

ordered_json strip(ordered_json j, const std::vector<std::string>& keys) {
  for (const std::string& k : keys) j.erase(k);
  return j;
}

}  // namespace

CollectStats collect(const fs::path& dir, bool quiet) {
  const Plan plan = load_plan(dir);
  CollectStats st;
  st.total = int(plan.tasks.size());

  struct Row {
    std::string status, error;
    std::vector<Cell> arch, total, machine, report, host;
    ordered_json json;
  };
  std::vector<Row> rows(plan.tasks.size());
  Section s_arch, s_total, s_machine, s_report, s_host;
  std::string missing_txt = "index,status,reason\n";
  std::vector<int> failed_idx, missing_idx;

  for (const Task& t : plan.tasks) {
    Row& r = rows[size_t(t.index)];
    const WorkloadVariant& v = plan.variants[size_t(t.variant)];
    const fs::path p = dirs::point(dir, t.index);
    ordered_json params = ordered_json::object();
    for (size_t k = 0; k < plan.param_keys.size(); ++k) params[plan.param_keys[k]] = t.params[k];
    r.json = {{"index", t.index}, {"status", ""}, {"workload", v.name}, {"batch", v.batch}, {"params", params},
              {"hash", t.hash}};
    if (point_done(dir, t, plan.run.trace)) {
      r.status = "done";
      try {
        const ordered_json summary = read_json(p / "summary.json");
        const ordered_json report = plan.run.trace ? read_json(p / "report.json") : ordered_json::object();
        ordered_json arch = strip(summary.value("arch", ordered_json::object()), {"source"});
        if (arch.contains("rows") && arch.contains("cols"))
          arch["pes"] = arch["rows"].get<int64_t>() * arch["cols"].get<int64_t>() * arch.value("clusters", int64_t(1));
        flatten(arch, "arch.", r.arch);
        flatten(summary.value("total", ordered_json::object()), "", r.total);
        // How the point was simulated (its interval is total's cycles_ci95 already).
        flatten(strip(summary.value("fidelity", ordered_json::object()), {"ci95_cycles"}), "fidelity.", r.total);
        flatten(report.value("machine", ordered_json::object()), "machine.", r.machine);
        // Which energy table priced the point: points priced with different tables do not compare.
        flatten(report.value("energy_table", ordered_json::object()), "energy_table.", r.machine);
        ordered_json rt = report.value("total", ordered_json::object());
        if (report.contains("V_CST_star")) rt["V_CST_star"] = report["V_CST_star"];
        flatten(rt, "", r.report);
        r.json["arch"] = arch;
        r.json["total"] = summary.value("total", ordered_json::object());
        r.json["machine"] = report.value("machine", ordered_json::object());
        r.json["report"] = rt;
      } catch (const std::exception& e) {
        throw InputError(p.string(), 0, "", std::string("cannot read the point's results (run the sweep again: a damaged point is run anew): ") + e.what());
      }
      if (fs::exists(dirs::host(dir, t.index))) {
        try {
          const ordered_json h = read_json(dirs::host(dir, t.index));
          flatten(h, "", r.host);
          r.json["host"] = h;
        } catch (const std::exception&) {
        }
      }
      ++st.done;
    } else if (fs::exists(dirs::failed(dir, t.index))) {
      r.status = "failed";
      const std::string text = io::read_file(dirs::failed(dir, t.index));
      const auto nl = text.find('\n');
      const std::string reason = text.substr(0, nl);
      std::string err = nl == std::string::npos ? "" : text.substr(nl + 1);
      while (!err.empty() && (err.back() == '\n' || err.back() == '\r')) err.pop_back();
      r.error = reason + (err.empty() ? "" : ": " + err);
      for (char& c : r.error)
        if (c == '\n' || c == '\r') c = ' ';
      missing_txt += csv::row({std::to_string(t.index), "failed", r.error});
      failed_idx.push_back(t.index);
      ++st.failed;
    } else {
      r.status = "missing";
      if (fs::exists(p / "summary.json") && summary_hash(p / "summary.json") != t.hash)
        r.error = "points/" + std::to_string(t.index) + " was written for another config (config_hash differs)";
      missing_txt += csv::row({std::to_string(t.index), "missing", r.error.empty() ? "not run" : r.error});
      missing_idx.push_back(t.index);
      ++st.missing;
    }
    r.json["status"] = r.status;
    if (!r.error.empty()) r.json["error"] = r.error;
    s_arch.add(r.arch);
    s_total.add(r.total);
    s_machine.add(r.machine);
    s_report.add(r.report);
    s_host.add(r.host);
  }

  // host_* columns last, each prefixed so comparisons can drop them.
  for (std::string& c : s_host.columns)
    if (c.rfind("host_", 0) != 0) c = "host_" + c;

  // A figure both reports carry under two names (time_s and Theta_CST.T_wall, C_P.E and
  // energy.E_gross, ...) is written once: an alias (result_columns.h) whose values equal its
  // canonical column's in every point is left out, and results.columns.csv says so.
  std::map<std::string, std::string> also;  // canonical column -> the aliases left out
  {
    auto text_of = [&](const Row& r, const Task& t, const std::string& col) -> std::optional<std::string> {
      for (size_t k = 0; k < plan.param_keys.size(); ++k)
        if (plan.param_keys[k] == col) return t.params[k];
      for (const auto* cells : {&r.arch, &r.total, &r.machine, &r.report})
        for (const Cell& c : *cells)
          if (c.column == col) return c.text;
      return std::nullopt;
    };
    auto same = [](const std::string& a, const std::string& b) {
      if (a == b) return true;
      const auto x = text::parse_double(a), y = text::parse_double(b);
      return x && y && std::fabs(*x - *y) <= 1e-9 * std::max(std::fabs(*x), std::fabs(*y));
    };
    for (Section* s : {&s_arch, &s_total, &s_report}) {
      std::vector<std::string> kept;
      for (const std::string& c : s->columns) {
        const std::string canonical = column_info(c, plan.param_keys).same_as;
        bool equal = !canonical.empty();
        for (const Task& t : plan.tasks) {
          const Row& r = rows[size_t(t.index)];
          if (!equal || r.status != "done") continue;
          const auto a = text_of(r, t, c), b = text_of(r, t, canonical);
          equal = a && b && same(*a, *b);
        }
        if (equal) also[canonical] += (also[canonical].empty() ? "" : " ") + c;
        else kept.push_back(c);
      }
      s->columns = kept;
    }
  }

  std::vector<std::string> head{"index", "status", "workload", "batch"};
  head.insert(head.end(), plan.param_keys.begin(), plan.param_keys.end());
  head.insert(head.end(), {"hash", "error"});
  std::string columns_csv = "column,unit,from,what\n";
  auto describe = [&](const std::string& c, const std::string& unit, const std::string& from) {
    const ColumnInfo info = column_info(c, plan.param_keys);
    std::string what = info.what;
    if (also.count(c)) what += (what.empty() ? "" : "; ") + std::string("also as ") + also.at(c) + " (left out)";
    columns_csv += csv::row({c, unit.empty() ? info.unit : unit, from, what});
  };
  for (const std::string& c : head) describe(c, "", "sweep");
  auto add_section = [&](const Section& s, const char* from) {
    for (const std::string& c : s.columns) {
      head.push_back(c);
      describe(c, s.units.count(c) ? s.units.at(c) : "", from);
    }
  };
  add_section(s_arch, "summary.json");
  add_section(s_total, "summary.json");
  add_section(s_machine, "report.json");
  add_section(s_report, "report.json");
  add_section(s_host, "sweep (host timing; differs between runs)");

  std::string out = csv::row(head);
  std::string jsonl;
  for (const Task& t : plan.tasks) {
    const Row& r = rows[size_t(t.index)];
    const WorkloadVariant& v = plan.variants[size_t(t.variant)];
    std::vector<std::string> f{std::to_string(t.index), r.status, v.name, std::to_string(v.batch)};
    f.insert(f.end(), t.params.begin(), t.params.end());
    f.insert(f.end(), {t.hash, r.error});
    auto put = [&](const Section& s, const std::vector<Cell>& cells) {
      std::map<std::string, const std::string*> by;
      for (const Cell& c : cells) by[c.column] = &c.text;
      for (const std::string& c : s.columns) f.push_back(by.count(c) ? *by[c] : "");
    };
    put(s_arch, r.arch);
    put(s_total, r.total);
    put(s_machine, r.machine);
    put(s_report, r.report);
    std::map<std::string, const std::string*> hb;
    for (const Cell& c : r.host) hb[c.column.rfind("host_", 0) == 0 ? c.column : "host_" + c.column] = &c.text;
    for (const std::string& c : s_host.columns) f.push_back(hb.count(c) ? *hb[c] : "");
    out += csv::row(f);
    jsonl += r.json.dump() + "\n";
  }
  io::write_file(dir / "results.csv", out);
  io::write_file(dir / "results.jsonl", jsonl);
  io::write_file(dir / "results.columns.csv", columns_csv);
  std::error_code ec;
  if (st.failed + st.missing > 0) io::write_file(dir / "missing.txt", missing_txt);
  else fs::remove(dir / "missing.txt", ec);

  if (!quiet) {
    spdlog::info("collect: {} point(s): {} done, {} failed, {} missing -> {}", st.total, st.done, st.failed, st.missing,
                 (dir / "results.csv").string());
    if (!failed_idx.empty()) spdlog::warn("collect: failed points: {} (reasons in missing.txt)", ranges(failed_idx));
    if (!missing_idx.empty()) spdlog::warn("collect: missing points: {}", ranges(missing_idx));
  }
  return st;
}

}  // namespace cstsim::sweep
