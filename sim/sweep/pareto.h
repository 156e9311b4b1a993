#pragma once
// `cstsim pareto <results.csv> --axes cycles,energy,m_peak [--quality utilization]`
//
// Dominance rule (seed 000 §140): point A dominates point B when A is no worse
// than B on every axis (every cost axis lower or equal, every quality axis
// higher or equal) and strictly better on at least one. The front is the set
// of points no point dominates. Points equal on every axis do not dominate each
// other, so ties stay on the front together. No winner is named unless one point
// dominates every other point of its group (§141).
#include <string>
#include <vector>

namespace cstsim::sweep {

struct ParetoPoint {
  std::vector<double> cost;     // minimised
  std::vector<double> quality;  // maximised
};

// True when a dominates b under the rule above.
bool dominates(const ParetoPoint& a, const ParetoPoint& b);

// For each point: -1 when on the front, else the position of the first point
// (lowest position) that dominates it.
std::vector<int> dominated_by(const std::vector<ParetoPoint>& points);

// Short axis names and the results.csv column each stands for.
const std::vector<std::pair<std::string, std::string>>& pareto_aliases();

struct ParetoOptions {
  std::string results;               // results.csv
  std::vector<std::string> axes;     // cost axes (columns or aliases)
  std::vector<std::string> quality;  // quality axes
  std::vector<std::string> by;       // group columns; empty = workload and batch when present
  bool no_groups = false;            // --by none
  std::string out;                   // pareto.csv path; "" = next to results.csv
  bool force = false;                // replace `out` even if it is not an earlier pareto.csv
};

// Prints the rule and each group's front, writes pareto.csv. Throws InputError.
void pareto_report(const ParetoOptions& options);

}  // namespace cstsim::sweep
