#include "sim/sweep/pareto.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "core/input_error.h"
#include "core/text.h"
#include "core/csv.h"
#include "sim/sweep/sweep_dir.h"

namespace cstsim::sweep {
namespace fs = std::filesystem;

bool dominates(const ParetoPoint& a, const ParetoPoint& b) {
  bool strictly = false;
  for (size_t i = 0; i < a.cost.size(); ++i) {
    if (a.cost[i] > b.cost[i]) return false;
    strictly |= a.cost[i] < b.cost[i];
  }
  for (size_t i = 0; i < a.quality.size(); ++i) {
    if (a.quality[i] < b.quality[i]) return false;
    strictly |= a.quality[i] > b.quality[i];
  }
  return strictly;
}

std::vector<int> dominated_by(const std::vector<ParetoPoint>& pts) {
  std::vector<int> out(pts.size(), -1);
  for (size_t b = 0; b < pts.size(); ++b)
    for (size_t a = 0; a < pts.size(); ++a)
      if (a != b && dominates(pts[a], pts[b])) {
        out[b] = int(a);
        break;
      }
  return out;
}

const std::vector<std::pair<std::string, std::string>>& pareto_aliases() {
  static const std::vector<std::pair<std::string, std::string>> a = {
      {"cycles", "cycles"},
      {"time", "Theta_CST.T_wall"},
      {"energy", "energy.E_gross"},
      {"e_marg", "energy.E_marg"},
      {"m_peak", "Theta_CST.M_peak.total"},
      {"b_peak", "Theta_CST.B_peak"},
      {"d_peak", "Theta_CST.D_peak"},
      {"n_peak", "H_peak.N_peak"},
      {"v_c", "V_CST.V_C.PE_s"},
      {"v_n", "V_CST.V_N"},
      {"stalls", "stall_cycles"},
      {"pes", "arch.pes"},
      {"utilization", "utilization"},
      {"u_c", "roofline.u_C"},
      {"u_m", "roofline.u_M"},
  };
  return a;
}

namespace {

std::string alias_hint() {
  std::string out;
  for (const auto& [k, v] : pareto_aliases()) out += (out.empty() ? "" : ", ") + k + "=" + v;
  return out;
}

}  // namespace

void pareto_report(const ParetoOptions& o) {
  const std::string& R = o.results;
  const fs::path out = o.out.empty() ? fs::path(R).parent_path() / "pareto.csv" : fs::path(o.out);
  io::check_replaceable(out, "--out", o.force,
                        [](std::string_view head) {
                          const std::string_view line = head.substr(0, head.find('\n') + 1);
                          return line.rfind("index,", 0) == 0 && line.find(",front,dominated_by,dominates") != line.npos;
                        },
                        "a pareto.csv written by cstsim pareto");
  if (o.axes.empty() && o.quality.empty()) throw InputError("--axes", 0, "", "name at least one axis");
  if (!fs::is_regular_file(R)) throw InputError(R, 0, "", "cannot open file");
  std::vector<std::vector<std::string>> rows;
  int bad = 0;
  if (!csv::parse(io::read_file(R), rows, &bad)) throw InputError(R, bad, "", "unterminated quoted field");
  if (rows.empty()) throw InputError(R, 0, "", "empty file (expected a header row)");
  const std::vector<std::string>& head = rows[0];
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < head.size(); ++i) col.emplace(head[i], i);
  auto resolve = [&](const std::string& name, const char* opt) -> size_t {
    const std::string n(text::trim(name));
    if (col.count(n)) return col[n];
    for (const auto& [alias, column] : pareto_aliases())
      if (alias == n && col.count(column)) return col[column];
    throw InputError(R, 1, opt, fmt::format("no column '{}' in the header (aliases: {})", n, alias_hint()));
  };
  std::vector<size_t> cost_cols, quality_cols, group_cols;
  for (const std::string& a : o.axes) cost_cols.push_back(resolve(a, "--axes"));
  for (const std::string& a : o.quality) quality_cols.push_back(resolve(a, "--quality"));
  {
    std::vector<size_t> all = cost_cols;
    all.insert(all.end(), quality_cols.begin(), quality_cols.end());
    std::sort(all.begin(), all.end());
    if (std::adjacent_find(all.begin(), all.end()) != all.end())
      throw InputError(R, 1, "--axes", "an axis is named twice");
  }
  if (!o.no_groups) {
    if (!o.by.empty()) {
      for (const std::string& b : o.by) group_cols.push_back(resolve(b, "--by"));
    } else {
      for (const char* b : {"workload", "batch"})
        if (col.count(b)) group_cols.push_back(col[b]);
    }
  }
  // Parameters to show: the columns between batch and hash (results.csv), if present.
  std::vector<size_t> param_cols;
  if (col.count("batch") && col.count("hash"))
    for (size_t i = col["batch"] + 1; i < col["hash"]; ++i) param_cols.push_back(i);
  const bool has_index = col.count("index") > 0, has_status = col.count("status") > 0;

  struct Entry {
    size_t row;
    std::string index;
    ParetoPoint p;
  };
  std::vector<std::string> group_order;
  std::map<std::string, std::vector<Entry>> groups;
  int skipped = 0;
  for (size_t r = 1; r < rows.size(); ++r) {
    const auto& f = rows[r];
    if (f.size() != head.size())
      throw InputError(R, int(r + 1), "", fmt::format("{} fields, the header has {}", f.size(), head.size()));
    if (has_status && f[col["status"]] != "done") {
      ++skipped;
      continue;
    }
    Entry e{r, has_index ? f[col["index"]] : std::to_string(r - 1), {}};
    bool ok = true;
    for (size_t c : cost_cols) {
      const auto v = text::parse_double(f[c]);
      if (!v) ok = false;
      e.p.cost.push_back(v.value_or(0));
    }
    for (size_t c : quality_cols) {
      const auto v = text::parse_double(f[c]);
      if (!v) ok = false;
      e.p.quality.push_back(v.value_or(0));
    }
    if (!ok) {
      ++skipped;
      continue;
    }
    std::string g;
    for (size_t c : group_cols) g += (g.empty() ? "" : " ") + head[c] + "=" + f[c];
    if (!groups.count(g)) group_order.push_back(g);
    groups[g].push_back(std::move(e));
  }

  std::string axes_text;
  for (size_t c : cost_cols) axes_text += (axes_text.empty() ? "" : ", ") + head[c] + " (lower is better)";
  for (size_t c : quality_cols) axes_text += (axes_text.empty() ? "" : ", ") + head[c] + " (higher is better)";
  std::cout << "Pareto front of " << R << " over " << axes_text << "\n";
  std::cout << "Rule (seed 000 §140): point A dominates point B when A is no worse than B on every axis (cost axes "
               "lower or equal, quality axes higher or equal) and strictly better on at least one. A point is on the "
               "front when no point of its group dominates it; points equal on every axis do not dominate each other "
               "and stay on the front together. No winner is named unless one point dominates all others.\n";
  if (!group_cols.empty()) {
    std::string g;
    for (size_t c : group_cols) g += (g.empty() ? "" : ", ") + head[c];
    std::cout << "Points are compared only within a group of equal " << g << " (--by none compares all).\n";
  }
  if (skipped) std::cout << skipped << " row(s) left out: status not done or an axis value missing.\n";

  std::vector<std::string> out_head{"index"};
  for (size_t c : group_cols) out_head.push_back(head[c]);
  for (size_t c : param_cols)
    if (std::find(group_cols.begin(), group_cols.end(), c) == group_cols.end()) out_head.push_back(head[c]);
  for (size_t c : cost_cols) out_head.push_back(head[c]);
  for (size_t c : quality_cols) out_head.push_back(head[c]);
  out_head.insert(out_head.end(), {"front", "dominated_by", "dominates"});
  std::string out_csv = csv::row(out_head);

  for (const std::string& g : group_order) {
    const std::vector<Entry>& es = groups[g];
    std::vector<ParetoPoint> pts;
    for (const Entry& e : es) pts.push_back(e.p);
    const std::vector<int> by = dominated_by(pts);
    std::vector<int> dominates_count(es.size(), 0);
    for (size_t a = 0; a < es.size(); ++a)
      for (size_t b = 0; b < es.size(); ++b)
        if (a != b && dominates(pts[a], pts[b])) ++dominates_count[a];
    std::vector<size_t> front;
    for (size_t i = 0; i < es.size(); ++i)
      if (by[i] < 0) front.push_back(i);

    std::cout << "\n" << (g.empty() ? "all points" : "group " + g) << ": " << es.size() << " point(s), " << front.size()
              << " on the front\n";
    // Table of the front.
    std::vector<std::string> th{"index"};
    for (size_t c : param_cols)
      if (std::find(group_cols.begin(), group_cols.end(), c) == group_cols.end()) th.push_back(head[c]);
    for (size_t c : cost_cols) th.push_back(head[c]);
    for (size_t c : quality_cols) th.push_back(head[c]);
    th.push_back("dominates");
    std::vector<std::vector<std::string>> table{th};
    for (size_t i : front) {
      const auto& f = rows[es[i].row];
      std::vector<std::string> tr{es[i].index};
      for (size_t c : param_cols)
        if (std::find(group_cols.begin(), group_cols.end(), c) == group_cols.end()) tr.push_back(f[c]);
      for (double v : es[i].p.cost) tr.push_back(fmt::format("{:.6g}", v));
      for (double v : es[i].p.quality) tr.push_back(fmt::format("{:.6g}", v));
      tr.push_back(std::to_string(dominates_count[i]));
      table.push_back(tr);
    }
    std::vector<size_t> width(th.size(), 0);
    for (const auto& tr : table)
      for (size_t k = 0; k < tr.size(); ++k) width[k] = std::max(width[k], tr[k].size());
    for (const auto& tr : table) {
      std::string line = " ";
      for (size_t k = 0; k < tr.size(); ++k) line += " " + std::string(width[k] - tr[k].size(), ' ') + tr[k];
      std::cout << line << "\n";
    }
    if (es.size() == 1) {
      std::cout << "  only one point in this group: nothing to compare it with\n";
    } else if (front.size() == 1) {
      std::cout << "  single winner: point " << es[front[0]].index << " dominates every other point of the group\n";
    } else {
      bool all_equal = true;
      for (size_t i : front) {
        const ParetoPoint& a = es[front[0]].p;
        all_equal &= es[i].p.cost == a.cost && es[i].p.quality == a.quality;
      }
      if (all_equal)
        std::cout << "  no single winner: " << front.size() << " points tie on every axis\n";
      else
        std::cout << "  no single winner: " << front.size()
                  << " points trade the axes off against each other; which to choose depends on the deployment "
                     "objective (seed 000 §141-143)\n";
    }
    for (size_t i = 0; i < es.size(); ++i) {
      const auto& f = rows[es[i].row];
      std::vector<std::string> r{es[i].index};
      for (size_t c : group_cols) r.push_back(f[c]);
      for (size_t c : param_cols)
        if (std::find(group_cols.begin(), group_cols.end(), c) == group_cols.end()) r.push_back(f[c]);
      for (size_t c : cost_cols) r.push_back(f[c]);
      for (size_t c : quality_cols) r.push_back(f[c]);
      r.push_back(by[i] < 0 ? "1" : "0");
      r.push_back(by[i] < 0 ? "" : es[size_t(by[i])].index);
      r.push_back(std::to_string(dominates_count[i]));
      out_csv += csv::row(r);
    }
  }
  if (group_order.empty()) std::cout << "\nno point to compare\n";
  if (out.has_parent_path()) fs::create_directories(out.parent_path());
  io::write_file(out, out_csv);
  std::cout << "\nwrote " << out.string() << "\n";
}

}  // namespace cstsim::sweep
